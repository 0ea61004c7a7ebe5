"""One ball's filter: the closed-form update is filterpy's update."""

from __future__ import annotations

import numpy as np
import pytest
from filterpy.kalman import KalmanFilter

from tracking.model import TrackerConfig
from tracking.motion import BallFilter


@pytest.mark.parametrize("seed", range(5))
def test_the_moving_update_is_filterpys_update(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ball = BallFilter(np.array([100.0, -50.0]), 1.0, TrackerConfig())
    ball.seed(np.array([100.0, -50.0]), rng.normal(0, 2000, 2), 2.0, 800.0)
    ball.predict(1 / 60, at_rest=False, near_contact=bool(seed % 2))
    reference = KalmanFilter(dim_x=4, dim_z=2)
    reference.H = ball.kf.H.copy()
    reference.x, reference.P = ball.kf.x.copy(), ball.kf.P.copy()
    z, sigma = np.array([130.0, -20.0]) + rng.normal(0, 5, 2), float(rng.uniform(0.5, 3.0))
    ball.update(z, sigma)
    reference.update(z.reshape(2, 1), R=np.eye(2) * sigma**2)
    assert np.allclose(ball.kf.x, reference.x, atol=1e-9)
    assert np.allclose(ball.kf.P, reference.P, rtol=1e-7, atol=1e-6)
