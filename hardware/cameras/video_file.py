"""A video file as a `FrameSource`, its timestamps mapped onto the session clock.

The file's own presentation times (``CAP_PROP_POS_MSEC``) place each frame; the first frame sits
at ``start_s`` on the session clock, so a recording replays at the times it was captured. A file
that cannot be opened is a `CameraError` naming it; a stream that breaks off (truncated, corrupt)
ends the iteration cleanly with a warning saying how many frames were read of how many expected.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from hardware.frames import Frame
from rules.errors import CameraError

log = logging.getLogger(__name__)


class VideoFileSource:
    """Frames of a video file, in order, with session times from the file's timestamps.

    Args:
        path: The video file.
        start_s: Session time of the file's first frame.

    Raises:
        CameraError: the file is missing, unreadable, or not a video OpenCV can decode.
    """

    def __init__(self, path: str | Path, start_s: float = 0.0) -> None:
        self.path = Path(path)
        self.start_s = start_s
        self.frames_read = 0
        self.truncated = False
        capture = self._open()
        try:
            width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
            height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
            self._fps = float(capture.get(cv2.CAP_PROP_FPS))
            count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        finally:
            capture.release()
        self._size = (width, height)
        self.expected_frames: int | None = count if count > 0 else None
        self._capture: cv2.VideoCapture | None = None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) the file declares."""
        return self._size

    @property
    def fps(self) -> float:
        """The file's nominal frame rate (0 if it declares none)."""
        return self._fps if self._fps > 0 else 0.0

    def __iter__(self) -> Iterator[Frame]:
        """Frames from the start of the file; each iteration reads the file anew."""
        self.close()
        capture = self._capture = self._open()
        self.frames_read = 0
        self.truncated = False
        first_ms: float | None = None
        last_time: float | None = None
        try:
            while True:
                try:
                    ok, image = capture.read()
                    pos_ms = float(capture.get(cv2.CAP_PROP_POS_MSEC))
                except cv2.error as exc:
                    self._end_early(f"decoder error: {exc}")
                    return
                if not ok:
                    self._check_complete()
                    return
                if not _is_bgr(image):
                    self._end_early(f"frame {self.frames_read} is not a BGR image")
                    return
                if first_ms is None:
                    first_ms = pos_ms
                time = self.start_s + (pos_ms - first_ms) / 1000.0
                if last_time is not None and not time > last_time:
                    # A stream without usable timestamps: fall back to the nominal rate.
                    time = last_time + (1.0 / self._fps if self._fps > 0 else 1.0 / 30.0)
                last_time = time
                frame = Frame(index=self.frames_read, time=time, image=image)
                self.frames_read += 1
                yield frame
        finally:
            self.close()

    def close(self) -> None:
        """Release the file; idempotent."""
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()

    def _open(self) -> cv2.VideoCapture:
        if not self.path.exists():
            raise CameraError(f"video file not found: {self.path}")
        if not self.path.is_file():
            raise CameraError(f"video file {self.path} is not a file")
        try:
            with self.path.open("rb") as f:
                f.read(1)
        except OSError as exc:
            raise CameraError(f"cannot read video file {self.path}: {exc}") from exc
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"cannot open video file {self.path}: not a video OpenCV can decode")
        return capture

    def _check_complete(self) -> None:
        expected = self.expected_frames
        if expected is not None and self.frames_read < expected:
            self._end_early(f"the stream ended at frame {self.frames_read}")
        else:
            log.debug("%s: %d frames read", self.path, self.frames_read)

    def _end_early(self, why: str) -> None:
        self.truncated = True
        expected = self.expected_frames if self.expected_frames is not None else "?"
        read = self.frames_read
        log.warning("%s: %s; %d of %s frames read, rest skipped", self.path, why, read, expected)


def _is_bgr(image: object) -> bool:
    return (
        isinstance(image, np.ndarray)
        and image.ndim == 3
        and image.shape[2] == 3
        and image.dtype == np.uint8
    )
