"""Open any SOURCE the command line names as one `FrameSource`.

SOURCE is a still image, a video file, a railbird recording folder, or a live camera (a device
index such as ``0``, a device path such as ``/dev/video0``, or an ``rtsp://`` / ``http://`` URL).
"""

from __future__ import annotations

from pathlib import Path

from hardware.cameras.config import CameraConfig
from hardware.cameras.still import IMAGE_SUFFIXES, StillImageSource
from hardware.clock import Clock, MonotonicClock
from hardware.frames import Frame, FrameSource
from railbird.recording import RecordingReader
from rules.errors import CameraError

_STREAM_PREFIXES = ("rtsp://", "http://", "https://")


def open_source(spec: str, clock: Clock | None = None) -> FrameSource:
    """The frame source ``spec`` names.

    Raises:
        CameraError: nothing usable at ``spec`` (the message says what was tried).
        RecordError: a folder that is not a readable recording.
    """
    path = Path(spec)
    if spec.isdigit() or spec.startswith(_STREAM_PREFIXES) or spec.startswith("/dev/video"):
        from hardware.cameras.live import CameraSource

        source = int(spec) if spec.isdigit() else spec
        return CameraSource(CameraConfig(source=source), clock or MonotonicClock())
    if path.is_dir():
        return RecordingReader(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return StillImageSource(path)
    if path.exists():
        from hardware.cameras.video_file import VideoFileSource

        return VideoFileSource(path)
    raise CameraError(
        f"source {spec!r}: no such file or folder, and not a camera index, /dev/video path or "
        "stream URL"
    )


def first_frame(source: FrameSource, where: str, skip: int = 0) -> Frame:
    """Frame number ``skip`` of a source (the first by default), the source closed after.

    Raises:
        CameraError: the source ends before that frame.
    """
    try:
        for count, frame in enumerate(source):
            if count >= skip:
                return frame
    finally:
        source.close()
    raise CameraError(f"{where}: no frame {skip} to read")
