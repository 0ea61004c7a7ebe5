"""Spotting balls (WPA rule 3.32): where each spotted ball goes, in table millimetres.

Rule 3.32: balls are spotted on the long string once the shot is complete. One ball goes on the
foot spot; several go in number order from the foot spot toward the foot cushion. When balls on
or near the foot spot or the long string are in the way, a spotted ball goes on the long string
as near the foot spot as it can without moving them, as close as possible to (even frozen to)
the ball in the way, except the cue ball, which it must not be frozen to. When there is no room
between the foot spot and the foot cushion, balls go on the long string in front of the foot
spot, as near to it as possible, in the same number order (the lowest nearest the foot spot).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from rules.balls import BallId
from rules.ruling import Spot
from rules.table import Point, TableGeometry

CUE_BALL_CLEARANCE_MM = 2.0
"""Gap left between a spotted ball and the cue ball: as near as possible, not frozen (3.32)."""

_EPS = 1e-6


def spot_balls(
    balls: Iterable[BallId], layout: Iterable[tuple[BallId, Point]], table: TableGeometry
) -> tuple[Spot, ...]:
    """Where to spot ``balls`` (rule 3.32), given the balls already on the table.

    Args:
        balls: The balls to spot, in any order (they are spotted in number order).
        layout: Balls on the table and where (their bases, 3.12), e.g. ``Layout.positions``;
            any entry for a ball being spotted is ignored.
        table: The table geometry (`calibration.TableSpec` satisfies it).

    Returns:
        One `Spot` per ball, in number order. A ball with no room anywhere on the long string
        (an impossible table) is not returned.
    """
    to_spot = sorted(set(balls), key=lambda b: b.number)
    blockers = [(b, p) for b, p in layout if b not in to_spot]
    spots: list[Spot] = []
    for ball in to_spot:
        x = _free_x(blockers, table)
        if x is None:
            continue
        where = (x, table.foot_spot[1])
        spots.append(Spot(ball, where))
        blockers.append((ball, where))
    return tuple(spots)


def _free_x(blockers: list[tuple[BallId, Point]], table: TableGeometry) -> float | None:
    """The x on the long string nearest the foot spot behind it, else in front of it."""
    d = table.ball_diameter
    fx, fy = table.foot_spot
    x_max = table.length / 2 - d / 2
    x_min = -table.length / 2 + d / 2
    candidates = {fx}
    for ball, (bx, by) in blockers:
        reach = d + (CUE_BALL_CLEARANCE_MM if ball is BallId.CUE else 0.0)
        dy = by - fy
        if abs(dy) < reach:
            half = math.sqrt(reach * reach - dy * dy)
            candidates.update((bx - half, bx + half))
    behind = sorted(x for x in candidates if fx - _EPS <= x <= x_max + _EPS)
    in_front = sorted((x for x in candidates if x_min - _EPS <= x < fx), reverse=True)
    for x in (*behind, *in_front):
        if _is_free(x, fy, blockers, d):
            return min(max(x, x_min), x_max)
    return None


def _is_free(x: float, y: float, blockers: list[tuple[BallId, Point]], d: float) -> bool:
    for ball, (bx, by) in blockers:
        reach = d + (CUE_BALL_CLEARANCE_MM if ball is BallId.CUE else 0.0)
        if math.hypot(x - bx, y - by) < reach - 1e-3:
            return False
    return True
