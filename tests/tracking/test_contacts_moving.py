"""Contacts between two balls that are both moving: the break's after-play, where balls roll on
together, touching, and where a faster ball catches a slower one."""

from __future__ import annotations

import numpy as np
import pytest

from rules.balls import BallId
from rules.events import EventKind
from tests.tracking.helpers import run
from vision.detections import Detections, one_hot

FRAME = 1 / 60
D = 57.15
DECEL = 150.0


def _rolled(x0: float, v0: float, t: float) -> tuple[float, float]:
    """Position and speed along a line after ``t`` s of rolling from x0 at v0 (mm/s)."""
    t = min(t, v0 / DECEL)
    return x0 + v0 * t - 0.5 * DECEL * t * t, v0 - DECEL * t


def _detections(paths: dict[BallId, object], seconds: float, seed: int) -> list[Detections]:
    """Each ball's path (time -> (x, y)) sampled at 60 fps with the detector's measured noise:
    0.7 mm a side, one detection in fifty with 2.5 mm."""
    rng = np.random.default_rng(seed)
    balls = list(paths)
    out = []
    for k in range(int(seconds * 60)):
        t = k * FRAME
        pts = np.array([paths[b](t) for b in balls], dtype=float)
        sigma = np.where(rng.random(len(balls)) < 0.02, 2.5, 0.7)
        pts += rng.normal(0.0, 1.0, pts.shape) * sigma[:, None]
        out.append(Detections.of(k, t, pts, sigma=0.75, identity=one_hot(balls, 0.95)))
    return out


def _side_by_side(start: float):
    """The 5 and the 13 at rest, touching side by side, until ``start``; then both rolling
    on along +x at 900 mm/s, still touching, as two rack balls after the break do."""

    def path(y: float):
        def at(t: float) -> tuple[float, float]:
            x, _ = _rolled(-300.0, 900.0, max(0.0, t - start))
            return (x, y)

        return at

    return {
        BallId.CUE: lambda t: (-1000.0, -400.0),
        BallId.FIVE: path(0.0),
        BallId.THIRTEEN: path(D + 0.3),
    }


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_balls_rolling_on_together_touching_have_no_contact(seed: int) -> None:
    # Their gap stays one diameter: one frame's velocities jitter by ~60 mm/s each, which
    # looked like kicks along the line of centres; the gap, fitted over frames, does not open.
    result = run(_detections(_side_by_side(0.2), 1.5, seed))
    pair = {BallId.FIVE, BallId.THIRTEEN}
    found = [e for e in result.of_kind(EventKind.BALL_BALL) if set(e.balls) == pair]
    assert found == []


def _catch_up():
    """The 2 at 1500 mm/s catches the 10 rolling at 400 mm/s ahead of it on one line; an
    elastic head-on contact swaps their speeds. Returns the paths and the contact time."""
    x2, x10 = -800.0, -450.0
    # Solve the touch: x2(t) - x10(t) = -D (both decelerate alike, so the gap closes linearly).
    t_hit = (x10 - x2 - D) / (1500.0 - 400.0) + 0.3
    p2, v2 = _rolled(x2, 1500.0, t_hit - 0.3)
    p10, v10 = _rolled(x10, 400.0, t_hit - 0.3)

    def two(t: float) -> tuple[float, float]:
        if t < 0.3:
            return (x2, 0.0)
        if t < t_hit:
            return (_rolled(x2, 1500.0, t - 0.3)[0], 0.0)
        return (_rolled(p2, v10, t - t_hit)[0], 0.0)

    def ten(t: float) -> tuple[float, float]:
        if t < 0.3:
            return (x10, 0.0)
        if t < t_hit:
            return (_rolled(x10, 400.0, t - 0.3)[0], 0.0)
        return (_rolled(p10, v2, t - t_hit)[0], 0.0)

    return {BallId.CUE: lambda t: (-1000.0, -400.0), BallId.TWO: two, BallId.TEN: ten}, t_hit


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_ball_catching_a_rolling_ball_is_one_contact(seed: int) -> None:
    paths, t_hit = _catch_up()
    result = run(_detections(paths, 1.2, seed))
    found = [
        e for e in result.of_kind(EventKind.BALL_BALL) if set(e.balls) == {BallId.TWO, BallId.TEN}
    ]
    assert len(found) == 1
    assert found[0].time == pytest.approx(t_hit, abs=2 * FRAME)


def _break_on_the_apex(x0: float):
    """A 9 m/s cue ball from (x0, 0) full on the 1, which sends the 2 and the 3 (frozen behind
    it) off at 30 degrees and keeps 700 mm/s; the cue ball comes back at 1.5 m/s."""
    t_hit = 0.3 + (600.0 - D - x0) / 9000.0
    c, s = 3000.0 * np.cos(np.pi / 6), 3000.0 * np.sin(np.pi / 6)

    def cue(t: float) -> tuple[float, float]:
        if t < 0.3:
            return (x0, 0.0)
        if t < t_hit:
            return (x0 + 9000.0 * (t - 0.3), 0.0)
        return (600.0 - D - 1500.0 * (t - t_hit), 0.0)

    def rack(p: tuple[float, float], v: tuple[float, float]):
        return lambda t: (p[0] + v[0] * max(0.0, t - t_hit), p[1] + v[1] * max(0.0, t - t_hit))

    return {
        BallId.CUE: cue,
        BallId.ONE: rack((600.0, 0.0), (700.0, 0.0)),
        BallId.TWO: rack((600.0 + D * np.cos(np.pi / 6) + 0.1, D / 2), (c, s)),
        BallId.THREE: rack((600.0 + D * np.cos(np.pi / 6) + 0.1, -D / 2), (c, -s)),
    }


@pytest.mark.parametrize("x0", [-800.0, -790.0])
def test_the_cue_ball_coming_back_off_the_apex_touches_nothing_else_rule_3_18(x0: float) -> None:
    # The filter's velocity of the cue ball lags the contact by a frame: carried on, it would
    # run the cue ball into the 2 and the 3 behind the apex. Only the motion after the
    # contact, carried back, can show a touch in the frame after it.
    result = run(_detections(_break_on_the_apex(x0), 0.8, 0))
    pairs = {frozenset(e.balls) for e in result.of_kind(EventKind.BALL_BALL)}
    assert pairs == {
        frozenset({BallId.CUE, BallId.ONE}),
        frozenset({BallId.ONE, BallId.TWO}),
        frozenset({BallId.ONE, BallId.THREE}),
    }
    assert result.shots[0].first_contact.ball is BallId.ONE


def _struck_from_two_sides(speed: float):
    """The 2 (along +x) and the 10 (along +y), both at ``speed``, strike the 5 at rest at the
    origin at the same moment, full on: each stops dead and the 5 leaves with both their
    velocities, along neither line of centres. Returns the paths and the contact time."""
    t_hit = 0.5

    def coming(axis: int):
        def at(t: float) -> tuple[float, float]:
            # Rolled back from the touch, so that it arrives at ``speed``.
            back = max(0.0, t_hit - t)
            x = -D - (speed * back + 0.5 * DECEL * back * back)
            return (x, 0.0) if axis == 0 else (0.0, x)

        return at

    def five(t: float) -> tuple[float, float]:
        s, _ = _rolled(0.0, speed * np.sqrt(2.0), max(0.0, t - t_hit))
        return (s / np.sqrt(2.0), s / np.sqrt(2.0))

    paths = {
        BallId.CUE: lambda t: (-1000.0, -400.0),
        BallId.TWO: coming(0),
        BallId.TEN: coming(1),
        BallId.FIVE: five,
    }
    return paths, t_hit


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("speed", [800.0, 1600.0])
def test_a_ball_struck_from_two_sides_at_once_has_both_contacts(speed: float, seed: int) -> None:
    # The 5's kick is the sum of two impulses, along neither line of centres: each contact is
    # found once, from its striker's kick, and the shared fit (`tracking.shared_impulses`)
    # adds no second one.
    paths, t_hit = _struck_from_two_sides(speed)
    result = run(_detections(paths, 1.2, seed))
    found = result.of_kind(EventKind.BALL_BALL)
    for other in (BallId.TWO, BallId.TEN):
        with_five = [e for e in found if set(e.balls) == {other, BallId.FIVE}]
        assert len(with_five) == 1, (other, found)
        assert with_five[0].time == pytest.approx(t_hit, abs=2 * FRAME)
    assert len(found) == 2


def _off_the_foot_into_the_follower(bounce_into_frame: float, frames_to_hit: float):
    """The 8 at 450 mm/s runs into the foot cushion and comes back off it at 290 mm/s, into the
    13 catching it up at 650 mm/s on the same line, ``frames_to_hit`` frames later. The
    contact sends the 8 back into the cushion at 600 mm/s and the 13 back at 300; the 8 comes
    off the cushion at 300 mm/s, a few millimetres behind the 13. ``bounce_into_frame`` places
    the first rebound inside its frame interval. Returns the paths and the contact time."""
    nose = 2540.0 / 2 - D / 2
    t_bounce = 0.5 + bounce_into_frame * FRAME
    t_hit = t_bounce + frames_to_hit * FRAME
    x_hit = nose - 290.0 * (t_hit - t_bounce)
    t_again = t_hit + (nose - x_hit) / 600.0

    def eight(t: float) -> tuple[float, float]:
        if t < t_bounce:
            return (nose - 450.0 * (t_bounce - t), 0.0)
        if t < t_hit:
            return (nose - 290.0 * (t - t_bounce), 0.0)
        if t < t_again:
            return (x_hit + 600.0 * (t - t_hit), 0.0)
        return (nose - 300.0 * (t - t_again), 0.0)

    def thirteen(t: float) -> tuple[float, float]:
        x = x_hit - D
        return (x - 650.0 * (t_hit - t) if t < t_hit else x - 300.0 * (t - t_hit), 0.0)

    paths = {BallId.CUE: lambda t: (-1000.0, -400.0), BallId.EIGHT: eight}
    paths[BallId.THIRTEEN] = thirteen
    return paths, t_hit


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("timing", [(0.1, 0.6), (0.5, 0.9), (0.7, 0.6), (0.9, 0.6)])
def test_a_ball_coming_off_a_cushion_into_its_follower_is_one_contact(
    timing: tuple[float, float], seed: int
) -> None:
    # The interval of the rebound sees the 8 turn with the 13 a few millimetres behind it, and
    # the step after it may already hold the contact. Taken for a contact there, it was early,
    # its gap never opened after it, and the contact itself was then turned down as one found
    # already: none was left. A kick is now timed by the ball's own step across the interval
    # (the 8's rebound, or the 13's kick from the next interval, falls outside it), and a gap
    # that does not turn is looked at again a frame later.
    paths, t_hit = _off_the_foot_into_the_follower(*timing)
    result = run(_detections(paths, 0.9, seed))
    pair = {BallId.EIGHT, BallId.THIRTEEN}
    found = [e for e in result.of_kind(EventKind.BALL_BALL) if set(e.balls) == pair]
    assert len(found) == 1, found
    assert found[0].time == pytest.approx(t_hit, abs=2 * FRAME)
