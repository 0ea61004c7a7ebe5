"""Aiming on the virtual table: ghost balls, pocket targets, clear paths, shot speeds.

The shooter's geometry (the ghost-ball method every player uses): to send an object ball
toward a target, the cue ball must arrive where it touches the object ball on the far side of
the line from the target, two radii back.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from calibration.table import TableSpec
from rules.table import PocketId, Point

ROLL_DECEL_MM_S2 = 0.01 * 9810.0


def pocket_target(table: TableSpec, pocket: PocketId) -> Point:
    """Where to send a ball to drop it: on the pocket's axis, just past the shelf edge."""
    p = table.pocket(pocket)
    mx, my = p.mouth_centre
    depth = p.shelf + 5.0
    return (mx + p.axis[0] * depth, my + p.axis[1] * depth)


def unit(v: Point) -> Point:
    """``v`` scaled to length 1."""
    n = math.hypot(v[0], v[1])
    return (v[0] / n, v[1] / n)


def heading_deg(a: Point, b: Point) -> float:
    """Direction from ``a`` to ``b`` in degrees counter-clockwise from +x."""
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def ghost(obj: Point, target: Point, radius: float) -> Point:
    """Where the cue ball's centre must be at contact to send ``obj`` toward ``target``."""
    dx, dy = unit((target[0] - obj[0], target[1] - obj[1]))
    return (obj[0] - 2 * radius * dx, obj[1] - 2 * radius * dy)


def cut_angle_deg(cue: Point, obj: Point, target: Point, radius: float) -> float:
    """Angle between the cue ball's path to the ghost ball and the object ball's path."""
    g = ghost(obj, target, radius)
    a = unit((g[0] - cue[0], g[1] - cue[1]))
    b = unit((target[0] - obj[0], target[1] - obj[1]))
    return math.degrees(math.acos(max(-1.0, min(1.0, a[0] * b[0] + a[1] * b[1]))))


def segment_distance(p: Point, a: Point, b: Point) -> float:
    """Distance from ``p`` to the segment ``a``-``b``."""
    ax, ay = b[0] - a[0], b[1] - a[1]
    length2 = ax * ax + ay * ay
    s = (
        0.0
        if length2 == 0
        else max(0.0, min(1.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / length2))
    )
    return math.hypot(p[0] - a[0] - s * ax, p[1] - a[1] - s * ay)


def path_clear(
    a: Point, b: Point, others: Iterable[Point], radius: float, margin: float = 2.0
) -> bool:
    """True when a ball rolling from ``a`` to ``b`` passes every ball of ``others``."""
    return all(segment_distance(p, a, b) >= 2 * radius + margin for p in others)


def speed_to_travel(distance: float, arrive_mm_s: float = 300.0) -> float:
    """Rolling speed that covers ``distance`` and still arrives at ``arrive_mm_s``."""
    return math.sqrt(arrive_mm_s**2 + 2 * ROLL_DECEL_MM_S2 * distance)


def shot_speed(cue_travel: float, object_travel: float, cut_deg: float) -> float:
    """Cue ball speed for a pot: the object ball (a share ``cos(cut)`` of the speed, 5/7 of
    it kept once rolling) must reach the pocket with some pace left."""
    obj = speed_to_travel(object_travel, 600.0) * 1.3
    transfer = max(math.cos(math.radians(cut_deg)), 0.25) * 0.975 * (5 / 7)
    needed = obj / transfer
    cue = math.sqrt(needed**2 + 2 * ROLL_DECEL_MM_S2 * cue_travel)
    return min(max(cue, 700.0), 6000.0)


def on_cloth(table: TableSpec, p: Point, radius: float, margin: float = 1.0) -> bool:
    """True when a ball centred at ``p`` sits on the playing surface clear of the cushions."""
    return table.on_playing_surface(p) and table.distance_to_cushion(p) >= radius + margin


def throw_deg(cut_deg: float, mu_ball: float = 0.05, e_ball: float = 0.95) -> float:
    """How far ball-ball friction throws the object ball off the line of centres on a cut
    (no side spin), in degrees: the friction impulse is capped by Coulomb and by the impulse
    that stops the slip (see `contact.ball_ball`)."""
    phi = math.radians(min(abs(cut_deg), 89.0))
    normal = (1 + e_ball) / 2 * math.cos(phi)
    tangential = min(mu_ball * normal, math.sin(phi) / 7)
    return math.degrees(math.atan2(tangential, normal))


def ghost_with_throw(cue: Point, obj: Point, target: Point, radius: float) -> Point:
    """The ghost-ball position corrected for throw: aim the line of centres a little to the
    other side so the thrown object ball still runs at ``target``."""
    g = ghost(obj, target, radius)
    d = unit((target[0] - obj[0], target[1] - obj[1]))
    for _ in range(3):
        u = unit((g[0] - cue[0], g[1] - cue[1]))
        n = unit((obj[0] - g[0], obj[1] - g[1]))
        cut = math.degrees(math.acos(max(-1.0, min(1.0, u[0] * n[0] + u[1] * n[1]))))
        # The object ball is dragged toward the cue ball's sideways motion.
        side = 1.0 if u[0] * n[1] - u[1] * n[0] > 0 else -1.0
        turn = math.radians(side * throw_deg(cut))
        c, s_ = math.cos(turn), math.sin(turn)
        n = (d[0] * c - d[1] * s_, d[0] * s_ + d[1] * c)
        g = (obj[0] - 2 * radius * n[0], obj[1] - 2 * radius * n[1])
    return g
