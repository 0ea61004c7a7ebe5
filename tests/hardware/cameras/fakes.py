"""A scripted stand-in for `cv2.VideoCapture`, so camera tests need no device."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import cv2
import numpy as np

from hardware.cameras import CameraConfig
from hardware.clock import Clock

# One read of a script: "ok" a frame; "fail" no frame; "raise" a driver error; "gray" a
# single-channel frame; "bad" a frame of the wrong shape; ("gap", n) n frames lost, then one;
# ("skip", n) the device numbers the frame n further on (lost on the device, on time here);
# ("late", n) the next frame in sequence, n intervals late; ("stall", n) no frame after n
# frame intervals; ("block", event) hang until the event is set, then no frame.
Step = str | tuple[str, Any]


class FakeCapture:
    """Plays a script of reads; each read takes one frame interval on ``clock``."""

    def __init__(
        self,
        clock: Clock,
        script: Iterable[Step],
        fps: float = 30.0,
        size=(32, 24),
        numbered: bool = False,
    ) -> None:
        self._clock = clock
        self._script = list(script)
        self._fps = fps
        self._size = size
        self.reads = 0
        self.released = False
        self._numbered = numbered
        self._sequence = 0

    def isOpened(self) -> bool:
        return not self.released

    def get(self, prop_id: int) -> float:
        if prop_id == cv2.CAP_PROP_FPS:
            return self._fps
        if prop_id == cv2.CAP_PROP_FRAME_WIDTH:
            return float(self._size[0])
        if prop_id == cv2.CAP_PROP_FRAME_HEIGHT:
            return float(self._size[1])
        if prop_id == cv2.CAP_PROP_POS_FRAMES and self._numbered:
            return float(self._sequence)
        return 0.0

    def release(self) -> None:
        self.released = True

    def read(self) -> tuple[bool, Any]:
        self._clock.sleep(1.0 / self._fps)
        step = self._script.pop(0) if self._script else "fail"
        self.reads += 1
        self._sequence += 1
        width, height = self._size
        image = np.full((height, width, 3), self.reads % 256, np.uint8)
        match step:
            case "ok":
                return True, image
            case "fail":
                return False, None
            case "raise":
                raise cv2.error("device unplugged")
            case "gray":
                return True, image[:, :, 0].copy()
            case "bad":
                return True, np.zeros((height, width, 4), np.uint8)
            case ("skip", int(lost)):
                self._sequence += lost
                return True, image
            case ("late", int(intervals)):
                self._clock.sleep(intervals / self._fps)
                return True, image
            case ("gap", int(lost)):
                self._clock.sleep(lost / self._fps)
                return True, image
            case ("stall", int(intervals)):
                self._clock.sleep(intervals / self._fps)
                return False, None
            case ("block", threading.Event() as event):
                event.wait(5.0)
                return False, None
        raise AssertionError(f"unknown script step {step!r}")


class FakeCamera:
    """A capture factory: each open plays the next session (``None``: the open fails)."""

    def __init__(
        self,
        clock: Clock,
        sessions: Iterable[list[Step] | None],
        fps: float = 30.0,
        numbered: bool = False,
    ) -> None:
        self._clock = clock
        self._sessions = list(sessions)
        self._fps = fps
        self._numbered = numbered
        self.opens = 0
        self.captures: list[FakeCapture] = []

    def __call__(self, config: CameraConfig) -> FakeCapture:
        self.opens += 1
        script = self._sessions.pop(0) if self._sessions else None
        capture = FakeCapture(self._clock, script or [], self._fps, numbered=self._numbered)
        if script is None:
            capture.released = True  # reports not opened
        self.captures.append(capture)
        return capture
