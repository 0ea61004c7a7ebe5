"""The annotated video and the slow-motion excerpts, on hand-made frames over the recorded rig."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.file import load
from hardware.frames import Frame
from railbird.recording import RecordingReader
from railbird.review.annotate import SLOW_FACTOR, Annotator, annotate
from railbird.review.model import Flag, VideoClock, VideoGap
from rules.errors import RecordError
from rules.shot import DoubleHitEvidence, Layout
from rules.table import CushionId, PocketId
from tests.factories import ShotBuilder, break_shot
from tests.railbird.review.matches import frame_times, reviewed, straight_paths

pytestmark = pytest.mark.slow  # the calibration comes from the recorded virtual table

FPS = 10.0


def _read(path: Path) -> tuple[list[np.ndarray], float]:
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, image = capture.read()
        if not ok:
            break
        frames.append(image)
    fps = capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    return frames, fps


def test_every_frame_is_annotated_and_a_double_hit_gets_a_slow_motion_excerpt_rule_2_20(
    recording: Path, tmp_path: Path
) -> None:
    reader = RecordingReader(recording)
    calibration = load(recording / "calibration.json", image_size=reader.size)
    start = Layout.of({"cue": (-300.0, 0.0), "1": (-240.0, 0.0)})
    evidence = DoubleHitEvidence("1", gap_at_strike_mm=3.0, travel_after_contact_mm=60.0)
    double = (
        ShotBuilder(index=1, at_strike=start)
        .strike(t=2.0)
        .hit("1", t=2.5)
        .cushion("1", CushionId.FOOT, t=3.0)
        .pocket("1", PocketId.FOOT_LEFT, t=3.3)
        .build(end_time=3.8, double_hit=evidence)
    )
    shots = reviewed(
        tmp_path / "replay", [break_shot(0, pocket=(("2", PocketId.FOOT_LEFT),)), double]
    )
    assert shots[1].flags == (Flag.DOUBLE_HIT,)
    times = frame_times(40, FPS)
    paths = straight_paths(
        {"cue": ((-300.0, 0.0), (200.0, 0.0)), "1": ((-240.0, 0.0), (1270.0, 635.0))},
        np.array([t.time for t in times]),
        gone_after={"1": 3.3},
    )
    gap = VideoGap(30, 34, times[30].time, times[34].time)
    annotator = Annotator(calibration, shots, paths, [gap])
    grey = np.full((reader.size[1], reader.size[0], 3), 90, np.uint8)
    frames = [Frame(t.index, t.time, grey) for t in times if not 30 <= t.index <= 34]
    clock = VideoClock(times, FPS, 0, len(times))
    video, slow = annotate(frames, clock, annotator, tmp_path / "a.mp4", reader.size)

    written, fps = _read(video.path)
    assert len(written) == video.frames == 40 and fps == pytest.approx(FPS)
    assert all(np.abs(f.astype(int) - 90).sum() > 0 for f in written)  # something drawn on each
    assert written[32].mean() < 60  # the lost frames are dark placeholders
    # The contact at 2.5 s: 0.5 s before to 1.0 s after, at a quarter of the rate.
    assert [s.shot for s in slow] == [2] and slow[0].factor == SLOW_FACTOR
    excerpt, slow_fps = _read(slow[0].path)
    assert len(excerpt) == 16 and slow_fps == pytest.approx(FPS / SLOW_FACTOR)


def _children() -> list[int]:
    """This process's live or unreaped child processes (Linux /proc)."""
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while listed
        if fields[1] == me:
            found.append(int(stat.parent.name))
    return found


def test_a_frame_the_video_cannot_take_is_a_record_error_and_leaves_no_encoder_behind(
    recording: Path, tmp_path: Path
) -> None:
    reader = RecordingReader(recording)
    calibration = load(recording / "calibration.json", image_size=reader.size)
    shots = reviewed(tmp_path / "replay", [break_shot(0, pocket=(("2", PocketId.FOOT_LEFT),))])
    times = frame_times(10, FPS)
    paths = straight_paths(
        {"cue": ((-300.0, 0.0), (200.0, 0.0))}, np.array([t.time for t in times])
    )
    width, height = reader.size
    frames = [Frame(t.index, t.time, np.full((height, width, 3), 90, np.uint8)) for t in times]
    frames[6] = Frame(6, times[6].time, np.zeros((height // 2, width, 3), np.uint8))  # corrupt
    before = set(_children())
    with pytest.raises(RecordError, match=rf"a\.mp4: frame 6 is {width}x{height // 2}x3"):
        annotate(
            frames,
            VideoClock(times, FPS, 0, len(times)),
            Annotator(calibration, shots, paths, []),
            tmp_path / "a.mp4",
            reader.size,
        )
    assert set(_children()) <= before
