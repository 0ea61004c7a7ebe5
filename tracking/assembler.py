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

_MEASURE_SIGMA_MM = 2.0
"""Position noise assumed for the push measure (vision's sigma; the floor of what it can do)."""

_PLACED_STILL_S = 0.1
"""How long the cue ball must be seen lying still before the strike for the spot it was struck
from to be its placement: a placed ball lies there for seconds."""

_PUSH_FIT_S = 0.1
"""How long after the strike the cue ball's way is fitted for a push: a cue that stays on the
ball pushes it for 50-90 ms."""

_GRIP_MM_S2 = 2000.0
"""The most the cloth's grip on a sliding ball's spin speeds it up (sliding friction, about
0.2 g): follow after a clean stroke does that for a few tenths of a second; a push is several
times that."""


@dataclass(frozen=True, slots=True)
class AssemblerConfig:
    """Settings of the shot assembler.

    Attributes:
        frozen_gap_mm: A gap (ball-cushion or ball-ball) at or under this is frozen (3.38):
            rest positions are averaged over many frames, so a few mm is within measurement.
        jump_frames: Frames the cue ball must be seen in the air to be called airborne (one
            big detection is noise).
        push_window_s: How long after the strike the cue ball's speed is watched for a push.
        double_hit_window_s: How long after the contact the cue ball's forward travel is
            watched (2.20): a cue that stays on the ball carries it on through the object ball
            at a good part of its speed; after a clean stroke it is all but still, and follow
            (the cloth's grip on its spin, about 2 m/s^2) moves it under 10 mm in that time.
    """

    frozen_gap_mm: float = 3.0
    jump_frames: int = 2
    push_window_s: float = 0.3
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
        path = [
            (t, p)
            for t, p, *_ in shot.cue_path
            if t <= shot.strike.time + self.config.push_window_s
        ]
        if len(path) < 3:
            return None
        times = np.array([t for t, _ in path])
        pts = np.array([p for _, p in path])
        steps = np.diff(times)
        speed = np.hypot(*np.diff(pts, axis=0).T) / steps
        mid = 0.5 * (times[1:] + times[:-1])
        # Measured positions: the filter's own would ramp up after a strike and look like a push.
        noise = math.sqrt(2) * _MEASURE_SIGMA_MM / float(np.median(steps))
        # The first step holds the strike itself; after it a clean strike only slows down. A
        # push shows as speed still climbing, over two steps, clearly above all before it.
        last_rise = None
        for i in range(2, len(speed)):
            if speed[i] > float(np.max(speed[: i - 1])) + 2 * noise:
                last_rise = i
        if last_rise is not None:
            return PushEvidence(float(mid[last_rise] - shot.strike.time), confidence=0.6)
        return PushEvidence(self._accelerating(shot), confidence=0.6)

    def _accelerating(self, shot: _OpenShot) -> float:
        """How long after the strike the cue ball was seen still speeding up, from a parabola
        fitted to its way until anything touched it (0: it was not). A push starts slowly, so
        the strike is seen late and the steps after it hold only the end of the climb; the
        curve of the way still shows it. After a clean stroke only the cloth's grip on the
        ball's spin can speed it up, and at most by `_GRIP_MM_S2`: the fit must show more by
        three of its standard deviations."""
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
        end = min(strike + _PUSH_FIT_S, touched)
        path = [(t, p, s) for t, p, _, s in shot.cue_path if t <= end]
        if len(path) < 4:
            return 0.0
        t = np.array([t for t, _, _ in path]) - strike
        pts = np.array([p for _, p, _ in path])
        heading = pts[-1] - pts[0]
        way = (pts - pts[0]) @ (heading / max(float(np.hypot(*heading)), 1e-9))
        sigmas = [s for _, _, s in path if not math.isnan(s)]
        sigma = statistics.median(sigmas) if sigmas else _MEASURE_SIGMA_MM
        design = np.stack([np.ones_like(t), t, 0.5 * t * t], axis=1)
        coef = np.linalg.lstsq(design, way, rcond=None)[0]
        spread = sigma * math.sqrt(float(np.linalg.inv(design.T @ design)[2, 2]))
        if coef[2] > _GRIP_MM_S2 + 3 * spread:
            return float(t[-1])
        return 0.0

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
