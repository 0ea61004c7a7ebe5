"""A cue ball frozen or nearly frozen to an object ball: the contact follows the strike (3.18),
the double-hit measure (2.20) is trusted enough to call, a crawling cue ball is no new strike."""

from __future__ import annotations

import numpy as np
import pytest

from rules.balls import BALL_DIAMETER_MM, BALL_RADIUS_MM, BallId
from rules.events import EventKind
from rules.general import double_hit
from rules.state import CONFIDENCE_FOR_REVIEW
from tests.tracking.helpers import run
from vision.detections import Detections, one_hot

FRAME = 1 / 60
STILL = 30
CUE_X = -600.0


def _path(start: float, speed: float, decel: float, frames: int) -> list[float]:
    """Positions from rest at ``start``: set off at ``speed`` mm/s, slowing by ``decel``."""
    xs, x, v = [], start, speed
    for _ in range(frames):
        x += v * FRAME
        v = max(0.0, v - decel * FRAME)
        xs.append(x)
    return xs


def _frames(cue: list[float], obj: list[float], seed: int) -> list[Detections]:
    rng = np.random.default_rng(seed)
    rest = rng.normal(0.0, 0.6, (2, 2))  # a resting ball's detection sits at a fixed offset
    out = []
    for k, (xc, xo) in enumerate(zip(cue, obj, strict=True)):
        pts = np.array([(xc, 0.0), (xo, 0.0)])
        moving = [k > 0 and xc != cue[k - 1], k > 0 and xo != obj[k - 1]]
        for i in range(2):
            pts[i] += rng.normal(0.0, 0.7, 2) if moving[i] else rest[i]
        out.append(
            Detections.of(
                k,
                k * FRAME,
                pts,
                identity=one_hot([BallId.CUE, BallId.THREE]),
                sigma=0.75,
            )
        )
    return out


def _shot(gap: float, cue_speed: float, cue_decel: float, seed: int):
    obj_x = CUE_X + BALL_DIAMETER_MM + gap
    n = 120
    obj = [obj_x] * STILL + _path(obj_x, 1800.0, 300.0, n)
    cue = [CUE_X] * STILL + _path(CUE_X, cue_speed, cue_decel, n)
    cue += [cue[-1]] * 40
    obj += [obj[-1]] * 40
    return run(_frames(cue, obj, seed)).shots


@pytest.mark.parametrize("seed", [0, 1])
def test_a_ball_nearly_frozen_to_the_cue_ball_is_its_first_contact_rule_3_18(seed: int) -> None:
    shots = _shot(0.3, 1100.0, 400.0, seed)
    assert len(shots) == 1
    shot = shots[0]
    assert shot.first_contact is not None and shot.first_contact.ball is BallId.THREE
    assert shot.first_contact.time > shot.strike_time


def test_a_near_frozen_cue_ball_pushed_on_is_a_double_hit_rule_2_20() -> None:
    # The cue stays on the ball: it goes on through the 3 at 1.1 m/s.
    shot = _shot(0.3, 1100.0, 400.0, 0)[0]
    ev = shot.double_hit
    assert ev is not None and ev.object_ball is BallId.THREE
    assert ev.gap_at_strike_mm < 3.0
    assert ev.travel_after_contact_mm > 3 * BALL_RADIUS_MM
    foul, review = double_hit(shot, CONFIDENCE_FOR_REVIEW)
    assert foul is not None and foul.rule == "3.23" and review is None


def _followed(frames: int) -> list[float]:
    """A clean stroke through a frozen ball: the cue ball all but stops, then its topspin pulls
    it on at 2 m/s^2 (the cloth's grip) until it rolls at 600 mm/s, then slows."""
    xs, x, v = [], CUE_X, 30.0
    for _ in range(frames):
        x += v * FRAME
        v = min(v + 2000.0 * FRAME, 600.0) if v < 600.0 else max(0.0, v - 300.0 * FRAME)
        xs.append(x)
    return xs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_follow_after_a_clean_stroke_on_a_frozen_ball_is_no_double_hit_rule_2_20(seed) -> None:
    obj_x = CUE_X + BALL_DIAMETER_MM
    obj = [obj_x] * STILL + _path(obj_x, 1800.0, 300.0, 120)
    obj += [obj[-1]] * 40
    cue = [CUE_X] * STILL + _followed(120)
    cue += [cue[-1]] * 40
    shot = run(_frames(cue, obj, seed)).shots[0]
    ev = shot.double_hit
    assert ev is not None and ev.object_ball is BallId.THREE
    # Over the whole shot the cue ball follows on far past half a ball: the measure is taken
    # while the stroke could still be on it.
    assert cue[-1] - cue[STILL] > 10 * BALL_DIAMETER_MM
    assert ev.travel_after_contact_mm < BALL_RADIUS_MM
    assert double_hit(shot, CONFIDENCE_FOR_REVIEW) == (None, None)


def test_a_cue_ball_crawling_after_a_frozen_ball_is_no_new_strike_rule_3_38() -> None:
    # Struck through the 3 it is frozen to, the cue ball follows at 25 mm/s for half a second:
    # slower than the tracker's start test for a while, then over it.
    shots = _shot(0.0, 25.0, 0.0, 0)[:2]
    assert len(shots) == 1
    shot = shots[0]
    assert shot.is_complete
    assert shot.first_contact is not None and shot.first_contact.ball is BallId.THREE
    strikes = [e for e in shot.events if e.kind is EventKind.CUE_STRIKE]
    assert len(strikes) == 1


def _placing(
    shift_mm: float, seed: int, creep_frames: int = 0, missed: int = -1, pulled_mm: float = 0.0
) -> list[Detections]:
    """Ball in hand: the 1 rests at x=500; a hand hides it (frames 30-60) while the cue ball is
    put down beside it; the 1 lies ``shift_mm`` further on afterwards; the cue ball is then
    shot away from it. ``missed``: a frame the detector misses the 1 in; ``pulled_mm``: how
    far the cue ball beside it pulls the 1's detected centre back toward where it lay."""
    rng = np.random.default_rng(seed)
    offsets = rng.normal(0.0, 0.8, (3, 2))  # vision's fixed error on each still spot
    out = []
    cue_x = 500.0 - BALL_DIAMETER_MM - 0.5
    for k in range(200):
        pts, ids = [], []
        if (k < 30 or k > 60) and k != missed:
            spot = 0 if k < 30 else 1
            # Nudged by the hand, it may still creep on for a while once the hand is gone.
            share = min(1.0, 0.2 + 0.8 * (k - 60) / creep_frames) if creep_frames else 1.0
            moved = (shift_mm * share - pulled_mm) if spot else 0.0
            pts.append(np.array((500.0 + moved, 0.0)) + offsets[spot])
            ids.append(BallId.ONE)
        if k > 60:
            x = cue_x if k < 120 else cue_x - 20.0 * (k - 119)
            x = max(x, -600.0)
            still = k < 120 or x == -600.0
            pts.append(np.array((x, 0.0)) + (offsets[2] if still else rng.normal(0, 0.7, 2)))
            ids.append(BallId.CUE)
        out.append(Detections.of(k, k * FRAME, pts, identity=one_hot(ids), sigma=0.75))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ball_moved_under_the_hand_placing_the_cue_ball_was_touched_rule_3_22(
    seed: int,
) -> None:
    shot = run(_placing(5.0, seed)).shots[0]
    assert shot.placement is not None
    assert shot.placement.touched == (BallId.ONE,)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ball_nudged_by_the_hand_that_creeps_on_was_touched_rule_3_22(seed: int) -> None:
    # Seen again 1 mm off, it creeps 5 mm on over the next 45 frames (7 mm/s: too slow for
    # the start test): judged where it settles, not where it was first seen again.
    shot = run(_placing(5.0, seed, creep_frames=45)).shots[0]
    assert shot.placement is not None
    assert shot.placement.touched == (BallId.ONE,)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ball_missed_once_before_the_hand_moved_it_was_touched_rule_3_22(seed: int) -> None:
    # The detector misses the 1 once, a few frames before the hand comes over it: the hand's
    # stay, not that one missed frame, is how long it was out of sight.
    shot = run(_placing(5.0, seed, missed=25)).shots[0]
    assert shot.placement is not None
    assert shot.placement.touched == (BallId.ONE,)
    left = run(_placing(0.0, seed, missed=25)).shots[0]
    assert left.placement is not None and left.placement.touched == ()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ball_left_where_it_lay_under_the_hand_was_not_touched_rule_3_22(seed: int) -> None:
    shot = run(_placing(0.0, seed)).shots[0]
    assert shot.placement is not None and shot.placement.touched == ()
    assert shot.disturbed == ()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ball_frozen_to_a_cue_ball_just_put_down_that_moves_was_touched_rule_3_22(seed) -> None:
    # The cue ball is put down 0.5 mm from the 1; as the hand lets go, the 1 rolls off at
    # 60 mm/s. Nobody strikes a cue ball the moment it is put down: the hand moved the 1.
    rng = np.random.default_rng(seed)
    offsets = rng.normal(0.0, 0.6, (2, 2))
    cue_x = 500.0 - BALL_DIAMETER_MM - 0.5
    out = []
    for k in range(260):
        one_x = 500.0 + (min(60.0 * (k - 70) * FRAME, 12.0) if k > 70 else 0.0)
        pts, ids = [np.array((one_x, 0.0)) + offsets[0]], [BallId.ONE]
        if k > 60:
            x = cue_x if k < 200 else max(cue_x - 20.0 * (k - 199), -600.0)
            pts.append(np.array((x, 0.0)) + offsets[1])
            ids.append(BallId.CUE)
        out.append(Detections.of(k, k * FRAME, pts, identity=one_hot(ids), sigma=0.75))
    shots = run(out).shots
    assert len(shots) == 1 and shots[0].strike_time > 190 * FRAME
    assert shots[0].placement is not None and shots[0].placement.touched == (BallId.ONE,)
    assert shots[0].first_contact is None  # struck away from the 1


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_ball_seen_creeping_on_after_the_hand_was_touched_rule_3_22(seed: int) -> None:
    # Nudged 4 mm, it is seen settling 2.5 mm from where it lay: the cue ball put down beside
    # it pulls its detected centre back 1.5 mm, within what a neighbour can shift it. But it
    # is seen creeping 2.7 mm on after the hand is gone, and a ball at rest does not creep.
    shot = run(_placing(4.0, seed, creep_frames=20, pulled_mm=1.5)).shots[0]
    assert shot.placement is not None
    assert shot.placement.touched == (BallId.ONE,)
