"""The review's model: shots with rulings, flags, video times, gaps and shot ranges."""

from __future__ import annotations

from pathlib import Path

import pytest

from railbird.review.model import (
    Flag,
    ReviewShot,
    VideoClock,
    load_shots,
    parse_shot_range,
    video_gaps,
)
from rules.errors import ConfigError, RecordError
from rules.shot import DoubleHitEvidence
from rules.table import PocketId
from tests.factories import ShotBuilder, break_shot, shot_at
from tests.railbird.review.matches import PLAYERS, frame_times, reviewed, write_replay


def _match() -> list:
    return [
        break_shot(0, pocket=(("2", PocketId.FOOT_LEFT),)),
        shot_at("1", index=1, pocket=PocketId.FOOT_RIGHT, scratch=PocketId.SIDE_LEFT),
    ]


def test_shots_carry_their_calls_shooters_racks_and_shot_times(tmp_path: Path) -> None:
    shots = reviewed(tmp_path, _match())
    assert [s.number for s in shots] == [1, 2]
    assert shots[0].call == "legal" and shots[0].rule == "" and shots[0].shooter == "Ann"
    assert shots[1].call == "foul: scratch (rule 3.20)" and shots[1].rule == "3.20"
    assert shots[1].shooter == "Ann" and shots[1].rack == 1
    assert shots[0].shot_time_s is None
    assert shots[1].shot_time_s == pytest.approx(0.0)  # the factory strikes at once


def test_a_double_hit_call_or_review_flags_the_shot_rule_2_20(tmp_path: Path) -> None:
    far = DoubleHitEvidence("1", gap_at_strike_mm=3.0, travel_after_contact_mm=60.0)
    near = DoubleHitEvidence("1", gap_at_strike_mm=3.0, travel_after_contact_mm=30.0)
    harmless = DoubleHitEvidence("1", gap_at_strike_mm=60.0, travel_after_contact_mm=0.0)
    shots = reviewed(
        tmp_path,
        [
            break_shot(0, pocket=(("2", PocketId.FOOT_LEFT),)),
            shot_at("1", index=1, double_hit=far),
            shot_at("1", index=2, double_hit=near),
            shot_at("1", index=3, double_hit=harmless),
        ],
    )
    assert shots[1].call == "foul: double-hit (rule 3.23)"
    assert shots[1].flags == (Flag.DOUBLE_HIT,)
    assert shots[2].flags == (Flag.DOUBLE_HIT, Flag.REVIEW)  # too close to call: reviewed
    assert shots[3].flags == ()  # measured, but nowhere near a double hit


def test_a_split_first_contact_is_flagged() -> None:
    split = ShotBuilder().strike().hit("1", t=0.5, uncertainty=0.01).hit("2", t=0.505).build()
    flags = ReviewShot(1, split, None, "refused", 1, "", None).flags
    assert flags == (Flag.SPLIT_HIT, Flag.NOT_JUDGED)


def test_a_refused_shot_is_listed_not_judged(tmp_path: Path) -> None:
    # The game is over after the 9 drops on the break; the next shot cannot be judged.
    shots = [break_shot(0, pocket=(("9", PocketId.FOOT_LEFT),)), shot_at("1", index=1)]
    second = reviewed(tmp_path, shots)[1]
    assert second.ruling is None and second.refused and second.call == "not judged"
    assert Flag.NOT_JUDGED in second.flags


def test_shots_and_rulings_out_of_step_is_a_clear_error(tmp_path: Path) -> None:
    write_replay(tmp_path, _match())
    lines = (tmp_path / "rulings.jsonl").read_text().splitlines()
    (tmp_path / "rulings.jsonl").write_text(lines[0] + "\n")
    with pytest.raises(RecordError, match="2 shots but 1 rulings"):
        load_shots(tmp_path, PLAYERS)


def test_a_missing_replay_output_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read the replay's outputs"):
        load_shots(tmp_path, PLAYERS)


@pytest.mark.parametrize(("text", "wanted"), [("12-18", (12, 18)), ("7", (7, 7)), ("1-1", (1, 1))])
def test_shot_ranges(text: str, wanted: tuple[int, int]) -> None:
    assert parse_shot_range(text) == wanted


@pytest.mark.parametrize("text", ["18-12", "0-3", "a-b", "1-2-3", "", "-3", "3-"])
def test_bad_shot_ranges_are_clear_errors(text: str) -> None:
    with pytest.raises(ConfigError, match=r"counted from 1, e\.g\. 12-18"):
        parse_shot_range(text)


def test_video_gaps_are_the_runs_of_frames_never_replayed() -> None:
    times = frame_times(10)
    gaps = video_gaps(times, [0, 1, 2, 6, 7, 9])
    assert [(g.first_frame, g.last_frame, g.frames) for g in gaps] == [(3, 5, 3), (8, 8, 1)]
    assert gaps[0].start == pytest.approx(0.3) and gaps[0].end == pytest.approx(0.5)
    assert "no video for frames 3-5" in gaps[0].describe()
    assert video_gaps(times, range(10)) == []


def test_video_clock_maps_session_times_to_video_times() -> None:
    times = frame_times(50, fps=10.0, start=100.0)
    whole = VideoClock(times, 10.0, 0, 50)
    assert whole.video_time(100.0) == 0.0
    assert whole.video_time(102.05) == pytest.approx(2.1)  # the first frame at or after
    assert whole.video_time(50.0) == 0.0 and whole.video_time(999.0) == pytest.approx(4.9)
    part = VideoClock(times, 10.0, 20, 10)
    assert part.video_time(102.5) == pytest.approx(0.5)
    assert [t.index for t in part.frames()] == list(range(20, 30))
