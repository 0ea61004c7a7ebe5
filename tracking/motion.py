"""One ball's Kalman filter in the table frame: state (x, vx, y, vy) in mm and mm/s.

A moving ball follows a rolling-deceleration model: constant velocity plus a control input of
`rolling_decel` against the direction of motion. A ball at rest is held still: its velocity is
pinned to zero and its process noise is tiny. Near a contact the process noise is raised, and a
measurement the model cannot explain (a collision, a cushion) re-seeds the filter instead of being
averaged in, which is what makes constant-velocity trackers swap ids (norfair issue 288).
"""

from __future__ import annotations

import math

import numpy as np
from filterpy.common import Q_discrete_white_noise
from filterpy.kalman import KalmanFilter

from tracking.model import TrackerConfig

_H = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])

_NOISE_ENTRIES = ((0, 0), (0, 1), (1, 1), (2, 2), (2, 3), (3, 3))
"""The entries of Q that `BallFilter.predict` uses: each axis's own 2x2 block."""

_SEED_SPEED_SIGMA = 3000.0
"""Velocity standard deviation (mm/s) of a freshly seeded filter: we know little."""


class BallFilter:
    """A filterpy `KalmanFilter` for one ball, with the pool-specific predict and re-seed.

    The filter's ``kf.x`` and ``kf.P`` are written only by these methods, which also keep the
    entries they read as floats (`_floats`): every step reads each ball's state several times
    a frame, and a float read back from a numpy array costs several times what one kept does.
    """

    def __init__(self, position: np.ndarray, sigma: float, config: TrackerConfig) -> None:
        self.config = config
        self.kf = KalmanFilter(dim_x=4, dim_z=2)
        self.kf.H = _H.copy()
        self._noise: dict[tuple[float, float], tuple[float, ...]] = {}
        self._noise_by_step: dict[tuple[float, float], tuple[float, ...]] = {}
        self._kept: list[float] | None = None
        self.seed(position, np.zeros(2), sigma, speed_sigma=1.0)

    def _floats(self) -> list[float]:
        """x, vx, y, vy, p00, p01, p02, p11, p22, p23, p33: the entries of ``kf.x`` and
        ``kf.P`` the steps read (P is symmetric, and its other entries stay zero: the axes
        never mix), as floats; read from the arrays only after a seed or `hold_still`."""
        kept = self._kept
        if kept is None:
            x0, v0, x1, v1 = self.kf.x.ravel().tolist()
            m = self.kf.P.tolist()
            kept = [x0, v0, x1, v1, m[0][0], m[0][1], m[0][2], m[1][1], m[2][2], m[2][3], m[3][3]]
            self._kept = kept
        return kept

    @property
    def position(self) -> np.ndarray:
        """(2,) filtered centre, mm."""
        return self.kf.x[0::2, 0]

    @property
    def xy(self) -> tuple[float, float]:
        """The filtered centre as two floats, mm."""
        kept = self._floats()
        return (kept[0], kept[2])

    def state_and_sigma(self) -> tuple[float, float, float, float, float]:
        """The state (x, vx, y, vy) and `position_sigma` as floats in one step."""
        x0, v0, x1, v1, p00, _, _, _, p22, _, _ = self._floats()
        return (x0, v0, x1, v1, math.sqrt(0.5 * (p00 + p22)))

    def centre_and_sigma(self) -> tuple[float, float, float]:
        """`xy` and `position_sigma` in one step, for the loops over every ball."""
        kept = self._floats()
        return (kept[0], kept[2], math.sqrt(0.5 * (kept[4] + kept[8])))

    @property
    def velocity(self) -> np.ndarray:
        """(2,) filtered velocity, mm/s."""
        return self.kf.x[1::2, 0]

    @property
    def speed(self) -> float:
        """Filtered speed, mm/s."""
        kept = self._floats()
        return math.hypot(kept[1], kept[3])

    @property
    def position_sigma(self) -> float:
        """Isotropic position standard deviation, mm."""
        kept = self._floats()
        return math.sqrt(0.5 * (kept[4] + kept[8]))

    def seed(
        self, position: np.ndarray, velocity: np.ndarray, sigma: float, speed_sigma: float
    ) -> None:
        """Restart the filter at a measured position and velocity (after a contact)."""
        self.kf.x = np.array([[position[0]], [velocity[0]], [position[1]], [velocity[1]]])
        self.kf.P = np.diag([sigma**2, speed_sigma**2, sigma**2, speed_sigma**2])
        self._kept = None

    def hold_still(self) -> None:
        """Pin the velocity to zero: the ball is at rest."""
        self.kf.x[1, 0] = 0.0
        self.kf.x[3, 0] = 0.0
        self.kf.P[1, :] = 0.0
        self.kf.P[:, 1] = 0.0
        self.kf.P[3, :] = 0.0
        self.kf.P[:, 3] = 0.0
        self._kept = None

    def _process_noise(self, dt: float, accel_sigma: float) -> tuple[float, ...]:
        """`Q_discrete_white_noise`'s entries per axis (q[i, i], q[i, i+1], q[i+1, i+1] for
        i = 0, 2): each ball keeps the Q its first step of about this length (to a
        microsecond) was given. Looked up by the exact step first: rounding it costs a
        microsecond, and the frame step is nearly always the same."""
        q = self._noise_by_step.get((dt, accel_sigma))
        if q is None:
            key = (round(dt, 6), accel_sigma)
            q = self._noise.get(key)
            if q is None:
                m = Q_discrete_white_noise(dim=2, dt=dt, var=accel_sigma**2, block_size=2)
                q = self._noise[key] = tuple(float(m[a, b]) for a, b in _NOISE_ENTRIES)
            if len(self._noise_by_step) > 64:
                self._noise_by_step.clear()
            self._noise_by_step[(dt, accel_sigma)] = q
        return q

    def predict(self, dt: float, at_rest: bool, near_contact: bool) -> None:
        """Advance the state by ``dt`` seconds: filterpy's predict (x = Fx + Bu,
        P = FPF' + Q, with Q from its `Q_discrete_white_noise`), written out per axis.

        The two axes never mix: F, Q, H and R are block-diagonal by axis and every seed is,
        so P stays so, and each axis is a 2-state filter in closed form. filterpy's general
        form costs about five times as much, and it runs for every moving ball every frame.
        (Plain floats: numpy's scalars cost several times as much per operation and round the
        same.)
        """
        if dt <= 0:
            return
        if at_rest:
            self.predict_still(dt)
            return
        q = self._process_noise(
            dt, self.config.contact_noise if near_contact else self.config.accel_noise
        )
        x0, vx, x1, vy, p00, p01, p02, p11, p22, p23, p33 = self._floats()
        speed = math.hypot(vx, vy)
        # Rolling resistance slows the ball but never turns it round within one step.
        decel = min(self.config.rolling_decel, speed / dt) / speed if speed > 0 else 0.0
        half_dt2 = 0.5 * dt * dt
        ax, ay = -decel * vx, -decel * vy
        # Per axis, state (s, v) with covariance [[ss, sv], [sv, vv]]: x = F x + B u and
        # P = F P F' + Q in closed form.
        cross_x = p01 + dt * p11
        cross_y = p23 + dt * p33
        kept = self._kept = [
            x0 + (dt * vx + half_dt2 * ax),
            vx + dt * ax,
            x1 + (dt * vy + half_dt2 * ay),
            vy + dt * ay,
            p00 + (dt * (p01 + cross_x) + q[0]),
            cross_x + q[1],
            p02,
            p11 + q[2],
            p22 + (dt * (p23 + cross_y) + q[3]),
            cross_y + q[4],
            p33 + q[5],
        ]
        x, p = self.kf.x, self.kf.P
        x[:, 0] = kept[:4]
        p[0, 0] = kept[4]
        p[0, 1] = p[1, 0] = kept[5]
        p[1, 1] = kept[7]
        p[2, 2] = kept[8]
        p[2, 3] = p[3, 2] = kept[9]
        p[3, 3] = kept[10]

    def predict_still(self, dt: float) -> None:
        """`predict` for a ball at rest: its velocity is pinned to zero, so only the tiny
        rest noise is added to its position variance."""
        if dt <= 0:
            return
        still = self.config.rest_noise**2 * dt**2
        kept = self._floats()
        kept[4] += still
        kept[8] += still
        p = self.kf.P
        p[0, 0] = kept[4]
        p[2, 2] = kept[8]

    def update_still(self, z0: float, z1: float, sigma: float) -> tuple[float, float]:
        """Fuse a measurement (``z0``, ``z1``) of a ball at rest: the filter's update with the
        velocity pinned at zero, in closed form (each axis is a scalar Kalman gain), because
        most balls rest most of the time and this runs for each of them every frame.

        Returns:
            The filtered centre after the update.
        """
        r2 = sigma * sigma
        kept = self._floats()
        x0, _, x1, _, p00, _, _, _, p22, _, _ = kept
        gain0 = p00 / (p00 + r2)
        gain1 = p22 / (p22 + r2)
        x0, x1 = x0 + gain0 * (z0 - x0), x1 + gain1 * (z1 - x1)
        kept[:5] = (x0, 0.0, x1, 0.0, (1.0 - gain0) * p00)
        kept[6] = 0.0
        kept[8] = (1.0 - gain1) * p22
        x, p = self.kf.x, self.kf.P
        x[:, 0] = (x0, 0.0, x1, 0.0)
        p[0, 0] = kept[4]
        p[2, 2] = kept[8]
        p[0, 2] = p[2, 0] = 0.0
        return (x0, x1)

    def innovation_nis(self, z: np.ndarray, sigma: float) -> float:
        """Normalised innovation squared of a measurement against the prediction."""
        kept = self._floats()
        return _nis(
            kept[4], kept[6], kept[8], float(z[0]) - kept[0], float(z[1]) - kept[2], sigma * sigma
        )

    def update_if_explained(self, z0: float, z1: float, sigma: float, max_nis: float) -> bool:
        """`update` with the measurement (``z0``, ``z1``) unless its `innovation_nis` is over
        ``max_nis``: then the model cannot explain it (a contact turned the ball) and the
        filter is left for the caller to re-seed.

        Returns:
            Whether the measurement was fused.
        """
        kept = self._floats()
        r2 = sigma * sigma
        if _nis(kept[4], kept[6], kept[8], z0 - kept[0], z1 - kept[2], r2) > max_nis:
            return False
        self._fuse(kept, z0, z1, r2)
        return True

    def update(self, z: np.ndarray, sigma: float) -> None:
        """Fuse one position measurement (mm) with standard deviation ``sigma``.

        filterpy's update (`KalmanFilter.update` with H picking x and y, R = sigma^2 I),
        written out per axis as `predict` is: a scalar innovation, the gain P H'/S, and
        P - K H P.
        """
        self._fuse(self._floats(), float(z[0]), float(z[1]), sigma * sigma)

    def _fuse(self, kept: list[float], z0: float, z1: float, r2: float) -> None:
        """`update`'s arithmetic on `_floats`, written back into the filter."""
        x0, v0, x1, v1, p00, p01, p02, p11, p22, p23, p33 = kept
        x0, v0, p00, p01, p11 = _update_axis(x0, v0, p00, p01, p11, z0, r2)
        x1, v1, p22, p23, p33 = _update_axis(x1, v1, p22, p23, p33, z1, r2)
        kept[:] = (x0, v0, x1, v1, p00, p01, p02, p11, p22, p23, p33)
        x, p = self.kf.x, self.kf.P
        x[:, 0] = (x0, v0, x1, v1)
        p[0, 0], p[1, 1], p[2, 2], p[3, 3] = p00, p11, p22, p33
        p[0, 1] = p[1, 0] = p01
        p[2, 3] = p[3, 2] = p23

    def reseed_from(self, z: np.ndarray, previous: np.ndarray, dt: float, sigma: float) -> None:
        """Re-seed at ``z`` with the velocity of the last measured step (a contact happened)."""
        velocity = (z - previous) / dt if dt > 0 else self.velocity
        self.seed(z, velocity, sigma, speed_sigma=max(_SEED_SPEED_SIGMA / 3, 2 * sigma / dt))


def _update_axis(
    pos: float, vel: float, pp: float, pv: float, vv: float, measured: float, r2: float
) -> tuple[float, float, float, float, float]:
    """One axis of `BallFilter.update`: the scalar innovation, the gain P H'/S and P - K H P;
    the new position, velocity, pp, pv, vv."""
    s = pp + r2
    innovation = measured - pos
    return (
        pos + pp / s * innovation,
        vel + pv / s * innovation,
        pp - pp * pp / s,
        pv - pp * pv / s,
        vv - pv * pv / s,
    )


def _nis(p00: float, p02: float, p22: float, y0: float, y1: float, r2: float) -> float:
    """The innovation (``y0``, ``y1``)'s squared Mahalanobis length under S = P_xy + r2 I: the
    2x2 inverse in closed form (this runs for every moving ball every frame)."""
    a, b, d = p00 + r2, p02, p22 + r2
    det = a * d - b * b
    return (d * y0 * y0 - 2 * b * y0 * y1 + a * y1 * y1) / det
