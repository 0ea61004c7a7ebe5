"""Every scenario generates, and its truth is what it claims."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from calibration.table import TableSpec
from hardware.sim.motion import Phase
from hardware.sim.physics import SimulationError
from hardware.sim.play import frame_truth
from hardware.sim.scenarios import SPLIT_WITHIN_S, ScenarioRun, list_scenarios, run_scenario
from hardware.sim.truth import ScenarioTruth
from rules.balls import BallId
from rules.codec import dumps, loads
from rules.events import EventKind, involving, of_kind, select
from rules.shot import Shot
from rules.table import RackShape

TABLE = TableSpec.standard("9ft")
R = TABLE.ball_diameter / 2
SLOW: set[str] = set()


@cache
def _run(name: str, seed: int = 0) -> ScenarioRun:
    return run_scenario(name, seed)


def _shot(name: str) -> Shot:
    return _run(name).truth.shots[-1]


def _calls(name: str) -> set[tuple[str, str]]:
    return {(e.call, e.rule) for e in _run(name).truth.expectations}


def _lowest(shot: Shot) -> BallId:
    return min((b for b in shot.at_strike.balls if b.is_object_ball), key=lambda b: b.number)


def _check_break(name: str, shape: RackShape) -> None:
    shot = _shot(name)
    assert shot.events[0].kind is EventKind.CUE_STRIKE
    assert shot.events[-1].kind is EventKind.ALL_AT_REST
    assert TABLE.in_kitchen(shot.at_strike[BallId.CUE])
    slots = TABLE.rack_slots(shape)
    racked = [b for b in shot.at_strike.balls if b.is_object_ball]
    assert len(racked) == len(slots)
    for b in racked:
        assert min(math.dist(shot.at_strike[b], s) for s in slots) < 1.0


def _ball_at_slot(shot: Shot, slot) -> BallId:
    return min(
        (b for b in shot.at_strike.balls if b.is_object_ball),
        key=lambda b: math.dist(shot.at_strike[b], slot),
    )


def test_8ball_break_ruling_follows_rule_4_5() -> None:
    for seed in range(4):
        truth = run_scenario("break-8ball", seed).truth
        shot = truth.shots[0]
        legal = ("legal", "4.5") in {(e.call, e.rule) for e in truth.expectations}
        balls_to_cushions = [
            b for b in shot.balls_to_cushion_after_first_contact if b.is_object_ball
        ]
        made = [b for b in shot.pocketed if b.is_object_ball]
        if BallId.CUE not in shot.pocketed:
            assert legal is bool(made or len(balls_to_cushions) >= 4)


def test_8ball_break_rack_is_wpa_rule_4_3() -> None:
    _check_break("break-8ball", RackShape.TRIANGLE)
    shot = _shot("break-8ball")
    slots = TABLE.rack_slots(RackShape.TRIANGLE)
    assert _ball_at_slot(shot, slots[4]) is BallId.EIGHT
    corners = {_ball_at_slot(shot, slots[10]).group, _ball_at_slot(shot, slots[14]).group}
    assert corners == {BallId.ONE.group, BallId.NINE.group}


def test_9ball_break_rack_is_wpa_rule_5_2() -> None:
    _check_break("break-9ball", RackShape.DIAMOND)
    shot = _shot("break-9ball")
    slots = TABLE.rack_slots(RackShape.DIAMOND)
    assert _ball_at_slot(shot, slots[0]) is BallId.ONE
    assert _ball_at_slot(shot, slots[4]) is BallId.NINE
    assert shot.first_contact is not None and shot.first_contact.ball is BallId.ONE


def test_14_1_break_rack_is_wpa_rule_6_4() -> None:
    _check_break("break-14.1", RackShape.TRIANGLE)
    shot = _shot("break-14.1")
    slots = TABLE.rack_slots(RackShape.TRIANGLE)
    assert _ball_at_slot(shot, slots[10]) is BallId.ONE
    assert _ball_at_slot(shot, slots[14]) is BallId.FIVE


def _pocketed_first_contact(name: str) -> None:
    shot = _shot(name)
    fc = shot.first_contact
    assert fc is not None and fc.ball in shot.pocketed
    assert BallId.CUE not in shot.pocketed


def _cut() -> None:
    _pocketed_first_contact("cut-shot")


def _bank() -> None:
    shot = _shot("bank-shot")
    fc = shot.first_contact
    assert fc is not None and fc.ball in shot.pocketed
    drop = select(shot.events, of_kind(EventKind.POCKETED), involving(fc.ball))[0]
    assert [e for e in shot.cushion_contacts(fc.ball) if e.time < drop.time]


def _kick() -> None:
    shot = _shot("kick-shot")
    fc = shot.first_contact
    assert fc is not None
    assert [e for e in shot.cushion_contacts(BallId.CUE) if e.time < fc.time]


def _combination() -> None:
    shot = _shot("combination")
    fc = shot.first_contact
    assert fc is not None and fc.ball not in shot.pocketed
    second = [b for b in shot.pocketed if b.is_object_ball]
    assert second
    assert select(
        shot.events, of_kind(EventKind.BALL_BALL), involving(fc.ball), involving(second[0])
    )


def _scratch() -> None:
    assert BallId.CUE in _shot("scratch").pocketed
    assert ("foul", "3.20") in _calls("scratch")


def _miss() -> None:
    assert _shot("miss").first_contact is None


def _wrong_first() -> None:
    shot = _shot("wrong-ball-first")
    assert shot.first_contact is not None and shot.first_contact.ball != _lowest(shot)
    assert ("foul", "5.1") in _calls("wrong-ball-first")


def _split_hit() -> None:
    shot = _shot("split-hit")
    first, second = shot.cue_ball_contacts[:2]
    assert first.other(BallId.CUE) != second.other(BallId.CUE)
    assert second.time - first.time <= SPLIT_WITHIN_S
    assert _lowest(shot) in (first.other(BallId.CUE), second.other(BallId.CUE))
    assert ("legal", "2.10") in _calls("split-hit")


def _no_cushion() -> None:
    shot = _shot("no-cushion")
    assert shot.first_contact is not None
    assert not shot.balls_to_cushion_after_first_contact and not shot.pocketed


def _several() -> None:
    assert len([b for b in _shot("several-pocketed").pocketed if b.is_object_ball]) >= 2


def _rattle() -> None:
    shot = _shot("rattle")
    rebounds = select(shot.events, of_kind(EventKind.POCKET_REBOUND))
    assert rebounds and rebounds[0].ball not in shot.pocketed


def _left_table(name: str) -> tuple[ScenarioRun, BallId]:
    run = _run(name)
    shot = run.truth.shots[-1]
    assert len(shot.left_table) == 1
    assert ("foul", "3.28") in _calls(name)
    return run, shot.left_table[0]


def _airborne_heights(run: ScenarioRun, ball: BallId) -> list[float]:
    traj = run.result.trajectory(ball)
    return [traj.position(s.t0 + 0.01)[2] for s in traj.segments if s.phase is Phase.AIRBORNE]


def _off_floor() -> None:
    run, ball = _left_table("jump-off-table-floor")
    assert max(_airborne_heights(run, ball)) > R + 10
    assert not run.result.snapshot(run.truth.end_time).on_table[run.truth.balls.index(ball)]


def _off_rail() -> None:
    run, ball = _left_table("jump-off-table-rail")
    i = run.truth.balls.index(ball)
    snap = run.result.snapshot(run.truth.end_time)
    assert not snap.on_table[i]
    assert abs(snap.positions[i][1]) > TABLE.width / 2
    assert snap.positions[i][2] > R


def _off_light() -> None:
    run, ball = _left_table("jump-off-table-light")
    traj = run.result.trajectory(ball)
    top = max(traj.position(run.truth.shots[-1].strike_time + k * 0.01)[2] for k in range(100))
    assert top > 900.0
    assert ball in run.truth.shots[-1].at_rest  # back on the cloth, still off the table by 3.28


def _jump() -> None:
    run = _run("jump-shot")
    shot = run.truth.shots[-1]
    assert shot.jump is not None and shot.jump.airborne and shot.jump.radius_growth > 1.0
    blocker = shot.jump.passed_over[0]
    assert shot.first_contact is not None and shot.first_contact.ball != blocker
    assert not select(
        shot.events, of_kind(EventKind.BALL_BALL), involving(BallId.CUE), involving(blocker)
    )
    assert max(_airborne_heights(run, BallId.CUE)) > R


def _double_hit() -> None:
    shot = _shot("double-hit")
    assert shot.double_hit is not None
    assert shot.double_hit.gap_at_strike_mm < 0.6
    assert shot.double_hit.travel_after_contact_mm > R  # more than half a ball width (2.20)


def _push() -> None:
    shot = _shot("push-shot")
    assert shot.push is not None and shot.push.acceleration_s > 0.01


def _disturbed() -> None:
    shot = _shot("ball-disturbed")
    (ball,) = shot.disturbed
    assert not select(shot.events, of_kind(EventKind.BALL_BALL), involving(ball))
    assert ("foul", "3.21") in _calls("ball-disturbed")


def _while_rolling() -> None:
    shot = _shot("shot-while-rolling")
    assert [b for b in shot.moving_at_strike if b is not BallId.CUE]


def _hanging() -> None:
    shot = _shot("hanging-ball-drops")
    (ball,) = shot.settled_into_pocket
    drop = select(shot.events, of_kind(EventKind.SETTLED_INTO_POCKET))[0]
    assert shot.end_time is not None and drop.time - shot.end_time >= 5.0
    assert ball in shot.at_rest  # it was resting on the lip when the shot ended


def _placement(name: str, in_kitchen: bool, touched: bool) -> None:
    shot = _shot(name)
    assert shot.placement is not None
    assert shot.placement.in_kitchen is in_kitchen
    assert (shot.placement.head_string_margin_mm < 0) is in_kitchen
    assert bool(shot.placement.touched) is touched


def _placement_touching() -> None:
    shot = _shot("ball-in-hand-touching")
    assert shot.placement is not None and shot.placement.touched
    assert shot.placement.in_kitchen is TABLE.in_kitchen(shot.placement.position)
    assert set(shot.placement.touched) <= set(_run("ball-in-hand-touching").truth.balls)
    assert ("foul", "3.22") in _calls("ball-in-hand-touching")


def _arm() -> None:
    run = _run("arm-and-cue")
    strike = run.truth.shots[-1].strike_time
    assert run.result.snapshot(strike).occluders
    assert any(b.occluded for b in frame_truth(run.result, [strike])[0].balls)
    assert not run.result.snapshot(run.truth.end_time).occluders


def _frozen_cushion() -> None:
    frozen = [f for f in _shot("frozen-to-cushion").frozen if f.cushion is not None]
    assert frozen and frozen[0].gap_mm <= 0.1


def _frozen_cue() -> None:
    frozen = [f for f in _shot("frozen-cue-ball").frozen if f.other is not None]
    assert frozen and frozen[0].ball is BallId.CUE


def _lag() -> None:
    truth = _run("lag").truth
    assert truth.lag is not None
    assert truth.balls == (BallId.CUE, BallId.CUE)
    lanes = [
        lane
        for lane in truth.lag.lanes
        if lane.touched_foot_cushion
        and not (lane.touched_long_cushion or lane.crossed_long_string or lane.pocketed)
    ]
    if truth.lag.winner is None:
        assert not lanes
    else:
        best = min(lanes, key=lambda lane: lane.distance_to_head_cushion_mm)
        assert truth.lag.winner == best.name


def _rerack() -> None:
    truth = _run("rerack-14.1").truth
    (rack,) = truth.racks
    assert rack.apex_empty and len(rack.layout) == 14
    slots = TABLE.rack_slots(RackShape.TRIANGLE)
    assert all(math.dist(p, slots[0]) > R for _, p in rack.layout.positions)
    assert truth.shots[-1].strike_time > rack.time


def _rack_9() -> None:
    truth = _run("rack-9ball").truth
    assert len(truth.shots) >= 3
    times = [s.strike_time for s in truth.shots]
    assert times == sorted(times)
    for a, b in zip(truth.shots, truth.shots[1:], strict=False):
        assert a.end_time is not None and a.end_time <= b.strike_time


def _rack_8() -> None:
    truth = _run("rack-8ball").truth
    assert len(truth.shots) >= 3
    ends = [e for e in truth.expectations if e.rule == "4.20"]
    if ends:
        assert ends[-1].shot == len(truth.shots) - 1
        assert BallId.EIGHT in truth.shots[-1].pocketed
    for shot in truth.shots[1:]:
        if shot.placement is not None:  # ball in hand comes only after a foul (4.14)
            assert any(e.call == "foul" and e.shot == shot.index - 1 for e in truth.expectations)


def _rack_14() -> None:
    run = _run("rack-14.1")
    truth = run.truth
    assert len(truth.shots) >= 3
    for rack in truth.racks:
        assert rack.apex_empty and len(rack.layout) == 14
        # At the re-rack, exactly one object ball besides the fourteen is on the table.
        layout = run.result.layout(rack.time)
        others = [b for b in layout.balls if b.is_object_ball and b not in rack.layout]
        assert len(others) == 1
        positions = [p for _, p in layout.positions]
        for k, p in enumerate(positions):
            assert all(math.dist(p, q) >= 2 * R - 0.05 for q in positions[k + 1 :])


CHECKS: dict[str, Callable[[], None]] = {
    "break-8ball": test_8ball_break_rack_is_wpa_rule_4_3,
    "break-9ball": test_9ball_break_rack_is_wpa_rule_5_2,
    "break-14.1": test_14_1_break_rack_is_wpa_rule_6_4,
    "cut-shot": _cut,
    "arm-and-cue": _arm,
    "bank-shot": _bank,
    "kick-shot": _kick,
    "combination": _combination,
    "scratch": _scratch,
    "miss": _miss,
    "wrong-ball-first": _wrong_first,
    "split-hit": _split_hit,
    "no-cushion": _no_cushion,
    "several-pocketed": _several,
    "rattle": _rattle,
    "jump-off-table-floor": _off_floor,
    "jump-off-table-rail": _off_rail,
    "jump-off-table-light": _off_light,
    "jump-shot": _jump,
    "double-hit": _double_hit,
    "push-shot": _push,
    "ball-disturbed": _disturbed,
    "shot-while-rolling": _while_rolling,
    "hanging-ball-drops": _hanging,
    "ball-in-hand-kitchen": lambda: _placement("ball-in-hand-kitchen", True, False),
    "ball-in-hand-outside-kitchen": lambda: _placement(
        "ball-in-hand-outside-kitchen", False, False
    ),
    "ball-in-hand-touching": _placement_touching,
    "frozen-to-cushion": _frozen_cushion,
    "frozen-cue-ball": _frozen_cue,
    "lag": _lag,
    "rerack-14.1": _rerack,
    "rack-9ball": _rack_9,
    "rack-8ball": _rack_8,
    "rack-14.1": _rack_14,
}


def _param(name: str):
    return pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name


def test_every_scenario_has_a_check() -> None:
    assert set(CHECKS) == {s.name for s in list_scenarios()}


@pytest.mark.parametrize("name", [_param(s.name) for s in list_scenarios()])
def test_scenario_truth_is_what_it_claims(name: str) -> None:
    CHECKS[name]()


@pytest.mark.parametrize("name", [_param(s.name) for s in list_scenarios()])
def test_scenario_truth_round_trips_through_json(name: str) -> None:
    truth = _run(name).truth
    assert loads(ScenarioTruth, dumps(truth)) == truth


@pytest.mark.parametrize("name", ["break-9ball", "double-hit", "lag", "cut-shot"])
def test_same_seed_gives_identical_truth(name: str) -> None:
    assert dumps(run_scenario(name, 3).truth) == dumps(run_scenario(name, 3).truth)


def test_different_seeds_give_different_racks() -> None:
    a, b = run_scenario("break-9ball", 1).truth, run_scenario("break-9ball", 2).truth
    assert a.shots[0].at_strike != b.shots[0].at_strike


def test_snapshot_positions_follow_the_trajectory_and_balls_turn() -> None:
    run = _run("cut-shot")
    shot = run.truth.shots[-1]
    mid = (shot.strike_time + shot.end_time) / 2
    snap = run.result.snapshot(mid)
    i = run.truth.balls.index(BallId.CUE)
    assert snap.positions[i][:2].tolist() == pytest.approx(
        list(run.result.trajectory(BallId.CUE).position(mid)[:2])
    )
    rot = snap.orientations[i]
    assert (rot @ rot.T).ravel().tolist() == pytest.approx(np.eye(3).ravel().tolist(), abs=1e-9)
    start = run.result.snapshot(shot.strike_time).orientations[i]
    assert not np.allclose(rot, start, atol=1e-3)


def test_rolling_orientation_matches_the_distance_rolled() -> None:
    run = _run("no-cushion")
    traj = run.result.trajectory(BallId.CUE)
    seg = next(s for s in traj.segments if s.phase is Phase.ROLLING)
    t0, t1 = seg.t0, min(seg.t1, seg.t0 + 0.05)
    distance = math.dist(traj.position(t0)[:2], traj.position(t1)[:2])
    rel = traj.orientation(t1) @ traj.orientation(t0).T
    angle = math.acos(max(-1.0, min(1.0, (rel.trace() - 1) / 2)))
    assert angle == pytest.approx(distance / R, rel=0.02, abs=1e-3)


def test_unknown_scenario_is_a_clear_error() -> None:
    with pytest.raises(SimulationError, match="no scenario named 'nope'"):
        run_scenario("nope")


def test_blur_times_sample_the_exposure_around_the_frame_time() -> None:
    from hardware.sim.result import blur_times

    times = blur_times(2.0, 0.008, 4)
    assert times == pytest.approx((1.997, 1.999, 2.001, 2.003))
    assert blur_times(2.0, 0.008, 1) == (2.0,)


def test_moving_ball_snapshots_differ_across_the_exposure() -> None:
    from hardware.sim.result import blur_times

    run = _run("break-9ball")
    strike = run.truth.shots[0].strike_time
    snaps = run.result.snapshots(blur_times(strike + 0.05, 0.008, 4))
    i = run.truth.balls.index(BallId.CUE)
    xs = [s.positions[i][0] for s in snaps]
    assert xs == sorted(xs) and xs[-1] - xs[0] > 20.0  # about 9 m/s over 6 ms


@pytest.mark.parametrize(
    ("name", "game"),
    [("break-9ball", "9-ball"), ("rack-8ball", "8-ball"), ("rerack-14.1", "14.1")],
)
def test_a_break_or_rack_is_refereed_as_its_own_game_rules_4_3_5_2_6_4(name, game) -> None:
    assert run_scenario(name, seed=0).game == game


def test_a_single_shot_is_refereed_as_9_ball_only_when_its_balls_fit_rule_5_2() -> None:
    def balls_fit(run) -> bool:
        return all(b == "cue" or int(b) <= 9 for b in run.truth.balls)

    runs = [run_scenario(n, seed=1) for n in ("scratch", "wrong-ball-first")]
    assert [r.game == "9-ball" for r in runs] == [balls_fit(r) for r in runs]
    assert {r.game for r in runs} == {"8-ball", "9-ball"}  # both branches taken
