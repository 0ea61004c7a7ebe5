"""The accuracy benchmarks' corpora: their selection, and their tallies merged over a pool."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from bench import pipeline, tracking
from bench._recordings import recording_task
from hardware.sim.scenarios import list_scenarios, run_scenario
from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from rules.table import CushionId
from tests.tracking.helpers import came_apart, matched, observable


def test_the_full_run_scores_the_default_scenarios_and_all_adds_the_rest(monkeypatch) -> None:
    monkeypatch.delenv("RAILBIRD_BENCH_ALL", raising=False)
    single_shots = {s.name for s in list_scenarios() if s.kind != "game"} - {"lag"}
    assert pipeline.corpus(quick=True) == pipeline.QUICK
    assert pipeline.corpus(quick=False) == pipeline.DEFAULT
    assert set(pipeline.DEFAULT) < single_shots
    assert len(set(pipeline.DEFAULT)) == len(pipeline.DEFAULT)
    assert set(pipeline.corpus(quick=False, every=True)) == single_shots
    monkeypatch.setenv("RAILBIRD_BENCH_ALL", "1")
    assert set(pipeline.corpus(quick=False)) == single_shots
    assert pipeline.corpus(quick=True) == pipeline.QUICK  # --quick stays quick


def test_the_tracking_corpus_covers_every_kind_and_all_is_the_issues_300(monkeypatch) -> None:
    monkeypatch.delenv("RAILBIRD_BENCH_ALL", raising=False)
    kinds = tracking.vt_kinds()
    default = {tracking.vt_shot(i, kinds) for i in range(tracking.corpus_size(quick=False))}
    assert Counter(name for name, _ in default) == Counter({k: 3 for k in kinds})
    assert tracking.corpus_size(quick=True) == tracking.VT_SHOTS_QUICK
    monkeypatch.setenv("RAILBIRD_BENCH_ALL", "1")
    assert tracking.corpus_size(quick=False) == 300
    assert tracking.corpus_size(quick=True) == tracking.VT_SHOTS_QUICK


def test_tallies_add_up_count_by_count() -> None:
    a = pipeline.Tally(shots_truth=2, first_right=1, cushion=[3, 1, 0], ball=[1, 0, 2])
    a.per_rule.update({"3.20:right": 1})
    a.wrong.append("a#0")
    a.end_errors.append(0.1)
    b = pipeline.Tally(shots_truth=3, first_right=3, cushion=[2, 0, 1], runs_with_swap=1)
    b.per_rule.update({"3.20:right": 2, "5.8:missed": 1})
    b.wrong.append("b#0")
    b.end_errors.append(0.2)
    a.add(b)
    assert (a.shots_truth, a.first_right, a.runs_with_swap) == (5, 4, 1)
    assert a.cushion == [5, 1, 1] and a.ball == [1, 0, 2]
    assert a.per_rule == Counter({"3.20:right": 3, "5.8:missed": 1})
    assert a.wrong == ["a#0", "b#0"] and a.end_errors == [0.1, 0.2]
    assert b.shots_truth == 3  # the other is left as it was


def test_a_recording_task_is_only_made_for_what_is_not_cached(tmp_path: Path) -> None:
    task = recording_task("scratch", (320, 180), seconds=0.5, directory=tmp_path)
    assert task is not None
    name = task.label.removeprefix("recording ")
    assert name.startswith("scratch-0-320x180-60fps")
    assert task.cost > 0
    (tmp_path / name).mkdir()
    (tmp_path / name / "done").write_text("31\n")
    assert recording_task("scratch", (320, 180), seconds=0.5, directory=tmp_path) is None


@pytest.mark.slow
def test_the_tracking_corpus_scores_the_same_in_a_pool_as_in_one_process(monkeypatch) -> None:
    monkeypatch.setenv("RAILBIRD_BENCH_JOBS", "1")
    kinds = tracking.vt_kinds()
    first = kinds.index("scratch")  # two short shots: scratch and miss
    assert [tracking.vt_shot(first + k, kinds)[0] for k in (0, 1)] == ["scratch", "miss"]
    alone = tracking._virtual_table(2, first)
    monkeypatch.setenv("RAILBIRD_BENCH_JOBS", "2")
    pooled = tracking._virtual_table(2, first)
    for figures in (alone, pooled):
        figures.pop("cpu_s_per_run_median")
    assert pooled == alone
    assert alone["runs"] == 2 and alone["sensors"]["shots_truth"] == 2


def test_the_truth_counts_a_contact_repeated_within_a_frame_once() -> None:
    def cushion(ball: str, cushion: CushionId, t: float) -> ShotEvent:
        return ShotEvent(EventKind.BALL_CUSHION, t, (BallId(ball),), cushion=cushion)

    frame = 1 / 60
    pinned = [cushion("4", CushionId.FOOT, 0.9160 + k * 0.004) for k in range(3)]
    later = cushion("4", CushionId.FOOT, 1.120)
    other = cushion("6", CushionId.FOOT, 0.9161)
    kiss = ShotEvent(EventKind.BALL_BALL, 0.9162, (BallId.FOUR, BallId.SIX))
    kept = observable([*pinned, other, later, kiss], frame)
    assert [e.time for e in kept] == [0.9160, 0.9161, 0.9162, 1.120]
    assert kept[0].time_uncertainty == pytest.approx(0.008)  # the three pinned touches' span
    assert [e.time_uncertainty for e in kept[1:]] == [0.0, 0.0, 0.0]


def test_a_repeated_contact_of_a_pair_that_never_parted_is_counted_once() -> None:
    def kiss(t: float) -> ShotEvent:
        return ShotEvent(EventKind.BALL_BALL, t, (BallId.THREE, BallId.FOUR))

    first, again = kiss(0.1475), kiss(0.1648)  # more than a frame apart
    frame = 1 / 60
    assert observable([first, again], frame) == [first, again]
    (merged,) = observable([first, again], frame, lambda e, t0, t1: False)
    assert merged.time == first.time
    assert merged.time_uncertainty == pytest.approx(again.time - first.time)
    assert observable([first, again], frame, lambda e, t0, t1: True) == [first, again]
    # A camera placing it at the repeat (more than two frames after the first) still matches.
    seen = dataclasses.replace(again, time=again.time + 1.5 * frame)
    assert matched([merged], [seen], 2 * frame) == (1, 0, 0)
    assert matched([first], [seen], 2 * frame) == (0, 1, 1)


def test_contacts_are_matched_one_to_one_as_many_as_fit_the_window() -> None:
    # A ball pinned against the foot cushion touches it twice 30 ms apart; found twice, the
    # later found first. The first truth touch must not take the found touch the second one
    # needs (emission order is not time order).
    def foot(t: float) -> ShotEvent:
        return ShotEvent(EventKind.BALL_CUSHION, t, (BallId.NINE,), cushion=CushionId.FOOT)

    window = 2 / 60
    truth = [foot(1.000), foot(1.030)]
    assert matched(truth, [foot(1.020), foot(0.975)], window) == (2, 0, 0)
    assert matched(truth, [foot(1.020)], window) == (1, 0, 1)
    # One to one: a found touch counts once, and another cushion or ball is no match.
    assert matched([foot(1.000)], [foot(1.001), foot(1.002)], window) == (1, 1, 0)
    side = ShotEvent(EventKind.BALL_CUSHION, 1.0, (BallId.NINE,), cushion=CushionId.LEFT_FOOT)
    other = ShotEvent(EventKind.BALL_CUSHION, 1.0, (BallId.SIX,), cushion=CushionId.FOOT)
    assert matched([foot(1.000)], [side, other], window) == (0, 2, 1)


def test_the_virtual_table_tells_a_pressed_pair_from_one_that_parted() -> None:
    # The 9-ball break of seed 1001: the 3 and the 4, frozen in the rack, are resolved touching
    # again a frame after the cue ball's hit, never 0.2 mm apart in between; the 3 and the 15 of
    # the 8-ball break of seed 1001 touch twice 19 ms apart with a 16 mm gap opened between.
    nine = run_scenario("break-9ball", 1001)
    pressed = [
        e
        for e in nine.truth.events
        if e.kind is EventKind.BALL_BALL and set(e.balls) == {BallId.THREE, BallId.FOUR}
    ]
    assert len(pressed) >= 2 and pressed[1].time - pressed[0].time > 1 / 60
    assert not came_apart(nine)(pressed[1], pressed[0].time, pressed[1].time)
    eight = run_scenario("break-8ball", 1001)
    parted = [
        e
        for e in eight.truth.events
        if e.kind is EventKind.BALL_BALL and set(e.balls) == {BallId.THREE, BallId.FIFTEEN}
    ]
    assert [round(e.time, 3) for e in parted[1:]] == [0.403, 0.422]
    assert came_apart(eight)(parted[2], parted[1].time, parted[2].time)


def test_a_split_hit_is_judged_as_a_referee_sees_it_rule_2_10() -> None:
    # The virtual table knows which of two balls hit a millisecond apart came first; no eye or
    # camera does, and the rules decide such a hit for the shooter: the expected call is
    # judged on the shot as a referee sees it.
    shot = run_scenario("split-hit", 3).truth.shots[-1]
    first, second = (c.other(BallId.CUE) for c in shot.cue_ball_contacts[:2])
    lowest = min((b for b in shot.at_strike.balls if b.is_object_ball), key=lambda b: b.number)
    assert shot.first_contact.ball is first is not lowest
    seen = pipeline._as_refereed(shot).first_contact
    assert seen.is_split and set(seen.candidates) == {first, second}
    plain = run_scenario("cut-shot", 3).truth.shots[-1]
    assert pipeline._as_refereed(plain) is plain
