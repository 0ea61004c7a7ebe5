"""The review's video writer: frames in, an H.264 MP4 out, and no ffmpeg left behind."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from railbird.review import encoder
from railbird.review.encoder import VideoFile
from rules.errors import RecordError

SIZE = (64, 48)


def _frames(n: int, size: tuple[int, int] = SIZE, seed: int = 3) -> list[np.ndarray]:
    """Frames with a bright square moving right over a noisy background (what x264 must keep)."""
    rng = np.random.default_rng(seed)
    width, height = size
    out = []
    for k in range(n):
        image = rng.integers(60, 80, (height, width, 3), dtype=np.uint8)
        image[10:26, 2 + 2 * k : 18 + 2 * k] = (40, 200, 250)
        out.append(image)
    return out


def _read(path: Path) -> tuple[list[np.ndarray], float, str]:
    capture = cv2.VideoCapture(str(path))
    assert capture.isOpened(), f"OpenCV cannot open {path}"
    fourcc = int(capture.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little").decode("ascii", "replace")
    fps = capture.get(cv2.CAP_PROP_FPS)
    frames = []
    while True:
        ok, image = capture.read()
        if not ok:
            break
        frames.append(image)
    capture.release()
    return frames, fps, fourcc


@pytest.mark.parametrize("fps", [60.0, 2.5, 30000 / 1001])
def test_every_frame_written_is_in_the_mp4_at_the_rate_given(tmp_path: Path, fps: float) -> None:
    frames = _frames(12)
    path = tmp_path / "v.mp4"
    with VideoFile(path, fps, SIZE) as video:
        for image in frames:
            video.write(image)
    assert video.finished and video.frames == 12
    assert path.read_bytes()[4:8] == b"ftyp"  # an MP4, whatever the name
    written, got_fps, fourcc = _read(path)
    assert fourcc.lower() in ("avc1", "h264")
    assert len(written) == 12 and got_fps == pytest.approx(fps, rel=1e-4)
    assert written[0].shape == (SIZE[1], SIZE[0], 3)
    # Lossy but faithful: the moving square is where it was drawn, in its colour.
    for image, sent in zip(written, frames, strict=True):
        assert np.abs(image.astype(int) - sent.astype(int)).mean() < 6


def test_the_mp4_is_an_mp4_even_under_another_name(tmp_path: Path) -> None:
    path = tmp_path / "v.webm"
    with VideoFile(path, 10.0, SIZE) as video:
        video.write(_frames(1)[0])
    assert path.read_bytes()[4:8] == b"ftyp"


def test_the_index_is_at_the_front_so_a_browser_seeks_before_the_whole_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v.mp4"
    with VideoFile(path, 10.0, SIZE) as video:
        for image in _frames(5):
            video.write(image)
    data = path.read_bytes()
    assert 0 <= data.find(b"moov") < data.find(b"mdat")


def test_an_odd_sized_recording_is_padded_to_even_sides(tmp_path: Path) -> None:
    size = (63, 47)
    path = tmp_path / "odd.mp4"
    with VideoFile(path, 10.0, size) as video:
        for image in _frames(4, size):
            video.write(image)
    written, _, _ = _read(path)
    assert len(written) == 4 and written[0].shape == (48, 64, 3)


def test_a_frame_of_another_size_is_refused_and_ffmpeg_stopped(tmp_path: Path) -> None:
    video = VideoFile(tmp_path / "v.mp4", 10.0, SIZE)
    video.write(_frames(1)[0])
    with pytest.raises(RecordError, match=r"v\.mp4: frame 1 is 32x48x3 uint8, .* takes 64x48"):
        video.write(np.zeros((48, 32, 3), np.uint8))
    assert video.finished


def test_an_unwritable_file_is_a_record_error_quoting_ffmpeg(tmp_path: Path) -> None:
    path = tmp_path / "no-such-folder" / "v.mp4"
    video = VideoFile(path, 10.0, SIZE)
    missing = r"no-such-folder/v\.mp4: .*No such file or directory"
    with pytest.raises(RecordError, match=missing), video:
        for image in _frames(40):
            video.write(image)
    assert video.finished


def test_ffmpeg_dying_midway_is_a_record_error_and_no_zombie(tmp_path: Path) -> None:
    video = VideoFile(tmp_path / "v.mp4", 10.0, SIZE)
    video.write(_frames(1)[0])
    video._process.kill()  # as if it crashed
    video._process.wait()
    with pytest.raises(RecordError, match=r"v\.mp4: ffmpeg stopped at frame 1"):
        for image in _frames(200):  # a pipe takes a few frames before it breaks
            video.write(image)
    assert video.finished


def test_an_error_inside_the_block_stops_ffmpeg_without_hiding_the_error(tmp_path: Path) -> None:
    video = VideoFile(tmp_path / "v.mp4", 10.0, SIZE)
    with pytest.raises(KeyError, match="drawing failed"), video:
        video.write(_frames(1)[0])
        raise KeyError("drawing failed")
    assert video.finished
    video.abort()  # again: nothing left to do, and no error
    video.close()


def test_missing_ffmpeg_is_a_record_error_that_says_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(encoder, "ffmpeg_exe", lambda: str(tmp_path / "ffmpeg-gone"))
    with pytest.raises(RecordError, match=r"v\.mp4: cannot start ffmpeg .*ffmpeg-gone"):
        VideoFile(tmp_path / "v.mp4", 10.0, SIZE)


@pytest.mark.parametrize(
    ("fps", "size", "what"),
    [(0.0, SIZE, "frame rate above 0"), (10.0, (0, 48), "at least 1x1")],
)
def test_a_video_without_frames_or_rate_is_refused(
    tmp_path: Path, fps: float, size: tuple[int, int], what: str
) -> None:
    with pytest.raises(RecordError, match=what):
        VideoFile(tmp_path / "v.mp4", fps, size)
