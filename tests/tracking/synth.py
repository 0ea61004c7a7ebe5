"""Hand-made ball trajectories with exact truth, turned into noisy Detections (seeded).

A tiny event-stepped table: balls roll in straight lines with constant deceleration, collide
elastically (equal masses swap normal velocity components), reflect off cushion noses with
restitution, drop when their centre enters a pocket opening, and can be sent airborne over a
cushion (left table). Every contact is recorded with its exact time. `render` samples the motion at
a frame rate and adds what vision would do: Gaussian position noise, missed detections, occluders
that hide balls, and identity probabilities that may confuse look-alike balls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from calibration.table import TableSpec
from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from rules.signals import PocketSignal
from rules.table import Point
from vision.detections import BALL_ORDER, Detections

TABLE = TableSpec.standard("9ft")


@dataclass
class _Ball:
    id: BallId
    p: np.ndarray
    v: np.ndarray
    on: bool = True
    airborne: bool = False
    dropping_at: float | None = None


@dataclass
class Sim:
    """The truth of one simulated shot.

    Attributes:
        events: Exact events (strike, contacts, cushions, pockets, left table), time order.
        frames: Frame times.
        positions: Per frame, ball -> centre (balls on the table or still visible only).
        signals: Pocket-sensor signals of the pocketed balls.
        end_time: When the last ball stopped (rule 3.15).
        airborne_frames: Per frame, balls airborne (rendered bigger).
    """

    events: list[ShotEvent] = field(default_factory=list)
    frames: list[float] = field(default_factory=list)
    positions: list[dict[BallId, np.ndarray]] = field(default_factory=list)
    signals: list[PocketSignal] = field(default_factory=list)
    end_time: float = 0.0
    airborne_frames: list[set[BallId]] = field(default_factory=list)

    def of_kind(self, kind: EventKind) -> list[ShotEvent]:
        """Truth events of one kind."""
        return [e for e in self.events if e.kind is kind]


def simulate(
    layout: dict[BallId | str, Point],
    strike: tuple[float, float] | None,
    *,
    strike_time: float = 0.5,
    pushes: dict[BallId | str, tuple[float, float, float]] | None = None,
    jump: BallId | str | None = None,
    fps: float = 60.0,
    decel: float = 600.0,
    restitution: float = 0.85,
    tail: float = 0.8,
    max_time: float = 20.0,
    table: TableSpec = TABLE,
    drop_delay: float = 0.08,
) -> Sim:
    """Run one shot.

    Args:
        layout: Ball -> centre at the start.
        strike: Cue-ball velocity (mm/s) given at ``strike_time``; None for no strike.
        strike_time: When the cue ball is struck.
        pushes: Ball -> (time, vx, vy): a ball set moving with no contact (a disturbance).
        jump: A ball that flies over the cushions when it reaches them (leaves the table).
        fps: Frame rate of the sampled positions.
        decel: Rolling deceleration, mm/s^2.
        restitution: Cushion restitution of the normal velocity.
        tail: Seconds sampled after the last ball stops.
        max_time: Give up after this long.
        table: The table.
        drop_delay: Pocket-sensor delay after the centre crosses the mouth line, s.
    """
    sub = 8
    h = 1.0 / (fps * sub)
    balls = [_Ball(BallId(b), np.array(p, float), np.zeros(2)) for b, p in layout.items()]
    by_id = {b.id: b for b in balls}
    pushes = {BallId(k): v for k, v in (pushes or {}).items()}
    sim = Sim()
    r, d = table.ball_diameter / 2, table.ball_diameter
    hx, hy = table.length / 2, table.width / 2
    t, step, last_motion = 0.0, 0, 0.0
    struck = strike is None
    while t < max_time:
        if step % sub == 0:
            sim.frames.append(t)
            sim.positions.append({b.id: b.p.copy() for b in balls if b.on})
            sim.airborne_frames.append({b.id for b in balls if b.on and b.airborne})
            moving = any(b.on and np.any(b.v) for b in balls)
            if struck and not pushes and not moving and t >= last_motion + tail:
                break
        if not struck and t >= strike_time - 1e-12:
            by_id[BallId.CUE].v = np.array(strike, float)
            sim.events.append(ShotEvent(EventKind.CUE_STRIKE, t, (BallId.CUE,)))
            struck = True
        for ball_id, (tp, vx, vy) in list(pushes.items()):
            if t >= tp - 1e-12:
                by_id[ball_id].v = np.array((vx, vy), float)
                sim.events.append(ShotEvent(EventKind.BALL_DISTURBED, t, (ball_id,)))
                del pushes[ball_id]
        t += h
        step += 1
        for b in balls:
            speed = float(np.hypot(*b.v))
            if not b.on or speed == 0:
                continue
            if speed <= decel * h:
                b.v[:] = 0.0
                last_motion = t
                continue
            b.v *= 1.0 - decel * h / speed
            b.p += b.v * h
            last_motion = t
        _collide(balls, t, d, sim)
        for b in balls:
            if b.on and np.any(b.v):
                _edges(b, t, table, r, hx, hy, restitution, jump, sim, drop_delay)
    sim.end_time = last_motion
    sim.events.sort(key=lambda e: e.time)
    return sim


def _collide(balls: list[_Ball], t: float, d: float, sim: Sim) -> None:
    for i, a in enumerate(balls):
        for b in balls[i + 1 :]:
            if not (a.on and b.on) or a.airborne or b.airborne or a.dropping_at or b.dropping_at:
                continue
            delta = a.p - b.p
            dist = float(np.hypot(*delta))
            rel = a.v - b.v
            closing = float(rel @ delta)
            if dist >= d or closing >= 0:
                continue
            n = delta / dist
            speed_n = float(rel @ n)
            back = (d - dist) / max(-speed_n, 1e-9)
            va, vb = float(a.v @ n), float(b.v @ n)
            a.v += (vb - va) * n
            b.v += (va - vb) * n
            pair = (a.id, b.id) if b.id is not BallId.CUE else (b.id, a.id)
            sim.events.append(ShotEvent(EventKind.BALL_BALL, t - back, pair))


def _edges(b, t, table, r, hx, hy, e, jump, sim, drop_delay) -> None:
    p = (float(b.p[0]), float(b.p[1]))
    if b.airborne:
        if abs(p[0]) > hx + 3 * r or abs(p[1]) > hy + 3 * r:
            b.on = False
            b.v[:] = 0.0
        return
    if b.dropping_at is not None:
        if t >= b.dropping_at:
            b.on = False
            b.v[:] = 0.0
        return
    pocket = table.pocket_at(p)
    if pocket is not None:
        # Still in sight inside the opening for a moment, then gone down the drop.
        b.dropping_at = t + drop_delay / 2
        sim.events.append(ShotEvent(EventKind.POCKETED, t, (b.id,), pocket=pocket))
        sim.signals.append(PocketSignal(pocket, t + drop_delay, 0.005))
        return
    for seg in table.cushions:
        n = np.array(seg.normal)
        start = np.array(seg.start)
        dist = float((b.p - start) @ n)
        vn = float(b.v @ n)
        if dist >= r or vn >= 0:
            continue
        along = np.array(seg.end) - start
        s = float((b.p - start) @ along / (along @ along))
        if not 0.0 <= s <= 1.0:
            continue
        back = (r - dist) / -vn
        if jump is not None and b.id == BallId(jump):
            b.airborne = True
            sim.events.append(ShotEvent(EventKind.LEFT_TABLE, t - back, (b.id,), cushion=seg.id))
            return
        b.v -= (1 + e) * vn * n
        sim.events.append(ShotEvent(EventKind.BALL_CUSHION, t - back, (b.id,), cushion=seg.id))
        return
    if abs(p[0]) > hx + r or abs(p[1]) > hy + r:
        # Past the nose line beside a jaw: call it the nearest pocket (rare in hand-made shots).
        near = min(table.pockets, key=lambda pk: math.dist(p, pk.mouth_centre))
        b.on = False
        b.v[:] = 0.0
        sim.events.append(ShotEvent(EventKind.POCKETED, t, (b.id,), pocket=near.id))
        sim.signals.append(PocketSignal(near.id, t + drop_delay, 0.005))


@dataclass(frozen=True)
class Occlusion:
    """Something over the table from ``start`` to ``end`` (s) hiding balls inside ``polygon``."""

    polygon: tuple[Point, ...]
    start: float
    end: float


def box(cx: float, cy: float, half: float) -> tuple[Point, ...]:
    """A square occluder polygon."""
    return (
        (cx - half, cy - half),
        (cx + half, cy - half),
        (cx + half, cy + half),
        (cx - half, cy + half),
    )


def render(
    sim: Sim,
    seed: int = 0,
    *,
    sigma: float = 1.5,
    miss: float = 0.0,
    p_id: float = 0.9,
    confuse: dict[BallId | str, BallId | str] | None = None,
    occlusions: tuple[Occlusion, ...] = (),
    radius_px: float = 11.0,
    confuse_after: float = 0.0,
    outliers: tuple[float, float] = (0.0, 0.0),
) -> list[Detections]:
    """Sample the shot as detections, seeded.

    Args:
        sim: The simulated shot.
        seed: RNG seed.
        sigma: Position noise, mm.
        miss: Probability a visible ball is not detected in a frame.
        p_id: Identity probability given to the true ball.
        confuse: Ball -> look-alike: identity split evenly between them (no colour evidence).
        confuse_after: ... from this time on (before it, vision could tell them apart).
        occlusions: Occluders and when they are over the table.
        radius_px: Apparent radius of a ball on the cloth.
        outliers: (probability, mm): a detection placed this far off in a random direction, on
            top of its noise, though its sigma says ``sigma`` (vision's errors have heavy
            tails: a ball beside another, a streak of blur).
    """
    rng = np.random.default_rng(seed)
    confuse = {BallId(a): BallId(b) for a, b in (confuse or {}).items()}
    out = []
    for k, (t, balls) in enumerate(zip(sim.frames, sim.positions, strict=True)):
        active = tuple(o.polygon for o in occlusions if o.start <= t <= o.end)
        rows, ids, radii = [], [], []
        for ball, p in balls.items():
            if rng.random() < miss or any(_inside(p, poly) for poly in active):
                continue
            rows.append(p + rng.normal(0.0, sigma, 2))
            if outliers[0] > 0 and rng.random() < outliers[0]:
                angle = rng.uniform(0.0, 2 * np.pi)
                rows[-1] = rows[-1] + outliers[1] * np.array([np.cos(angle), np.sin(angle)])
            ident = np.zeros(len(BALL_ORDER))
            twin = confuse.get(ball) if t >= confuse_after else None
            if twin is not None:
                ident[BALL_ORDER.index(ball)] = p_id / 2
                ident[BALL_ORDER.index(twin)] = p_id / 2
            else:
                ident[BALL_ORDER.index(ball)] = p_id
            ids.append(ident)
            radii.append(radius_px * (1.25 if ball in sim.airborne_frames[k] else 1.0))
        order = rng.permutation(len(rows))
        out.append(
            Detections.of(
                k,
                t,
                np.array(rows).reshape(-1, 2)[order],
                sigma=sigma,
                identity=np.array(ids).reshape(-1, len(BALL_ORDER))[order],
                radius_px=np.array(radii)[order] if radii else 0.0,
                occluded=active,
            )
        )
    return out


def _inside(p: np.ndarray, poly: tuple[Point, ...]) -> bool:
    x, y = float(p[0]), float(p[1])
    inside = False
    for i in range(len(poly)):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % len(poly)]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside
