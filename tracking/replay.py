"""A few balls replayed from their ways in over a few frames: which touches, in which order.

Where a ball is pinned against a cushion by another, it touches the cushion, is struck, and
touches it again inside two frame intervals; each frame's velocity then spans two or three
impulses, and tests that read velocities across one interval see one touch where there were
two. The order is what physics makes of the ways in: carried on in straight lines, a ball that
reaches a wall rebounds off it (its normal velocity turned round, less what the rubber keeps),
and two balls that meet share their velocity along the line of centres (equal masses). The
cushion's restitution is not known; the one whose replay puts the balls where the frames after
saw them is taken. Pure: arrays in, touches out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tracking.geometry import touch_roots

_EPS_S = 1e-7
"""Touches closer in time than this are taken in order, not at once."""

_MOST_TOUCHES = 16
"""A replay stops after this many touches: balls locked together touch without end."""


@dataclass(frozen=True, slots=True)
class Walls:
    """The straight rubber faces a replay bounces balls off, as parallel arrays (rows: walls;
    `TableCache.walls`' order).

    Attributes:
        starts: (w, 2) one end of each.
        alongs: (w, 2) from that end to the other.
        normals: (w, 2) unit normals toward the balls.
    """

    starts: np.ndarray
    alongs: np.ndarray
    normals: np.ndarray


@dataclass(frozen=True, slots=True)
class Touch:
    """One touch in a replay.

    Attributes:
        time: When, s.
        ball: The ball (a row of the replayed balls).
        other: The other ball's row, or -1 for a wall.
        wall: The wall's row in `Walls`, or -1 for a ball.
        speed: How fast they closed (along the line of centres, or the wall's normal), mm/s.
        at: Where the ball's centre was then.
    """

    time: float
    ball: int
    other: int = -1
    wall: int = -1
    speed: float = 0.0
    at: tuple[float, float] = (math.nan, math.nan)


@dataclass(frozen=True, slots=True)
class Replay:
    """What a replay made of the balls' ways in.

    Attributes:
        touches: Its touches, in time order.
        at: (balls, len(times), 2) where it put each ball at each of the times asked for.
    """

    touches: tuple[Touch, ...]
    at: np.ndarray


def replay(
    p: np.ndarray,
    v: np.ndarray,
    t0: float,
    times: np.ndarray,
    walls: Walls,
    diameter: float,
    restitutions: tuple[float, float],
    decel: float = 0.0,
    once: int = -1,
) -> Replay:
    """Carry balls at ``p`` (n, 2) moving at ``v`` (n, 2) at ``t0`` on to each of ``times``
    (ascending, after ``t0``), touching each other and ``walls`` on the way; ``restitutions``:
    of a ball-ball contact and of a wall; ``decel``: how fast the cloth slows each ball along
    its way, mm/s^2 (the touches are found along the straight ways: over the few
    milliseconds between them the path bends by a fraction of a millimetre). Ball ``once``
    touches a wall once at most, passing through them after (the replay without its second
    touch, to weigh it against)."""
    p, v = p.astype(float).copy(), v.astype(float).copy()
    ball_restitution, wall_restitution = restitutions
    t = t0
    at = np.empty((len(p), len(times), 2))
    touches: list[Touch] = []
    walled = -1  # the ball ``once``, once it has touched a wall
    for i, t_out in enumerate(times):
        while len(touches) < _MOST_TOUCHES:
            nxt = _next_touch(p, v, walls, diameter, walled)
            if nxt is None or t + nxt[0] > t_out:
                break
            tau, a, b, w, n = nxt
            _advance(p, v, tau, decel)
            t += tau
            if b >= 0:
                speed = _collide(p, v, a, b, ball_restitution)
            else:
                speed = -float(v[a] @ n)
                v[a] += (1.0 + wall_restitution) * speed * n
                walled = once if a == once else walled
            touches.append(Touch(t, a, b, w, speed, (float(p[a, 0]), float(p[a, 1]))))
        _advance(p, v, t_out - t, decel)
        t = t_out
        at[:, i] = p
    return Replay(tuple(touches), at)


def _advance(p: np.ndarray, v: np.ndarray, tau: float, decel: float) -> None:
    """Carry balls on ``tau`` s, each slowing at ``decel`` along its way until it stops."""
    speed = np.hypot(v[:, 0], v[:, 1])
    moving = speed > 0.0
    if decel <= 0.0 or not moving.any():
        p += v * tau
        return
    run = np.minimum(tau, speed / decel)  # each ball's time before it stops
    slow = np.where(moving, 1.0 - decel * run / np.maximum(speed, 1e-9), 0.0)
    p += v * (run - np.where(moving, 0.5 * decel * run**2 / np.maximum(speed, 1e-9), 0.0))[:, None]
    v *= slow[:, None]


def _next_touch(
    p, v, walls: Walls, diameter: float, wall_free: int
) -> tuple[float, int, int, int, np.ndarray | None] | None:
    """(time from now, ball, other ball or -1, wall or -1, the wall's normal there) of the
    first touch to come (ball ``wall_free`` touches no wall). A wall's ends are rounded
    knuckles: a ball meeting one is turned along the line from it to the ball's centre."""
    best: tuple[float, int, int, int, np.ndarray | None] | None = None
    n = len(p)
    for a in range(n):
        for b in range(a + 1, n):
            rel_p, rel_v = p[b] - p[a], v[b] - v[a]
            if float(rel_p @ rel_v) >= 0.0:
                continue  # parting, or side by side
            roots = touch_roots(rel_p, rel_v, diameter)
            if roots and roots[0] > -_EPS_S and (best is None or roots[0] < best[0]):
                best = (max(roots[0], 0.0), a, b, -1, None)
    rad = diameter / 2
    vn = v @ walls.normals.T  # (n, w)
    gap = np.einsum("nwi,wi->nw", p[:, None, :] - walls.starts, walls.normals) - rad
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where((vn < 0) & (gap > -rad), np.maximum(gap, 0.0) / -vn, np.inf)
    if wall_free >= 0:
        tau[wall_free] = np.inf
    for a, w in zip(*np.nonzero(np.isfinite(tau)), strict=True):
        hit = p[a] + v[a] * tau[a, w] - walls.starts[w]
        s = float(hit @ walls.alongs[w]) / float(walls.alongs[w] @ walls.alongs[w])
        if 0.0 <= s <= 1.0 and (best is None or tau[a, w] < best[0]):
            best = (float(tau[a, w]), int(a), -1, int(w), walls.normals[w])
    knuckle = _next_knuckle(p, v, walls, rad, wall_free)
    if knuckle is not None and (best is None or knuckle[0] < best[0]):
        best = knuckle
    return best


def _next_knuckle(p, v, walls: Walls, rad: float, wall_free: int):
    """`_next_touch`'s first touch of a wall's end, or None."""
    ends = np.concatenate([walls.starts, walls.starts + walls.alongs])
    best = None
    for a in range(len(p)):
        speed2 = float(v[a] @ v[a])
        if a == wall_free or speed2 <= 0.0:
            continue
        rel = p[a] - ends
        b = rel @ v[a]
        disc = b * b - speed2 * (np.einsum("ei,ei->e", rel, rel) - rad * rad)
        with np.errstate(invalid="ignore"):
            tau = np.where((b < 0) & (disc >= 0), (-b - np.sqrt(disc)) / speed2, np.inf)
        e = int(np.argmin(tau))
        if tau[e] > -_EPS_S and np.isfinite(tau[e]) and (best is None or tau[e] < best[0]):
            t = max(float(tau[e]), 0.0)
            normal = (p[a] + v[a] * t - ends[e]) / rad
            best = (t, a, -1, e % len(walls.starts), normal / max(math.hypot(*normal), 1e-9))
    return best


def _collide(p: np.ndarray, v: np.ndarray, a: int, b: int, restitution: float) -> float:
    """Two equal balls meeting: their velocities along the line of centres are shared out.
    Returns how fast they closed."""
    n = p[b] - p[a]
    n /= max(math.hypot(*n), 1e-9)
    closing = float((v[a] - v[b]) @ n)
    if closing > 0.0:
        impulse = 0.5 * (1.0 + restitution) * closing
        v[a] -= impulse * n
        v[b] += impulse * n
    return closing
