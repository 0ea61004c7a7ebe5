"""Chains at a cushion, for the segmenter: a ball struck against a cushion it has just touched
(or is about to) touches it, is struck and touches it again within two frame intervals; a ball
rattling in a pocket's mouth meets one jaw and the other a frame and a half later. The rebound
test and the joint fit read one interval's velocities and see one touch; a replay of the balls
from their ways in (`tracking.replay`), checked against the frames after, shows how many there
were and when."""

from __future__ import annotations

import math

import numpy as np

from rules.events import EventKind, ShotEvent
from rules.table import CushionId
from tracking.cushion_contacts import median_sigma
from tracking.model import BALLS
from tracking.replay import Replay, Touch, Walls, replay
from tracking.shared_impulses import WORSE_WITHOUT_CHI2

CHAIN_AFTER = 3
"""Frames after a contact the replay is checked against (and the contact is judged that many
frames behind the newest)."""

_LINE_FRAMES = 4
"""The most frames a ball's way in is fitted over (a ball in a break turns every few)."""

_NEIGHBOUR_MM = 60.0
"""Balls this close (surface to surface) to one of the pair at the start are replayed too."""

_MOST_BALLS = 5

_WALL_RESTITUTIONS = np.arange(0.5, 1.0001, 0.1)
"""The cushion restitutions tried: a rubber keeps 10-50 % of a ball's normal speed (a tenth
finer moves no touch by a millisecond)."""

_FIT_SIGMAS = 4.0
"""A replay is weighed only when its centres come within this many sigmas of the frames'
(root mean square per coordinate): a loose gate, as straight ways in, one restitution for
every cushion and no spin put even a right replay millimetres off; whether a touch counts is
decided by how much worse the replay without it is (`WORSE_WITHOUT_CHI2`)."""

_FIT_FLOOR_MM = 5.0
"""... or within this whatever the sigmas say: a ball struck in a break slides, slowing by up to
2 m/s^2, and only two slowings are tried."""

_CHAIN_CONFIDENCE = 0.7

_APART_FRAMES = 1.25
"""Two replayed touches of one ball and cushion less than this many frames apart are one: a
camera cannot tell touches under a frame apart, and the replay times them to a millisecond
or so."""

_CHAIN_SPEED_MM_S = 150.0
"""The least normal speed of a touch the replay adds: a slower ball's few frames fit a replay
whatever it does, and the rebound test's long window sees its touch."""


class Chains:
    """The segmenter's chains at a cushion: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the newest frames, the contacts and rebounds found)."""

    def _chain_touches(self) -> list[ShotEvent]:
        """Cushion touches of the balls of each contact judged now (`CHAIN_AFTER` frames
        behind) that a replay of them shows and the other tests missed."""
        w = self._window
        if len(w) < _LINE_FRAMES + CHAIN_AFTER + 3:
            return []
        dt = float(w.times[-1] - w.times[-2])
        due = float(w.times[-1]) - CHAIN_AFTER * dt
        # A contact between two moving balls is confirmed frames after it (`GAP_K`): any
        # not judged yet whose ways in are still in the window is judged.
        earliest = float(w.times[-len(w)]) + (_LINE_FRAMES + 2) * dt
        self._chained = {c for c in self._chained if c[0] > earliest - dt}
        # A ball rattling between a pocket's jaws is replayed alone from each of its touches.
        touched = [
            (t, (r,))
            for (r, _), ts in self._cushion_times.items()
            for t in ts
            if earliest < t <= due and self._at_a_mouth(r, t)
        ]
        events = []
        for t, balls in [*self._contact_times, *touched]:
            if earliest < t <= due and (t, balls) not in self._chained:
                self._chained.add((t, balls))
                events += self._chain(t, balls, dt)
        return events

    def _chain(self, t: float, pair: tuple[int, ...], dt: float) -> list[ShotEvent]:
        """The cushion touches of ``pair``'s balls around their contact at ``t`` (or of one
        ball, around its touch at ``t``) that the replay shows and were not found."""
        w = self._window
        near = [r for r in pair if self._near_wall(r, t, dt)]
        if not near:
            return []
        # A contact between moving balls is timed a frame or so off: the replay starts two
        # frames before it, or before a touch of either ball found just before that.
        near_by = [u for r in pair for u in self._touches_of(r) if t - 3 * dt <= u < t]
        filled = w.size - len(w)  # the rows before are empty (nan times)
        times = w.times[filled:]
        start = filled + int(np.searchsorted(times, min([t - 2 * dt, *near_by]))) - 1
        end = min(filled + int(np.searchsorted(times, t)) + CHAIN_AFTER, w.size)
        if start < filled + _LINE_FRAMES - 1:
            return []
        rows = self._chain_balls(pair, start)
        ways = [self._way_in(r, start) for r in rows]
        if any(way is None for way in ways):
            return []
        fit = self._best_replay(rows, ways, start, end)
        if fit is None:
            return []
        best, cost = fit
        events = []
        span = (float(w.times[start]), t + 2 * dt)
        for r, cushion, touch in self._missed_touches(best, rows, near, span, dt):
            # A second touch counts when the replay without it is clearly worse.
            without = self._best_replay(rows, ways, start, end, once=rows.index(r))
            if without is None or without[1] - cost >= WORSE_WITHOUT_CHI2:
                events.append(self._chain_touch(r, cushion, touch.time, dt))
        return events

    def _frame_at(self, t: float) -> int:
        """The window's row of the frame nearest ``t`` (of the rows filled)."""
        w = self._window
        filled = w.size - len(w)
        return filled + int(np.argmin(np.abs(w.times[filled:] - t)))

    def _at_a_mouth(self, r: int, t: float) -> bool:
        """Whether ball ``r`` was by a pocket's mouth at ``t`` (`FrameWindow.at_mouth`)."""
        return bool(self._window.at_mouth[self._frame_at(t), r])

    def _near_wall(self, r: int, t: float, dt: float) -> bool:
        """Whether ball ``r`` was within a frame's travel of a wall at ``t``."""
        w = self._window
        i = self._frame_at(t)
        previous = max(i - 1, w.size - len(w))
        speed = float(np.hypot(*(w.points[i, r] - w.points[previous, r]))) / dt
        reach = self._d / 2 + self.config.touch_tolerance_mm + speed * dt
        return len(self._geo.walls_within(w.points[i, r], reach)) > 0

    def _touches_of(self, r: int) -> list[float]:
        """Ball ``r``'s cushion touches and contacts found so far."""
        own = [u for (b, _), us in self._cushion_times.items() if b == r for u in us]
        return own + self._contacts_of(r)

    def _chain_balls(self, pair: tuple[int, ...], start: int) -> list[int]:
        """The pair and the balls on the table near either at the window's frame ``start``."""
        w = self._window
        rows = list(pair)
        pts = w.points[start]
        gaps = np.hypot(*(pts[:, None, :] - pts[list(pair)][None, :, :]).transpose(2, 0, 1))
        near = np.fmin.reduce(gaps, axis=1) <= self._d + _NEIGHBOUR_MM
        for r in np.flatnonzero(near & w.on_table[start]):
            if int(r) not in rows and len(rows) < _MOST_BALLS:
                rows.append(int(r))
        return rows

    def _way_in(self, r: int, start: int) -> tuple[np.ndarray, np.ndarray, float] | None:
        """Ball ``r``'s centre at the window's frame ``start`` and its mean velocity by a line
        through its last sightings up to there since its last turn, and how long before
        ``start`` that velocity was its own (the mean of their times); None with fewer than
        two sightings."""
        w = self._window
        last = max((u for u in self._touches_of(r) if u < w.times[start]), default=-math.inf)
        frames = np.flatnonzero(w.seen[: start + 1, r] & (w.times[: start + 1] > last))
        frames = frames[-_LINE_FRAMES:]
        if len(frames) < 2:
            return None
        t = w.times[frames] - w.times[start]
        pts = w.measured[frames, r]
        design = np.stack([np.ones_like(t), t], axis=1)
        coef, *_ = np.linalg.lstsq(design, pts, rcond=None)
        return coef[0], coef[1], -float(t.mean())

    def _best_replay(
        self, rows, ways, start: int, end: int, once: int = -1
    ) -> tuple[Replay, float] | None:
        """The replay (over the cloth's slowing and the cushion restitutions tried; ball
        ``once`` touching a wall once at most) that puts the balls nearest where the frames
        after ``start`` up to ``end`` saw them, and its chi-square; None when none comes near
        them (`_FIT_SIGMAS`, `_FIT_FLOOR_MM`)."""
        w = self._window
        after = np.arange(start + 1, end)
        seen = w.seen[after][:, rows]  # (frames, balls)
        if seen.sum() < 2 * len(rows):
            return None
        walls = Walls(self._geo.wall_starts, self._geo.wall_alongs, self._geo.wall_normals)
        sigma = max(median_sigma(w.measured_sigma[after][:, rows].ravel()), 0.7)
        p = np.array([way[0] for way in ways])
        best, best_cost = None, math.inf
        for decel in (self.config.rolling_decel, self.config.sliding_decel):
            v = np.array([_slowed(way[1], decel * way[2]) for way in ways])
            for e in _WALL_RESTITUTIONS:
                restitutions = (self.config.ball_restitution, float(e))
                run = replay(
                    p, v, w.times[start], w.times[after], walls, self._d, restitutions, decel, once
                )
                off = run.at.transpose(1, 0, 2) - w.measured[after][:, rows]
                cost = float(np.sum(off[seen] ** 2))
                if cost < best_cost:
                    best, best_cost = run, cost
        worst = max(_FIT_SIGMAS * sigma, _FIT_FLOOR_MM)
        if best is None or best_cost > 2 * seen.sum() * worst**2:
            return None
        return best, best_cost / sigma**2

    def _missed_touches(self, run: Replay, rows, near, span, dt: float):
        """(ball, cushion, touch) of the replay's cushion touches of the balls ``near`` a wall
        inside ``span`` (from the replay's start to two frames after the contact) that no
        touch found so far accounts for (`_APART_FRAMES`), of those that came in at
        `_CHAIN_SPEED_MM_S` or more."""
        t0, t1 = span
        missed = []
        for r in near:
            k = rows.index(r)
            by_cushion: dict[CushionId, list[Touch]] = {}
            for touch in run.touches:
                if touch.ball != k or touch.wall < 0 or touch.time > t1:
                    continue
                if not self._geo.walls[touch.wall].on_slate(np.array([touch.at]))[0]:
                    continue  # past a pocket's shelf the ball fell: the replay knows no drop
                kept = by_cushion.setdefault(self._geo.walls[touch.wall].cushion, [])
                if not kept or touch.time - kept[-1].time >= _APART_FRAMES * dt:
                    kept.append(touch)
            for cushion, touches in by_cushion.items():
                found = [u for u in self._cushion_times.get((r, cushion), ()) if u > t0 - dt]
                missed += [
                    (r, cushion, touch)
                    for touch in _unmatched(touches, found)
                    if touch.speed >= _CHAIN_SPEED_MM_S
                ]
        return missed

    def _chain_touch(self, r: int, cushion: CushionId, t: float, dt: float) -> ShotEvent:
        """Ball ``r``'s touch of ``cushion`` at ``t`` the replay showed, noted among its
        rebounds (without making it the last, when one found later is)."""
        last = self._cushion_last.get((r, cushion), -math.inf)
        self._note_rebound((r, cushion), t)
        self._cushion_last[(r, cushion)] = max(t, last)
        return ShotEvent(
            EventKind.BALL_CUSHION,
            t,
            (BALLS[r],),
            cushion=cushion,
            confidence=_CHAIN_CONFIDENCE,
            time_uncertainty=0.25 * dt,
        )


def _unmatched(replayed: list[Touch], found: list[float]) -> list[Touch]:
    """The replayed touches left over once each found time has taken the nearest one."""
    left = list(replayed)
    for u in sorted(found):
        if not left:
            break
        left.remove(min(left, key=lambda touch: abs(touch.time - u)))
    return left


def _slowed(v: np.ndarray, by: float) -> np.ndarray:
    """Velocity ``v`` slowed by ``by`` mm/s along itself (to rest, not beyond)."""
    speed = float(np.hypot(*v))
    return v * max(1.0 - by / speed, 0.0) if speed > 0.0 else v
