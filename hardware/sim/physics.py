"""The event-based physics engine of the virtual table.

Every ball moves analytically within its phase (see `motion`); the engine finds the earliest
next event exactly (a phase change, a ball-ball contact, a cushion, jaw or jaw-point contact,
a pocket's mouth or drop line), moves the clock there, applies it and repeats until every
ball rests. Only the balls an event touched are re-solved, so a 9-ball break takes a few
hundred events and well under a second.

Simultaneous events (the contacts of a frozen rack) are taken one at a time in a fixed order
(time, then kind, then ball indices), so the same input always gives the same output.

`Engine` is also the scripting surface for the situations physics alone does not produce:
a scenario may set a ball moving at any time (`set_state`), drive it along a set path
(`drive`), put it in the air (`fly`) or take it off the table (`remove`), and record events
it knows the truth of (`record`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from calibration.table import TableSpec
from hardware.sim import contact
from hardware.sim.boundary import Boundary
from hardware.sim.motion import (
    GRAVITY_MM_S2,
    BallState,
    Phase,
    PhysicsParams,
    Segment,
    cloth_segment,
    end_state,
)
from hardware.sim.solve import (
    first_closing_quadratic,
    first_closing_roots,
    first_crossing,
    gap_quartic,
)
from rules.balls import BallId
from rules.errors import RailbirdError
from rules.events import EventKind, ShotEvent
from rules.table import CushionId, PocketId, Point

log = logging.getLogger(__name__)


DROP_SECONDS = 0.12
"""How long a pocketed ball takes to sink out of sight."""


class SimulationError(RailbirdError):
    """The simulation cannot go on: bad input, or a runaway sequence of events."""


class _Kind(IntEnum):
    """Event kinds in the order simultaneous ones are handled."""

    BALL = 0
    WALL = 1
    KNUCKLE = 2
    DROP = 3
    MOUTH_IN = 4
    MOUTH_OUT = 5
    PHASE = 6


@dataclass(frozen=True, slots=True)
class _Next:
    time: float
    kind: _Kind
    ball: int
    other: int = -1
    """The other ball, the wall, knuckle or pocket index."""

    def key(self) -> tuple[float, int, int, int]:
        return (self.time, int(self.kind), self.ball, self.other)


_NONE = _Next(math.inf, _Kind.PHASE, -1)

_TRANSLATING = frozenset({Phase.SLIDING, Phase.ROLLING, Phase.DRIVEN})
_CONTACTING = frozenset(
    {Phase.SLIDING, Phase.ROLLING, Phase.SPINNING, Phase.STATIONARY, Phase.DRIVEN}
)


class Engine:
    """The virtual table's balls, their trajectories so far, and the events that made them.

    Args:
        table: The table played on.
        layout: Each ball and its (x, y) on the cloth, in the order the arrays will use. A
            label may repeat (two cue balls in a lag).
        params: Physical constants.
        start_time: Session time the balls are placed at.
        max_events: Guard against a runaway simulation.

    Raises:
        SimulationError: two balls overlap, or a ball is off the playing surface.
    """

    def __init__(
        self,
        table: TableSpec,
        layout: Sequence[tuple[BallId, Point]],
        params: PhysicsParams | None = None,
        start_time: float = 0.0,
        max_events: int = 20000,
    ) -> None:
        self.table = table
        self.params = params or PhysicsParams(radius=table.ball_diameter / 2)
        self.boundary = Boundary.of(table)
        self.labels: tuple[BallId, ...] = tuple(b for b, _ in layout)
        self.time = start_time
        self.events: list[ShotEvent] = []
        self.event_indices: list[tuple[int, ...]] = []
        """Array indices of each event's balls (labels can repeat in a lag)."""
        self.max_events = max_events
        self._event_count = 0
        r = self.params.radius
        self.tracks: list[list[Segment]] = []
        self._end: list[float] = []
        for ball, (x, y) in layout:
            if not table.on_playing_surface((x, y)) and self._mouth_holding((x, y)) is None:
                raise SimulationError(
                    f"ball {ball} at ({x:.1f}, {y:.1f}) is off the playing surface"
                )
            seg, _ = cloth_segment(start_time, BallState((x, y, r)), self.params)
            self.tracks.append([seg])
            self._end.append(math.inf)
        self._check_overlaps()
        n = len(self.labels)
        self._wall: list[_Next] = [_NONE] * n
        self._pair: dict[tuple[int, int], _Next] = {}
        self._last_contact: dict[tuple[int, int], float] = {}
        """Time of each pair's (ball, ~wall) last contact: a repeat at the same instant with
        next to no approach speed is a resting contact, not a new collision."""
        self._in_mouth: list[int | None] = [None] * n
        self._after_script: list[str] = ["cloth"] * n
        for i, (_, xy) in enumerate(layout):
            self._in_mouth[i] = self._mouth_holding(xy)
        for i in range(n):
            self._refresh(i)

    # Queries ------------------------------------------------------------------------------------

    def segment(self, i: int) -> Segment:
        """Ball ``i``'s current (last) segment."""
        return self.tracks[i][-1]

    def state(self, i: int, t: float | None = None) -> BallState:
        """Ball ``i``'s state at ``t`` (default: now)."""
        return self.segment(i).state(self.time if t is None else t)

    def phase(self, i: int) -> Phase:
        """Ball ``i``'s current phase."""
        return self.segment(i).phase

    def index(self, ball: BallId) -> int:
        """Array index of the first ball with this label."""
        return self.labels.index(ball)

    @property
    def moving(self) -> tuple[int, ...]:
        """Indices of balls moving or spinning now."""
        return tuple(i for i in range(len(self.labels)) if self.phase(i).moving)

    def on_cloth(self, i: int) -> bool:
        """True when ball ``i`` is on the cloth (not pocketed, off the table or in the air)."""
        return self.phase(i).on_cloth

    # Scripting ----------------------------------------------------------------------------------

    def set_state(self, i: int, state: BallState) -> None:
        """Give ball ``i`` a new state on the cloth now (a strike, a hand's nudge)."""
        self._start(i, *cloth_segment(self.time, state, self.params))

    def drive(
        self,
        i: int,
        velocity: tuple[float, float],
        duration: float,
        acceleration: tuple[float, float] = (0.0, 0.0),
        spin: tuple[float, float, float] = (0.0, 0.0, 0.0),
    ) -> None:
        """Move ball ``i`` along a set path for ``duration`` (pushed by the cue); balls it
        meets bounce off it as off an immovable body; then it continues on the cloth."""
        p = self.state(i).position
        seg = Segment(
            self.time,
            Phase.DRIVEN,
            (p[0], p[1], self.params.radius),
            (velocity[0], velocity[1], 0.0),
            (acceleration[0], acceleration[1], 0.0),
            spin,
        )
        self._after_script[i] = "cloth"
        self._start(i, seg, duration)

    def fly(
        self,
        i: int,
        velocity: tuple[float, float, float],
        duration: float,
        then: str = "cloth",
        spin: tuple[float, float, float] = (0.0, 0.0, 0.0),
        gravity: float = GRAVITY_MM_S2,
    ) -> None:
        """Put ball ``i`` in the air (ballistic, touching nothing) for ``duration``.

        Args:
            i: The ball.
            velocity: Launch velocity (vz > 0 up).
            duration: Time in the air.
            then: ``cloth`` lands and rolls on, ``off-table`` stays where it lands (a rail top),
                ``gone`` leaves the scene (the floor).
            spin: Angular velocity in the air.
            gravity: Vertical deceleration (mm/s^2).
        """
        p = self.state(i).position
        seg = Segment(self.time, Phase.AIRBORNE, p, velocity, (0.0, 0.0, -gravity), spin)
        self._after_script[i] = then
        self._start(i, seg, duration)

    def remove(
        self, i: int, where: tuple[float, float, float] | None = None, phase: Phase = Phase.POCKETED
    ) -> None:
        """Take ball ``i`` off the table now (pocketed, picked up, on the floor)."""
        p = where or self.state(i).position
        seg = Segment(
            self.time, phase, p, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), on_table=False
        )
        self._start(i, seg, math.inf)

    def place(self, i: int, xy: Point) -> None:
        """Put ball ``i`` at rest on the cloth at ``xy`` now (a hand placing it)."""
        r = self.params.radius
        self._in_mouth[i] = self._mouth_holding(xy)
        self.set_state(i, BallState((xy[0], xy[1], r)))

    def record(self, event: ShotEvent, indices: tuple[int, ...] | None = None) -> None:
        """Add an event the script knows the truth of."""
        self.events.append(event)
        self.event_indices.append(
            tuple(self.index(b) for b in event.balls) if indices is None else indices
        )

    # Running ------------------------------------------------------------------------------------

    def run(
        self, until: float = math.inf, stop_after: Callable[[ShotEvent], bool] | None = None
    ) -> float:
        """Advance to ``until`` or until every ball rests, whichever is first.

        Args:
            until: Latest time to reach.
            stop_after: Stop right after an event this predicate accepts (a script's cue).

        Returns:
            The time reached. When the balls came to rest, an ALL_AT_REST event is recorded.

        Raises:
            SimulationError: more than ``max_events`` events (a runaway).
        """
        moved = bool(self.moving)
        while True:
            nxt = self._earliest()
            if nxt.time > until:
                self.time = until
                return until
            if nxt.time == math.inf:
                if moved:
                    self.record(ShotEvent(EventKind.ALL_AT_REST, self.time), ())
                return self.time
            self._event_count += 1
            if self._event_count > self.max_events:
                raise SimulationError(f"more than {self.max_events} events by t={self.time:.4f}s")
            self.time = max(self.time, nxt.time)
            moved = True
            seen = len(self.events)
            self._apply(nxt)
            if stop_after is not None and any(stop_after(e) for e in self.events[seen:]):
                return self.time

    def _earliest(self) -> _Next:
        best = _NONE
        best_key = best.key()
        for i, t in enumerate(self._end):
            if t <= best_key[0] and t < math.inf:
                cand = _Next(t, _Kind.PHASE, i)
                if cand.key() < best_key:
                    best, best_key = cand, cand.key()
        for cand in (*self._wall, *self._pair.values()):
            if cand.time <= best_key[0] and cand.key() < best_key:
                best, best_key = cand, cand.key()
        return best

    # Applying events ----------------------------------------------------------------------------

    def _apply(self, nxt: _Next) -> None:
        t = self.time
        i = nxt.ball
        if nxt.kind is _Kind.PHASE:
            self._phase_end(i)
        elif nxt.kind is _Kind.BALL:
            self._ball_contact(i, nxt.other)
        elif nxt.kind is _Kind.WALL:
            self._last_contact[(i, -1 - nxt.other)] = t
            wall = self.boundary.walls[nxt.other]
            self._cushion_contact(i, wall.normal, wall.cushion)
        elif nxt.kind is _Kind.KNUCKLE:
            knuckle = self.boundary.knuckles[nxt.other]
            x, y, _ = self.state(i).position
            d = math.hypot(x - knuckle.point[0], y - knuckle.point[1])
            normal = ((x - knuckle.point[0]) / d, (y - knuckle.point[1]) / d)
            self._cushion_contact(i, normal, knuckle.cushion)
        elif nxt.kind is _Kind.DROP:
            self._drop(i, nxt.other)
        elif nxt.kind is _Kind.MOUTH_IN:
            self._in_mouth[i] = nxt.other
            self._refresh_walls(i)
        elif nxt.kind is _Kind.MOUTH_OUT:
            if self._in_mouth[i] == nxt.other:
                pocket = self.boundary.pockets[nxt.other].pocket
                self._event(EventKind.POCKET_REBOUND, t, (i,), pocket=pocket)
            self._in_mouth[i] = None
            self._refresh_walls(i)

    def _phase_end(self, i: int) -> None:
        seg = self.segment(i)
        t = self.time
        if seg.phase.on_cloth:
            new = end_state(seg, t, self.params)
            self._start(i, *cloth_segment(t, new, self.params))
            if self.phase(i) is Phase.STATIONARY:
                self._event(EventKind.BALL_AT_REST, t, (i,))
            return
        st = seg.state(t)
        then = self._after_script[i]
        if then == "gone":
            self.remove(i)
        elif then == "off-table":
            self.remove(i, phase=Phase.OFF_TABLE)
        else:
            x, y, _ = st.position
            landed = BallState(
                (x, y, self.params.radius), (st.velocity[0], st.velocity[1], 0.0), st.spin
            )
            self.set_state(i, landed)
            if self.phase(i) is Phase.STATIONARY:
                self._event(EventKind.BALL_AT_REST, t, (i,))

    def _ball_contact(self, i: int, j: int) -> None:
        cluster = self._cluster(i, j)
        if len(cluster) > 2 and self._cluster_contact(cluster):
            return
        self._last_contact[(i, j)] = self.time
        a, b = self.state(i), self.state(j)
        new_a, new_b = contact.ball_ball(
            a,
            b,
            self.params,
            a_driven=self.phase(i) is Phase.DRIVEN,
            b_driven=self.phase(j) is Phase.DRIVEN,
        )
        self._event(EventKind.BALL_BALL, self.time, self._striker_first(i, j, a, b))
        for k, new in ((i, new_a), (j, new_b)):
            if self.phase(k) is Phase.DRIVEN:
                self._refresh(k)
            else:
                self.set_state(k, new)

    def _cluster(self, i: int, j: int) -> list[int]:
        """Balls touching ``i`` or ``j`` through a chain of hair-thin gaps, in index order."""
        gap = self.params.cluster_gap
        if gap <= 0 or Phase.DRIVEN in (self.phase(i), self.phase(j)):
            return [i, j]
        r2 = 2 * self.params.radius + gap
        pos = {
            k: self.state(k).position
            for k in range(len(self.labels))
            if self.phase(k) in _CONTACTING and self.phase(k) is not Phase.DRIVEN
        }
        found, todo = {i, j}, [i, j]
        while todo:
            m = todo.pop()
            pm = pos.get(m)
            if pm is None:
                continue
            for k, pk in pos.items():
                if k not in found and (pm[0] - pk[0]) ** 2 + (pm[1] - pk[1]) ** 2 < r2 * r2:
                    found.add(k)
                    todo.append(k)
        return sorted(found)

    def _cluster_contact(self, cluster: list[int]) -> bool:
        """Resolve every contact of a cluster at once; False (nothing done) if that would
        add energy, so the caller falls back to one pair."""
        r2 = 2 * self.params.radius + self.params.cluster_gap
        states = [self.state(k) for k in cluster]
        pos = [s.position[:2] for s in states]
        vel = [s.velocity[:2] for s in states]
        contacts = [
            (a, b)
            for a in range(len(cluster))
            for b in range(a + 1, len(cluster))
            if math.dist(pos[a], pos[b]) < r2
        ]
        new, impulses = contact.simultaneous(pos, vel, contacts, self.params.e_ball)
        before = sum(v[0] ** 2 + v[1] ** 2 for v in vel)
        after = sum(v[0] ** 2 + v[1] ** 2 for v in new)
        if after > before * (1 + 1e-12):
            return False
        t = self.time
        for (a, b), lam in zip(contacts, impulses, strict=True):
            if lam > 1e-9:
                i, j = cluster[a], cluster[b]
                self._last_contact[(i, j)] = t
                self._event(EventKind.BALL_BALL, t, self._striker_first(i, j, states[a], states[b]))
        for k, st, v in zip(cluster, states, new, strict=True):
            if (v[0] - st.velocity[0]) ** 2 + (v[1] - st.velocity[1]) ** 2 > 1e-18:
                self.set_state(k, BallState(st.position, (v[0], v[1], 0.0), st.spin))
        return True

    def _striker_first(self, i: int, j: int, a: BallState, b: BallState) -> tuple[int, int]:
        if self.labels[i] is BallId.CUE:
            return (i, j)
        if self.labels[j] is BallId.CUE:
            return (j, i)
        ax, ay, _ = a.position
        bx, by, _ = b.position
        dx, dy = bx - ax, by - ay
        toward_a = a.velocity[0] * dx + a.velocity[1] * dy
        toward_b = -(b.velocity[0] * dx + b.velocity[1] * dy)
        return (i, j) if toward_a >= toward_b else (j, i)

    def _cushion_contact(self, i: int, normal: tuple[float, float], cushion: CushionId) -> None:
        st = self.state(i)
        self.set_state(i, contact.cushion(st, normal, self.params))
        self._event(EventKind.BALL_CUSHION, self.time, (i,), cushion=cushion)

    def _drop(self, i: int, k: int) -> None:
        lines = self.boundary.pockets[k]
        pocket = self.table.pocket(lines.pocket)
        cx, cy = pocket.centre
        self._in_mouth[i] = None
        # Seen from above the ball sinks into the hole for a moment, drifting to its middle.
        x, y, _ = self.state(i).position
        fall = DROP_SECONDS
        r = self.params.radius
        sinking = Segment(
            self.time,
            Phase.POCKETED,
            (x, y, r),
            ((cx - x) / fall, (cy - y) / fall, 0.0),
            (0.0, 0.0, -2 * (2 * r) / fall**2),
            self.state(i).spin,
        )
        self._start(i, sinking, math.inf)
        self._end[i] = math.inf
        gone = Segment(
            self.time + fall,
            Phase.POCKETED,
            (cx, cy, -r),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
            on_table=False,
        )
        sinking.t1 = gone.t0
        self.tracks[i].append(gone)
        self._refresh(i)
        self._event(EventKind.POCKETED, self.time, (i,), pocket=lines.pocket)

    def _event(self, kind: EventKind, t: float, balls: tuple[int, ...], **kw: object) -> None:
        labels = tuple(self.labels[k] for k in balls)
        if len(set(labels)) != len(labels):
            log.debug("skipping %s between two balls labelled %s", kind, labels[0])
            return
        self.record(ShotEvent(kind, t, labels, **kw), balls)  # type: ignore[arg-type]

    # Bookkeeping --------------------------------------------------------------------------------

    def _start(self, i: int, seg: Segment, duration: float) -> None:
        old = self.segment(i)
        if seg.t0 <= old.t0:
            self.tracks[i].pop()
            if self.tracks[i]:
                self.tracks[i][-1].t1 = seg.t0
        else:
            old.t1 = seg.t0
        self.tracks[i].append(seg)
        self._end[i] = seg.t0 + duration
        self._refresh(i)

    def _refresh(self, i: int) -> None:
        self._refresh_walls(i)
        n = len(self.labels)
        for j in range(n):
            if j != i:
                self._pair.pop((min(i, j), max(i, j)), None)
        seg_i = self.segment(i)
        if seg_i.phase not in _CONTACTING:
            return
        others = [j for j in range(n) if j != i and self.segment(j).phase in _CONTACTING]
        if seg_i.phase not in _TRANSLATING:
            others = [j for j in others if self.segment(j).phase in _TRANSLATING]
        if not others:
            return
        self._solve_pairs(i, others)

    def _solve_pairs(self, i: int, others: list[int]) -> None:
        t = self.time
        contact_d = 2 * self.params.radius
        pi, vi, ai = self._kinematics(i, t)
        rows, keep = [], []
        for j in others:
            pj, vj, aj = self._kinematics(j, t)
            horizon = min(self._end[i], self._end[j]) - t
            d = (pj[0] - pi[0], pj[1] - pi[1])
            v = (vj[0] - vi[0], vj[1] - vi[1])
            a = (aj[0] - ai[0], aj[1] - ai[1])
            gap = math.hypot(*d) - contact_d
            if horizon == math.inf:
                horizon = 1e6
            reach = math.hypot(*v) * horizon + 0.5 * math.hypot(*a) * horizon * horizon
            if gap > reach + 1e-6:
                continue
            rows.append(gap_quartic(d, v, a, contact_d))
            keep.append((j, horizon))
        if not rows:
            return
        coeffs = np.array(rows)
        times = first_closing_roots(coeffs, np.array([h for _, h in keep]), contact_d)
        for (j, _), s, c in zip(keep, times, coeffs, strict=True):
            if s < math.inf:
                a_, b_ = min(i, j), max(i, j)
                approach = -c[3] / (2 * contact_d)
                if self._resting((a_, b_), float(s), approach):
                    continue
                self._pair[(a_, b_)] = _Next(t + float(s), _Kind.BALL, a_, b_)

    def _resting(self, key: tuple[int, int], s: float, approach: float) -> bool:
        return (
            s < 1e-6
            and self._last_contact.get(key) == self.time
            and approach < self.params.plastic_speed
        )

    def _kinematics(
        self, i: int, t: float
    ) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        seg = self.segment(i)
        p = seg.position(t)
        v = seg.velocity(t)
        return (p[0], p[1]), (v[0], v[1]), (seg.a[0], seg.a[1])

    def _refresh_walls(self, i: int) -> None:
        seg = self.segment(i)
        if seg.phase not in (Phase.SLIDING, Phase.ROLLING):
            self._wall[i] = _NONE
            return
        t = self.time
        horizon = self._end[i] - t
        (px, py), (vx, vy), (ax, ay) = self._kinematics(i, t)
        r = self.params.radius
        best = _NONE
        for k, wall in enumerate(self.boundary.walls):
            nx, ny = wall.normal
            sx, sy = wall.start
            gap = (px - sx) * nx + (py - sy) * ny - r
            vn = vx * nx + vy * ny
            s = first_closing_quadratic(gap, vn, ax * nx + ay * ny, min(horizon, best.time - t))
            if s == math.inf or self._resting((i, -1 - k), s, -vn):
                continue
            hx = px + vx * s + 0.5 * ax * s * s
            hy = py + vy * s + 0.5 * ay * s * s
            dx, dy = wall.direction
            along = (hx - sx) * dx + (hy - sy) * dy
            if 0.0 <= along <= wall.length:
                best = _Next(t + s, _Kind.WALL, i, k)
        best = self._knuckle_next(i, (px, py), (vx, vy), (ax, ay), horizon, best)
        best = self._pocket_next(i, (px, py), (vx, vy), (ax, ay), horizon, best)
        self._wall[i] = best

    def _knuckle_next(self, i, p, v, a, horizon, best: _Next) -> _Next:
        t = self.time
        r = self.params.radius
        limit = min(horizon, best.time - t)
        reach = (
            math.hypot(*v) * limit + 0.5 * math.hypot(*a) * limit * limit
            if limit < math.inf
            else math.inf
        )
        rows, ks = [], []
        for k, knuckle in enumerate(self.boundary.knuckles):
            d = (p[0] - knuckle.point[0], p[1] - knuckle.point[1])
            if math.hypot(*d) - r > reach + 1e-6:
                continue
            rows.append(gap_quartic(d, v, a, r))
            ks.append(k)
        if not rows:
            return best
        times = first_closing_roots(np.array(rows), np.full(len(rows), limit), r)
        for k, s in zip(ks, times, strict=True):
            cand = _Next(t + float(s), _Kind.KNUCKLE, i, k)
            if s < math.inf and cand.key() < best.key():
                best = cand
        return best

    def _pocket_next(self, i, p, v, a, horizon, best: _Next) -> _Next:
        t = self.time
        speed, accel = math.hypot(*v), math.hypot(*a)
        for k, lines in enumerate(self.boundary.pockets):
            ax_, ay_ = lines.axis
            depth = lines.depth(p)
            limit = min(horizon, best.time - t)
            # Too far from this pocket to reach its mouth before anything else happens.
            if limit < math.inf and -depth > speed * limit + 0.5 * accel * limit * limit:
                continue
            dv = v[0] * ax_ + v[1] * ay_
            da = a[0] * ax_ + a[1] * ay_
            if self._in_mouth[i] == k:
                checks = (
                    (_Kind.DROP, depth - lines.drop_depth, True),
                    (_Kind.MOUTH_OUT, depth, False),
                )
            else:
                checks = ((_Kind.MOUTH_IN, depth, True),)
            for kind, c, inward in checks:
                s = first_crossing(c, dv, da, limit, inward)
                if s == math.inf:
                    continue
                hx = p[0] + v[0] * s + 0.5 * a[0] * s * s
                hy = p[1] + v[1] * s + 0.5 * a[1] * s * s
                if kind is _Kind.MOUTH_IN and abs(lines.lateral((hx, hy))) > lines.half_mouth:
                    continue
                cand = _Next(t + s, kind, i, k)
                if cand.key() < best.key():
                    best = cand
                    limit = s
        return best

    def _mouth_holding(self, xy: Point) -> int | None:
        """Index of the pocket whose mouth ``xy`` is past (hanging on the lip), or None."""
        for k, lines in enumerate(self.boundary.pockets):
            if 0 < lines.depth(xy) < lines.drop_depth and abs(lines.lateral(xy)) < lines.half_mouth:
                return k
        return None

    def _check_overlaps(self) -> None:
        pts = [seg[-1].p0 for seg in self.tracks]
        d_min = 2 * self.params.radius - 1e-6
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                if math.dist(pts[i][:2], pts[j][:2]) < d_min:
                    raise SimulationError(
                        f"balls {self.labels[i]} and {self.labels[j]} overlap at the start"
                    )

    # Convenience --------------------------------------------------------------------------------

    def strike(
        self,
        ball: int,
        speed: float,
        heading_deg: float,
        follow: float = 0.0,
        side: float = 0.0,
    ) -> None:
        """Strike ball ``ball`` with a level cue now and record the CUE_STRIKE."""
        v, w = contact.cue_strike(speed, heading_deg, follow, side, self.params.radius)
        st = self.state(ball)
        self.set_state(ball, BallState((st.position[0], st.position[1], self.params.radius), v, w))
        self._event(EventKind.CUE_STRIKE, self.time, (ball,))

    def pocket_of(self, pocket: PocketId) -> int:
        """Index of a pocket in the boundary's pocket list."""
        return next(k for k, p in enumerate(self.boundary.pockets) if p.pocket is pocket)
