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

_NOISE_CACHE: dict[tuple[float, float], tuple[float, ...]] = {}
"""Process noise entries by exact (step length, acceleration sigma), shared by every ball."""

_NOISE_ENTRIES = ((0, 0), (0, 1), (1, 1), (2, 2), (2, 3), (3, 3))
"""The entries of Q that `BallFilter.predict` uses: each axis's own 2x2 block."""

_SEED_SPEED_SIGMA = 3000.0
"""Velocity standard deviation (mm/s) of a freshly seeded filter: we know little."""


class BallFilter:
    """A filterpy `KalmanFilter` for one ball, with the pool-specific predict and re-seed."""

    def __init__(self, position: np.ndarray, sigma: float, config: TrackerConfig) -> None:
        self.config = config
        self.kf = KalmanFilter(dim_x=4, dim_z=2)
        self.kf.H = _H.copy()
        self._noise: dict[tuple[float, float], tuple[float, ...]] = {}
        self.seed(position, np.zeros(2), sigma, speed_sigma=1.0)

    @property
    def position(self) -> np.ndarray:
        """(2,) filtered centre, mm."""
        return self.kf.x[0::2, 0]

    @property
    def xy(self) -> tuple[float, float]:
        """The filtered centre as two floats, mm."""
        x = self.kf.x
        return (float(x[0, 0]), float(x[2, 0]))

    @property
    def velocity(self) -> np.ndarray:
        """(2,) filtered velocity, mm/s."""
        return self.kf.x[1::2, 0]

    @property
    def speed(self) -> float:
        """Filtered speed, mm/s."""
        return math.hypot(self.kf.x[1, 0], self.kf.x[3, 0])

    @property
    def position_sigma(self) -> float:
        """Isotropic position standard deviation, mm."""
        p = self.kf.P
        return math.sqrt(0.5 * (float(p[0, 0]) + float(p[2, 2])))

    def seed(
        self, position: np.ndarray, velocity: np.ndarray, sigma: float, speed_sigma: float
    ) -> None:
        """Restart the filter at a measured position and velocity (after a contact)."""
        self.kf.x = np.array([[position[0]], [velocity[0]], [position[1]], [velocity[1]]])
        self.kf.P = np.diag([sigma**2, speed_sigma**2, sigma**2, speed_sigma**2])

    def hold_still(self) -> None:
        """Pin the velocity to zero: the ball is at rest."""
        self.kf.x[1, 0] = 0.0
        self.kf.x[3, 0] = 0.0
        self.kf.P[1, :] = 0.0
        self.kf.P[:, 1] = 0.0
        self.kf.P[3, :] = 0.0
        self.kf.P[:, 3] = 0.0

    def _process_noise(self, dt: float, accel_sigma: float) -> tuple[float, ...]:
        """`Q_discrete_white_noise`'s entries per axis (q[i, i], q[i, i+1], q[i+1, i+1] for
        i = 0, 2), built once per step length and noise for every ball: the frame step is
        nearly always the same."""
        key = (round(dt, 6), accel_sigma)
        q = self._noise.get(key)
        if q is None:
            # Each ball keeps the noise of the first step it took of about this length.
            q = _NOISE_CACHE.get((dt, accel_sigma))
            if q is None:
                m = Q_discrete_white_noise(dim=2, dt=dt, var=accel_sigma**2, block_size=2)
                q = tuple(float(m[a, b]) for a, b in _NOISE_ENTRIES)
                if len(_NOISE_CACHE) > 1024:
                    _NOISE_CACHE.clear()
                _NOISE_CACHE[(dt, accel_sigma)] = q
            self._noise[key] = q
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
        x, p = self.kf.x, self.kf.P
        if at_rest:
            still = self.config.rest_noise**2 * dt**2
            p[0, 0] += still
            p[2, 2] += still
            return
        q = self._process_noise(
            dt, self.config.contact_noise if near_contact else self.config.accel_noise
        )
        vx, vy = float(x[1, 0]), float(x[3, 0])
        speed = math.hypot(vx, vy)
        # Rolling resistance slows the ball but never turns it round within one step.
        decel = min(self.config.rolling_decel, speed / dt) / speed if speed > 0 else 0.0
        half_dt2 = 0.5 * dt * dt
        for i, accel, qii, qiv, qvv in ((0, -decel * vx, *q[:3]), (2, -decel * vy, *q[3:])):
            v = i + 1
            xv, piv, pvv = float(x[v, 0]), float(p[i, v]), float(p[v, v])
            x[i, 0] += dt * xv + half_dt2 * accel
            x[v, 0] = xv + dt * accel
            cross = piv + dt * pvv
            p[i, i] += dt * (piv + cross) + qii
            p[i, v] = p[v, i] = cross + qiv
            p[v, v] = pvv + qvv

    def update_still(self, z0: float, z1: float, sigma: float) -> None:
        """Fuse a measurement (``z0``, ``z1``) of a ball at rest: the filter's update with the
        velocity pinned at zero, in closed form (each axis is a scalar Kalman gain), because
        most balls rest most of the time and this runs for each of them every frame."""
        r2 = sigma * sigma
        x, p = self.kf.x, self.kf.P
        for i, zi in ((0, z0), (2, z1)):
            pii = float(p[i, i])
            gain = pii / (pii + r2)
            xi = float(x[i, 0])
            x[i, 0] = xi + gain * (zi - xi)
            p[i, i] = (1.0 - gain) * pii
        p[0, 2] = p[2, 0] = 0.0
        x[1, 0] = x[3, 0] = 0.0

    def innovation_nis(self, z: np.ndarray, sigma: float) -> float:
        """Normalised innovation squared of a measurement against the prediction."""
        p, x = self.kf.P, self.kf.x
        s2 = sigma * sigma
        a, b, d = float(p[0, 0]) + s2, float(p[0, 2]), float(p[2, 2]) + s2
        y0, y1 = float(z[0]) - float(x[0, 0]), float(z[1]) - float(x[2, 0])
        det = a * d - b * b
        # The 2x2 inverse in closed form: this runs for every moving ball every frame.
        return (d * y0 * y0 - 2 * b * y0 * y1 + a * y1 * y1) / det

    def update(self, z: np.ndarray, sigma: float) -> None:
        """Fuse one position measurement (mm) with standard deviation ``sigma``.

        filterpy's update (`KalmanFilter.update` with H picking x and y, R = sigma^2 I),
        written out per axis as `predict` is: a scalar innovation, the gain P H'/S, and
        P - K H P.
        """
        x, p = self.kf.x, self.kf.P
        r2 = sigma * sigma
        for i, measured in ((0, float(z[0])), (2, float(z[1]))):
            v = i + 1
            pp, pv = float(p[i, i]), float(p[i, v])
            s = pp + r2
            innovation = measured - float(x[i, 0])
            x[i, 0] += pp / s * innovation
            x[v, 0] += pv / s * innovation
            p[i, i] = pp - pp * pp / s
            p[i, v] = p[v, i] = pv - pp * pv / s
            p[v, v] -= pv * pv / s

    def reseed_from(self, z: np.ndarray, previous: np.ndarray, dt: float, sigma: float) -> None:
        """Re-seed at ``z`` with the velocity of the last measured step (a contact happened)."""
        velocity = (z - previous) / dt if dt > 0 else self.velocity
        self.seed(z, velocity, sigma, speed_sigma=max(_SEED_SPEED_SIGMA / 3, 2 * sigma / dt))
