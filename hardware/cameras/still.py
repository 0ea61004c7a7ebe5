"""One still image as a `FrameSource`: for calibrating from a photo or a saved frame."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2

from hardware.frames import Frame
from rules.errors import CameraError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class StillImageSource:
    """A single image file, yielded once as frame 0 at ``time``.

    Raises:
        CameraError: the file is missing or not an image OpenCV can read.
    """

    def __init__(self, path: str | Path, time: float = 0.0) -> None:
        self.path = Path(path)
        self.time = time
        if not self.path.is_file():
            raise CameraError(f"image file not found: {self.path}")
        image = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"cannot read image {self.path}: not an image OpenCV can decode")
        self._image = image

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the image."""
        return (self._image.shape[1], self._image.shape[0])

    @property
    def fps(self) -> float:
        """A still has no frame rate."""
        return 0.0

    def __iter__(self) -> Iterator[Frame]:
        """The one frame."""
        yield Frame(0, self.time, self._image)

    def close(self) -> None:
        """Nothing to release."""
