"""Cameras: `FrameSource`s for a live camera and a video file, and the `[camera]` config section.

Importing this package pulls in OpenCV (the live and file sources need it); the rest of
`hardware` does not.
"""

from hardware.cameras.config import CameraConfig
from hardware.cameras.live import CameraHealth, CameraSource, CameraStatus, Capture
from hardware.cameras.timing import FrameTiming
from hardware.cameras.video_file import VideoFileSource

__all__ = [
    "CameraConfig",
    "CameraHealth",
    "CameraSource",
    "CameraStatus",
    "Capture",
    "FrameTiming",
    "VideoFileSource",
]
