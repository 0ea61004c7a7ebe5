"""A finished simulation: every ball's piecewise trajectory, the exact events, and snapshots.

`SimResult.snapshot(t)` is what the renderer draws: positions (with height), rotation matrices
that turn stripes and numbers as the balls roll, which balls are on the table, and what hangs
over it. `blur_times` gives the sub-frame instants to average for motion blur.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from hardware.sim.motion import Phase, Segment
from hardware.sim.snapshot import Occluder, TableSnapshot
from rules.balls import BallId
from rules.events import ShotEvent
from rules.shot import Layout

_MAX_STEP_RAD = 0.1
"""Largest rotation between stored orientation keyframes."""


def _rotation(axis_angle: np.ndarray) -> np.ndarray:
    """Rodrigues: the rotation matrix of a rotation vector."""
    angle = float(np.linalg.norm(axis_angle))
    if angle < 1e-12:
        return np.eye(3)
    kx, ky, kz = axis_angle / angle
    k = np.array([[0.0, -kz, ky], [kz, 0.0, -kx], [-ky, kx, 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


class Trajectory:
    """One ball's path: consecutive segments, and its orientation over time.

    Orientation is integrated from the angular velocity, keyframed lazily at most
    0.1 rad apart, so asking for any instant costs one small rotation.
    """

    def __init__(
        self, ball: BallId, segments: Sequence[Segment], start_orientation: np.ndarray | None = None
    ) -> None:
        self.ball = ball
        self.segments = tuple(segments)
        self._starts = [s.t0 for s in self.segments]
        self._frames: list[np.ndarray] = [
            np.eye(3) if start_orientation is None else start_orientation
        ]
        self._keys: dict[int, tuple[float, np.ndarray]] = {}

    def segment_at(self, t: float) -> Segment:
        """The segment in force at ``t`` (the first one before the start)."""
        k = max(bisect.bisect_right(self._starts, t) - 1, 0)
        return self.segments[k]

    def position(self, t: float) -> tuple[float, float, float]:
        """Centre at ``t``."""
        return self.segment_at(t).position(t)

    def on_table(self, t: float) -> bool:
        """True unless pocketed or off the table at ``t``."""
        return self.segment_at(t).on_table

    def phase(self, t: float) -> Phase:
        """Phase at ``t``."""
        return self.segment_at(t).phase

    def orientation(self, t: float) -> np.ndarray:
        """Body-to-table rotation matrix at ``t``."""
        k = max(bisect.bisect_right(self._starts, t) - 1, 0)
        seg = self.segments[k]
        step, keys = self._keyframes(k)
        s = min(max(t - seg.t0, 0.0), (seg.t1 - seg.t0) if seg.t1 < math.inf else math.inf)
        if step == 0.0:
            return keys[0]
        m = min(int(s / step), len(keys) - 1)
        return _advance(seg, keys[m], seg.t0 + m * step, seg.t0 + s)

    def _keyframes(self, k: int) -> tuple[float, np.ndarray]:
        if k in self._keys:
            return self._keys[k]
        while len(self._frames) <= k:
            j = len(self._frames) - 1
            step, keys = self._keyframes(j)
            seg = self.segments[j]
            dur = seg.t1 - seg.t0
            if step == 0.0:
                self._frames.append(keys[0])
            else:
                m = min(int(dur / step), len(keys) - 1)
                self._frames.append(_advance(seg, keys[m], seg.t0 + m * step, seg.t1))
        seg = self.segments[k]
        start = self._frames[k]
        dur = seg.t1 - seg.t0
        w_max = max(
            _norm(seg.spin(seg.t0)), _norm(seg.spin(seg.t1 if seg.t1 < math.inf else seg.t0))
        )
        if w_max < 1e-9 or dur <= 0:
            result = (0.0, start[None])
        elif dur == math.inf:
            # Constant spin forever never happens on the cloth; keep the start frame.
            result = (0.0, start[None])
        else:
            count = min(math.ceil(w_max * dur / _MAX_STEP_RAD), 100000)
            step = dur / count
            mids = seg.t0 + (np.arange(count) + 0.5) * step
            turns = _rotations(_spins(seg, mids) * step)
            keys = np.empty((count + 1, 3, 3))
            keys[0] = start
            for m in range(count):
                keys[m + 1] = turns[m] @ keys[m]
            result = (step, keys)
        self._keys[k] = result
        return result


def _spins(seg: Segment, times: np.ndarray) -> np.ndarray:
    """Angular velocity of a segment at many instants, (m, 3)."""
    s = np.clip(times - seg.t0, 0.0, None)
    w = np.empty((len(times), 3))
    w[:, 0] = seg.w0[0] + seg.b[0] * s
    w[:, 1] = seg.w0[1] + seg.b[1] * s
    wz = seg.w0[2]
    if seg.spin_decay > 0:
        w[:, 2] = np.copysign(np.maximum(abs(wz) - seg.spin_decay * s, 0.0), wz)
    else:
        w[:, 2] = wz
    return w


def _rotations(vectors: np.ndarray) -> np.ndarray:
    """Rodrigues for many rotation vectors at once, (m, 3) -> (m, 3, 3)."""
    angle = np.linalg.norm(vectors, axis=1)
    safe = np.where(angle < 1e-12, 1.0, angle)
    k = vectors / safe[:, None]
    kx, ky, kz = k[:, 0], k[:, 1], k[:, 2]
    zero = np.zeros_like(kx)
    cross = np.stack(
        [np.stack([zero, -kz, ky], 1), np.stack([kz, zero, -kx], 1), np.stack([-ky, kx, zero], 1)],
        1,
    )
    sin = np.sin(angle)[:, None, None]
    cos = np.cos(angle)[:, None, None]
    out = np.eye(3) + sin * cross + (1 - cos) * (cross @ cross)
    out[angle < 1e-12] = np.eye(3)
    return out


def _norm(w: tuple[float, float, float]) -> float:
    return math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])


def _advance(seg: Segment, frame: np.ndarray, t_from: float, t_to: float) -> np.ndarray:
    """Turn ``frame`` by the segment's spin from ``t_from`` to ``t_to`` (one midpoint step)."""
    dt = t_to - t_from
    if dt <= 0:
        return frame
    w = np.array(seg.spin(0.5 * (t_from + t_to)))
    return _rotation(w * dt) @ frame


@dataclass
class SimResult:
    """Everything that happened on the virtual table.

    Attributes:
        balls: Ball labels, one per trajectory (a label may repeat: two cue balls in a lag).
        trajectories: Each ball's path.
        events: The exact events, in time order.
        start_time: When the simulation began.
        end_time: When it ended (the last ball at rest, or the last scripted action).
        occluders: Things over the table: (from, to, occluder) in session seconds.
    """

    balls: tuple[BallId, ...]
    trajectories: tuple[Trajectory, ...]
    events: tuple[ShotEvent, ...]
    start_time: float
    end_time: float
    occluders: tuple[tuple[float, float, Occluder], ...] = ()
    _cache: dict = field(default_factory=dict, repr=False)

    def snapshot(self, t: float) -> TableSnapshot:
        """Every ball's pose at session time ``t``."""
        n = len(self.balls)
        positions = np.empty((n, 3))
        orientations = np.empty((n, 3, 3))
        on_table = np.empty(n, dtype=bool)
        for i, traj in enumerate(self.trajectories):
            seg = traj.segment_at(t)
            positions[i] = seg.position(t)
            orientations[i] = traj.orientation(t)
            on_table[i] = seg.on_table
        over = tuple(o for t0, t1, o in self.occluders if t0 <= t <= t1)
        return TableSnapshot(t, self.balls, positions, orientations, on_table, over)

    def snapshots(self, times: Sequence[float]) -> list[TableSnapshot]:
        """Snapshots at several instants (e.g. `blur_times`)."""
        return [self.snapshot(t) for t in times]

    def layout(self, t: float) -> Layout:
        """Where the balls on the cloth are at ``t`` (pocketed, airborne and off-table absent).

        Raises:
            ValueError: a label repeats among the balls on the cloth (use `snapshot` then).
        """
        positions = {}
        for ball, traj in zip(self.balls, self.trajectories, strict=True):
            seg = traj.segment_at(t)
            if (seg.on_table and seg.phase.on_cloth) or seg.phase is Phase.DRIVEN:
                x, y, _ = seg.position(t)
                if ball in positions:
                    raise ValueError(f"two balls labelled {ball} on the cloth")
                positions[ball] = (x, y)
        return Layout.of(positions)

    def moving_at(self, t: float) -> tuple[BallId, ...]:
        """Balls moving or spinning at ``t`` (phases in force just before ``t``)."""
        out = []
        for ball, traj in zip(self.balls, self.trajectories, strict=True):
            seg = traj.segment_at(t - 1e-9)
            if seg.phase.moving and seg.t1 > t - 1e-9:
                out.append(ball)
        return tuple(out)

    def trajectory(self, ball: BallId) -> Trajectory:
        """The path of the first ball with this label."""
        return self.trajectories[self.balls.index(ball)]


def blur_times(t: float, exposure_s: float, samples: int) -> tuple[float, ...]:
    """Sub-frame instants for a frame stamped ``t`` (mid-exposure) with motion blur.

    Args:
        t: Frame time, the middle of the exposure.
        exposure_s: Exposure duration.
        samples: How many instants to average (1: no blur, just ``t``).
    """
    if samples <= 1 or exposure_s <= 0:
        return (t,)
    start = t - exposure_s / 2
    return tuple(start + exposure_s * (k + 0.5) / samples for k in range(samples))


def from_engine(engine, start_time: float, occluders=(), start_orientations=None) -> SimResult:
    """Freeze an `Engine`'s trajectories and events into a `SimResult`."""
    events = tuple(sorted(engine.events, key=lambda e: e.time))
    trajectories = tuple(
        Trajectory(ball, segs, None if start_orientations is None else start_orientations[i])
        for i, (ball, segs) in enumerate(zip(engine.labels, engine.tracks, strict=True))
    )
    return SimResult(engine.labels, trajectories, events, start_time, engine.time, tuple(occluders))
