"""Racks as WPA places them (rules 4.3, 5.2, 6.4) and the cue ball's break spot."""

from __future__ import annotations

import random

from calibration.table import TableSpec
from rules.balls import OBJECT_BALLS, BallId
from rules.table import Point, RackShape


def _radius(table: TableSpec) -> float:
    return table.ball_diameter / 2


def racked(
    table: TableSpec, shape: RackShape, balls: list[BallId], rng: random.Random
) -> list[tuple[BallId, Point]]:
    """Balls in rack slots (in slot order) with the tiny gaps of a real rack (0.05-0.2 mm)."""
    fx, fy = table.foot_spot
    spread = 1.0 + rng.uniform(0.001, 0.0035)
    out = []
    for ball, (x, y) in zip(balls, table.rack_slots(shape), strict=False):
        jitter = (rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02))
        out.append((ball, (fx + (x - fx) * spread + jitter[0], fy + (y - fy) * spread + jitter[1])))
    return out


def eight_ball_order(rng: random.Random) -> list[BallId]:
    """WPA 8-ball rack (4.3): the 8 in the centre, a stripe and a solid in the back corners."""
    solids = [BallId.numbered(n) for n in range(1, 8)]
    stripes = [BallId.numbered(n) for n in range(9, 16)]
    rng.shuffle(solids)
    rng.shuffle(stripes)
    corners = [solids.pop(), stripes.pop()]
    rng.shuffle(corners)
    rest = solids + stripes
    rng.shuffle(rest)
    order: list[BallId | None] = [None] * 15
    order[4] = BallId.EIGHT
    order[10], order[14] = corners
    it = iter(rest)
    return [b if b is not None else next(it) for b in order]


def nine_ball_order(rng: random.Random) -> list[BallId]:
    """WPA 9-ball rack (5.2): the 1 at the apex on the foot spot, the 9 in the centre."""
    rest = [BallId.numbered(n) for n in range(2, 9)]
    rng.shuffle(rest)
    return [BallId.ONE, *rest[:3], BallId.NINE, *rest[3:]]


def straight_pool_order(rng: random.Random) -> list[BallId]:
    """WPA 14.1 rack (6.4): the 1 on the racker's right back corner (+y, the racker stands at
    the foot end facing the head), the 5 on the left (-y)."""
    rest = [b for b in OBJECT_BALLS if b not in (BallId.ONE, BallId.FIVE)]
    rng.shuffle(rest)
    order: list[BallId | None] = [None] * 15
    order[10], order[14] = BallId.ONE, BallId.FIVE
    it = iter(rest)
    return [b if b is not None else next(it) for b in order]


def kitchen_spot(table: TableSpec, rng: random.Random) -> Point:
    """A cue ball spot behind the head string."""
    r = _radius(table)
    x = table.head_string_x - rng.uniform(20.0, 250.0)
    y = rng.uniform(-table.width / 2 + r + 60, table.width / 2 - r - 60)
    return (x, y)
