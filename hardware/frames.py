"""One `FrameSource` protocol for cameras, video files, recordings and the virtual table."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass(frozen=True, slots=True)
class Frame:
    """One image with its place in time.

    Attributes:
        index: Frame number from the source's start (gaps mean dropped frames).
        time: Session-clock seconds, stamped when the frame arrived (or, for a recording or the
            virtual table, the session time it was captured at).
        image: H x W x 3 uint8, BGR (OpenCV order).
    """

    index: int
    time: float
    image: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        img = self.image
        if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise ValueError(
                f"frame {self.index}: expected an HxWx3 uint8 image, got {img.shape} {img.dtype}"
            )

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return (self.image.shape[1], self.image.shape[0])


class FrameSource(Protocol):
    """Anything that yields frames: a camera, a video file, a recording, the virtual table.

    Iterating yields frames until the source ends; a live camera never ends on its own and
    reports faults through `CameraError` or its status rather than blocking forever.
    """

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames."""
        ...

    @property
    def fps(self) -> float:
        """Nominal (or measured) frames per second."""
        ...

    def __iter__(self) -> Iterator[Frame]:
        """Frames in order."""
        ...

    def close(self) -> None:
        """Release the device or file; idempotent."""
        ...


class LatestFrame:
    """A one-frame slot between a producer and a slower consumer: put replaces (the replaced
    frame is counted as dropped), take waits with a timeout. Nothing queues without bound."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._closed = False
        self.replaced = 0

    def put(self, frame: Frame) -> None:
        """Offer the newest frame, replacing one not yet taken."""
        with self._cond:
            if self._frame is not None:
                self.replaced += 1
            self._frame = frame
            self._cond.notify_all()

    def take(self, timeout_s: float) -> Frame | None:
        """The newest frame, waiting at most ``timeout_s``; None if none came or closed."""
        with self._cond:
            self._cond.wait_for(lambda: self._frame is not None or self._closed, timeout_s)
            frame, self._frame = self._frame, None
            return frame

    @property
    def closed(self) -> bool:
        """True once the producer has finished."""
        with self._cond:
            return self._closed and self._frame is None

    def close(self) -> None:
        """No more frames will come."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
