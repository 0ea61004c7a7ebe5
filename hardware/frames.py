"""One `FrameSource` protocol for cameras, video files, recordings and the virtual table."""

from __future__ import annotations

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
