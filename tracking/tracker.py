"""The tracker: Detections (+ pocket signals) -> TrackFrame, one frame at a time.

Each ball has a `BallFilter`. Per frame: predict every ball on the table, match detections to
balls (`associate.assign`), update the matched ones (re-seeding those a contact turned), decide
what the unmatched ones did: hidden under an occluder or missed (kept where they were), pocketed
(only with evidence: a pocket signal, or vision seeing the ball inside a pocket opening), or off
the table (seen beyond a cushion, or lost as it ran fast into one and not seen back: vision
looks on the cloth only).
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from calibration.table import TableSpec
from rules.balls import BallId
from rules.events import EventKind, EvidenceSource
from rules.signals import PocketSignal
from rules.table import CushionId, PocketId
from tracking.associate import assign, fold_names, identity_cost, unstruck_reach
from tracking.geometry import TableCache, inside_any
from tracking.model import (
    BALLS,
    CUE_ROW,
    ON_TABLE,
    BallStatus,
    Departure,
    Displacement,
    TrackerConfig,
    TrackFrame,
)
from tracking.motion import BallFilter
from vision.detections import Detections

log = logging.getLogger(__name__)

# The statuses as plain module names: an enum member looked up on its class costs a fifth of
# a microsecond, and the per-ball loops ask about every ball several times a frame.
_AT_REST = BallStatus.AT_REST
_MOVING = BallStatus.MOVING
_HIDDEN = BallStatus.HIDDEN
_UNSEEN = BallStatus.UNSEEN
_POCKETED = BallStatus.POCKETED
_OFF_TABLE = BallStatus.OFF_TABLE

_MISS_COST = 14.0
_FREE_POSITION_COST = 6.0
_RESPAWN_ID = 0.6
_NEW_ID = 0.3
_CONFIRM_SIGHTINGS = 3
"""A new track is tentative until seen this many times: its first sighting may have been a
neighbour that vision misnamed (a 2-3 % event per detection), so until then, while no ball rolls,
it may move to a detection elsewhere that vision names as it."""
_TRAVEL_STEPS = 3
"""A rolling ball's own speed is the fastest of its last few steps between sightings: unless
another ball strikes it, it goes no faster (its filter's velocity, loose near a cushion or a
ball, says less)."""
_TRAVEL_SLACK = 1.2
"""How much faster than that speed a rolling ball's travel allows, for the noise of the steps."""
_TRAVEL_MM = 5.0
"""And how much farther, mm, for the noise of the sighting it is taken to."""
_HIDDEN_REACH_MM = 120.0
"""How far from where it lay a ball hidden at rest is taken back on a weak name: a hand nudging
it moves it a few centimetres."""
_UNSTRUCK_REACH_D = 1.0
"""How far (in ball diameters) a ball at rest that nothing can have struck may be taken to a
detection vision does not name as it: a nudge moves it millimetres; farther is another ball, or
a ghost."""
_NAME_MEMORY = 0.95
"""Each sighting's weight in a track's running name score, per newer sighting (about the last
twenty count)."""

_RELABEL_COST = math.log(1e6)
"""A confirmed track is renamed when its recent sightings make a ball not on the table this
much likelier than its own name: vision calls it that, steadily."""

_RENAME_COST = math.log(100.0)
"""A tentative track is renamed when its sightings make another ball this much likelier."""

_AGAINST_MM = 3.0
"""A ball resting this close to touching a cushion nose (a few times a resting centre's error)
may have been stopped by the cushion, not the cloth (`Tracker._stopped_at`)."""

_GONE_OVER_S = 0.5
"""A fast ball lost from sight at a cushion it ran into, and not seen again this long (s), went
over it (`Tracker._lost_over`): one the cushion turned back is seen again a frame later, one
bouncing on the rail top back onto the cloth within a third of a second."""
_OVER_REACH_D = 2.0
"""... and meanwhile, farther than this many ball widths from where it crossed the nose, only a
detection vision surely names as it takes it back (a ghost elsewhere on the cloth took one)."""
_GONE_OVER_SPEED = 500.0
"""... running into the cushion at least this fast (mm/s): only a ball in the air goes over,
and a slower one lost there is more likely missed by vision than gone."""
_LOST_MOVING_S = 2.0
"""A moving ball unseen this long (s) is taken to have stopped: a ball rolling at 2 m/s on the
cloth stops within about two seconds, and an arm rarely hides one longer."""
_GHOST_SIGHTINGS = 3
"""A ball adopted from fewer sightings than this ..."""
_GHOST_GAP_S = 0.1
"""... and then unseen this long (s) was a ghost: it is forgotten."""
_EARLY_S = 0.1
"""Balls first seen this soon after the first frame are shown at once (vision may name one
doubtfully, or miss it, in the first frame or two)."""
_DISPLACED_FRAMES = 20
"""Frames a resting ball is watched after it was hidden before its spot is compared."""
_SETTLED_MM = 0.5
"""A re-seen ball whose spot moved this much from one half of the watch to the next is still
creeping: its spot is compared when it settles ..."""
_DISPLACED_WATCH_FRAMES = 90
"""... or after this many frames."""
_DISPLACED_MM = 3.0
"""A rest spot this far from where the ball lay before it was hidden: it was moved. Rest spots
are averages of many detections; vision's fixed error on a still ball is about 1 mm."""
_CREPT_MM = 2.0
"""... or a ball seen creeping this far on from its first sightings back in sight to where it
settles: a ball at rest does not creep. Its spot may be off by 2 mm and more from where it lay
without moving: a cue ball put down touching it shifts its detected centre (0.33 mm median,
2.4 mm and more in 2 of 150 rendered layouts), so a 4 mm nudge may pass the spot test; but the
neighbour's shift does not change while it is watched, and a creeping ball's does."""
_CREPT_FRAMES = 5
"""Its first sightings back in sight, averaged."""
_DISPLACED_HIDDEN_S = 0.15
"""... after being out of sight at least this long (a hand; not a missed detection)."""
_UNADMITTED_MIN = 6
"""Sightings of a ball not yet on the table (seen while others rolled, when no ball comes onto
the table) needed to say it was moving then: a few frames of a steady named detection, not a
ghost."""
_UNADMITTED_ROLLED_MM = 3.0
"""... and its first few and latest few this far apart: it rolled (the means of three sightings
are good to about 0.6 mm)."""
_UNADMITTED_CLEAR_D = 2.0
"""... each of them at least this many ball widths from every ball on the table: one nearer may
have been knocked by it out of sight."""
_OVERLAP_D = 0.8
"""A detection nearer than this many ball widths to a ball overlaps it (touching balls, a rack,
sit a width apart, noise and all)."""
_SAME_SPOT_MM = 8.0
"""... and farther than this (several sigma) is not on its spot."""
_RADIUS_FOLLOW = 0.1
"""How fast a ball's radius on the cloth follows its detections (an exponential average)."""
_POCKET_REACH_D = 1.5
"""A pocket signal is matched to a ball whose centre was within this many diameters of the
pocket's mouth when it was last seen."""


_Over = tuple[CushionId, float, float, float]
"""A ball lost over a cushion: the cushion, where it crossed the nose (x, y), and when."""


@dataclass
class _Track:
    status: BallStatus = _UNSEEN
    kf: BallFilter | None = None
    rest_pos: tuple[float, float] | None = None
    rest_since: float = math.nan
    last_seen: float = -math.inf
    last_z: tuple[float, float] | None = None
    last_sigma: float = 2.0
    moving_before_hidden: bool = False
    pending_start: int = 0
    gone_at: float = -math.inf
    radius_px: float = math.nan
    ground_radius: float = math.nan
    sightings: int = 0
    anchor: tuple[float, float] | None = None
    hidden_at: float = math.nan
    reseen_at: float = math.nan
    reseen: list = field(default_factory=list)
    adopted_from: BallStatus = _UNSEEN
    adopted_at: float = math.nan
    entered: PocketId | None = None
    over: _Over | None = None
    """Lost from sight as it ran fast into a cushion: (that cushion, where it crossed the nose,
    x and y, and when), until it is seen again (`Tracker._lost_over`)."""
    seen_count: int = 0
    """Sightings since the track was (re)started: under `_CONFIRM_SIGHTINGS` it is tentative."""
    id_cost: np.ndarray | None = None
    """While tentative: each ball's identity cost summed over its sightings (minus log p)."""
    history: deque = field(default_factory=lambda: deque(maxlen=64))
    """(time, [x, y]) of its latest sightings, oldest first: the rest test fits its tail."""
    left_rest_at: float = -math.inf
    """When it last left rest: the rest test fits only sightings since."""
    unadmitted: list = field(default_factory=list)
    """(time, [x, y]) of sightings named as this ball while it was not on the table and balls
    rolled (no ball comes onto the table then), clear of the balls on the table, in a row: the
    first few and the latest few."""
    unadmitted_after: float = -math.inf
    """The last time before that run that no ball rolled; inf once a sighting of it came near a
    ball on the table (it may have been knocked, out of sight), or once it was told."""


@dataclass(frozen=True, slots=True, eq=False)
class _Sightings:
    """One frame's detections as the per-ball steps read them, made once per frame: a value
    read from a numpy array costs several times what a float from a list does.

    Attributes:
        det: The detections.
        z: (n, 2) their centres (`Detections.positions`; no track keeps a row of it).
        xy: Their centres as [x, y] floats.
        sigma: Their position sigmas.
        radius: Their apparent radii in pixels.
        edge: Each centre's distance to the nearest cushion line (`TableCache.edge_gap`).
        unknown: (n,) `Detections.unknown`.
    """

    det: Detections
    z: np.ndarray
    xy: list[list[float]]
    sigma: list[float]
    radius: list[float]
    edge: list[float]
    unknown: np.ndarray


@dataclass
class _Pending:
    signal: PocketSignal
    received: float


def _resting(track: _Track) -> bool:
    return track.status is _AT_REST or (track.status is _HIDDEN and not track.moving_before_hidden)


def _travel(track: _Track, since: float) -> float:
    """How far a rolling ball's own speed (`_TRAVEL_STEPS`) can carry it in ``since`` seconds,
    mm, with the noise of its sightings; inf when it has too few sightings to say."""
    if len(track.history) <= _TRAVEL_STEPS:
        return math.inf
    history = track.history
    recent = [history[k] for k in range(-_TRAVEL_STEPS - 1, 0)]
    speed = max(
        (math.dist(a, b) / (tb - ta) for (ta, a), (tb, b) in pairwise(recent) if tb > ta),
        default=math.inf,
    )
    return _TRAVEL_SLACK * speed * since + 3 * track.last_sigma + _TRAVEL_MM


def _rolling(tracks: list[_Track]) -> bool:
    """Whether any ball on the table is not `_resting`: moving, or hidden while moving."""
    for track in tracks:
        status = track.status
        if status is _MOVING or (status is _HIDDEN and track.moving_before_hidden):
            return True
    return False


_SURE = 1e-9
"""Relative margin past which a squared distance surely says which side of a reach a pair lies
(its rounding is a few units in 1e-16); inside it, `np.hypot` decides, as an array step does."""


def _close_pairs(
    xs: list[float], ys: list[float], moving: list[bool], reach: float
) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, of which at least one is moving, whose centres lie nearer than
    ``reach``: the pairs where ``np.hypot(xs[i] - xs[j], ys[i] - ys[j]) < reach`` over every
    pair would be True, in that matrix's row-major order. Swept along x, so a frame's balls
    spread over the table cost a few tests each rather than one per pair."""
    far, far2, near2 = reach * (1 + _SURE), (reach * (1 + _SURE)) ** 2, (reach * (1 - _SURE)) ** 2
    # (A nan centre is near nothing.)
    order = sorted(
        (k for k in range(len(xs)) if xs[k] == xs[k] and ys[k] == ys[k]), key=xs.__getitem__
    )
    pairs = []
    for a, i in enumerate(order):
        xi, yi, mi = xs[i], ys[i], moving[i]
        for j in order[a + 1 :]:
            dx = xs[j] - xi
            if dx >= far:
                break  # and every one after it
            if not (mi or moving[j]):
                continue
            dy = ys[j] - yi
            d2 = dx * dx + dy * dy
            if d2 >= far2 or (d2 >= near2 and not np.hypot(dx, dy) < reach):
                continue
            pairs.append((i, j) if i < j else (j, i))
    pairs.sort()
    return pairs


_FIT_MARGIN = 1e-6
"""Relative margin of `_surely_faster`: the two fits' roundings differ by under 1e-9 of the
speed (positions to metres, times to a day, over a quarter second)."""


def _surely_faster(recent: list[tuple[float, list[float]]], speed: float) -> bool:
    """Whether the straight-line fit of `Tracker._check_rest` over ``recent`` (time, [x, y])
    surely moves faster than ``speed``: the same least-squares slope in plain floats, trusted
    only past `_FIT_MARGIN` (its sums round in another order than the arrays' do)."""
    n = len(recent)
    mean_t = sum(ti for ti, _ in recent) / n
    mean_x = sum(zi[0] for _, zi in recent) / n
    mean_y = sum(zi[1] for _, zi in recent) / n
    stt = stx = sty = 0.0
    for ti, (x, y) in recent:
        c = ti - mean_t
        stt += c * c
        stx += c * (x - mean_x)
        sty += c * (y - mean_y)
    return math.hypot(stx, sty) > speed * stt * (1 + _FIT_MARGIN)


class Tracker:
    """Keeps one track per ball and returns every ball's state each frame.

    Example::

        tracker = Tracker(TableSpec.standard("9ft"))
        for detections in detector_output:
            frame = tracker.update(detections, signals_since_last_frame)
    """

    def __init__(self, table: TableSpec, config: TrackerConfig | None = None) -> None:
        self.table = table
        self.config = config or TrackerConfig()
        self._tracks = [_Track() for _ in BALLS]
        # Row r: the track at row r's identity cost over its recent sightings, older ones
        # fading (`_NAME_MEMORY`): what vision has been calling that ball lately (the rows of
        # all tracks in one array, as they are updated together each frame). A rename swaps
        # rows; `_named[r]` is False until the track at r is first seen.
        self._name_score = np.zeros((len(BALLS), len(BALLS)))
        self._named = np.zeros(len(BALLS), dtype=bool)
        self._time: float | None = None
        self._time_first: float | None = None
        self._still_at = -math.inf  # the last frame in which no ball rolled
        # Where that frame's detections no track took lay: a ball misnamed in every still
        # frame (as a ball already on the table) is taken there while balls roll.
        self._still_unclaimed = np.empty((0, 2))
        self._pending: list[_Pending] = []
        self._seen_at: list[np.ndarray | None] = []  # where this frame's matched balls are
        self._radius = table.ball_diameter / 2
        self._geo = TableCache(table)

    # -- public ---------------------------------------------------------------------------------

    def update(self, detections: Detections, signals: Iterable[PocketSignal] = ()) -> TrackFrame:
        """Fold one frame of detections and the pocket signals that arrived since the last one.

        Raises:
            ValueError: when frames go back in time.
        """
        t = detections.time
        if self._time_first is None and len(detections):
            self._time_first = t
        if self._time is not None and t < self._time:
            raise ValueError(f"frame {detections.frame}: time {t} is before the last frame")
        dt = 0.0 if self._time is None else t - self._time
        self._time = t
        self._pending.extend(_Pending(s, t) for s in signals)
        self._displaced: list[Displacement] = []
        self._renamed: list[tuple[BallId, BallId]] = []
        # Whether any ball rolls, as the last frame left them (nothing below changes it before
        # the updates).
        rolling = _rolling(self._tracks)
        self._predict(dt, rolling)
        seen = self._sightings(detections)
        matches = self._associate(seen, dt, rolling)
        if not rolling:
            unclaimed = np.ones(len(detections), dtype=bool)
            unclaimed[list(matches.values())] = False
            self._still_unclaimed = detections.positions[unclaimed]
        self._note_unadmitted(seen, matches, rolling)
        if matches:
            self._update_all_seen(matches, seen, t, dt)
        departures: list[Departure] = []
        self._seen_at = [self._tracks[row].last_z for row in matches]
        for row, track in enumerate(self._tracks):
            if row not in matches and track.status in ON_TABLE:
                self._update_unseen(row, track, detections, t, departures)
        departures.extend(self._fuse_signals(t))
        return self._frame(seen, matches, tuple(departures))

    # -- steps ----------------------------------------------------------------------------------

    def _sightings(self, det: Detections) -> _Sightings:
        z = det.positions
        xy = z.tolist()
        hx, hy = self._geo.hx, self._geo.hy
        return _Sightings(
            det,
            z,
            xy,
            det.sigma.tolist(),
            det.radius_px.tolist(),
            [min(hx - abs(x), hy - abs(y)) for x, y in xy],  # TableCache.edge_gap, for each
            det.unknown,
        )

    def _predict(self, dt: float, rolling: bool) -> None:
        if dt <= 0:
            return  # (a filter predicts nothing over no time)
        live = [t for t in self._tracks if t.status in ON_TABLE and t.kf is not None]
        if not live:
            return
        if not rolling:
            # Nothing rolls: no ball needs to know whether it is near another or a cushion.
            for track in live:
                track.kf.predict_still(dt)
            return
        xy = [track.kf.xy for track in live]
        d = self.table.ball_diameter
        rolling = [not _resting(track) for track in live]
        crowded = [False] * len(live)
        for i, j in _close_pairs([x for x, _ in xy], [y for _, y in xy], rolling, 2.5 * d):
            crowded[i] = crowded[j] = True
        edge_gap = self._geo.edge_gap
        for track, (x, y), moving, crowd in zip(live, xy, rolling, crowded, strict=True):
            if moving:
                track.kf.predict(dt, False, crowd or edge_gap(x, y) < 2 * d)
            else:
                track.kf.predict_still(dt)

    def _associate(self, seen: _Sightings, dt: float, rolling: bool) -> dict[int, int]:
        detections = seen.det
        if len(detections) == 0:
            return {}
        t = detections.time
        rows, tentative = [], []
        resting, moving = [], []  # per candidate: at rest (not the cue ball); rolling
        travel = []  # per candidate: how far its own speed carries it (inf: unknown)
        # Each candidate's predicted x and y, variance, gate and miss cost in turn (made into
        # one array below, whose columns `assign` reads).
        per_ball = []
        special = []  # (index, row) of balls hidden at rest or off the table
        # Balls come onto the table by hand, between shots: while a ball rolls, a detection no
        # track takes is a misnamed moving ball or a ghost, never a new or re-spotted ball.
        max_speed = self.config.max_speed
        for row, track in enumerate(self._tracks):
            status = track.status
            if status in ON_TABLE:
                kf = track.kf
                x, y, sigma = kf.centre_and_sigma()
                last_sigma = track.last_sigma
                since = t - track.last_seen
                if not since > dt:  # (max(dt, since), without the call)
                    since = dt
                g = max_speed * since + 4 * (sigma + last_sigma) + 10.0
                if status is _MOVING and track.last_z is not None:
                    # The gate is how far it can have gone from where it was last seen: a
                    # ball stopped dead or sent back by a contact is as far behind its
                    # prediction as the prediction ran on.
                    g += math.dist(track.last_z, (x, y))
                if status is _HIDDEN:
                    if track.entered is not None:
                        # Lost inside a pocket opening: it can only come back out of it.
                        g = min(g, _POCKET_REACH_D * self.table.ball_diameter)
                    if not track.moving_before_hidden or track.over is not None:
                        special.append((len(rows), row))
                rows.append(row)
                s2 = sigma**2
                per_ball += (x, y, s2, g, _MISS_COST + math.log(s2 + last_sigma**2) * 0.5)
                tentative.append(not rolling and track.seen_count < _CONFIRM_SIGHTINGS)
                resting.append(status is _AT_REST and row != CUE_ROW)
                moving.append(
                    status is _MOVING or (status is _HIDDEN and track.moving_before_hidden)
                )
                travel.append(_travel(track, since) if status is _MOVING else math.inf)
            elif (
                not rolling
                and (track.status is _UNSEEN or t - track.gone_at >= self.config.respawn_after)
            ) or (rolling and self._lay_unclaimed(track)):
                special.append((len(rows), row))
                rows.append(row)
                per_ball += (math.nan, math.nan, 1.0, math.inf, _MISS_COST)
                tentative.append(False)
                resting.append(False)
                moving.append(False)
                travel.append(math.inf)
        if not rows:
            return {}
        id_cost = identity_cost(detections.identity, seen.unknown)
        # (Kept as it is before new balls' weak names are ruled out below.)
        named = id_cost.copy() if special else id_cost
        # A new or re-spotted ball needs its identity from vision, not just a free detection.
        p_id = detections.identity
        in_pocket = self._in_pocket(seen) if special or any(tentative) else None
        elsewhere = None
        if any(tentative):
            elsewhere = np.full((len(rows), len(detections)), np.inf)
            for i in np.flatnonzero(tentative):
                row = rows[i]
                strong = (p_id[:, row] >= _NEW_ID) & ~in_pocket
                elsewhere[i, strong] = _FREE_POSITION_COST + id_cost[row, strong]
        columns = np.array(per_ball, dtype=float).reshape(-1, 5)
        predicted_at = columns[:, :2]
        moved = None
        for i, row in special:
            track = self._tracks[row]
            status = track.status
            if status is _HIDDEN and not track.moving_before_hidden:
                # A ball that lay still out of sight is seen again where it lay, or nudged: far
                # from there only vision naming it surely moves it (a lone ghost detection
                # elsewhere must not).
                far = np.hypot(*(detections.positions - predicted_at[i]).T) > _HIDDEN_REACH_MM
                id_cost[row, far & (p_id[:, row] < _RESPAWN_ID)] = np.inf
            elif status is _HIDDEN:
                # Lost over a cushion (`_lost_over`): back over it where it crossed, or turned
                # back and missed a while, and then seen as itself.
                crossed = np.array(track.over[1:3])
                reach = _OVER_REACH_D * self.table.ball_diameter
                far = np.hypot(*(detections.positions - crossed).T) > reach
                id_cost[row, far & (p_id[:, row] < _RESPAWN_ID)] = np.inf
                # Never on the spot of a ball seen there a frame ago, however vision names
                # it: two balls cannot share a spot.
                id_cost[row, self._on_others(detections.positions, rows, predicted_at, i)] = np.inf
            elif not status.on_table:
                if moved is None:
                    moved = self._moved_ball(
                        detections.positions, predicted_at[np.isfinite(predicted_at[:, 0])]
                    ) | self._left_its_spot(detections, predicted_at, rows, dt)
                need = _NEW_ID if status is _UNSEEN and not rolling else _RESPAWN_ID
                weak = (p_id[:, row] < need) | in_pocket | moved
                if rolling:
                    weak |= ~self._at_unclaimed_spot(detections.positions)
                if np.count_nonzero(~weak) > 1:
                    # Two detections named as one new ball: each ball exists once, so one is
                    # misnamed; wait for a frame that says which.
                    weak[:] = True
                id_cost[row, weak] = np.inf
        found = assign(
            predicted_at,
            columns[:, 2],
            columns[:, 3],
            np.array(rows),
            detections.positions,
            detections.sigma**2,
            id_cost,
            columns[:, 4],
            _FREE_POSITION_COST,
            elsewhere,
            self._unstruck_reach(columns, resting, moving, travel, detections),
            _RESPAWN_ID,
        )
        matched = {rows[i]: col for i, col in found.items()}
        for i, col in found.items():
            track = self._tracks[rows[i]]
            if (
                tentative[i]
                and math.dist(track.kf.position, detections.positions[col]) > per_ball[5 * i + 3]
            ):
                # Its first sightings were another ball's: start it again where it is.
                log.debug("%s: tentative track moved to a detection named as it", BALLS[rows[i]])
                track.status = _UNSEEN
        self._unoverlap(matched, rows, predicted_at, named, seen.xy)
        self._rename_tentative(matched, named)
        self._rename_misnamed(matched, named)
        return self._keep_order(matched, seen)

    def _unoverlap(
        self,
        matched: dict[int, int],
        rows: list[int],
        predicted: np.ndarray,
        id_cost: np.ndarray,
        xy: list,
    ) -> None:
        """Two balls cannot overlap on the cloth: a rolling ball matched to a detection
        overlapping the spot of a ball at rest that took no detection is there only if that
        ball left its spot, out of sight. When vision names the detection as the resting ball
        rather than the rolling one, it is the resting ball, struck (its first step), and the
        rolling one was missed: a ball stopped dead by a full hit is not where its prediction
        ran on to."""
        overlap = _OVERLAP_D * self.table.ball_diameter
        for i, row in enumerate(rows):
            if row in matched or self._tracks[row].status is not _AT_REST:
                continue
            spot = predicted[i]
            for other, col in matched.items():
                if self._tracks[other].status is not _MOVING:
                    continue
                if math.dist(xy[col], spot) < overlap and (id_cost[row, col] < id_cost[other, col]):
                    log.debug("%s: struck from its spot, not %s", BALLS[row], BALLS[other])
                    matched[row] = matched.pop(other)
                    break

    def _on_others(
        self, z: np.ndarray, rows: list[int], predicted: np.ndarray, own: int
    ) -> np.ndarray:
        """(n,) True for detections overlapping the prediction of a ball other than
        candidate ``own`` that was seen in the last frame (its spot is known to millimetres)."""
        out = np.zeros(len(z), dtype=bool)
        overlap = _OVERLAP_D * self.table.ball_diameter
        for i, row in enumerate(rows):
            track = self._tracks[row]
            if i == own or track.status not in (_AT_REST, _MOVING):
                continue
            out |= np.hypot(*(z - predicted[i]).T) < overlap
        return out

    def _lay_unclaimed(self, track: _Track) -> bool:
        """Whether a ball may be taken onto the table while balls roll: never seen, with a
        detection no track took when the balls last lay still. Balls come onto the table by
        hand, between shots; but one misnamed in every still frame (as a ball already there:
        a break struck as the camera starts) lay there all along."""
        return (
            track.status is _UNSEEN
            and math.isnan(track.adopted_at)
            and len(self._still_unclaimed) > 0
        )

    def _at_unclaimed_spot(self, positions: np.ndarray) -> np.ndarray:
        """(n,) True for detections at a spot no track took when the balls last lay still
        (`_lay_unclaimed`)."""
        gaps = positions[:, None, :] - self._still_unclaimed[None, :, :]
        return (np.hypot(gaps[..., 0], gaps[..., 1]) <= _SAME_SPOT_MM).any(axis=1)

    def _unstruck_reach(
        self,
        columns: np.ndarray,
        resting: list[bool],
        moving: list[bool],
        travel: list[float],
        detections: Detections,
    ) -> np.ndarray | None:
        """How far from its prediction each candidate ball may be taken to a detection vision
        does not name as it (`assign`'s ``unnamed_reach``; ``columns`` are its predicted x, y,
        variance and gate; ``resting``, ``moving`` and ``travel`` its state,
        `associate.unstruck_reach`): a ball at rest moves only when something strikes it, a
        rolling one goes no faster than its own speed unless struck, and then no faster than
        the two together. The cue ball at rest (the cue), a ball within reach of one rolling
        at an unknown speed, and any ball while a hand or cue is over the table may have been
        struck: up to their gate. Another is not carried off to a stray or misnamed detection
        (a ghost beside a rack took a racked ball's track, and every racked ball's name went
        round with it; a ghost beside a slow ball took it 13 cm in a frame)."""
        if detections.occluded:
            return None
        return unstruck_reach(
            columns,
            np.array(resting),
            np.array(moving),
            np.array(travel),
            self.table.ball_diameter,
            _UNSTRUCK_REACH_D * self.table.ball_diameter,
        )

    def _in_pocket(self, seen: _Sightings) -> np.ndarray:
        """(n,) True for detections in a pocket's opening. Balls come onto the table by hand,
        onto the cloth: a ball seen there (a pocketed one sinking, darkened) is never a new
        ball, except one hanging in the jaws when the table is first seen."""
        first = seen.det.time == self._time_first
        in_pocket = np.zeros(len(seen.det), dtype=bool)
        geo = self._geo
        for j, ((x, y), edge) in enumerate(zip(seen.xy, seen.edge, strict=True)):
            if edge <= geo.d:  # only near a cushion line is a pocket opening
                in_pocket[j] = self._dropped(x, y, first)
        return in_pocket

    def _rename_tentative(self, matched: dict[int, int], id_cost: np.ndarray) -> None:
        """A tentative track whose sightings, this one included, name a ball not on the table
        far likelier than its own was that ball misnamed at first: the track becomes that
        ball's. (Its spot keeps it matched, as a miss costs more than an unlikely name, so
        without this a misnamed first sighting would name the ball wrongly for good.)"""
        for row, col in list(matched.items()):
            track = self._tracks[row]
            if track.seen_count >= _CONFIRM_SIGHTINGS or track.id_cost is None:
                continue
            named = self._take_name(matched, row, track.id_cost + id_cost[:, col], _RENAME_COST)
            if named is not None:
                log.debug("%s: first seen misnamed %s", BALLS[named], BALLS[row])

    def _rename_misnamed(self, matched: dict[int, int], id_cost: np.ndarray) -> None:
        """A confirmed track that vision has lately been calling, steadily, a ball the tracker
        has never seen was misnamed when it was confirmed (a look-alike: the 2 for the 10):
        it becomes that ball's. A ball on the table, or gone from it, never takes a name."""
        rows = list(matched)
        if not rows:
            return
        pairs = np.array(list(matched.items()))
        # Only a track whose own name is this far behind another's can be renamed.
        if fold_names(self._name_score, self._named, id_cost.T, pairs, _NAME_MEMORY) < (
            _RELABEL_COST
        ):
            return
        scores = self._name_score[rows]  # (a copy: a rename swaps rows of `_name_score`)
        behind = scores[np.arange(len(rows)), rows] - scores.min(axis=1) >= _RELABEL_COST
        for k in behind.nonzero()[0].tolist():
            row = rows[k]
            if self._tracks[row].seen_count < _CONFIRM_SIGHTINGS:
                continue
            taken = self._take_name(matched, row, scores[k], _RELABEL_COST)
            if taken is not None:
                log.info("%s: renamed %s, as vision has been calling it", BALLS[row], BALLS[taken])

    def _take_name(
        self, matched: dict[int, int], row: int, cost: np.ndarray, margin: float
    ) -> int | None:
        """The track at ``row`` becomes the track of the ball ``cost`` names, when that ball is
        likelier than its own name by ``margin`` (in minus log p), has never been seen, and
        has no detection of its own this frame; returns that ball's row, or None."""
        named = int(np.argmin(cost))
        if cost[row] - cost[named] < margin or named in matched:
            return None
        if self._tracks[named].status is not _UNSEEN:
            return None
        self._tracks[row], self._tracks[named] = self._tracks[named], self._tracks[row]
        # Its name score goes with it.
        self._name_score[[row, named]] = self._name_score[[named, row]]
        self._named[row], self._named[named] = self._named[named], self._named[row]
        matched[named] = matched.pop(row)
        self._renamed.append((BALLS[row], BALLS[named]))
        return named

    def _note_unadmitted(self, seen: _Sightings, matches: dict[int, int], rolling: bool) -> None:
        """Note the detections no track took that vision names surely as a ball never on the
        table yet, while balls roll (`_Track.unadmitted`): a ball hidden from the start (under
        a hand) and seen rolling out from under it was set moving out of sight. A sighting near
        a ball on the table ends the run, and no run counts after it; one farther from the
        last than a ball could roll starts a new run."""
        det = seen.det
        if not rolling:
            self._still_at = det.time
            return
        rows = [
            r
            for r, track in enumerate(self._tracks)
            if track.status is _UNSEEN and math.isnan(track.adopted_at)
        ]
        if not rows or not len(det):
            return
        named = det.identity[:, rows] >= _RESPAWN_ID
        named[list(matches.values())] = False
        on_table = [t.kf.position for t in self._tracks if t.status in ON_TABLE and t.kf]
        clear_of = _UNADMITTED_CLEAR_D * self.table.ball_diameter
        for k, row in enumerate(rows):
            track = self._tracks[row]
            if not named[:, k].any() or track.unadmitted_after == math.inf:
                continue
            cols = np.flatnonzero(named[:, k])
            xy, run = seen.xy[cols[0]], track.unadmitted
            if len(cols) > 1:
                run.clear()
                continue
            if any(math.dist(xy, p) <= clear_of for p in on_table):
                # Seen near a ball on the table, it may have been knocked out of sight.
                track.unadmitted_after = math.inf
                run.clear()
                continue
            if run and math.dist(run[-1][1], xy) > self._reach(det.time - run[-1][0]):
                run.clear()  # not the ball of the run: start again from this one
            if not run:
                track.unadmitted_after = self._still_at
            run.append((det.time, xy))
            if len(run) > _UNADMITTED_MIN + 1:
                del run[_UNADMITTED_MIN // 2]  # its first and last few sightings are enough
            self._rolled_unadmitted(row, track)

    def _reach(self, since: float) -> float:
        """How far (mm) a ball can get in ``since`` s, with a sighting's noise."""
        return self.config.max_speed * since + 10.0

    def _rolled_unadmitted(self, row: int, track: _Track) -> None:
        """Tell once (`Displacement`, ``rolling``) of a ball not on the table whose run of
        sightings (`_note_unadmitted`) shows it rolling with no ball near it: it was set moving
        out of sight (rule 3.21), after the balls last lay still and before it was first
        seen."""
        run = track.unadmitted
        ends = _UNADMITTED_MIN // 2
        if len(run) < _UNADMITTED_MIN:
            return
        first = np.mean([p for _, p in run[:ends]], axis=0)
        last = np.mean([p for _, p in run[-ends:]], axis=0)
        if math.dist(first, last) <= _UNADMITTED_ROLLED_MM:
            return
        first_frame = run[0][0] if self._time_first is None else self._time_first
        span = (max(track.unadmitted_after, first_frame), run[0][0])
        middle, half = 0.5 * (span[0] + span[1]), 0.5 * (span[1] - span[0])
        self._displaced.append(Displacement(BALLS[row], middle, half, rolling=True))
        track.unadmitted_after = math.inf

    def _dropped(self, x: float, y: float, first: bool) -> bool:
        """True for a detection inside a pocket opening; when the table is first seen, only past
        the shelf (a ball hanging on the shelf, in the jaws, is a ball on the table)."""
        pocket = self._geo.pocket_at(x, y)
        if pocket is None or not first:
            return pocket is not None
        p = self.table.pocket(pocket)
        mx, my = p.mouth_centre
        return (x - mx) * p.axis[0] + (y - my) * p.axis[1] > p.shelf

    def _moved_ball(self, z: np.ndarray, balls: np.ndarray) -> np.ndarray:
        """(n,) True for detections part-overlapping a ball on the table (``balls``, their
        predicted centres): two balls cannot overlap on the cloth, so that is the ball, moved
        (a struck ball's first step, perhaps misnamed), never a new one. A detection on the very
        spot of a ball is that spot's ball, whatever its name: identity decides which."""
        if len(balls) == 0 or len(z) == 0:
            return np.zeros(len(z), dtype=bool)
        gaps = np.hypot(*(z[:, None, :] - balls[None, :, :]).transpose(2, 0, 1))
        d = self.table.ball_diameter
        return np.any((gaps > _SAME_SPOT_MM) & (gaps < _OVERLAP_D * d), axis=1)

    def _left_its_spot(
        self, det: Detections, predicted: np.ndarray, rows: list[int], dt: float
    ) -> np.ndarray:
        """(n,) True for detections within a frame's travel of a ball at rest that no detection
        shows on its spot: it was struck, and that is it, moved (its first step, perhaps
        misnamed), never a new ball. A struck cue ball goes clear of its spot in one frame from
        2.7 m/s, past what `_moved_ball` sees as overlapping. (A ball gone under a hand is
        hidden from the next frame on, and no longer at rest here.)"""
        z = det.positions
        out = np.zeros(len(z), dtype=bool)
        reach = self.config.max_speed * dt + self.table.ball_diameter
        near_spot = _OVERLAP_D * self.table.ball_diameter
        for i, row in enumerate(rows):
            spot = predicted[i]
            if self._tracks[row].status is not _AT_REST or not np.isfinite(spot[0]):
                continue
            gaps = np.hypot(*(z - spot).T)
            if np.any(gaps < near_spot):
                continue  # still there
            out |= gaps < reach
        return out

    def _keep_order(self, matched: dict[int, int], seen: _Sightings) -> dict[int, int]:
        """Balls on the cloth cannot pass through each other: when two balls close together, one
        of them moving, come out of the assignment in swapped order along the line between them,
        swap them back. Without this, look-alike balls trade ids whenever their predictions
        cross. A ball in the air (a jump shot) does pass over another: it is left as matched."""
        tracks = self._tracks
        if all(_resting(tracks[r]) for r in matched):
            return matched
        radius = seen.radius
        rows, cols, rolling, last_x, last_y = [], [], [], [], []
        for r, col in matched.items():
            track = tracks[r]
            if (
                track.status in ON_TABLE
                and track.last_z is not None
                and not self._airborne(track, radius[col])
            ):
                rows.append(r)
                cols.append(col)
                rolling.append(not _resting(track))
                x, y = track.last_z
                last_x.append(x)
                last_y.append(y)
        if len(rows) < 2:
            return matched
        xy = seen.xy
        for i, j in _close_pairs(last_x, last_y, rolling, 2.5 * self.table.ball_diameter):
            # Their last line (ax, ay) and their line now: reversed, they passed each other.
            nx, ny = xy[cols[i]]
            mx, my = xy[cols[j]]
            if (nx - mx) * (last_x[i] - last_x[j]) + (ny - my) * (last_y[i] - last_y[j]) < 0:
                a, b = rows[i], rows[j]
                matched[a], matched[b] = matched[b], matched[a]
        return matched

    def _airborne(self, track: _Track, radius_px: float) -> bool:
        """True when this detection, or the ball's last one, looks bigger than the ball on the
        cloth: it is nearer the camera, in the air."""
        limit = track.ground_radius * self.config.airborne_growth
        return radius_px > limit or track.radius_px > limit

    def _update_radius(self, track: _Track, radius_px: float) -> None:
        """Follow the ball's apparent radius on the cloth (it drifts slowly with the place on
        the table, as the camera sees it); a sudden growth is the ball leaving the cloth and
        is not followed."""
        track.radius_px = radius_px
        if math.isnan(track.ground_radius):
            track.ground_radius = radius_px
        elif radius_px <= track.ground_radius * (1 + (self.config.airborne_growth - 1) / 2):
            track.ground_radius += _RADIUS_FOLLOW * (radius_px - track.ground_radius)

    def _update_all_seen(
        self, matches: dict[int, int], seen: _Sightings, t: float, dt: float
    ) -> None:
        """`_update_seen` for each matched ball, with how far each resting ball's detection
        lies from its rest spot. That distance only meets the start threshold: a ball surely
        within it (by its squared distance, in floats) is given 0.0, and the distances of the
        others are found in one array step."""
        config = self.config
        start_min, start_sigmas = config.start_min_mm, config.start_sigmas
        moved: dict[int, float] = {}
        unsure, step_x, step_y = [], [], []
        for row, col in matches.items():
            track = self._tracks[row]
            if track.status in ON_TABLE and _resting(track):
                x, y = seen.xy[col]
                rest_x, rest_y = track.rest_pos
                dx, dy = x - rest_x, y - rest_y
                threshold = max(start_min, start_sigmas * seen.sigma[col]) * (1 - _SURE)
                if dx * dx + dy * dy < threshold * threshold:
                    moved[row] = 0.0
                else:
                    unsure.append(row)
                    step_x.append(dx)
                    step_y.append(dy)
        if unsure:
            gaps = np.hypot(np.array(step_x), np.array(step_y)).tolist()
            moved.update(zip(unsure, gaps, strict=True))
        for row, col in matches.items():
            self._update_seen(row, col, seen, moved.get(row), t, dt)

    def _update_seen(
        self, row: int, col: int, seen: _Sightings, moved: float | None, t: float, dt: float
    ) -> None:
        """Fold detection ``col`` into the track at ``row`` (``moved``: how far it lies from
        the ball's rest spot, for a resting ball, or 0.0 when surely under the start threshold;
        None for the others)."""
        track = self._tracks[row]
        z, xy, sigma = seen.z[col], seen.xy[col], seen.sigma[col]
        self._update_radius(track, seen.radius[col])
        if track.status not in ON_TABLE:
            # The balls of the first frame were set up before it: no ghosts among them.
            trusted = self._time_first == t
            track.adopted_from, track.sightings = track.status, _GHOST_SIGHTINGS * trusted
            track.adopted_at = t
            track.unadmitted, track.unadmitted_after = [], -math.inf
            track.kf = BallFilter(z, sigma, self.config)
            track.status = _AT_REST
            track.rest_pos = (xy[0], xy[1])
            track.rest_since = t
            track.history.clear()
            track.seen_count = 0
            track.id_cost = np.zeros(len(BALLS))
        elif moved is not None:
            self._update_resting(track, z, xy, sigma, moved, t, dt)
        else:
            self._update_moving(track, z, xy, sigma, t)
        x, y = xy
        geo = self._geo
        if seen.edge[col] > geo.d:
            track.entered = None  # well inside: in no opening, on the cloth
        elif (inside := geo.pocket_at(x, y)) is not None:
            track.entered = inside
        elif geo.on_surface(x, y):
            track.entered = None
        if track.id_cost is not None and track.seen_count < _CONFIRM_SIGHTINGS:
            own = identity_cost(seen.det.identity[col : col + 1], seen.unknown[col : col + 1])
            track.id_cost += own[:, 0]
        track.seen_count += 1
        track.over = None
        track.last_seen = t
        track.last_z = (xy[0], xy[1])
        track.last_sigma = sigma
        track.sightings += 1
        track.history.append((t, xy))

    def _update_resting(
        self,
        track: _Track,
        z: np.ndarray,
        xy: list[float],
        sigma: float,
        moved: float,
        t: float,
        dt: float,
    ) -> None:
        """A resting ball seen: started (moved clearly past its noise from its rest spot, by
        ``moved`` mm), or still, its rest spot refined."""
        threshold = max(self.config.start_min_mm, self.config.start_sigmas * sigma)
        if moved > threshold:
            track.pending_start += 1
            # A clear jump starts it at once; a marginal one must be confirmed by the next frame.
            if moved > 2 * threshold or track.pending_start >= 2:
                # Out of sight it may have moved at any time since it was last seen.
                step = max(dt, t - track.last_seen, 1e-3)
                track.kf.seed(z, (z - track.rest_pos) / step, sigma, speed_sigma=moved / step)
                track.status = _MOVING
                track.rest_since = math.nan
                track.left_rest_at = t
                track.pending_start = 0
                if track.anchor is not None:
                    self._displaced_from_anchor(track, z, t)
                return
        else:
            track.pending_start = 0
        track.status = _AT_REST
        track.rest_pos = track.kf.update_still(xy[0], xy[1], sigma)
        if track.anchor is not None:
            self._settled_elsewhere(track, z, t)

    def _settled_elsewhere(self, track: _Track, z: np.ndarray, t: float) -> None:
        """A resting ball seen again after something hid it: once it has been watched a while,
        compare where it lies with where it lay. Its rest spot is measured to a fraction of a
        millimetre, so a few millimetres is a hand that moved it (too slowly, or too little,
        for the start test)."""
        if track.anchor is None:
            return
        if not track.reseen:
            track.reseen_at = t
        track.reseen.append(z.copy())
        if len(track.reseen) < _DISPLACED_FRAMES:
            return
        half = _DISPLACED_FRAMES // 2
        spot = np.mean(track.reseen[-half:], axis=0)
        before = np.mean(track.reseen[-2 * half : -half], axis=0)
        # A hand's nudge may leave the ball creeping on after the hand is gone: its spot is
        # the one it settles on.
        creeping = float(np.hypot(*(spot - before))) > _SETTLED_MM
        if creeping and len(track.reseen) < _DISPLACED_WATCH_FRAMES:
            return
        first = np.mean(track.reseen[:_CREPT_FRAMES], axis=0)
        self._displaced_from_anchor(track, spot, t, float(np.hypot(*(spot - first))))

    def _displaced_from_anchor(
        self, track: _Track, spot: np.ndarray, t: float, crept: float = 0.0
    ) -> None:
        """Report a ball found moved after a hand hid it: its spot ``spot`` this far from where
        it lay (`_DISPLACED_MM`), or seen creeping ``crept`` mm on once back in sight
        (`_CREPT_MM`)."""
        if math.isnan(track.reseen_at):
            track.reseen_at = t
        shift = float(np.hypot(*(spot - track.anchor)))
        # A hand takes a while over a ball; a ball 'found' far off is an identity put right.
        if (
            (shift > _DISPLACED_MM or crept > _CREPT_MM)
            and shift < self.table.ball_diameter
            and track.reseen_at - track.hidden_at >= _DISPLACED_HIDDEN_S
        ):
            row = next(r for r, other in enumerate(self._tracks) if other is track)
            span = (track.hidden_at, track.reseen_at)
            self._displaced.append(
                Displacement(BALLS[row], 0.5 * (span[0] + span[1]), 0.5 * (span[1] - span[0]))
            )
        track.anchor = None

    def _update_moving(
        self, track: _Track, z: np.ndarray, xy: list[float], sigma: float, t: float
    ) -> None:
        track.status = _MOVING
        track.anchor = None
        # A measurement the model cannot explain (a contact) re-seeds the filter, when there is
        # a last one to take the new velocity from.
        limit = self.config.reseed_nis if track.last_z is not None else math.inf
        if not track.kf.update_if_explained(xy[0], xy[1], sigma, limit):
            track.kf.reseed_from(z, track.last_z, t - track.last_seen, sigma)
        speed = track.kf.speed
        # Only a slow ball can be coming to rest; the fit is not worth running for the others.
        if speed < 10 * self.config.rest_speed + 2 * sigma / self.config.rest_window:
            self._check_rest(track, t)

    def _check_rest(self, track: _Track, t: float) -> None:
        """At rest once a straight-line fit over the last `rest_window` gives a speed under
        `rest_speed` (rule 3.15): slow enough that the cloth stops it within a few frames."""
        window = self.config.rest_window
        # Not the still sightings from before it left rest: a ball nudged slowly would fit
        # as still again at once, and leave rest a second time a few frames later.
        since = max(t - window, track.left_rest_at)
        recent = []
        for entry in reversed(track.history):  # oldest first: the window is its tail
            if entry[0] < since:
                break
            recent.append(entry)
        if len(recent) < 3 or recent[-1][0] > t - window * 0.9:
            return
        recent.reverse()
        if _surely_faster(recent, self.config.rest_speed):
            return  # (the exact fit, in array steps, costs ten times this test)
        times = np.array([ti for ti, _ in recent], dtype=float)
        pts = np.array([v for _, zi in recent for v in zi], dtype=float).reshape(-1, 2)
        # (ndarray.mean is this sum and division, after a few microseconds of checks.)
        mean_t = np.add.reduce(times) / len(recent)
        mean_pt = np.add.reduce(pts, axis=0) / len(recent)
        tc = times - mean_t
        slope = (tc @ (pts - mean_pt)) / (tc @ tc)
        speed = float(np.hypot(*slope))
        if speed <= self.config.rest_speed:
            centre = mean_pt + slope * (times[-1] - mean_t)
            track.status = _AT_REST
            track.rest_pos = (float(centre[0]), float(centre[1]))
            track.rest_since = self._stopped_at(float(mean_t), speed, centre, t)
            track.kf.seed(centre, np.zeros(2), track.last_sigma / math.sqrt(len(pts)), 1.0)
            track.kf.hold_still()

    def _stopped_at(self, middle: float, speed: float, centre: np.ndarray, now: float) -> float:
        """When a ball the rest fit found still came to rest: the fit's speed is the ball's
        at its window's middle, and the cloth takes speed / rolling resistance more to stop it
        (no later than the newest frame, which the fit calls still). A ball come to rest
        against a cushion may have been stopped there at once: the middle."""
        if self._geo.edge_gap(float(centre[0]), float(centre[1])) <= self._radius + _AGAINST_MM:
            return middle
        return min(middle + speed / self.config.rolling_decel, now)

    def _named_again_elsewhere(self, track: _Track) -> bool:
        """Whether a track seen only a frame or two lies where another ball is seen now: two
        balls cannot share a spot, so its sightings were vision misnaming that ball (even in
        the first frame, whose balls are otherwise never ghosts)."""
        if track.seen_count >= _CONFIRM_SIGHTINGS or track.last_z is None:
            return False
        return any(
            z is not None and math.dist(z, track.last_z) < self._radius for z in self._seen_at
        )

    def _update_unseen(
        self,
        row: int,
        track: _Track,
        det: Detections,
        t: float,
        departures: list[Departure],
    ) -> None:
        ghost = track.sightings < _GHOST_SIGHTINGS and t - track.last_seen > _GHOST_GAP_S
        if ghost or self._named_again_elsewhere(track):
            # Seen a frame or two and then never again: a ghost detection, not a ball.
            track.status = track.adopted_from
            if track.status is _UNSEEN:
                track.kf, track.last_z = None, None
            return
        if track.status is not _HIDDEN:
            track.moving_before_hidden = track.status is _MOVING
            track.over = self._lost_over(track, det) if track.moving_before_hidden else None
            if track.status is _AT_REST:
                # Where it lay when it went out of sight: a hand may move it meanwhile. Out of
                # sight again before its spot was compared, it keeps that first spot; a stretch
                # too short for a hand (a detection missed once before the hand came) gives way
                # to the new one, which may be the hand's stay.
                short = not track.reseen_at - track.hidden_at >= _DISPLACED_HIDDEN_S
                if track.anchor is None or short:
                    track.hidden_at, track.reseen = t, []
                    track.reseen_at = math.nan
                if track.anchor is None:
                    track.anchor = track.rest_pos
            track.status = _HIDDEN
        elif track.moving_before_hidden and t - track.last_seen > _LOST_MOVING_S:
            # Unseen that long, it has stopped wherever it is (or was never a ball): it must
            # not hold the shot open for ever (rule 3.15).
            track.moving_before_hidden = False
            track.rest_since = track.last_seen
            track.kf.seed(track.kf.position, np.zeros(2), track.kf.position_sigma, 1.0)
            track.kf.hold_still()
        last = track.last_z if track.last_z is not None else track.kf.position
        # A ball last seen through a pocket opening went that way, wherever it was last seen.
        pocket = track.entered or self._pocket_near(last)
        if pocket is not None and not self.config.sensors:
            unseen_for = t - track.last_seen
            if track.entered is not None and (unseen_for >= self.config.vision_pocket_delay):
                departures.append(self._depart_vision(row, track, pocket, t))
                return
        if pocket is None and self._beyond_cushion(last):
            cushion = self.table.nearest_cushion((last[0], last[1]))
            departures.append(self._off_table(row, track, t, track.last_seen, cushion, 0.9))
        elif pocket is None and track.over is not None and t - track.last_seen >= _GONE_OVER_S:
            # Not seen back over the cushion it ran into: it went over (`_lost_over`).
            cushion, _, _, crossed = track.over
            departures.append(self._off_table(row, track, t, crossed, cushion, 0.7))

    @staticmethod
    def _off_table(
        row: int, track: _Track, t: float, left: float, cushion: CushionId, confidence: float
    ) -> Departure:
        """Ball ``row`` left the table over ``cushion`` at ``left`` (known at ``t``)."""
        track.status = _OFF_TABLE
        track.gone_at = t
        return Departure(
            BALLS[row],
            EventKind.LEFT_TABLE,
            left,
            max(t - left, 0.0),
            cushion=cushion,
            confidence=confidence,
        )

    def _lost_over(self, track: _Track, det: Detections) -> _Over | None:
        """(the cushion, where and when it crossed its nose) of a moving ball lost from sight
        as it ran fast into a cushion it was about to reach, in open view: vision looks for
        balls on the cloth only, so one gone over onto the rail top or the floor is not seen
        beyond the nose, and one the cushion turned back is seen again a frame later. Until
        it is, only a detection named as it takes it back far from there (`_associate`). None
        if it was slow, short of the cushion, or lost under something over the table."""
        sightings = list(track.history)[-3:]
        if len(sightings) < 2 or sightings[-1][0] <= sightings[0][0]:
            return None
        (t0, p0), (t1, p1) = sightings[0], sightings[-1]
        velocity = (np.asarray(p1) - np.asarray(p0)) / (t1 - t0)
        (tm, pm) = sightings[-2]
        if t1 > tm:
            # A ball struck from rest a frame or two before was slower over the first step:
            # its speed at the cushion is its last step's, when that is faster.
            last_step = (np.asarray(p1) - np.asarray(pm)) / (t1 - tm)
            if last_step @ last_step > velocity @ velocity:
                velocity = last_step
        last = (float(p1[0]), float(p1[1]))
        cushion = self.table.nearest_cushion(last)
        nose = self.table.cushion(cushion)
        normal = np.array(nose.normal)
        toward = -float(velocity @ normal)
        gap = max(nose.distance(last) - self._radius, 0.0)
        step = (t1 - t0) / (len(sightings) - 1)
        if toward < _GONE_OVER_SPEED or gap > 2 * toward * step:
            return None
        crossing = np.asarray(last) + velocity * (gap / toward)
        start, along = np.array(nose.start), np.subtract(nose.end, nose.start)
        share = float((crossing - start) @ along) / float(along @ along)
        margin = self._radius / float(np.hypot(*along))
        if not margin <= share <= 1.0 - margin:
            return None  # into a pocket's mouth, past the jaw point: pocketed, not over
        if inside_any(last, det.occluded) or inside_any(crossing, det.occluded):
            return None
        return cushion, float(crossing[0]), float(crossing[1]), t1 + gap / toward

    def _beyond_cushion(self, p: np.ndarray) -> bool:
        hx, hy = self.table.length / 2, self.table.width / 2
        margin = 0.5 * self._radius
        return abs(p[0]) > hx + margin or abs(p[1]) > hy + margin

    def _pocket_near(self, p: np.ndarray) -> PocketId | None:
        inside = self._geo.pocket_at(p[0], p[1])
        if inside is not None:
            return inside
        return self._geo.nearest_mouth(p[0], p[1], _POCKET_REACH_D * self.table.ball_diameter)

    def _depart_vision(self, row: int, track: _Track, pocket: PocketId, t: float) -> Departure:
        track.status = _POCKETED
        track.gone_at = t
        confidence = 0.6 if self.config.sensors else 0.9
        return Departure(
            BALLS[row],
            EventKind.POCKETED,
            track.last_seen,
            max(t - track.last_seen, 0.0),
            pocket=pocket,
            source=EvidenceSource.VISION,
            confidence=confidence,
            rested_for=self._rested_for(track),
        )

    def _rested_for(self, track: _Track) -> float:
        if track.moving_before_hidden or math.isnan(track.rest_since):
            return 0.0
        return max(0.0, track.last_seen - track.rest_since)

    def _fuse_signals(self, t: float) -> list[Departure]:
        out: list[Departure] = []
        keep: list[_Pending] = []
        for pending in self._pending:
            waiting = t - pending.received < self.config.signal_window
            row = self._ball_for_signal(pending.signal, waiting)
            if row is not None:
                out.append(self._depart_signal(row, pending.signal, t))
            elif waiting:
                keep.append(pending)
            else:
                log.warning(
                    "pocket signal at %s (t=%.3f) matched no ball near that pocket; dropped",
                    pending.signal.pocket,
                    pending.signal.time,
                )
        self._pending = keep
        if self.config.sensors:
            out.extend(self._vision_fallback(t))
        return out

    def _ball_for_signal(self, signal: PocketSignal, waiting: bool) -> int | None:
        """The ball a pocket signal is for: one vision has lost at that pocket, best one seen
        going into its opening, then one lost while rolling, then the nearest. While a ball is
        still seen rolling at the mouth (the sensor can fire a frame before vision loses the
        ball) the signal waits for it rather than take a ball lost there earlier."""
        mouth = self.table.pocket(signal.pocket).mouth_centre
        reach = _POCKET_REACH_D * self.table.ball_diameter + self._radius
        best, best_key = None, (True, True, math.inf)
        coming = False
        for row, track in enumerate(self._tracks):
            if track.status not in ON_TABLE or track.last_z is None:
                continue
            entered = track.entered is signal.pocket
            near = entered or math.dist((track.last_z[0], track.last_z[1]), mouth) < reach
            if track.status is not _HIDDEN:
                coming |= near and track.status is _MOVING
                continue
            d = math.dist((track.last_z[0], track.last_z[1]), mouth)
            key = (not entered, not track.moving_before_hidden, d)
            if near and key < best_key:
                best, best_key = row, key
        if coming and waiting and best_key[0]:
            return None
        return best

    def _depart_signal(self, row: int, signal: PocketSignal, t: float) -> Departure:
        track = self._tracks[row]
        track.status = _POCKETED
        track.gone_at = t
        return Departure(
            BALLS[row],
            EventKind.POCKETED,
            signal.time,
            signal.uncertainty,
            pocket=signal.pocket,
            source=EvidenceSource.FUSED,
            confidence=0.99,
            rested_for=self._rested_for(track),
        )

    def _vision_fallback(self, t: float) -> list[Departure]:
        """With sensors fitted, a ball seen inside an opening and lost for the whole signal
        window is still pocketed (a sensor can fail), with lower confidence."""
        out = []
        for row, track in enumerate(self._tracks):
            if track.status is not _HIDDEN or track.last_z is None:
                continue
            pocket = track.entered
            if pocket is not None and t - track.last_seen >= self.config.signal_window:
                out.append(self._depart_vision(row, track, pocket, t))
        return out

    def _frame(
        self, seen: _Sightings, matches: dict[int, int], departures: tuple[Departure, ...]
    ) -> TrackFrame:
        det, xy, sigma = seen.det, seen.xy, seen.sigma
        n = len(BALLS)
        nan = math.nan
        tracks = self._tracks
        # Each ball's row built as plain floats (the pairs flat: x, y of ball 0, then ball 1,
        # ...), and each array made in one step from them.
        pos = [nan] * (2 * n)
        vel = [0.0] * (2 * n)
        sig = [nan] * n
        radius = [nan] * n
        growth = [nan] * n
        rest = [nan] * n
        measured = [nan] * (2 * n)
        measured_sigma = [nan] * n
        seen = [False] * n
        status: list = [None] * n
        # A ball come into view is shown once sighted often enough to be sure of it: a lone
        # ghost detection, or a new ball's first sightings under another's name, never show.
        # The balls of the first frames were on the table before them: a break struck as the
        # recording starts must show its cue ball at rest first.
        early = (self._time_first or 0.0) + _EARLY_S
        for row, track in enumerate(tracks):
            if not (track.sightings >= _GHOST_SIGHTINGS or track.adopted_at <= early):
                status[row] = track.adopted_from
                continue
            status[row] = track.status
            i = 2 * row
            col = matches.get(row)
            if col is not None:
                seen[row] = True
                measured[i], measured[i + 1] = xy[col]
                measured_sigma[row] = sigma[col]
                radius[row] = track.radius_px
                growth[row] = track.radius_px / track.ground_radius
            kf = track.kf
            if kf is None:
                continue
            if track.status in ON_TABLE:
                pos[i], vel[i], pos[i + 1], vel[i + 1], sig[row] = kf.state_and_sigma()
            elif track.last_z is not None:
                pos[i], pos[i + 1] = track.last_z
            if _resting(track):
                rest[row] = track.rest_since
                vel[i] = vel[i + 1] = 0.0
        growth_at = np.array(growth, dtype=float)
        return TrackFrame(
            det.frame,
            det.time,
            tuple(status),
            np.array(pos, dtype=float).reshape(n, 2),
            np.array(vel, dtype=float).reshape(n, 2),
            np.array(sig, dtype=float),
            np.array(seen),
            np.array(radius, dtype=float),
            np.array(rest, dtype=float),
            np.array(measured, dtype=float).reshape(n, 2),
            np.array(measured_sigma, dtype=float),
            departures,
            growth_at,
            growth_at > self.config.airborne_growth,
            tuple(self._displaced),
            tuple(self._renamed),
        )
