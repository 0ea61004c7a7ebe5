"""A few balls replayed from their ways in: which touches, in which order, and where to."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableSpec
from rules.table import CushionId
from tracking.geometry import TableCache
from tracking.replay import Walls, replay

TABLE = TableSpec.standard("9ft")
GEO = TableCache(TABLE)
WALLS = Walls(GEO.wall_starts, GEO.wall_alongs, GEO.wall_normals)
D = TABLE.ball_diameter
NOSE_X = TABLE.length / 2 - D / 2  # a centre touching the foot cushion
FOOT = CushionId.FOOT


def _cushion(touch) -> CushionId:
    return GEO.walls[touch.wall].cushion


def test_a_ball_into_a_cushion_rebounds_at_the_nose_with_the_rubbers_restitution() -> None:
    p = np.array([[NOSE_X - 100.0, 0.0]])
    v = np.array([[1000.0, 200.0]])
    run = replay(p, v, 0.0, np.array([0.2]), WALLS, D, (0.95, 0.8))
    (touch,) = run.touches
    assert _cushion(touch) == FOOT
    assert touch.time == pytest.approx(0.1)
    assert touch.speed == pytest.approx(1000.0)
    # Out at 800 mm/s for the 0.1 s after; along the nose it runs on.
    assert run.at[0, 0] == pytest.approx([NOSE_X - 80.0, 40.0])


def test_two_balls_meeting_head_on_share_their_speeds_by_the_restitution() -> None:
    p = np.array([[0.0, 0.0], [D + 100.0, 0.0]])
    v = np.array([[1000.0, 0.0], [0.0, 0.0]])
    run = replay(p, v, 0.0, np.array([0.2]), WALLS, D, (1.0, 0.8))
    (touch,) = run.touches
    assert (touch.ball, touch.other, touch.wall) == (0, 1, -1)
    assert touch.time == pytest.approx(0.1)
    # Elastic, equal masses: the striker stops where it met the other, which goes on at its speed.
    assert run.at[:, 0] == pytest.approx(np.array([[100.0, 0.0], [D + 200.0, 0.0]]))


def test_a_ball_struck_back_into_the_cushion_it_came_off_touches_it_twice_in_order() -> None:
    # The 7 reaches the foot cushion at 0.05 s and comes off at 480 mm/s; the cue ball,
    # following at 1500 mm/s, meets it and drives it back in.
    p = np.array([[NOSE_X - 60.0, 0.0], [NOSE_X - 60.0 - D - 40.0, 0.0]])
    v = np.array([[1200.0, 0.0], [1500.0, 0.0]])
    run = replay(p, v, 0.0, np.array([0.1]), WALLS, D, (0.95, 0.4))
    kinds = [_cushion(t) if t.wall >= 0 else {t.ball, t.other} for t in run.touches]
    assert kinds[:3] == [FOOT, {0, 1}, FOOT]
    assert run.touches[0].time == pytest.approx(0.05)
    assert run.touches[0].time < run.touches[1].time < run.touches[2].time
    # Without its second touch the 7 would pass through the rubber.
    once = replay(p, v, 0.0, np.array([0.1]), WALLS, D, (0.95, 0.4), once=0)
    assert [t.wall >= 0 for t in once.touches if t.ball == 0].count(True) == 1
    assert once.at[0, 0, 0] > NOSE_X


def test_the_cloth_slows_a_ball_to_rest_and_no_further() -> None:
    p = np.array([[0.0, 0.0]])
    v = np.array([[300.0, 400.0]])
    run = replay(p, v, 0.0, np.array([0.5, 2.0]), WALLS, D, (0.95, 0.8), decel=500.0)
    # 500 mm/s at 500 mm/s^2 stops in 1 s after 250 mm, along its way.
    assert run.at[0, 0] == pytest.approx([0.6 * 187.5, 0.8 * 187.5])
    assert run.at[0, 1] == pytest.approx([0.6 * 250.0, 0.8 * 250.0])


def test_a_ball_meeting_a_walls_end_is_turned_along_the_line_from_it() -> None:
    # Straight at the point where the head cushion's nose meets its jaw, half-way between
    # their normals: neither face is reached, their rounded corner (the knuckle) is.
    walls = [i for i, w in enumerate(GEO.walls) if w.cushion == CushionId.HEAD]
    nose = next(i for i in walls if GEO.walls[i].mouth is None)
    corner = GEO.wall_starts[nose]
    jaw = next(i for i in walls if i != nose and np.allclose(GEO.wall_starts[i], corner, atol=1e-6))
    u = GEO.wall_normals[nose] + GEO.wall_normals[jaw]
    u /= np.hypot(*u)
    p = (corner + u * (D / 2 + 100.0))[None, :]
    run = replay(p, -1000.0 * u[None, :], 0.0, np.array([0.2]), WALLS, D, (0.95, 0.5))
    (touch,) = run.touches
    assert _cushion(touch) == CushionId.HEAD
    assert (touch.time, touch.speed) == (pytest.approx(0.1), pytest.approx(1000.0))
    assert run.at[0, 0] == pytest.approx(corner + u * (D / 2 + 50.0))
