"""The shot assembler: track frames + shot events -> `rules.shot.Shot` records.

A shot runs from its cue strike to all balls at rest. The Shot derives first contact, pocketed
balls and cushion contacts from its events; this module fills the evidence fields that events
cannot carry, measured from the track: balls moving at the strike (3.14), frozen balls (3.38),
object balls near a cushion (6.7.2), the double-hit measure (2.20), push (3.24) and jump (3.26,
3.27) evidence, and the cue ball's placement when the shot began with ball in hand (3.16).

Events between shots (a ball disturbed while the cue ball is placed, a ball settling into a pocket)
are kept and handed to the next shot, ahead of its strike.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.table import TableSpec
from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from rules.general import CHALK_WIDTH_MM
from rules.shot import (
    DoubleHitEvidence,
    Frozen,
    JumpEvidence,
    Layout,
    NearCushion,
    Placement,
    PushEvidence,
    Shot,
)
from tracking.model import BALLS, CUE_ROW, TrackFrame
from tracking.push import ramp_time

_MEASURE_SIGMA_MM = 2.0
"""Position noise assumed for the push measure when vision gives none."""

_PLACED_STILL_S = 0.1
"""How long the cue ball must be seen lying still before the strike for the spot it was struck
from to be its placement: a placed ball lies there for seconds."""

_PUSH_BEFORE = 6
"""Sightings of the cue ball before the strike that the push fit starts from: a push's slow
start is seen as the strike only a few frames in."""

_PUSH_SIGHTINGS = 6
"""The fewest sightings the push fit takes: three still, three under way."""


@dataclass(frozen=True, slots=True)
class AssemblerConfig:
    """Settings of the shot assembler.

    Attributes:
        frozen_gap_mm: A gap (ball-cushion or ball-ball) at or under this is frozen (3.38):
            rest positions are averaged over many frames, so a few mm is within measurement.
        jump_frames: Frames the cue ball must be seen in the air to be called airborne (one
            big detection is noise).
        push_window_s: How long after the strike the cue ball's way is fitted for a push (a tip
            stays on the ball for up to 90 ms; the fit needs some steady way after it).
        double_hit_window_s: How long after the contact the cue ball's forward travel is
            watched (2.20): a cue that stays on the ball carries it on through the object ball
            at a good part of its speed; after a clean stroke it is all but still, and follow
            (the cloth's grip on its spin, about 2 m/s^2) moves it under 10 mm in that time.
    """

    frozen_gap_mm: float = 3.0
    jump_frames: int = 2
    push_window_s: float = 0.15
    double_hit_window_s: float = 0.1


@dataclass
class _OpenShot:
    strike: ShotEvent
    at_strike: TrackFrame
    events: list[ShotEvent]
    # (time, measured centre, apparent growth, measurement sigma) of each sighting
    cue_path: list[tuple[float, np.ndarray, float, float]] = field(default_factory=list)
    overlaps: set[BallId] = field(default_factory=set)
    ball_in_hand: bool = False
    airborne_frames: int = 0
    # (time, measured centre, measurement sigma) of the cue ball's sightings before the strike
    cue_before: list[tuple[float, np.ndarray, float]] = field(default_factory=list)


class ShotAssembler:
    """Collects events into shots and measures their evidence."""

    def __init__(
        self, table: TableSpec, config: AssemblerConfig | None = None, first_index: int = 0
    ) -> None:
        self.table = table
        self.config = config or AssemblerConfig()
        self._index = first_index
        self._recent: deque[TrackFrame] = deque(maxlen=8)
        self._open: _OpenShot | None = None
        self._between: list[ShotEvent] = []
        self._ball_in_hand = True

    def update(self, frame: TrackFrame, events: list[ShotEvent]) -> list[Shot]:
        """Fold one frame and the events the segmenter decided with it; return finished shots."""
        for was, now in frame.renamed:
            # (The segmenter reads its frames so too: a strike it finds now is the renamed ball's.)
            self._recent = deque((f.swapped(was, now) for f in self._recent), self._recent.maxlen)
        self._recent.append(frame)
        done: list[Shot] = []
        if not frame.status[CUE_ROW].on_table:
            self._ball_in_hand = True
        for event in sorted(events, key=lambda e: e.time):
            if event.kind is EventKind.CUE_STRIKE:
                if self._open is not None:
                    done.append(self._close(None, frame))
                self._start(event)
            elif self._open is None:
                self._between.append(event)
            else:
                self._open.events.append(event)
                if event.kind is EventKind.ALL_AT_REST:
                    done.append(self._close(event.time, frame))
        if self._open is not None:
            self._watch(frame)
        return done

    def finish(self, events: Sequence[ShotEvent] = ()) -> list[Shot]:
        """Close a shot still open when the input ends, with the segmenter's last events
        (`Segmenter.finish`): ended when they say all balls rest, else its end_time stays None."""
        if self._open is None or not self._recent:
            return []
        for event in sorted(events, key=lambda e: e.time):
            self._open.events.append(event)
            if event.kind is EventKind.ALL_AT_REST:
                return [self._close(event.time, self._recent[-1])]
        return [self._close(None, self._recent[-1])]

    # -- shot lifecycle -------------------------------------------------------------------------

    def _start(self, strike: ShotEvent) -> None:
        before = [f for f in self._recent if f.time <= strike.time]
        at_strike = before[-1] if before else self._recent[0]
        self._open = _OpenShot(
            strike, at_strike, [*self._between, strike], ball_in_hand=self._ball_in_hand
        )
        self._between = []
        self._open.cue_before = [
            (f.time, f.measured[CUE_ROW].copy(), float(f.measured_sigma[CUE_ROW]))
            for f in before
            if f.seen[CUE_ROW]
        ]
        for f in self._recent:
            if f.time > strike.time:
                self._watch(f)

    def _watch(self, frame: TrackFrame) -> None:
        shot = self._open
        if shot.cue_path and frame.time <= shot.cue_path[-1][0]:
            return
        if not frame.status[CUE_ROW].on_table or np.isnan(frame.positions[CUE_ROW]).any():
            return
        if not frame.seen[CUE_ROW]:
            return
        cue = frame.measured[CUE_ROW].copy()
        last = shot.cue_path[-1][1] if shot.cue_path else cue
        sigma = float(frame.measured_sigma[CUE_ROW])
        shot.cue_path.append((frame.time, cue, float(frame.growth[CUE_ROW]), sigma))
        shot.airborne_frames += bool(frame.airborne[CUE_ROW])
        on = frame.on_table.copy()
        on[CUE_ROW] = False
        # Over the whole step since the cue ball was last seen: in the air it may go unseen.
        gaps = _segment_gaps(last, cue, frame.positions[on])
        for row, gap in zip(np.flatnonzero(on), gaps, strict=True):
            if gap < 0.8 * self.table.ball_diameter:
                shot.overlaps.add(BALLS[row])

    def _close(self, end_time: float | None, frame: TrackFrame) -> Shot:
        shot = self._open
        self._open = None
        at_strike = _layout(shot.at_strike)
        events = tuple(sorted(shot.events, key=lambda e: e.time))
        record = Shot(
            index=self._index,
            strike_time=shot.strike.time,
            end_time=end_time,
            at_strike=at_strike,
            at_rest=_layout(frame),
            events=events,
            moving_at_strike=self._moving(shot.at_strike),
            frozen=self._frozen(at_strike),
            near_cushion=self._near_cushion(at_strike),
            double_hit=self._double_hit(shot, at_strike),
            push=self._push(shot),
            jump=self._jump(shot, events),
            placement=self._placement(shot, at_strike),
        )
        self._index += 1
        lost = set(record.pocketed) | set(record.left_table)
        self._ball_in_hand = BallId.CUE in lost
        return record

    # -- evidence -------------------------------------------------------------------------------

    def _moving(self, frame: TrackFrame) -> tuple[BallId, ...]:
        return tuple(
            BALLS[r] for r in np.flatnonzero(frame.moving & frame.on_table) if r != CUE_ROW
        )

    def _frozen(self, layout: Layout) -> tuple[Frozen, ...]:
        out: list[Frozen] = []
        r = self.table.ball_diameter / 2
        for ball, p in layout.positions:
            for seg in self.table.cushions:
                gap = seg.distance(p) - r
                if gap <= self.config.frozen_gap_mm:
                    out.append(Frozen(ball, max(gap, 0.0), cushion=seg.id))
        cue = layout.get(BallId.CUE)
        if cue is not None:
            for ball, p in layout.positions:
                gap = math.dist(cue, p) - self.table.ball_diameter
                if ball is not BallId.CUE and gap <= self.config.frozen_gap_mm:
                    out.append(Frozen(BallId.CUE, max(gap, 0.0), other=ball))
        return tuple(out)

    def _near_cushion(self, layout: Layout) -> tuple[NearCushion, ...]:
        out = []
        r, d = self.table.ball_diameter / 2, self.table.ball_diameter
        for ball, p in layout.positions:
            if ball is BallId.CUE:
                continue
            for seg in self.table.cushions:
                gap = seg.distance(p) - r
                if self.config.frozen_gap_mm < gap <= d:
                    out.append(NearCushion(ball, seg.id, gap))
        return tuple(out)

    def _double_hit(self, shot: _OpenShot, layout: Layout) -> DoubleHitEvidence | None:
        cue = layout.get(BallId.CUE)
        if cue is None:
            return None
        near = [
            (math.dist(cue, p) - self.table.ball_diameter, b)
            for b, p in layout.positions
            if b is not BallId.CUE
        ]
        if not near:
            return None
        gap, ball = min(near)
        if gap >= CHALK_WIDTH_MM:
            return None
        target = np.array(layout[ball])
        start = np.array(cue)
        direction = (target - start) / max(float(np.hypot(*(target - start))), 1e-9)
        contact = next(
            (
                e.time
                for e in shot.events
                if e.kind is EventKind.BALL_BALL and set(e.balls) == {BallId.CUE, ball}
            ),
            shot.strike.time,
        )
        horizon = contact + self.config.double_hit_window_s
        travel = [float((p - start) @ direction) for t, p, *_ in shot.cue_path if t <= horizon]
        after = max(0.0, max(travel, default=0.0) - max(gap, 0.0))
        # Watched only while the stroke can still be on the ball, follow cannot pass for a
        # double hit: the measure is trusted enough to call.
        return DoubleHitEvidence(ball, max(gap, 0.0), after, confidence=0.9)

    def _push(self, shot: _OpenShot) -> PushEvidence | None:
        """How long the tip drove the cue ball (`push.ramp_time`), from its measured centres
        around the strike (a few before it, then those until anything touched it or
        ``push_window_s``; the filter's own would ramp up after any strike)."""
        strike = shot.strike.time
        touched = min(
            (
                e.time
                for e in shot.events
                if e.time > strike
                and BallId.CUE in e.balls
                and e.kind in (EventKind.BALL_BALL, EventKind.BALL_CUSHION)
            ),
            default=math.inf,
        )
        end = min(strike + self.config.push_window_s, touched)
        before = shot.cue_before[-_PUSH_BEFORE:]
        after = [(t, p, s) for t, p, _, s in shot.cue_path if t <= end]
        if not before or len(before) + len(after) < _PUSH_SIGHTINGS:
            return None
        path = before + after
        t = np.array([q[0] for q in path])
        pts = np.array([q[1] for q in path])
        heading = pts[-1] - pts[0]
        way = (pts - pts[0]) @ (heading / max(float(np.hypot(*heading)), 1e-9))
        sigmas = [q[2] for q in path if not math.isnan(q[2])]
        sigma = statistics.median(sigmas) if sigmas else _MEASURE_SIGMA_MM
        # It left rest before the first sighting after the strike; the strike is seen late
        # when a push starts slowly, so the sightings before it may show it under way.
        earliest = before[0][0]
        latest = after[0][0] if after else before[-1][0]
        return PushEvidence(ramp_time(t, way, sigma, earliest, latest), confidence=0.6)

    def _jump(self, shot: _OpenShot, events: tuple[ShotEvent, ...]) -> JumpEvidence | None:
        growths = [g for _, _, g, _ in shot.cue_path if not math.isnan(g)]
        growth = max(growths, default=1.0)
        touched = {
            e.other(BallId.CUE)
            for e in events
            if e.kind is EventKind.BALL_BALL and BallId.CUE in e.balls
        }
        passed = tuple(sorted(shot.overlaps - touched, key=lambda b: b.number))
        airborne = shot.airborne_frames >= self.config.jump_frames or bool(passed)
        return JumpEvidence(airborne, growth, passed, confidence=0.7 if growths else 0.3)

    def _placement(self, shot: _OpenShot, layout: Layout) -> Placement | None:
        cue = layout.get(BallId.CUE)
        if not shot.ball_in_hand or cue is None:
            return None
        still_since = float(shot.at_strike.rest_since[CUE_ROW])
        if not shot.strike.time - still_since >= _PLACED_STILL_S:
            # Never seen lying where it was struck from (the recording began as it was struck):
            # where it was placed is not known.
            return None
        touched = tuple(
            e.ball
            for e in shot.events
            if e.kind is EventKind.BALL_DISTURBED and e.time < shot.strike.time
        )
        return Placement(
            cue,
            self.table.in_kitchen(cue),
            cue[0] - self.table.head_string_x,
            tuple(dict.fromkeys(touched)),
        )


def _segment_gaps(a: np.ndarray, b: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Distance from each point to the segment a-b."""
    ab = b - a
    length2 = float(ab @ ab)
    s = np.zeros(len(points)) if length2 < 1e-9 else np.clip((points - a) @ ab / length2, 0, 1)
    return np.hypot(*(points - (a + s[:, None] * ab)).T)


def _layout(frame: TrackFrame) -> Layout:
    on = frame.on_table & ~np.isnan(frame.positions[:, 0])
    return Layout.of({BALLS[r]: tuple(frame.positions[r]) for r in np.flatnonzero(on)})
