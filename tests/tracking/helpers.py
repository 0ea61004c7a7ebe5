"""Running synthetic shots through the tracking pipeline, for the tests and the bench."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from hardware.sim.scenarios import ScenarioRun
from rules.balls import BALL_DIAMETER_MM, BallId
from rules.events import EventKind, ShotEvent
from rules.shot import Shot
from tests.tracking.synth import TABLE, Sim
from tracking.model import TrackerConfig, TrackFrame
from tracking.pipeline import assemble, segment, track, with_signals
from tracking.segmenter import SegmenterConfig
from vision.detections import Detections


@dataclass
class Run:
    """What the pipeline made of one shot."""

    frames: list[TrackFrame]
    events: list[ShotEvent]
    shots: list[Shot]

    def of_kind(self, kind: EventKind) -> list[ShotEvent]:
        """Events of one kind."""
        return [e for e in self.events if e.kind is kind]


def run(
    detections: list[Detections],
    signals=(),
    config: TrackerConfig | None = None,
    segmenter: SegmenterConfig | None = None,
) -> Run:
    """Track, segment and assemble a list of detections."""
    frames: list[TrackFrame] = []
    events: list[ShotEvent] = []

    def pairs():
        tracked = track(TABLE, with_signals(detections, signals), config)
        for frame, evs in segment(TABLE, tracked, segmenter):
            if frame is not None:
                frames.append(frame)
            events.extend(evs)
            yield frame, evs

    shots = list(assemble(TABLE, pairs()))
    return Run(frames, events, shots)


def identity_swaps(sim: Sim, result: Run, tolerance_mm: float = 30.0) -> int:
    """Frames in which a seen ball's track is not where that ball truly is."""
    bad = 0
    for truth, frame in zip(sim.positions, result.frames, strict=True):
        for ball, p in truth.items():
            row = frame.row(ball)
            if frame.seen[row] and np.hypot(*(frame.positions[row] - p)) > tolerance_mm:
                bad += 1
    return bad


def matched(truth: list[ShotEvent], found: list[ShotEvent], window: float) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of events matched one to one by
    kind, balls, cushion or pocket, within ``window`` seconds (of any moment of a truth
    event's ``time_uncertainty`` after its time: `observable`'s merged repeats). The matching
    is the largest there is (nearest in time among the largest): taking each truth event's
    first candidate in the order the events were emitted can leave a later truth event
    without the one found event that fits it, as a ball pinned against a cushion touches it
    twice within the window."""
    missed, false = unmatched(truth, found, window)
    tp = len(truth) - len(missed)
    return tp, len(false), len(missed)


def unmatched(
    truth: list[ShotEvent], found: list[ShotEvent], window: float
) -> tuple[list[ShotEvent], list[ShotEvent]]:
    """The truth events `matched` leaves without a found one (missed), and the found events it
    leaves without a truth one (false)."""
    groups: dict[tuple, tuple[list[ShotEvent], list[ShotEvent]]] = {}
    for events, side in ((truth, 0), (found, 1)):
        for e in events:
            key = (e.kind, frozenset(e.balls), e.cushion, e.pocket)
            groups.setdefault(key, ([], []))[side].append(e)
    missed: list[ShotEvent] = []
    false: list[ShotEvent] = []
    for t, f in groups.values():
        pairs = _largest_matching(t, f, window) if t and f else []
        paired_t = {i for i, _ in pairs}
        paired_f = {j for _, j in pairs}
        missed += [e for i, e in enumerate(t) if i not in paired_t]
        false += [e for j, e in enumerate(f) if j not in paired_f]
    return missed, false


def _largest_matching(
    truth: list[ShotEvent], found: list[ShotEvent], window: float
) -> list[tuple[int, int]]:
    """The (truth, found) index pairs of ``truth`` and ``found`` (events of one key) paired one
    to one within ``window``: a minimum-cost assignment where a pair out of the window costs
    more than all the pairs in it together, so the most pairs are made, the nearest in time
    among them."""
    starts = np.array([t.time - window for t in truth])
    ends = np.array([t.time + t.time_uncertainty + window for t in truth])
    times = np.array([f.time for f in found])
    inside = (times[None, :] >= starts[:, None]) & (times[None, :] <= ends[:, None])
    if not inside.any():
        return []
    distance = np.abs(times[None, :] - np.array([t.time for t in truth])[:, None])
    out_of_window = 1.0 + float(distance[inside].sum())
    rows, cols = linear_sum_assignment(np.where(inside, distance, out_of_window))
    return [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if inside[r, c]]


def observable(
    truth: list[ShotEvent],
    interval: float,
    came_apart: Callable[[ShotEvent, float, float], bool] | None = None,
) -> list[ShotEvent]:
    """The truth's contacts as a camera taking a frame every ``interval`` s can count them:
    a contact of the same balls with the same cushion less than a frame after the last one
    is the same contact (a ball pinned between a ball and a cushion, or resolved twice in a
    frozen cluster, touches many times in a few milliseconds; a referee counts one). With
    ``came_apart(event, t0, t1)`` (whether its balls, or its ball and cushion, came visibly
    apart between the two times), a repeat whose pair never parted is the same contact too,
    however long after: two balls pressed together through a rack's explosion touch again and
    again in the simulation without a gap a camera could see."""
    last: dict[tuple, float] = {}
    kept: dict[tuple, int] = {}  # key -> index in ``out`` of the contact its repeats join
    out: list[ShotEvent] = []
    for event in sorted(truth, key=lambda e: e.time):
        key = (event.kind, frozenset(event.balls), event.cushion, event.pocket)
        since = last.get(key)
        same = since is not None and (
            event.time - since < interval
            or (came_apart is not None and not came_apart(event, since, event.time))
        )
        if same:
            # The merged contact spans its repeats: a camera may place it at any of them.
            first = out[kept[key]]
            out[kept[key]] = dataclasses.replace(first, time_uncertainty=event.time - first.time)
        else:
            kept[key] = len(out)
            out.append(event)
        last[key] = event.time
    return out


APART_MM = 1.0
"""The gap that must open between two contacts of the same pair (or a ball and a cushion) for a
camera to see two contacts: vision places a ball to 0.8 mm (median), and the simulation's repeats
inside a rack's explosion part by 0.2 mm at most, against 4 mm and more for real re-contacts."""

_APART_LONGEST_S = 0.25
"""Repeats further apart than this count as separate contacts without looking."""

_APART_STEP_S = 5e-4


def exact_position(run: ScenarioRun) -> Callable[[BallId, float], np.ndarray]:
    """A ball's exact centre (mm, table frame) at a time (s), from the run's motion."""
    trajectories = dict(zip(run.truth.balls, run.result.trajectories, strict=True))

    def position(ball: BallId, t: float) -> np.ndarray:
        return np.asarray(trajectories[ball].position(float(t))[:2], dtype=float)

    return position


def came_apart(run: ScenarioRun) -> Callable[[ShotEvent, float, float], bool]:
    """Whether the balls of a contact (or its ball and cushion nose) came visibly apart
    between two times, from the run's exact motion: `observable`'s test for a repeat."""
    position = exact_position(run)
    table = run.truth.table

    def centres(ball: BallId, times: np.ndarray) -> np.ndarray:
        return np.array([position(ball, t) for t in times])

    def apart(event: ShotEvent, t0: float, t1: float) -> bool:
        if t1 - t0 > _APART_LONGEST_S:
            return True
        times = np.arange(t0, t1, _APART_STEP_S)
        if event.kind is EventKind.BALL_CUSHION and event.cushion is not None:
            nose = table.cushion(event.cushion)
            gap = (centres(event.balls[0], times) - nose.start) @ np.array(
                nose.normal
            ) - BALL_DIAMETER_MM / 2
        else:
            a, b = (centres(ball, times) for ball in event.balls[:2])
            gap = np.hypot(*(a - b).T) - BALL_DIAMETER_MM
        return bool(np.max(gap, initial=0.0) > APART_MM)

    return apart


def balls(*names: str) -> tuple[BallId, ...]:
    """Ball ids from names."""
    return tuple(BallId(n) for n in names)


def slid_then_rolled(s, speed: float, sliding: float):
    """How far a ball launched without spin at ``speed`` (mm/s) has gone ``s`` s after (a
    number or an array), per unit of ``speed``: slowing at ``sliding`` mm/s^2 until it rolls
    at 5/7 of ``speed``, then rolling on (too briefly for rolling resistance to count). With
    ``sliding`` 0 it runs on at ``speed``."""
    s = np.maximum(s, 0.0)
    if sliding <= 0.0 or speed <= 0.0:
        return s
    slid = np.minimum(s, 2.0 * speed / (7.0 * sliding))
    return slid - 0.5 * sliding * slid**2 / speed + 5 / 7 * (s - slid)
