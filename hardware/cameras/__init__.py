"""Cameras: `FrameSource`s for a live camera, a video file and a still image; `[camera]` config.

Names are loaded on first use, so reading the config (`hardware.cameras.config`) never pulls in
OpenCV; the live and file sources do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hardware.cameras.config import CameraConfig
    from hardware.cameras.live import CameraHealth, CameraSource, CameraStatus, Capture
    from hardware.cameras.still import StillImageSource
    from hardware.cameras.timing import FrameTiming
    from hardware.cameras.video_file import VideoFileSource

_HOMES = {
    "CameraConfig": "config",
    "CameraHealth": "live",
    "CameraSource": "live",
    "CameraStatus": "live",
    "Capture": "live",
    "FrameTiming": "timing",
    "StillImageSource": "still",
    "VideoFileSource": "video_file",
}

__all__ = [
    "CameraConfig",
    "CameraHealth",
    "CameraSource",
    "CameraStatus",
    "Capture",
    "FrameTiming",
    "StillImageSource",
    "VideoFileSource",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
