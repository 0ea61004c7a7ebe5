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

_SEED_SPEED_SIGMA = 3000.0
"""Velocity standard deviation (mm/s) of a freshly seeded filter: we know little."""


class BallFilter:
    """A filterpy `KalmanFilter` for one ball, with the pool-specific predict and re-seed."""

    def __init__(self, position: np.ndarray, sigma: float, config: TrackerConfig) -> None:
        self.config = config
        self.kf = KalmanFilter(dim_x=4, dim_z=2)
        self.kf.H = _H.copy()
        self._noise_cache: dict[tuple[float, float], np.ndarray] = {}
        self.seed(position, np.zeros(2), sigma, speed_sigma=1.0)

    @property
    def position(self) -> np.ndarray:
        """(2,) filtered centre, mm."""
        return self.kf.x[0::2, 0]

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
        return float(np.sqrt(0.5 * (self.kf.P[0, 0] + self.kf.P[2, 2])))

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

    def _process_noise(self, dt: float, accel_sigma: float) -> np.ndarray:
        key = (round(dt, 6), accel_sigma)
        q = self._noise_cache.get(key)
        if q is None:
            q = Q_discrete_white_noise(dim=2, dt=dt, var=accel_sigma**2, block_size=2)
            self._noise_cache[key] = q
        return q

    def predict(self, dt: float, at_rest: bool, near_contact: bool) -> None:
        """Advance the state by ``dt`` seconds: filterpy's predict (x = Fx + Bu,
        P = FPF' + Q, with Q from its `Q_discrete_white_noise`), written out per axis.

        The two axes never mix: F, Q, H and R are block-diagonal by axis and every seed is,
        so P stays so, and each axis is a 2-state filter in closed form. filterpy's general
        form costs about five times as much, and it runs for every moving ball every frame.
        """
        if dt <= 0:
            return
        x, p = self.kf.x, self.kf.P
        if at_rest:
            p[0, 0] += self.config.rest_noise**2 * dt**2
            p[2, 2] += self.config.rest_noise**2 * dt**2
            return
        q = self._process_noise(
            dt, self.config.contact_noise if near_contact else self.config.accel_noise
        )
        vx, vy = x[1, 0], x[3, 0]
        speed = self.speed
        # Rolling resistance slows the ball but never turns it round within one step.
        decel = min(self.config.rolling_decel, speed / dt) / speed if speed > 0 else 0.0
        for i, accel in ((0, -decel * vx), (2, -decel * vy)):
            v = i + 1
            x[i, 0] += dt * x[v, 0] + 0.5 * dt * dt * accel
            x[v, 0] += dt * accel
            cross = p[i, v] + dt * p[v, v]
            p[i, i] += dt * (p[i, v] + cross) + q[i, i]
            p[i, v] = p[v, i] = cross + q[i, v]
            p[v, v] += q[v, v]

    def update_still(self, z: np.ndarray, sigma: float) -> None:
        """Fuse a measurement of a ball at rest: the filter's update with the velocity pinned
        at zero, in closed form (each axis is a scalar Kalman gain), because most balls rest
        most of the time and this runs for each of them every frame."""
        r2 = sigma * sigma
        for i, j in ((0, 0), (2, 1)):
            p = self.kf.P[i, i]
            gain = p / (p + r2)
            self.kf.x[i, 0] += gain * (z[j] - self.kf.x[i, 0])
            self.kf.P[i, i] = (1.0 - gain) * p
        self.kf.P[0, 2] = self.kf.P[2, 0] = 0.0
        self.kf.x[1, 0] = self.kf.x[3, 0] = 0.0

    def innovation_nis(self, z: np.ndarray, sigma: float) -> float:
        """Normalised innovation squared of a measurement against the prediction."""
        p = self.kf.P
        a, b, d = p[0, 0] + sigma * sigma, p[0, 2], p[2, 2] + sigma * sigma
        y0, y1 = z[0] - self.kf.x[0, 0], z[1] - self.kf.x[2, 0]
        det = a * d - b * b
        # The 2x2 inverse in closed form: this runs for every moving ball every frame.
        return float((d * y0 * y0 - 2 * b * y0 * y1 + a * y1 * y1) / det)

    def update(self, z: np.ndarray, sigma: float) -> None:
        """Fuse one position measurement (mm) with standard deviation ``sigma``.

        filterpy's update (`KalmanFilter.update` with H picking x and y, R = sigma^2 I),
        written out per axis as `predict` is: a scalar innovation, the gain P H'/S, and
        P - K H P.
        """
        x, p = self.kf.x, self.kf.P
        r2 = sigma * sigma
        for i, measured in ((0, z[0]), (2, z[1])):
            v = i + 1
            pp, pv = p[i, i], p[i, v]
            s = pp + r2
            innovation = measured - x[i, 0]
            x[i, 0] += pp / s * innovation
            x[v, 0] += pv / s * innovation
            p[i, i] = pp - pp * pp / s
            p[i, v] = p[v, i] = pv - pp * pv / s
            p[v, v] -= pv * pv / s

    def reseed_from(self, z: np.ndarray, previous: np.ndarray, dt: float, sigma: float) -> None:
        """Re-seed at ``z`` with the velocity of the last measured step (a contact happened)."""
        velocity = (z - previous) / dt if dt > 0 else self.velocity
        self.seed(z, velocity, sigma, speed_sigma=max(_SEED_SPEED_SIGMA / 3, 2 * sigma / dt))
