from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.cameras import VideoFileSource
from rules.errors import CameraError

FRAMES = 20
FPS = 60.0
SIZE = (64, 48)
# What opencv-python's FFMPEG build writes here (no H.264 encoder ships with it).
CODECS = [("MJPG", "avi"), ("mp4v", "mp4")]


def _write_clip(path: Path, fourcc: str, frames: int = FRAMES) -> list[int]:
    """A clip whose frame i is grey level 10 + 10 i under fine noise; returns the levels.

    The noise makes the frames, not the container's header and index, most of the file, so
    cutting or corrupting the middle of the file hits frame data.
    """
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), FPS, SIZE)
    assert writer.isOpened(), f"OpenCV cannot write {fourcc} into {path.suffix}"
    rng = np.random.default_rng(1)
    levels = [10 + 10 * i for i in range(frames)]
    for level in levels:
        noise = rng.integers(-8, 9, (SIZE[1], SIZE[0], 3))
        writer.write((level + noise).astype(np.uint8))
    writer.release()
    return levels


@pytest.fixture(params=CODECS, ids=[c for c, _ in CODECS])
def clip(request, tmp_path: Path) -> tuple[Path, list[int]]:
    fourcc, ext = request.param
    path = tmp_path / f"clip.{ext}"
    return path, _write_clip(path, fourcc)


def test_every_frame_comes_in_order_at_its_file_time_on_the_session_clock(clip) -> None:
    path, levels = clip
    source = VideoFileSource(path, start_s=12.5)
    assert source.size == SIZE and source.fps == pytest.approx(FPS)
    frames = list(source)
    assert [f.index for f in frames] == list(range(FRAMES))
    assert [f.time for f in frames] == pytest.approx([12.5 + i / FPS for i in range(FRAMES)])
    means = [float(f.image.mean()) for f in frames]
    assert means == pytest.approx(levels, abs=4)  # lossy codecs, flat frames
    assert source.frames_read == FRAMES and not source.truncated


def test_iterating_again_reads_the_file_from_the_start(clip) -> None:
    path, _ = clip
    source = VideoFileSource(path)
    first = [f.time for f in source]
    again = [f.time for f in source]
    assert first == again and len(first) == FRAMES


def test_a_missing_file_is_a_camera_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.mp4"
    with pytest.raises(CameraError, match=r"video file not found: .*nowhere\.mp4"):
        VideoFileSource(missing)


def test_a_directory_is_not_a_video_file(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="is not a file"):
        VideoFileSource(tmp_path)


@pytest.mark.parametrize("content", [b"", b"not a video at all" * 100])
def test_a_file_that_is_not_a_video_is_a_camera_error_naming_it(tmp_path: Path, content) -> None:
    path = tmp_path / "garbage.avi"
    path.write_bytes(content)
    with pytest.raises(CameraError, match=r"cannot open video file .*garbage\.avi"):
        VideoFileSource(path)


def test_a_truncated_stream_ends_cleanly_with_a_warning_and_a_count(tmp_path: Path, caplog) -> None:
    path = tmp_path / "clip.avi"
    _write_clip(path, "MJPG")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    source = VideoFileSource(path)
    with caplog.at_level(logging.WARNING, logger="hardware.cameras.video_file"):
        frames = list(source)
    assert 0 < len(frames) < FRAMES
    assert source.truncated and source.frames_read == len(frames)
    assert f"{len(frames)} of {FRAMES} frames read" in caplog.text
    assert "clip.avi" in caplog.text


@pytest.mark.parametrize(("fourcc", "ext"), CODECS)
def test_garbage_inside_the_stream_never_crashes(tmp_path: Path, fourcc, ext) -> None:
    path = tmp_path / f"clip.{ext}"
    _write_clip(path, fourcc)
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(3)
    start = len(data) * 2 // 5  # inside the frame data of both containers
    data[start : start + 200] = rng.integers(0, 256, 200, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))
    source = VideoFileSource(path)
    frames = list(source)
    assert source.frames_read == len(frames) <= FRAMES
    assert all(f.image.shape == (SIZE[1], SIZE[0], 3) for f in frames)
    assert source.truncated == (len(frames) < FRAMES)
