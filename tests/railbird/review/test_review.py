"""`railbird review` on a recorded virtual-table game, checked against the scenario's truth."""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
from pathlib import Path

import cv2
import pytest

from hardware.sim.truth import ScenarioTruth
from railbird.config import parse_config
from railbird.recording import RecordingReader
from railbird.replay import OUTPUTS
from railbird.review.run import ReviewOptions, ReviewResult, add_arguments, review, run_review
from rules.codec import loads
from rules.errors import ConfigError, RecordError
from rules.referee import Referee
from tests.railbird.review.conftest import QUIET

pytestmark = pytest.mark.slow


def _truth(recording: Path) -> ScenarioTruth:
    return loads(ScenarioTruth, (recording / "truth.json").read_text(), where="truth.json")


def _truth_calls(truth: ScenarioTruth, recording: Path) -> list[str]:
    """The calls the referee makes on the true shots, in the game the replay plays."""
    game = parse_config(RecordingReader(recording).config_text()).referee.game
    referee = Referee.new(game, ("Ann", "Bob"), truth.table)
    calls = []
    for shot in truth.shots:
        foul = referee.record(shot, shot.strike_time).rulings[-1].foul
        calls.append("legal" if foul is None else f"foul: {foul.kind} (rule {foul.rule})")
    return calls


def _frames(video: Path) -> tuple[int, float]:
    capture = cv2.VideoCapture(str(video))
    count = 0
    while capture.read()[0]:
        count += 1
    fps = capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    return count, fps


def test_the_report_lists_every_shot_with_the_call_the_truth_expects(
    recording: Path, reviewed: ReviewResult
) -> None:
    truth = _truth(recording)
    assert [s.call for s in reviewed.shots] == _truth_calls(truth, recording)
    html = reviewed.report.read_text()
    for s in reviewed.shots:
        assert f'id="shot-{s.number}"' in html and s.call in html
    assert len(reviewed.shots) == len(truth.shots)


def test_each_diagram_counts_the_true_cushion_contacts_and_pocketed_balls(
    recording: Path, reviewed: ReviewResult
) -> None:
    truth = _truth(recording)
    for reviewed_shot, true_shot in zip(reviewed.shots, truth.shots, strict=True):
        model = reviewed.models[reviewed_shot.number]  # what the PNG was drawn from
        assert len(model.cushion_contacts) == len(true_shot.cushion_contacts())
        assert sorted(b for b, _ in model.pocketed) == sorted(true_shot.pocketed)
        assert {p for _, p in model.pocketed} == {
            true_shot.pocket_of(b) for b in true_shot.pocketed
        }
        assert reviewed.diagrams[reviewed_shot.number].stat().st_size > 10_000


def test_the_annotated_video_has_the_recordings_frames_and_rate(
    recording: Path, reviewed: ReviewResult
) -> None:
    reader = RecordingReader(recording)
    assert reviewed.video is not None and reviewed.video.suffix == ".mp4"
    count, fps = _frames(reviewed.video)
    assert count == reviewed.video_frames == len(reader.frame_times())
    assert fps == pytest.approx(reader.fps)


def test_machine_readable_outputs(reviewed: ReviewResult) -> None:
    out = reviewed.report.parent
    for name in OUTPUTS:
        assert (out / name).is_file()
    rulings = [json.loads(line) for line in (out / "rulings.jsonl").read_text().splitlines()]
    assert [r["ruling"]["shot_index"] for r in rulings] == [s.shot.index for s in reviewed.shots]
    with (out / "shots.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["call"] for r in rows] == [s.call for s in reviewed.shots]
    assert json.loads((out / "summary.json").read_text())["video_gaps"] == []


def test_part_of_a_match_and_bad_ranges(recording: Path, tmp_path: Path) -> None:
    options = ReviewOptions(QUIET.replay, shots=(1, 1), video=False)
    result = review(recording, tmp_path / "part", options)
    assert [s.number for s in result.shots] == [1] and result.video is None
    assert "shots 1-1" in result.report.read_text()
    with pytest.raises(ConfigError, match=r"has 1 shot\(s\), numbered 1-1"):
        review(recording, tmp_path / "past", ReviewOptions(QUIET.replay, shots=(2, 5)))


def test_the_command(recording: Path, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    argv = [str(recording), "--out", str(tmp_path / "cmd"), "--no-progress", "--no-video"]
    out = io.StringIO()
    assert run_review(parser.parse_args([*argv, "--players", "Ann,Bob"]), out) == 0
    assert "1 shots reviewed" in out.getvalue()
    with pytest.raises(ConfigError, match="give two names"):
        run_review(parser.parse_args([*argv, "--players", "Ann"]), out)
    with pytest.raises(ConfigError, match="--shots '3-1'"):
        run_review(parser.parse_args([*argv, "--shots", "3-1"]), out)
    with pytest.raises(RecordError, match="not a recording folder"):
        run_review(parser.parse_args([str(tmp_path / "none"), "--out", str(tmp_path / "x")]), out)


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_a_damaged_video_still_yields_a_report_that_states_the_gap(
    recording: Path, tmp_path: Path, damage: str
) -> None:
    copy = tmp_path / "damaged"
    shutil.copytree(recording, copy)
    segment = copy / "video" / "000001.mkv"
    if damage == "missing":
        segment.unlink()
    else:
        segment.write_bytes(segment.read_bytes()[: segment.stat().st_size // 3])
    frames = RecordingReader(copy).frame_times()
    lost = [t for t in frames if t.segment == 1]
    result = review(copy, tmp_path / "out", ReviewOptions(QUIET.replay, slow_motion=False))
    assert len(result.gaps) == 1
    gap = result.gaps[0]
    assert gap.last_frame == lost[-1].index and gap.first_frame >= lost[0].index
    html = result.report.read_text()
    assert (
        "The recording is incomplete" in html and f"no video for frames {gap.first_frame}" in html
    )
    # The shot before the gap is still reviewed, and the video keeps the recording's timing.
    assert result.shots and result.shots[0].call
    count, _ = _frames(result.video)
    assert count == len(frames)


def test_a_folder_that_is_not_a_recording(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not a recording"):
        review(tmp_path, tmp_path / "out", QUIET)
