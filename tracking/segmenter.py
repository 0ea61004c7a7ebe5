"""The shot-event segmenter: TrackFrame -> list[ShotEvent], one frame at a time.

It works one frame behind the tracker, so that every frame interval (t0, t1] it judges has a clean
velocity on each side: before = the step into t0, after = the step out of t1. A contact is a pair
of balls (or a ball and a cushion nose) that reach touching distance inside the interval and whose
velocities change there. The time is solved inside the interval: when the two centres, carried on
with their incoming velocities, are one diameter apart (and, from the outgoing side, carried back);
for a cushion, when the centre is one radius from the nose line. Each event's time_uncertainty is
honest about the frame interval and the position noise.

The cue strike is the cue ball leaving rest with no ball contact to explain it; it is never a
ball-ball contact. A ball leaving rest with nothing near it is disturbed (rule 3.21). All balls at
rest ends the shot (rule 3.15): the tracker's rest test (`TrackerConfig.rest_window`) decides a
ball is still, and the event's time is when the last ball stopped.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections import deque
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from calibration.table import Pocket, TableSpec
from rules.balls import BallId
from rules.events import EventKind, EvidenceSource, ShotEvent
from rules.table import CushionId
from tracking.geometry import TableCache, Wall
from tracking.model import BALLS, CUE_ROW, BallStatus, TrackFrame
from tracking.window import FrameWindow

_CUSHION_K = 4
"""Frames each side of a cushion rebound used for its chord velocities."""

_GAP_K = 4
"""Frames each side of a contact between two moving balls used to fit how fast the gap between
them closed and opened: one frame's velocity is too noisy to tell a contact from two balls
rolling on together after the break, touching."""

_SLOW_K = 12
"""Frames each side for a soft rebound: a slow ball's, or a fast one grazing the nose, whose
normal velocity is tens of mm/s, which four frames of 0.7 mm noise cannot measure (20 mm/s);
twelve can (3.5 mm/s)."""

_SLOW_MIN_TURN = 40.0
"""Smallest normal-velocity turn (mm/s) counted as a rebound on the long window."""

_REACH_MM = 120.0
"""How far from a nose a sampled centre may be at a rebound between frames (a 7 m/s ball at
60 fps); the fitted lines then decide whether it touched."""

_PASS_OVER_MM = 12.0
"""Two balls whose centres are seen this much closer than a diameter overlap: one is in the air
(vision's error on a ball is a few millimetres)."""

_UPPER = np.triu(np.ones((len(BALLS), len(BALLS)), dtype=bool), 1)
"""Each pair of balls once (row < column)."""

_LOOKBACK = 10
"""Frames back a contact of two parting balls is looked for (`Segmenter._closest_before`)."""

_OPENED_MM = 3.0
"""How much the gap between a moving ball and a resting one must have opened since their
closest approach for that to have been their contact (a gap's noise is about 1 mm)."""

_SIGMA_CAP = 8.0
"""The largest position sigma (mm) `_cushion_event` allows a sample to sit off its closest
approach by (it uses 2 sigma); the pre-check uses it so it never skips what the test keeps."""

_SOFT_APPROACH = 0.2
"""The least cosine between a ball's way in and the line to a resting ball for it to have hit
that ball softly (a cut as thin as 78 degrees)."""

_SOFT_LOOKBACK = 3
"""Frames back over which a soft hitter's way in is measured."""

_SOFT_MIN_WAY_MM = 3.0
"""The least way in (mm) over those frames that shows a direction above the noise."""

_GLANCE_MM = 6.0
"""The least a ball's last sighting may lie off the line it came in on, pushed out from a wall,
to show it glanced off that wall: several times a sighting's noise."""

_FROZEN_MM = 4.0
"""A ball resting this close to a cushion nose is frozen to it as far as the camera can tell (a
resting ball is placed to a millimetre or two): struck into the cushion, it touches it at once.
One further off, driven in at a shallow angle, may take a third of a second to get there."""

_AFTER_STRIKE_S = 2e-4
"""How long after the strike a ball (nearly) frozen to the cue ball is touched: the cue ball
covers a fraction of a millimetre first."""

_RESTART_S = 0.5
"""A cue ball leaving rest this soon after it stopped, in a shot still going on, was never still:
players do not strike a ball that has just stopped rolling."""

_CRAWL_GAP_MM = 2.0
"""A ball that crawls to a nose and lies this close to it (centre past one radius, the median
of a fifth of a second of sightings) came to rest against it; one stopping 3 mm short reads
2.5-3 mm. A crawl is put up for review (`_CRAWL_CONFIDENCE`): vision places a ball by a
cushion to a millimetre or two."""

_CRAWL_STILL_MM_S = 50.0
"""A crawl's ball lies still after it: its way over the frames after, end to end, is slower
than this (a ball crawling to rest moves 10-25 mm/s at the end; noise adds a little)."""

_CRAWL_CONFIDENCE = 0.7
"""A crawl into a cushion is less sure than a rebound: under the referee's review threshold."""

_CRAWL_WAIT_S = 0.3
"""How long a crawl waits for the ball to be seen at rest before it keeps its own time."""

_LAMP_REACH_MM = 15.0
"""How far below the lamp a ball's top may be seen and still have touched it: a 1 % error in
its apparent size is 10 mm of height at the lamp."""

_PLACING_S = 0.5
"""A cue ball put on the table this recently is still in the hand's reach: no stroke yet."""

_SEEN_STILL_S = 0.25
"""How long a ball must be seen still before it counts as having been at rest: the tracker's
rest window (a line fitted over it measures a speed to about 5 mm/s)."""

SETTLE_REST_S = 5.0
"""A ball that drops after resting this long dropped on its own (second rule 3.21)."""


@dataclass(frozen=True, slots=True)
class SegmenterConfig:
    """Settings of the segmenter.

    Attributes:
        touch_tolerance_mm: Extra centre distance, beyond one diameter (ball-ball) or one radius
            (cushion), still counted as touching: measurement noise plus cushion compression.
        min_turn_mm_s: Smallest velocity change (mm/s) counted as a contact's kick, on top of
            the noise of a velocity measured over one frame.
        min_rebound_mm_s: Smallest change of the velocity across a cushion counted as a
            rebound: lower than a ball-ball kick, as a rebound's normal velocity is fitted over
            several frames each side (a ball creeping into a cushion at 5 cm/s comes back at 3).
        noise_sigmas: The velocity change must also exceed this many noise standard deviations.
        disturb_clearance_mm: A ball that starts moving with no other ball within this gap
            (surface to surface) was disturbed, not hit.
        camera_height_mm: The camera's optical centre above the cloth (from the calibration):
            how much nearer a ball in the air is, from how much bigger it looks.
        light_height_mm: The lamp's underside above the cloth, when the venue gives it: a ball
            whose top gets there touched the lamp, and is off the table even though it comes
            back (3.28). None: no lamp is watched.
    """

    touch_tolerance_mm: float = 12.0
    min_turn_mm_s: float = 120.0
    min_rebound_mm_s: float = 60.0
    noise_sigmas: float = 4.0
    disturb_clearance_mm: float = 25.0
    camera_height_mm: float | None = None
    light_height_mm: float | None = None


@dataclass(frozen=True, slots=True)
class _Pending:
    """A contact between two moving balls, waiting for the frames after it."""

    event: ShotEvent
    pair: tuple[int, int]
    t0: float
    t1: float
    previous: float | None


@dataclass(frozen=True, slots=True)
class _Press:
    """A ball struck toward a cushion a little way off, still going in at the newest frame:
    the next frame shows whether the cushion turned it back.

    Attributes:
        row: The ball.
        cushion: The cushion it was driven at.
        normal: That cushion's unit normal (toward the table).
        struck: When it was struck.
        seen_at: The newest frame's time, when it was still going in ...
        at: ... and where it was then.
        noise: Its velocity noise over one frame, mm/s.
    """

    row: int
    cushion: CushionId
    normal: np.ndarray
    struck: float
    seen_at: float
    at: np.ndarray
    noise: float


@dataclass(frozen=True, slots=True)
class _Cluster:
    """Balls at rest touching one another (a rack) that a moving ball hit, waiting for the
    frames after the hit to share out its impulse.

    Attributes:
        members: Their rows.
        rest: (m, 2) their centres at rest.
        edges: The touching pairs, as indices into ``members``.
        hits: (index into ``members``, unit normal) of each moving ball that may have hit one.
        t1: The end of the interval the hit fell in.
        time: When the moving balls touched it (filled in as those contacts are found).
    """

    members: tuple[int, ...]
    rest: np.ndarray
    edges: tuple[tuple[int, int], ...]
    hits: tuple[tuple[int, np.ndarray], ...]
    t1: float
    time: list[float]


class Segmenter:
    """Turns the tracker's frames into shot events."""

    def __init__(self, table: TableSpec, config: SegmenterConfig | None = None) -> None:
        self.table = table
        self.config = config or SegmenterConfig()
        self._frames: deque[TrackFrame] = deque(maxlen=2 * max(_CUSHION_K, _GAP_K, _SLOW_K) + 1)
        self._geo = TableCache(table)
        self._window = FrameWindow(self._frames.maxlen or 1, self._geo, table.ball_diameter)
        self._pending: list[_Pending] = []
        self._presses: list[_Press] = []
        self._ready: list[ShotEvent] = []
        self._contact_times: list[tuple[float, tuple[int, int]]] = []
        self._touched: dict[int, float] = {}
        self._clusters: list[_Cluster] = []
        self._scene: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            np.zeros(0, dtype=int),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
        )
        self._held: dict[int, float] = {}
        self._in_shot = False
        self._pair_last: dict[tuple[int, int], float] = {}
        self._overlapped: dict[tuple[int, int], float] = {}  # pair -> when last seen overlapping
        self._cushion_last: dict[tuple[int, object], float] = {}
        self._in_pocket: dict[int, object] = {}
        self._rest_reported: set[int] = set()
        self._disturbed_last: dict[int, float] = {}
        self._in_view_since: dict[int, float] = {}
        self._first_time = math.nan
        self._lamp_touched: set[int] = set()
        self._crawls: dict[int, ShotEvent] = {}
        self._strike_time = -math.inf
        self._last_departure = -math.inf
        self._d = table.ball_diameter
        self._cushions = self._geo.cushions

    @property
    def in_shot(self) -> bool:
        """True between a cue strike and all balls at rest."""
        return self._in_shot

    def update(self, frame: TrackFrame) -> list[ShotEvent]:
        """Fold one track frame; return the events decided with it, in time order."""
        self._frames.append(frame)
        self._window.push(frame)
        self._note_arrivals(frame)
        events: list[ShotEvent] = []
        events += self._departures(frame)
        events += self._lamp_touches(frame)
        events += self._displaced(frame)
        if len(self._frames) >= 3:
            f0, f1, f2 = self._frames[-3], self._frames[-2], self._frames[-1]
            contacts = self._ball_contacts(f0, f1, f2)
            starts = self._starts(f0, f1, f2, contacts)
            # Contacts are emitted once decided (`_confirmed`): the ones the strike moves are
            # replaced there.
            timed = self._after_strike(contacts, starts, f0)
            moved = dict(zip(map(id, contacts), timed, strict=True))
            self._ready = [moved.get(id(e), e) for e in self._ready]
            events += starts
        events += self._confirmed()
        events += self._pressed_later(frame)
        events += self._cushion_contacts()
        events += self._crawls_ended(frame)
        if len(self._frames) >= 3:
            events += self._rebounds(f1)
        events += self._rest(frame)
        events.sort(key=lambda e: e.time)
        return events

    # -- helpers --------------------------------------------------------------------------------

    def _note_arrivals(self, frame: TrackFrame) -> None:
        """When each ball came into view: the tracker takes a ball it first sees for a ball at
        rest until it moves."""
        if math.isnan(self._first_time):
            self._first_time = frame.time
        before = self._frames[-2].on_table if len(self._frames) > 1 else False
        for r in np.flatnonzero(frame.on_table & ~before):
            self._in_view_since[int(r)] = frame.time

    def _moving_when_found(self, r: int, f0: TrackFrame) -> bool:
        """Ball ``r`` moved off the spot where it came into view before it could be seen
        still: it was moving already (the recording began, or it was put back on the table,
        mid-motion), not set moving now."""
        since = self._in_view_since.get(r, -math.inf)
        return f0.rest_since[r] <= since and f0.time - since < _SEEN_STILL_S

    @staticmethod
    def _since(times: dict[int, float], rows: np.ndarray, t: float, strict: bool = True):
        """Which ``rows`` have a time in ``times`` after ``t`` (or at it, if not ``strict``);
        a row with none has not."""
        if not times:
            return np.zeros(len(rows), dtype=bool)
        if strict:
            return np.array([times.get(int(r), -math.inf) > t for r in rows])
        return np.array([times.get(int(r), -math.inf) >= t for r in rows])

    def _velocity_noise(self, f0: TrackFrame, f1: TrackFrame, rows: np.ndarray) -> np.ndarray:
        dt = max(f1.time - f0.time, 1e-6)
        sig = f1.sigma[rows]
        sig = np.where(np.isnan(sig), 5.0, sig)
        return np.sqrt(2.0) * sig / dt

    def _kicked(self, v_in: np.ndarray, v_out: np.ndarray, noise: float) -> float:
        """How clearly a velocity changed: the change over its threshold (>1 is a kick)."""
        change = float(np.hypot(*(v_out - v_in)))
        threshold = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        return change / threshold

    # -- ball-ball ------------------------------------------------------------------------------

    def _ball_contacts(self, f0: TrackFrame, f1: TrackFrame, f2: TrackFrame) -> list[ShotEvent]:
        """Contacts inside (f0.time, f1.time], judged with the step f1 -> f2 as 'after'."""
        dt = f1.time - f0.time
        dt_after = f2.time - f1.time
        if dt <= 0 or dt_after <= 0:
            return []
        live = np.flatnonzero(f0.on_table & f1.on_table & ~np.isnan(f1.positions[:, 0]))
        if len(live) < 2:
            return []
        p0, p1, p2 = f0.positions[live], f1.positions[live], f2.positions[live]
        p2 = np.where(np.isnan(p2), p1, p2)
        v_in = (p1 - p0) / dt
        # The filter's velocity at f0 is the cleanest 'before' for balls that were moving.
        v_before = np.where(f0.moving[live][:, None], f0.velocities[live], 0.0)
        # ... except just after a contact, which the filter has not caught up with yet.
        just_hit = self._since(self._touched, live, f0.time - dt)
        v_out = (p2 - p1) / dt_after
        # A contact inside (f0, f1] needs one of the two moving by f1.
        moving = f0.moving[live] | f1.moving[live]
        noise = self._velocity_noise(f1, f2, live)
        reach = self._d + self.config.touch_tolerance_mm + np.hypot(*v_in.T) * dt
        events = []
        gaps = np.hypot(*(p0[:, None, :] - p0[None, :, :]).transpose(2, 0, 1))
        upper = _UPPER[: len(live), : len(live)]
        overlap = (gaps < self._d - _PASS_OVER_MM) & upper
        if overlap.any():
            for a, b in zip(*np.nonzero(overlap), strict=True):
                self._overlapped[(min(live[a], live[b]), max(live[a], live[b]))] = f0.time
        near = (gaps <= reach[:, None] + reach[None, :]) & (moving[:, None] | moving[None, :])
        # A contact kicks one of the two: pairs where neither velocity changed are skipped
        # before the pair test (which asks the same with the larger of the two noises).
        change = np.hypot(*(v_out - v_before).T)
        kicked = change >= np.maximum(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        near &= kicked[:, None] | kicked[None, :]
        self._scene = (live, p0, v_before)
        cluster = self._cluster_hit(live, f0, f1, p0, v_before, gaps, kicked, reach)
        held = self._since(self._held, live, f0.time, strict=False)
        for a, b in zip(*np.nonzero(near & upper), strict=True):
            if held[a] and held[b]:
                continue  # inside a rack being solved as a whole (`_solve_cluster`)
            key = (min(live[a], live[b]), max(live[a], live[b]))
            before = self._pair_last.get(key)
            event = self._pair_contact(
                live[a],
                live[b],
                f0,
                (p0[a], p0[b]),
                (p1[a], p1[b]),
                (v_before[a], v_before[b]),
                (v_out[a], v_out[b]),
                dt,
                (noise[a], noise[b]),
                just_hit[a] or just_hit[b],
            )
            if event is not None:
                events.append(event)
                self._record(event, live, a, b, f0, f1, before, (p0, v_before, v_out, noise))
                if cluster is not None and (held[a] != held[b]):
                    cluster.time.append(event.time)
        return events

    def _record(self, event, live, a, b, f0, f1, before, scene) -> None:
        """Keep a contact found between ``live[a]`` and ``live[b]`` in (f0, f1]: ready at once
        when one of them was at rest, else pending until the gap is seen opening."""
        p0, v_before, v_out, noise = scene
        key = (min(live[a], live[b]), max(live[a], live[b]))
        for r in (live[a], live[b]):
            if f0.moving[r]:
                # The filter's velocity of a moving ball lags behind a contact.
                self._touched[int(r)] = event.time
        if f0.moving[live[a]] and f0.moving[live[b]]:
            self._pending.append(_Pending(event, key, f0.time, f1.time, before))
        else:
            self._ready.append(event)
            self._contact_times.append((event.time, key))
            dt = f1.time - f0.time
            self._ready += self._pressed(live, a, b, p0, v_before, v_out, noise, event, dt)

    def _pressed(self, live, a, b, p0, v_before, v_out, noise, event, dt) -> list[ShotEvent]:
        """The cushion contacts of the two balls of a contact that were struck into a cushion."""
        out = []
        for k, other in ((a, b), (b, a)):
            pressed = self._pressed_into_cushion(
                live[k], p0[k], p0[other], v_before[k], v_out[k], noise[k], event.time, dt
            )
            if pressed is not None:
                out.append(pressed)
        return out

    def _pressed_into_cushion(self, r, p, other, v_before, v_out, noise, t, dt):
        """A ball struck while against a cushion, driven into it, rebounds at once: its
        cushion contact shares the frame interval of the ball-ball contact, with no incoming
        motion for `_cushion_contacts` to see. It is found by the push: along the line from the
        striking ball, into the cushion, and the ball not going on into it."""
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        if float(np.hypot(*v_before)) >= self.config.min_turn_mm_s:
            return None  # it was rolling: the rebound test sees its way in and out
        push = (p - other) / max(float(np.hypot(*(p - other))), 1e-9)
        leave = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        for seg in self._cushions:
            n = np.array(seg.normal)
            start = np.array(seg.start)
            along = np.array(seg.end) - start
            if not 0.0 <= float((p - start) @ along / (along @ along)) <= 1.0:
                continue
            gap = float((p - start) @ n) - rad
            if float(push @ n) > -0.1 or gap > tol + 2 * dt * float(np.hypot(*v_out)):
                continue
            # Pushed into a cushion it is touching, it reaches it: a ball frozen there barely
            # moves at first (the cushion takes the push). One a little off must be seen coming
            # back out by the next frame, against the push (only the cushion can turn it so).
            back = float(v_out @ n)
            frozen = gap <= _FROZEN_MM
            if frozen and back < -0.5 * leave:
                continue
            clear = max(self.config.min_turn_mm_s, 1.5 * noise)
            if not frozen and back < clear:
                if back <= -clear:  # clearly still going in: the next frame may show it back
                    self._press_on(int(r), seg.id, n, t, noise)
                continue
            key = (int(r), seg.id)
            self._cushion_last[key] = t
            return ShotEvent(
                EventKind.BALL_CUSHION,
                t,
                (BALLS[r],),
                cushion=seg.id,
                confidence=0.8,
                time_uncertainty=dt,
            )
        return None

    def _press_on(self, r: int, cushion: CushionId, normal: np.ndarray, t: float, noise: float):
        """Ball ``r``, struck toward ``cushion`` at ``t``, is still going in at the newest
        frame: judge it on the next (`_pressed_later`). It may already have touched and be on
        its way back (ball, cushion and ball again within a frame or two)."""
        newest = self._frames[-1]
        if newest.seen[r]:
            at = newest.measured[r].copy()
            self._presses.append(_Press(r, cushion, normal, t, newest.time, at, noise))

    def _pressed_later(self, frame: TrackFrame) -> list[ShotEvent]:
        """The cushion contacts of struck balls (`_press_on`) that this frame shows coming back
        out, against the push: only the cushion turns a ball so. A ball that met another ball
        on the cushion side of it may have come back off that one instead: not judged."""
        presses, self._presses = self._presses, []
        events = []
        for press in presses:
            r = press.row
            if press.seen_at >= frame.time:
                self._presses.append(press)
                continue
            dt = frame.time - press.seen_at
            if not frame.seen[r] or dt > 2.5 * (frame.time - self._frames[-2].time):
                continue
            back = float((frame.measured[r] - press.at) @ press.normal) / dt
            if back < max(self.config.min_turn_mm_s, 1.5 * press.noise):
                continue
            if self._ball_toward(r, press.at, press.normal, frame):
                continue
            key = (r, press.cushion)
            if frame.time - self._cushion_last.get(key, -math.inf) < 0.15:
                continue
            self._cushion_last[key] = frame.time
            events.append(
                ShotEvent(
                    EventKind.BALL_CUSHION,
                    0.5 * (press.struck + frame.time),
                    (BALLS[r],),
                    cushion=press.cushion,
                    confidence=0.7,
                    time_uncertainty=0.5 * (frame.time - press.struck),
                )
            )
        return events

    def _ball_toward(self, r: int, at: np.ndarray, normal: np.ndarray, frame: TrackFrame) -> bool:
        """Whether another ball lies within a ball width and a half of ``at``, on the cushion
        side of it (toward -``normal``)."""
        others = np.flatnonzero(frame.on_table)
        others = others[others != r]
        offset = frame.positions[others] - at
        near = np.hypot(offset[:, 0], offset[:, 1]) < 1.5 * self._d
        return bool(np.any(near & (offset @ normal < 0)))

    def _cluster_hit(self, live, f0, f1, p0, v_before, gaps, kicked, reach) -> _Cluster | None:
        """A rack (three or more balls at rest, touching) of which a ball was kicked in this
        interval: its contacts are decided together once the frames after show how each
        ball left (`_solve_cluster`), not pair by pair."""
        d, tol = self._d, self.config.touch_tolerance_mm
        rest = ~f0.moving[live]
        if not (kicked & rest).any():
            return None
        touching = (gaps <= d + tol) & rest[:, None] & rest[None, :]
        np.fill_diagonal(touching, False)
        free = ~self._since(self._held, live, f0.time, strict=False)
        for start in np.flatnonzero(kicked & rest & free & touching.any(axis=1)):
            group, todo = {int(start)}, [int(start)]
            while todo:
                for k in np.flatnonzero(touching[todo.pop()]):
                    if int(k) not in group:
                        group.add(int(k))
                        todo.append(int(k))
            if len(group) < 3:
                continue
            members = sorted(group)
            index = {k: i for i, k in enumerate(members)}
            edges = tuple(
                (index[i], index[j]) for i in members for j in members if i < j and touching[i, j]
            )
            hits = []
            dt = f1.time - f0.time
            for m in np.flatnonzero(f0.moving[live]):
                # The first rack ball on its path, carried on from f0 (not its net step: it
                # may have come back off the rack within the interval).
                first = None
                for h in members:
                    roots = _touch_roots(p0[m] - p0[h], v_before[m], d)
                    on_path = roots and -0.15 * dt <= roots[0] <= 1.15 * dt
                    if on_path and (first is None or roots[0] < first[0]):
                        first = (roots[0], h)
                if first is not None:
                    tau, h = max(first[0], 0.0), first[1]
                    n = p0[h] - (p0[m] + v_before[m] * tau)
                    hits.append((index[h], n / max(float(np.hypot(*n)), 1e-9)))
            if not hits:
                continue
            rows = tuple(int(live[k]) for k in members)
            cluster = _Cluster(rows, p0[members].copy(), edges, tuple(hits), f1.time, [])
            for r in rows:
                self._held[r] = f1.time + 3 * (f1.time - f0.time)
            self._clusters.append(cluster)
            return cluster
        return None

    def _solve_cluster(self, c: _Cluster, after: list[TrackFrame]) -> list[ShotEvent]:
        """Which touching pairs of a hit rack pushed on each other: momentum passes through
        frozen balls, so each ball leaves with the sum of the impulses of its contacts, along
        their lines of centres. The impulses (non-negative: balls only push) are solved by
        least squares from how each ball left, fitted over the frames after the hit; a pair
        whose impulse is lost in the noise did not (visibly) touch. A rack has more contacts
        than its balls have degrees of freedom (30 against 27 for fifteen balls), but pushes
        cannot pull: from exact velocities this finds exactly the pairs the virtual table's
        breaks pushed through."""
        t = np.array([f.time for f in after])
        m = len(c.members)
        v_after = np.zeros((m, 2))
        sig = []
        for i, r in enumerate(c.members):
            pts = np.array([f.measured[r] if f.seen[r] else f.positions[r] for f in after])
            sigma = float(np.nanmedian([f.measured_sigma[r] for f in after if f.seen[r]] or [2.0]))
            for axis in (0, 1):
                v_after[i, axis], s_v = _slope(t, pts[:, axis], sigma)
            sig.append(s_v)
        columns = []
        for i, j in c.edges:
            n = c.rest[j] - c.rest[i]
            n = n / max(float(np.hypot(*n)), 1e-9)
            col = np.zeros(2 * m)
            col[2 * j : 2 * j + 2] += n
            col[2 * i : 2 * i + 2] -= n
            columns.append(col)
        for h, n in c.hits:
            col = np.zeros(2 * m)
            col[2 * h : 2 * h + 2] += n
            columns.append(col)
        impulse, _ = nnls(np.array(columns).T, np.nan_to_num(v_after).reshape(-1))
        noise = float(np.median(sig)) if sig else math.inf
        threshold = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        time = min(c.time) if c.time else c.t1 - 0.5 * (t[1] - t[0])
        events = []
        for (i, j), lam in zip(c.edges, impulse[: len(c.edges)], strict=True):
            if lam < threshold:
                continue
            a, b = BALLS[c.members[i]], BALLS[c.members[j]]
            key = (min(c.members[i], c.members[j]), max(c.members[i], c.members[j]))
            self._pair_last[key] = time
            self._contact_times.append((time, key))
            events.append(
                ShotEvent(
                    EventKind.BALL_BALL,
                    time,
                    (a, b),
                    confidence=float(min(0.95, 0.6 + 0.1 * lam / threshold)),
                    time_uncertainty=0.5 * (t[1] - t[0]),
                )
            )
        return events

    def _confirmed(self) -> list[ShotEvent]:
        """The contacts decided now: those between a resting and a moving ball at once, those
        between two moving balls once `_GAP_K` frames after them show the gap opening."""
        out, self._ready = self._ready, []
        frames = list(self._frames)
        times = [f.time for f in frames]
        waiting = []
        for p in self._pending:
            i1 = times.index(p.t1) if p.t1 in times else -1
            if i1 < 0:
                continue  # the frames are gone (a gap in the input): not judged
            if i1 + _GAP_K > len(frames):
                waiting.append(p)
            elif self._gap_opened(p, frames, i1):
                out.append(p.event)
                self._contact_times.append((p.event.time, p.pair))
            elif p.previous is None:
                self._pair_last.pop(p.pair, None)
            else:
                self._pair_last[p.pair] = p.previous
        self._pending = waiting
        unsolved = []
        for c in self._clusters:
            i1 = times.index(c.t1) if c.t1 in times else -1
            if i1 < 0:
                continue
            if i1 + _GAP_K > len(frames):
                unsolved.append(c)
            else:
                out += self._solve_cluster(c, frames[i1 : i1 + _GAP_K])
        self._clusters = unsolved
        horizon = times[0]
        self._contact_times = [(t, k) for t, k in self._contact_times if t >= horizon]
        return out

    def _gap_opened(self, p: _Pending, frames: list[TrackFrame], i1: int) -> bool:
        """Two moving balls touched when the gap between them, fitted over a few frames each
        side of the contact, turns from closing to opening faster than the noise: a contact's
        impulse pushes along the line of centres. Two balls rolling on side by side after the
        break, touching, keep their gap, however noisy one frame's velocities are. The windows
        stop at either ball's other contacts."""
        ra, rb = p.pair
        others = [t for t, k in self._contact_times if k != p.pair and (ra in k or rb in k)]
        others += [t for t, k in self._contact_times if k == p.pair and t != p.event.time]
        start = max((t for t in others if t <= p.t0), default=-math.inf)
        stop = min((t for t in others if t > p.t1), default=math.inf)
        before = [f for f in frames[max(0, i1 - _GAP_K) : i1] if f.time >= start]
        after = [f for f in frames[i1 : i1 + _GAP_K] if f.time < stop]
        if len(before) < 2 or len(after) < 2:
            return True  # too crowded to fit: the one-frame test stands
        rate_in, noise_in = self._gap_rate(ra, rb, before)
        rate_out, noise_out = self._gap_rate(ra, rb, after)
        noise = math.hypot(noise_in, noise_out)
        threshold = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        return rate_out - rate_in >= threshold

    @staticmethod
    def _gap_rate(ra: int, rb: int, frames: list[TrackFrame]) -> tuple[float, float]:
        """How fast the centre distance of two balls changes over ``frames``, and its sigma."""
        t = np.array([f.time for f in frames])
        gap = np.empty(len(frames))
        sigmas = []
        for k, f in enumerate(frames):
            pa = f.measured[ra] if f.seen[ra] else f.positions[ra]
            pb = f.measured[rb] if f.seen[rb] else f.positions[rb]
            gap[k] = math.hypot(*(pa - pb))
            for r in (ra, rb):
                sig = f.measured_sigma[r] if f.seen[r] else f.sigma[r]
                sigmas.append(float(np.nan_to_num(sig, nan=2.0)))
        return _slope(t, gap, math.sqrt(2.0) * float(np.median(sigmas)))

    def _pair_contact(self, ra, rb, f0, p0, p1, v_before, v_out, dt, noise, stale=False):
        d, tol = self._d, self.config.touch_tolerance_mm
        key = (min(ra, rb), max(ra, rb))
        if f0.time - self._pair_last.get(key, -math.inf) < 3 * dt:
            return None
        rel_p0 = p0[0] - p0[1]
        rel_v = v_before[0] - v_before[1]
        rel_p1 = p1[0] - p1[1]
        rel_vo = v_out[0] - v_out[1]
        late = 0.15 * dt
        # Touch time by carrying the incoming motion forward from f0 ...
        roots = _touch_roots(rel_p0, rel_v, d)
        tau_in = None
        if roots:
            if roots[0] > dt + late:
                return None  # the touch belongs to the next interval, judged on the next frame
            if roots[1] < -late:
                roots = ()  # already apart before f0 by this motion: not a touch here
            else:
                tau_in = float(np.clip(roots[0], 0.0, dt))
        if tau_in is None:
            closest_t = _closest_time(rel_p0, rel_v, -math.inf, math.inf)
            if closest_t > dt + late:
                return None
            closest = min(
                _closest(rel_p0, rel_v, 0.0, dt),
                _closest(rel_p0, (rel_p1 - rel_p0) / dt, 0.0, dt),
            )
            if closest > d + tol:
                return None
        # ... and by carrying the outgoing motion back from f1 (when it parts in the interval).
        back = _touch_roots(rel_p1 - rel_vo * dt, rel_vo, d)
        tau_out = back[1] if back and -late <= back[1] <= dt + late else None
        if tau_in is not None and self._blocked(ra, rb, tau_in):
            # Carried on, one of them would have had to pass through a third ball to touch
            # the other: the third ball stopped it first.
            return None
        if stale and tau_out is None:
            # One of them was hit in the last interval: its velocity before is stale, and only
            # the motion after, carried back, can show that they touched here.
            return None
        # Each ball's kick against its own velocity noise: a ball missed in the frame after the
        # contact (its position only predicted) must not hide the other's clean turn. A ball in
        # the air passing over the other is no evidence of a touch: only the other's kick is.
        # The size of a ball's picture is noisy, so only a pair seen overlapping in the last few
        # frames, which two balls on the cloth cannot do, is taken to be one passing over the
        # other (the filter's velocity of the one in the air wavers for a few frames after).
        over = (
            np.hypot(*(p1[0] - p1[1])) < d - _PASS_OVER_MM
            or f0.time - self._overlapped.get(key, -math.inf) <= _GAP_K * dt
        )
        flying = [bool(f0.airborne[r]) for r in (ra, rb)]
        if over and not any(flying):
            # Seen overlapping, one of them was in the air though its picture did not look big
            # enough to say so: the one that came over, the faster.
            flying[int(np.argmax([np.hypot(*v) for v in v_before]))] = True
        grounded = [k for k in (0, 1) if not (over and flying[k])]
        kick = max((self._kicked(v_before[k], v_out[k], noise[k]) for k in grounded), default=0.0)
        if kick < 1.0 or not self._along_centres(p0, v_before, v_out, tau_in or 0.0, noise):
            return None
        taus = [t for t in (tau_in, tau_out) if t is not None]
        if not taus:
            # Never quite one diameter apart (noise, a graze): the moment of closest approach.
            taus = [_closest_time(rel_p0, rel_v, 0.0, dt)]
        tau = float(np.clip(np.mean(taus), 0.0, dt))
        speed = max(float(np.hypot(*rel_v)), float(np.hypot(*rel_vo)), 1.0)
        sigma = float(np.nanmax([f0.sigma[ra], f0.sigma[rb], 1.0]))
        uncertainty = min(dt, 0.4 * dt + 2 * math.sqrt(2) * sigma / speed)
        if len(taus) == 2:
            uncertainty = min(dt, max(uncertainty, abs(taus[0] - taus[1]) / 2))
        elif tau_in is None:
            uncertainty = 0.5 * dt
        time = f0.time + tau
        past = self._closest_before(ra, rb, f0) if tau_in is None else None
        if past is not None:
            previous = self._pair_last.get(key, -math.inf)
            if abs(past[0] - previous) <= 2 * dt:
                return None  # parting since the contact already found
            if f0.moving[ra] != f0.moving[rb]:
                time, uncertainty = past
        self._pair_last[key] = time
        a, b = BALLS[ra], BALLS[rb]
        if b is BallId.CUE:
            a, b = b, a
        confidence = float(min(0.99, 0.6 + 0.2 * min(kick, 2.0)))
        return ShotEvent(
            EventKind.BALL_BALL,
            time,
            (a, b),
            confidence=confidence,
            time_uncertainty=uncertainty,
        )

    def _closest_before(self, ra: int, rb: int, f0: TrackFrame):
        """(time, uncertainty) of a contact of two balls already parting at f0: their
        closest approach over the last `_LOOKBACK` frames, when the gap then was within
        touching distance and has clearly opened since; else None. A ball barely touched
        creeps off, and is seen moving only frames after the other came closest to it and
        left; and two balls parting after a contact already found kick each other no more."""
        times, gaps = [], []
        since = np.nanmax([f0.rest_since[ra], f0.rest_since[rb], -math.inf])
        for f in list(self._frames)[-_LOOKBACK - 2 :]:
            if f.time > f0.time:
                break
            if f.time < since or not (f.on_table[ra] and f.on_table[rb]):
                continue
            pa = f.measured[ra] if f.seen[ra] else f.positions[ra]
            pb = f.measured[rb] if f.seen[rb] else f.positions[rb]
            times.append(f.time)
            gaps.append(math.hypot(*(pa - pb)) - self._d)
        if len(gaps) < 3 or not np.isfinite(gaps).all():
            return None
        k = int(np.argmin(gaps))
        if k == len(gaps) - 1 or gaps[k] > self.config.touch_tolerance_mm:
            return None
        if gaps[-1] - gaps[k] < _OPENED_MM:
            return None
        return times[k], times[k] - times[k - 1] if k else 0.5 * (times[1] - times[0])

    def _blocked(self, ra: int, rb: int, tau: float) -> bool:
        """Whether, carried on from f0 for ``tau`` s, ``ra`` or ``rb`` overlaps another ball
        (by more than the touch tolerance): its path to the other went through that ball."""
        live, p0, v = self._scene
        carried = p0 + v * tau
        for r in (ra, rb):
            i = int(np.searchsorted(live, r))
            if not v[i].any():
                continue
            dist = np.hypot(*(carried - carried[i]).T)
            dist[i] = np.inf
            dist[live == (rb if r == ra else ra)] = np.inf
            if np.any(dist < self._d - self.config.touch_tolerance_mm):
                return True
        return False

    def _along_centres(self, p0, v_before, v_out, tau, noise) -> bool:
        """A contact pushes along the line of centres (friction throws only a few degrees): at
        least one of the two balls must have changed velocity mostly along that line. Two balls
        kicked side by side by a third are not touching each other."""
        at_touch = (p0[1] + v_before[1] * tau) - (p0[0] + v_before[0] * tau)
        n = at_touch / max(float(np.hypot(*at_touch)), 1e-9)
        for k in (0, 1):
            change = v_out[k] - v_before[k]
            size = float(np.hypot(*change))
            if size > self.config.noise_sigmas * noise[k] and abs(float(change @ n)) >= 0.8 * size:
                return True
        return False

    # -- strike and disturbances ----------------------------------------------------------------

    def _starts(self, f0, f1, f2, contacts: list[ShotEvent]) -> list[ShotEvent]:
        """Balls that left rest in (f0, f1]: the cue strike, or a disturbance."""
        events = []
        started = [
            r
            for r in range(len(BALLS))
            if f0.status[r] in (BallStatus.AT_REST, BallStatus.HIDDEN)
            and not math.isnan(f0.rest_since[r])
            and f1.status[r] is BallStatus.MOVING
        ]
        # A ball set moving by a contact was hit by a ball that was already moving (or by the
        # cue ball, once it is struck in this very interval).
        moving_before = {BALLS[r] for r in np.flatnonzero(f0.moving)}
        if CUE_ROW in started and self._creeping_since_strike(f0):
            # Struck through a ball frozen to it, the cue ball follows at a crawl the tracker
            # takes for rest; its start now is that strike's, not a new one.
            started.remove(CUE_ROW)
        if CUE_ROW in started and BallId.CUE not in self._explained(
            contacts, moving_before, f0, f1
        ):
            moving_before.add(BallId.CUE)
            started = [CUE_ROW] + [r for r in started if r != CUE_ROW]
        explained = self._explained(contacts, moving_before - {BallId.CUE}, f0, f1)
        explained_others = self._explained(contacts, moving_before, f0, f1) - {BallId.CUE}
        explained = (explained & {BallId.CUE}) | explained_others
        for r in started:
            ball = BALLS[r]
            if ball in explained or self._held.get(r, -math.inf) >= f0.time:
                continue  # set moving by a contact, or a ball of a rack that was hit
            t, unc = self._start_time(r, f0, f1, f2)
            if r == CUE_ROW:
                # A ball frozen to the cue ball is touched just after the strike, never before.
                cue_contacts = [e.time for e in contacts if BallId.CUE in e.balls]
                if cue_contacts:
                    t = max(f0.time, min(t, min(cue_contacts) - 1e-4))
                events.append(self._strike(t, unc, f0))
            elif self._frozen_to_cue(r, f0) and self._cue_just_placed(f0):
                # The hand that put the cue ball down beside it nudged it: nobody strikes a
                # cue ball the moment it is put down (3.22).
                if abs(t - self._disturbed_last.get(r, -math.inf)) >= 1.0:
                    events.append(self._disturbance(r, t, unc))
            elif self._frozen_to_cue(r, f0):
                # Struck through a ball frozen to it, the cue ball hardly moves: the frozen
                # ball's start is the strike, and the contact follows it.
                touch = [e for e in contacts if set(e.balls) == {BallId.CUE, ball}]
                if touch:
                    t = max(f0.time, min(t, touch[0].time - 1e-4))
                else:
                    events.append(
                        ShotEvent(
                            EventKind.BALL_BALL,
                            t + 1e-4,
                            (BallId.CUE, ball),
                            confidence=0.8,
                            time_uncertainty=unc,
                        )
                    )
                    self._pair_last[(CUE_ROW, r)] = t
                events.append(self._strike(t, unc, f0))
            elif (soft := self._soft_contact(r, f0, f1, f2)) is not None:
                events.append(soft)
            elif (
                self._clear_of_others(r, f0)
                and not self._moving_when_found(r, f0)
                and not self._vision_jump(r, f0, f1, f2)
                and not self._still_going(r, f0)
                and t - self._disturbed_last.get(r, -math.inf) >= 1.0
            ):
                events.append(self._disturbance(r, t, unc))
        return events

    def _disturbance(self, r: int, t: float, unc: float) -> ShotEvent:
        """Ball ``r`` set moving at ``t`` by nothing on the table (3.21, 3.22), noted so the
        same disturbance is not reported twice."""
        self._disturbed_last[r] = t
        return ShotEvent(
            EventKind.BALL_DISTURBED, t, (BALLS[r],), confidence=0.8, time_uncertainty=unc
        )

    def _after_strike(
        self, contacts: list[ShotEvent], starts: list[ShotEvent], f0: TrackFrame
    ) -> list[ShotEvent]:
        """A contact with a ball frozen or nearly frozen to the cue ball, solved at (or a
        rounding before) the strike found in the same interval, moved just after it: the cue ball
        touches that ball only once struck, and the strike itself never counts as a contact
        (rule 3.18)."""
        strikes = [e.time for e in starts if e.kind is EventKind.CUE_STRIKE]
        if not strikes:
            return contacts
        strike = strikes[0]
        out = []
        for e in contacts:
            if BallId.CUE in e.balls and e.time <= strike:
                other = f0.row(e.other(BallId.CUE))
                if self._frozen_to_cue(other, f0):
                    e = dataclasses.replace(e, time=strike + _AFTER_STRIKE_S)
            out.append(e)
        return out

    def _creeping_since_strike(self, f0: TrackFrame) -> bool:
        """True when the cue ball, in the shot still going on, never truly stopped: not seen to
        leave rest since before the strike (it crawled after a ball frozen to it), or at rest
        only a moment (a slow rebound or a crawl fooled the rest test)."""
        rest_since = float(f0.rest_since[CUE_ROW])
        return self._in_shot and (
            rest_since <= self._strike_time or f0.time - rest_since < _RESTART_S
        )

    def _still_going(self, r: int, f0: TrackFrame) -> bool:
        """True when a ball leaving rest was never left alone: at rest only a moment in the
        shot still going on (a crawl or a noisy sample fooled the rest test), or touched by a
        ball or a cushion since it came to rest (a ball frozen to a cushion, struck into it,
        comes off it slowly, frames after the contact)."""
        rest_since = float(f0.rest_since[r])
        if self._in_shot and f0.time - rest_since < _RESTART_S:
            return True
        pairs = (t for (ra, rb), t in self._pair_last.items() if r in (ra, rb))
        cushions = (t for (rc, _), t in self._cushion_last.items() if rc == r)
        return any(t >= rest_since for t in (*pairs, *cushions))

    def _explained(self, contacts, moving_before, f0, f1) -> set[BallId]:
        """Balls whose start a contact with an already moving ball explains."""
        explained = {
            b
            for e in contacts
            for b in e.balls
            if any(o in moving_before for o in e.balls if o != b)
        }
        recent_window = f0.time - 2 * (f1.time - f0.time)
        for (ra, rb), t in self._pair_last.items():
            if t >= recent_window:
                if BALLS[rb] in moving_before or BALLS[rb] in explained:
                    explained.add(BALLS[ra])
                if BALLS[ra] in moving_before or BALLS[ra] in explained:
                    explained.add(BALLS[rb])
        return explained

    def _strike(self, t: float, unc: float, f0: TrackFrame) -> ShotEvent:
        self._in_shot = True
        self._strike_time = t
        self._rest_reported.clear()
        self._lamp_touched.clear()
        return ShotEvent(
            EventKind.CUE_STRIKE, t, (BallId.CUE,), confidence=0.95, time_uncertainty=unc
        )

    def _start_time(self, r, f0, f1, f2) -> tuple[float, float]:
        """Solve when the ball left its rest spot: carry its first velocity back to it."""
        dt = f1.time - f0.time
        rest = f0.positions[r]
        p1, p2 = f1.positions[r], f2.positions[r]
        v = (p2 - p1) / max(f2.time - f1.time, 1e-6)
        speed = float(np.hypot(*v))
        if speed <= 0 or np.isnan(speed):
            return f1.time - dt / 2, dt / 2
        back = float(np.hypot(*(p1 - rest))) / speed
        t = float(np.clip(f1.time - back, f0.time, f1.time))
        return t, min(dt / 2, dt / 4 + float(np.nan_to_num(f1.sigma[r], nan=2.0)) / speed)

    def _cue_just_placed(self, f0: TrackFrame) -> bool:
        """The cue ball was put on the table (came into view after the first frame) less than
        `_PLACING_S` ago."""
        since = self._in_view_since.get(CUE_ROW, -math.inf)
        return since > self._first_time and f0.time - since < _PLACING_S

    def _frozen_to_cue(self, r: int, f0: TrackFrame) -> bool:
        if not f0.on_table[CUE_ROW] or f0.moving[CUE_ROW]:
            return False
        gap = float(np.hypot(*(f0.positions[r] - f0.positions[CUE_ROW]))) - self._d
        return gap <= self.config.touch_tolerance_mm

    def _vision_jump(self, r: int, f0: TrackFrame, f1: TrackFrame, f2: TrackFrame) -> bool:
        """A resting ball measured a step away and then still there: vision moved, not the ball.

        Once set moving, a ball only slows (until something hits it), and the cloth cannot
        stop in one frame a ball that covered centimetres in the one before. A big step from
        the rest spot followed by no motion at all is a detection that jumped (a ghost, a
        mis-centred outline), not a ball touched.
        """
        before = f0.positions[r]  # the rest spot
        if not (f1.seen[r] and f2.seen[r]) or np.isnan(before).any():
            return False
        first = float(np.hypot(*(f1.measured[r] - before)))
        second = float(np.hypot(*(f2.measured[r] - f1.measured[r])))
        sigma = float(np.nanmax([f1.measured_sigma[r], f2.measured_sigma[r], 1.0]))
        # A slow ball is confirmed moving only frames after it left, so its first step spans
        # several frames: it must also have stopped dead after it to be a jump.
        return first > 2.0 * second + 4.0 * sigma and second < 2.0 * sigma

    def _soft_contact(self, r: int, f0, f1, f2) -> ShotEvent | None:
        """A resting ball that left rest with a moving ball touching it was hit by that ball,
        even when neither velocity changed by more than one frame's noise: a slow ball nudging
        another (a few cm/s each) kicks it too softly for the pair test, and the tracker sees
        it leave rest frames later. The time is carried back from the struck ball's motion."""
        rest = f0.positions[r]
        reach = self._d + self.config.touch_tolerance_mm
        # Only a ball already rolling, and rolling at it, can have hit it (two balls set off
        # together, touching side by side, did not).
        movers = np.flatnonzero(f0.moving & f0.on_table)
        movers = movers[movers != r]
        if len(movers) == 0:
            return None
        to_rest = rest - f0.positions[movers]
        # Its way here over the last frames: one frame's filtered velocity near a ball is noisy.
        earlier = self._frames[max(0, len(self._frames) - 3 - _SOFT_LOOKBACK)]
        way = f0.positions[movers] - earlier.positions[movers]
        closing = np.einsum("mi,mi->m", to_rest, way)
        closing /= np.maximum(np.hypot(*to_rest.T) * np.hypot(*way.T), 1e-9)
        closing[np.hypot(*way.T) < _SOFT_MIN_WAY_MM] = 0.0
        gaps = np.minimum(np.hypot(*to_rest.T), np.hypot(*(f1.positions[movers] - rest).T))
        gaps[closing < _SOFT_APPROACH] = np.inf
        if np.nanmin(gaps) > reach:
            return None
        hitter = int(movers[int(np.nanargmin(gaps))])
        key = (min(r, hitter), max(r, hitter))
        dt = f1.time - f0.time
        if f0.time - self._pair_last.get(key, -math.inf) < 3 * dt:
            return None
        v = (f2.positions[r] - f1.positions[r]) / max(f2.time - f1.time, 1e-6)
        speed = float(np.hypot(*v))
        back = float(np.hypot(*(f1.positions[r] - rest))) / speed if speed > 0 else dt / 2
        t = float(np.clip(f1.time - back, f0.time - 4 * dt, f1.time))
        self._pair_last[key] = t
        self._contact_times.append((t, key))
        a, b = BALLS[hitter], BALLS[r]
        if b is BallId.CUE:
            a, b = b, a
        return ShotEvent(EventKind.BALL_BALL, t, (a, b), confidence=0.7, time_uncertainty=dt)

    def _clear_of_others(self, r: int, f0: TrackFrame) -> bool:
        p = f0.positions[r]
        others = f0.on_table.copy()
        others[r] = False
        d = np.hypot(*(f0.positions[others] - p).T)
        return bool(np.all(d > self._d + self.config.disturb_clearance_mm))

    def _displaced(self, frame: TrackFrame) -> list[ShotEvent]:
        """Resting balls the tracker found moved while out of sight (a hand over them): with
        no ball rolling to explain it, touched (rules 3.21, 3.22)."""
        events = []
        for d in frame.displaced:
            r = frame.row(d.ball)
            others = frame.moving.copy()
            others[r] = False
            if others.any() or d.time - self._disturbed_last.get(r, -math.inf) < 1.0:
                continue
            self._disturbed_last[r] = d.time
            events.append(
                ShotEvent(
                    EventKind.BALL_DISTURBED,
                    d.time,
                    (d.ball,),
                    confidence=0.7,
                    time_uncertainty=d.time_uncertainty,
                )
            )
        return events

    # -- cushions -------------------------------------------------------------------------------

    def _cushion_contacts(self) -> list[ShotEvent]:
        """Rebounds off a cushion nose or a pocket's jaw, judged at the frame K back from the
        newest (and again on a long window, for soft rebounds).

        A window of K frames each side gives fitted velocities that survive real tracking noise
        (a single frame's velocity is too noisy at 30 Hz). The ball must come closest to one nose at
        the centre frame, within touching distance, and its normal velocity must turn from into
        the cushion to out of it. The time is where the incoming and outgoing lines, carried on,
        put the centre one radius from the nose; their disagreement is the uncertainty.
        """
        events = self._rebounds_seen(_CUSHION_K, self.config.min_rebound_mm_s)
        return events + self._rebounds_seen(_SLOW_K, _SLOW_MIN_TURN)

    def _rebounds_seen(self, k: int, min_turn: float) -> list[ShotEvent]:
        """Rebounds at the frame ``k`` back from the newest, from ``k`` frames each side."""
        if len(self._frames) < 2 * k + 1:
            return []
        span = slice(-(2 * k + 1), None)
        before, centre, after = (self._frames[-k - i] for i in (2, 1, 0))
        # A ball that drops a frame or two after glancing off a jaw is judged on the frames it
        # was seen on the table (the wall test wants two each side).
        live = centre.on_table & before.on_table & after.on_table
        live &= centre.moving | before.moving | after.moving
        if not live.any():
            return []
        stack = self._window
        seen = stack.seen[span]
        live &= (seen[:k].sum(axis=0) >= 2) & (seen[k + 1 :].sum(axis=0) >= 2)
        events = []
        for r in self._rebound_candidates(k, live):
            times, pts = stack.times[span], stack.points[span, r]
            sigma = _median_sigma(stack.measured_sigma[span, r])
            if not stack.at_mouth[-k - 1, r] and not self._at_closest(k, r, sigma):
                continue
            found = self._cushion_event(r, times, sigma, pts, seen[:, r], min_turn)
            if found is None:
                continue
            event, crawled = found
            # One rebound per cushion is seen from several centre frames; a corner is two.
            key = (int(r), event.cushion)
            if event.time - self._cushion_last.get(key, -math.inf) < 0.15:
                continue
            self._cushion_last[key] = event.time
            if crawled:
                self._crawls[int(r)] = event
            else:
                events.append(event)
        return events

    def _rebound_candidates(self, k: int, live: np.ndarray) -> list[int]:
        """The ``live`` balls that, at the frame ``k`` back, may be rebounding: within reach
        of a cushion line and at most `_SIGMA_CAP` twice over from their closest to it in the
        window, or inside a pocket's mouth (where the nose lines say little: the jaw faces
        decide)."""
        stack = self._window
        at = stack.edge_gaps[-k - 1]
        reach = self._d / 2 + self.config.touch_tolerance_mm + _REACH_MM
        rows = np.flatnonzero(live & ((at <= reach).any(axis=1) | stack.at_mouth[-k - 1]))
        if len(rows) == 0:
            return []
        closest = np.fmin.reduce(stack.edge_gaps[-(2 * k + 1) :, rows], axis=0)
        near = (at[rows] <= reach) & (at[rows] <= closest + 2 * _SIGMA_CAP)  # unseen: nan
        keep = near.any(axis=1) | stack.at_mouth[-k - 1, rows]
        return [int(r) for r in rows[keep]]

    def _at_closest(self, k: int, r: int, sigma: float) -> bool:
        """Whether ball ``r`` at the frame ``k`` back is within reach of a cushion line and at
        its closest to it in the window, to twice its sigma: `_walls_near`'s test, on the
        nose lines alone."""
        gaps = self._window.edge_gaps[-(2 * k + 1) :, r]
        reach = self._d / 2 + self.config.touch_tolerance_mm + _REACH_MM
        at = gaps[k]
        closest = np.fmin.reduce(gaps, axis=0) + 2 * min(sigma, _SIGMA_CAP)
        return bool(np.any((at <= reach) & (at <= closest)))

    def _crawls_ended(self, frame: TrackFrame) -> list[ShotEvent]:
        """Crawls into a cushion (`_crawled_in`), timed once the ball is seen at rest: a ball
        crawling the last millimetres to a nose stops as it gets there, and vision cannot
        place it against the nose better than that."""
        events = []
        for r, event in list(self._crawls.items()):
            rest = frame.rest_since[r]
            gone = not frame.on_table[r]
            if math.isnan(rest) and not gone and frame.time - event.time < _CRAWL_WAIT_S:
                continue
            del self._crawls[r]
            t = event.time
            if not math.isnan(rest):
                t = float(np.clip(rest, event.time, event.time + _CRAWL_WAIT_S))
            events.append(dataclasses.replace(event, time=t))
        return events

    def _cushion_event(
        self,
        r: int,
        times: np.ndarray,
        sigma: float,
        pts: np.ndarray,
        seen: np.ndarray,
        min_turn: float,
    ) -> tuple[ShotEvent, bool] | None:
        """Ball ``r``'s rebound at the centre of the window whose frame ``times``, typical
        measurement ``sigma`` (`_median_sigma`), centres ``pts`` and ``seen`` flags are given,
        and whether it was a crawl (`_crawled_in`); or None."""
        k = len(times) // 2
        walls = self._walls_near(pts, sigma)
        if not walls:
            return None
        whole = (np.flatnonzero(seen[:k]), k + 1 + np.flatnonzero(seen[k + 1 :]))
        free = self._free_sides(r, times, seen)
        same = all(np.array_equal(a, b) for a, b in zip(free, whole, strict=True))
        for before, after in (whole,) if same else (free, whole):
            if len(before) < 2 or len(after) < 2:
                continue
            best = self._nose_crossing(walls, pts, times, before, after, sigma, min_turn)
            if best is not None:
                _, cushion, t, uncertainty, crawled = best
                event = ShotEvent(
                    EventKind.BALL_CUSHION,
                    t,
                    (BALLS[r],),
                    cushion=cushion,
                    confidence=_CRAWL_CONFIDENCE if crawled else 0.95,
                    time_uncertainty=uncertainty,
                )
                return event, crawled
        return None

    def _free_sides(self, r: int, times: np.ndarray, seen: np.ndarray):
        """The seen frames each side of the centre free of the ball's contacts with other
        balls: a line fitted across a contact bends and misses the nose (a ball kicked into a
        cushion a frame before it gets there comes in far faster than the frames before the
        kick say). When one frame is left on a side, the centre frame joins it."""
        k = len(times) // 2
        contacts = [t for t, pair in self._contact_times if r in pair]
        contacts += [p.event.time for p in self._pending if r in p.pair]
        last = max((t for t in contacts if t <= times[k]), default=-math.inf)
        upcoming = min((t for t in contacts if t > times[k]), default=math.inf)
        before = np.flatnonzero(seen[:k] & (times[:k] > last))
        after = k + 1 + np.flatnonzero(seen[k + 1 :] & (times[k + 1 :] < upcoming))
        if len(before) == 1 and seen[k]:
            before = np.append(before, k)
        elif len(after) == 1 and seen[k]:
            after = np.insert(after, 0, k)
        return before, after

    def _walls_near(self, pts: np.ndarray, sigma: float) -> list[tuple[Wall, np.ndarray]]:
        """The walls (cushion noses, jaw faces) the centre of the window ``pts`` may have
        touched, each with the ball's distance to it over the window: the centre frame within
        reach of the wall and (nearly) at its closest to it."""
        k = len(pts) // 2
        along = self._geo.walls_along(pts[k])
        dists = np.einsum(
            "fwi,wi->fw",
            pts[:, None, :] - self._geo.wall_starts[along],
            self._geo.wall_normals[along],
        )
        near = dists[k] - self._d / 2 <= self.config.touch_tolerance_mm + _REACH_MM
        near &= dists[k] <= dists.min(axis=0) + 2 * min(sigma, _SIGMA_CAP)
        return [(self._geo.walls[along[i]], dists[:, i]) for i in np.flatnonzero(near)]

    def _nose_crossing(self, walls, pts, times, before, after, sigma, min_turn):
        """(distance at the centre, cushion, time, uncertainty) of the rebound the fitted lines
        show off the nearest of ``walls`` (`_walls_near`), or None. Behind a jaw only the frames
        on the slate count: a ball past a pocket's shelf is falling."""
        k = len(times) // 2
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        best = None
        for wall, dist in walls:
            slate = wall.on_slate(pts)
            if not slate[k]:
                continue
            ins, outs = before[slate[before]], after[slate[after]]
            if len(ins) < 2 or len(outs) < 2:
                continue
            line_in = _line(times[ins], dist[ins], sigma)
            line_out = _line(times[outs], dist[outs], sigma)
            turn = max(min_turn, self.config.noise_sigmas * math.hypot(line_in[1], line_out[1]))
            found = _rebound(line_in, line_out, turn, rad, tol, times[ins[-1]], times[outs[0]])
            if found is None and k == _SLOW_K and _lay_still(pts[outs], times[outs]):
                clear = max(0.5 * min_turn, self.config.noise_sigmas * line_in[1])
                found = _crawled_in(line_in, line_out, clear, dist[outs] - rad)
            if found is not None and (best is None or dist[k] < best[0]):
                best = (dist[k], wall.cushion, *found)
        return best

    # -- pockets, departures, rest --------------------------------------------------------------

    def _departures(self, frame: TrackFrame) -> list[ShotEvent]:
        events = []
        for dep in frame.departures:
            kind = dep.kind
            if kind is EventKind.POCKETED and dep.rested_for >= SETTLE_REST_S:
                kind = EventKind.SETTLED_INTO_POCKET
            events.append(
                ShotEvent(
                    kind,
                    dep.time,
                    (dep.ball,),
                    cushion=dep.cushion,
                    pocket=dep.pocket,
                    confidence=dep.confidence,
                    time_uncertainty=dep.time_uncertainty,
                    source=dep.source,
                )
            )
            self._in_pocket.pop(BALLS.index(dep.ball), None)
            self._last_departure = max(self._last_departure, dep.time)
            if dep.kind is EventKind.POCKETED and (glance := self._last_glance(dep.ball)):
                events.append(glance)
        return events

    def _lamp_touches(self, frame: TrackFrame) -> list[ShotEvent]:
        """Balls seen in the air as high as the lamp: off the table at that moment (3.28)."""
        camera, lamp = self.config.camera_height_mm, self.config.light_height_mm
        if camera is None or lamp is None or not self._in_shot:
            return []
        rows = np.flatnonzero(frame.airborne & frame.seen)
        if len(rows) == 0:
            return []
        rad = self._d / 2
        # The picture of a ball scales as one over its distance from the camera.
        top = camera - (camera - rad) / frame.growth[rows] + rad
        events = []
        for r in rows[top >= lamp - _LAMP_REACH_MM]:
            if int(r) in self._lamp_touched:
                continue
            self._lamp_touched.add(int(r))
            events.append(
                ShotEvent(
                    EventKind.LEFT_TABLE,
                    frame.time,
                    (BALLS[r],),
                    confidence=0.8,
                    time_uncertainty=frame.time - self._frames[-2].time,
                    source=EvidenceSource.VISION,
                )
            )
        return events

    def _last_glance(self, ball: BallId) -> ShotEvent | None:
        """The cushion contact of a ball that glanced off a jaw (or a nose by a pocket) and
        dropped before two more frames showed it: its last sighting on the slate lies off the
        line it came in on, pushed back out from a wall that line would have reached by then.
        Nothing else turns a ball there (a ball it hit would have been a contact)."""
        r = BALLS.index(ball)
        window = self._window
        n = len(window)
        times, seen = window.times[-n:], window.seen[-n:, r]
        pts = window.measured[-n:, r]
        idx = np.flatnonzero(seen)
        if len(idx) < 3:
            return None
        last = int(idx[-1])
        contacts = [t for t, pair in self._contact_times if r in pair]
        since = max((t for t in contacts if t < times[last]), default=-math.inf)
        before = idx[:-1][times[idx[:-1]] > since][-_CUSHION_K:]
        if len(before) < 2:
            return None
        opening = self._slate_opening(pts[last])
        if opening is False:
            return None
        sigma = float(np.nanmedian(window.measured_sigma[-n:, r][idx]))
        vx, _, t0, x0 = _line(times[before], pts[before, 0], sigma)
        vy, noise, _, y0 = _line(times[before], pts[before, 1], sigma)
        velocity, start = np.array([vx, vy]), np.array([x0, y0])
        off_line = pts[before] - (start + np.outer(times[before] - t0, velocity))
        if np.max(np.hypot(off_line[:, 0], off_line[:, 1])) > self.config.noise_sigmas * sigma:
            return None  # it came in on no straight line (a bad sighting, or a turn): no judging
        predicted = start + velocity * (times[last] - t0)
        deviation = pts[last] - predicted
        if opening is not None:
            # At the drop a ball is seen badly along the pocket (the jaw hides part of it, and
            # past the edge it falls away): only its way across the pocket counts.
            axis = np.array(opening.axis)
            deviation -= (deviation @ axis) * axis
        # The prediction's noise: the line's centre, and its slope carried forward.
        ahead = math.hypot(sigma / math.sqrt(len(before)), noise * (times[last] - t0))
        push_least = max(_GLANCE_MM, self.config.noise_sigmas * ahead)
        wall = self._pushed_off(pts[last], predicted, deviation, velocity, push_least)
        if wall is None:
            return None
        # When the line it came in on put its centre one radius from the wall.
        vn = float(velocity @ wall.normal)
        t = t0 + (float((start - wall.start) @ wall.normal) - self._d / 2) / -vn
        t = float(np.clip(t, times[before[-1]], times[last]))
        key = (r, wall.cushion)
        if t - self._cushion_last.get(key, -math.inf) < 0.15:
            return None
        self._cushion_last[key] = t
        return ShotEvent(
            EventKind.BALL_CUSHION,
            t,
            (ball,),
            cushion=wall.cushion,
            confidence=0.8,
            time_uncertainty=0.5 * (times[last] - times[before[-1]]),
        )

    def _pushed_off(
        self,
        seen: np.ndarray,
        predicted: np.ndarray,
        deviation: np.ndarray,
        velocity: np.ndarray,
        push_least: float,
    ) -> Wall | None:
        """The wall a ball seen at ``seen``, where its line in put it at ``predicted``, was
        pushed off: one the ball was rolling into and that line reached, ``deviation`` pushing
        the ball back out from it by at least ``push_least`` (the most, of several)."""
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        best, best_push = None, push_least
        for w in self._geo.walls_along(seen):
            wall = self._geo.walls[w]
            into = float(velocity @ wall.normal) <= -self.config.min_rebound_mm_s
            reached = float((predicted - wall.start) @ wall.normal) - rad <= tol
            pushed = float(deviation @ wall.normal)
            if into and reached and pushed >= best_push:
                best, best_push = wall, pushed
        return best

    def _slate_opening(self, p: np.ndarray) -> Pocket | bool | None:
        """Where a centre seen at ``p`` lies: on the cloth (None), in a pocket's opening short
        of the drop (that pocket), or past the drop (False: a falling ball's picture slides
        with nothing touched). A ball at the drop is seen less well (the jaw hides part of it):
        a sighting up to the touch tolerance past the edge still counts as on the shelf."""
        pocket = self._geo.pocket_at(float(p[0]), float(p[1]))
        if pocket is None:
            return None
        spec = self.table.pocket(pocket)
        depth = spec.depth_of((float(p[0]), float(p[1])))
        return spec if depth < spec.shelf + self.config.touch_tolerance_mm else False

    def _rebounds(self, f1: TrackFrame) -> list[ShotEvent]:
        """A ball whose centre went inside a pocket opening and came back onto the table."""
        events = []
        for r in np.flatnonzero(f1.on_table & f1.seen):
            p = f1.positions[r]
            pocket = self._geo.pocket_at(float(p[0]), float(p[1]))
            if pocket is not None:
                self._in_pocket[int(r)] = (pocket, f1.time)
            elif int(r) in self._in_pocket and self.table.on_playing_surface((p[0], p[1])):
                pocket_id, since = self._in_pocket.pop(int(r))
                events.append(
                    ShotEvent(
                        EventKind.POCKET_REBOUND,
                        f1.time,
                        (BALLS[r],),
                        pocket=pocket_id,
                        confidence=0.8,
                        time_uncertainty=max(f1.time - since, 0.0),
                        source=EvidenceSource.VISION,
                    )
                )
        return events

    def _slow_rebound_pending(self) -> bool:
        """True while a frame the long-window rebound test has still to judge shows a slow ball
        moving within reach of a cushion line."""
        reach = self._d / 2 + self.config.touch_tolerance_mm + _REACH_MM
        half = np.array([self._geo.hx, self._geo.hy])
        for f in list(self._frames)[-_SLOW_K - 1 :]:
            rows = f.moving & f.on_table
            if rows.any():
                p = f.positions[rows]
                gap = np.minimum(half - p, half + p)
                if np.any(gap <= reach):
                    return True
        return False

    def finish(self) -> list[ShotEvent]:
        """The input ended: a shot whose balls all rest ends now. No more frames will come for
        the long-window rebound test, so the shot does not wait for it."""
        if not self._frames:
            return []
        crawls = list(self._crawls.values())
        self._crawls.clear()
        return crawls + self._rest(self._frames[-1], final=True)

    def _rest(self, frame: TrackFrame, final: bool = False) -> list[ShotEvent]:
        if not self._in_shot:
            return []
        events = []
        on = frame.on_table
        resting = ~np.isnan(frame.rest_since)
        for r in np.flatnonzero(on & resting):
            if int(r) not in self._rest_reported and frame.rest_since[r] > self._strike_time:
                self._rest_reported.add(int(r))
                events.append(
                    ShotEvent(
                        EventKind.BALL_AT_REST,
                        float(frame.rest_since[r]),
                        (BALLS[r],),
                        time_uncertainty=0.1,
                    )
                )
        # A slow rebound is judged _SLOW_K frames late: the shot stays open until that is done
        # for any ball that was moving near a cushion.
        if (
            np.all(resting[on])
            and not any(
                s is BallStatus.HIDDEN and frame.moving[i] for i, s in enumerate(frame.status)
            )
            and (final or not self._slow_rebound_pending())
        ):
            times = frame.rest_since[on & resting]
            latest = max(self._strike_time, self._last_departure)
            end = float(max(np.max(times), latest)) if len(times) else latest
            events.append(ShotEvent(EventKind.ALL_AT_REST, end, time_uncertainty=0.1))
            self._in_shot = False
        return events


def _rebound(line_in, line_out, turn, rad, tol, lo, hi) -> tuple[float, float, bool] | None:
    """(time, uncertainty, False) of a rebound off a nose, from the fitted lines (`_line`) of
    the ball's distance to it before and after, the last sample before at ``lo`` and the first
    after at ``hi``; None when the lines do not turn by ``turn`` mm/s there."""
    vn_in, _, t_in0, d_in0 = line_in
    vn_out, _, t_out0, d_out0 = line_out
    if vn_in >= -0.5 * turn or vn_out <= 0.25 * turn or vn_out - vn_in < turn:
        return None
    # When the centre was one radius from the nose, by each fitted line carried on. Between
    # frames a fast ball gets closer than any sample shows: the incoming and outgoing lines
    # must meet within touching distance of the nose.
    t_meet = (d_out0 - d_in0 + vn_in * t_in0 - vn_out * t_out0) / (vn_in - vn_out)
    if d_in0 + vn_in * (t_meet - t_in0) - rad > tol:
        return None
    tin = t_in0 + (d_in0 - rad) / -vn_in
    tout = t_out0 - (d_out0 - rad) / vn_out
    t = float(np.clip(0.5 * (tin + tout), lo, hi))
    half = (hi - lo) / 2
    return t, float(np.clip(abs(tin - tout) / 2, 0.25 * half, half)), False


def _median_sigma(sigmas: np.ndarray) -> float:
    """The median of a ball's measured sigmas over a window, 2 mm if it was never measured."""
    finite = sigmas[np.isfinite(sigmas)]
    return statistics.median(finite.tolist()) if len(finite) else 2.0


def _lay_still(pts: np.ndarray, times: np.ndarray) -> bool:
    """Whether a ball sampled at ``pts`` over ``times`` all but stopped (a crawl ends at rest;
    a ball rolling on along the cushion came off it, and the rebound test judges that)."""
    way = float(np.hypot(*(pts[-1] - pts[0])))
    return way < _CRAWL_STILL_MM_S * max(float(times[-1] - times[0]), 1e-9)


def _crawled_in(
    line_in, line_out, clear: float, gaps: np.ndarray
) -> tuple[float, float, bool] | None:
    """(time, uncertainty, True) of a ball that came in along ``line_in`` faster than
    ``clear`` mm/s and then lay against the nose (``gaps``: its distances past one radius,
    fitted as ``line_out``): it crawled into the cushion and came back too slowly to see turn.
    None when it came in too slowly, went on in, or lay off the nose. The time is where the
    line in gets to the nose; `Segmenter._crawls_ended` sets it when the ball is seen still."""
    vn_in, _, t_in0, d_in0 = line_in
    if vn_in > -clear or line_out[0] < 0.25 * vn_in:
        return None
    gap = float(np.median(gaps))
    if gap > _CRAWL_GAP_MM:
        return None
    t = t_in0 + (d_in0 - line_out[3]) / -vn_in  # where the line in meets where it lay
    return float(t), min(_CRAWL_GAP_MM / -vn_in, _CRAWL_WAIT_S), True


def _slope(t: np.ndarray, y: np.ndarray, sigma: float) -> tuple[float, float]:
    """Least-squares slope of y(t) and its standard deviation for noise ``sigma``."""
    return _line(t, y, sigma)[:2]


def _line(t: np.ndarray, y: np.ndarray, sigma: float) -> tuple[float, float, float, float]:
    """Least-squares line through y(t): its slope, the slope's standard deviation for noise
    ``sigma``, and the point it passes through (the means of t and y)."""
    # np.add.reduce / n is ndarray.mean without its overhead, which counts on a few samples.
    t_mean, y_mean = np.add.reduce(t) / len(t), np.add.reduce(y) / len(y)
    tc = t - t_mean
    ss = float(tc @ tc)
    if ss <= 0:
        return 0.0, math.inf, t_mean, y_mean
    return float(tc @ (y - y_mean)) / ss, sigma / math.sqrt(ss), t_mean, y_mean


def _touch_roots(p: np.ndarray, v: np.ndarray, d: float) -> tuple[float, ...]:
    """The two times tau (sorted) with |p + v tau| = d, or () when the motion never gets there."""
    a = float(v @ v)
    b = 2.0 * float(p @ v)
    c = float(p @ p) - d * d
    if a < 1e-9:
        return (-math.inf, math.inf) if c <= 0 else ()
    disc = b * b - 4 * a * c
    if disc < 0:
        return ()
    sq = math.sqrt(disc)
    return ((-b - sq) / (2 * a), (-b + sq) / (2 * a))


def _closest_time(p, v, lo, hi) -> float:
    a = float(v @ v)
    if a < 1e-9:
        return lo
    return float(np.clip(-float(p @ v) / a, lo, hi))


def _closest(p, v, lo, hi) -> float:
    t = _closest_time(p, v, lo, hi)
    return float(np.hypot(*(p + v * t)))
