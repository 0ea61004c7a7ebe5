"""One ball's filter: the closed-form predict and update are filterpy's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from filterpy.common import Q_discrete_white_noise
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


@pytest.mark.parametrize("seed", range(5))
def test_the_moving_predict_is_filterpys_predict_with_rolling_resistance(seed: int) -> None:
    rng = np.random.default_rng(seed)
    config = TrackerConfig()
    ball = BallFilter(np.array([100.0, -50.0]), 1.0, config)
    ball.seed(np.array([100.0, -50.0]), rng.normal(0, 2000, 2), 2.0, 800.0)
    ball.update(np.array([101.0, -49.0]), 1.5)  # a covariance with position-speed terms
    near = bool(seed % 2)
    dt = float(rng.uniform(0.005, 0.04))
    reference = KalmanFilter(dim_x=4, dim_z=2)
    reference.x, reference.P = ball.kf.x.copy(), ball.kf.P.copy()
    v = ball.velocity.copy()
    decel = -config.rolling_decel * v / np.hypot(*v)
    noise = config.contact_noise if near else config.accel_noise
    reference.predict(
        u=decel.reshape(2, 1),
        B=np.array([[0.5 * dt * dt, 0.0], [dt, 0.0], [0.0, 0.5 * dt * dt], [0.0, dt]]),
        F=np.array([[1, dt, 0, 0], [0, 1, 0, 0], [0, 0, 1, dt], [0, 0, 0, 1]], dtype=float),
        Q=Q_discrete_white_noise(dim=2, dt=dt, var=noise**2, block_size=2),
    )
    ball.predict(dt, at_rest=False, near_contact=near)
    assert np.allclose(ball.kf.x, reference.x, rtol=1e-12, atol=1e-9)
    assert np.allclose(ball.kf.P, reference.P, rtol=1e-9, atol=1e-6)


def test_rolling_resistance_stops_a_slow_ball_and_never_turns_it_round() -> None:
    ball = BallFilter(np.array([0.0, 0.0]), 1.0, TrackerConfig())
    ball.seed(np.array([0.0, 0.0]), np.array([0.6, -0.8]), 1.0, 10.0)  # 1 mm/s: stops in 10 ms
    ball.predict(1 / 60, at_rest=False, near_contact=False)
    assert np.allclose(ball.velocity, 0.0, atol=1e-9)
    assert ball.position[0] > 0 > ball.position[1]


def _moving_ball(seed: int) -> BallFilter:
    rng = np.random.default_rng(seed)
    ball = BallFilter(np.array([100.0, -50.0]), 1.0, TrackerConfig())
    ball.seed(np.array([100.0, -50.0]), rng.normal(0, 2000, 2), 2.0, 800.0)
    ball.predict(1 / 60, at_rest=False, near_contact=False)
    return ball


@pytest.mark.parametrize("seed", range(3))
def test_an_explained_measurement_is_fused_as_update_fuses_it(seed: int) -> None:
    ball, reference = _moving_ball(seed), _moving_ball(seed)
    z = np.array([reference.position[0] + 1.5, reference.position[1] - 1.0])
    limit = 1e6
    assert reference.innovation_nis(z, 1.5) < limit
    assert ball.update_if_explained(float(z[0]), float(z[1]), 1.5, limit)
    reference.update(z, 1.5)
    assert np.array_equal(ball.kf.x, reference.kf.x)
    assert np.array_equal(ball.kf.P, reference.kf.P)


def test_a_measurement_the_model_cannot_explain_leaves_the_filter_for_a_reseed() -> None:
    ball = _moving_ball(0)
    x, p = ball.kf.x.copy(), ball.kf.P.copy()
    far = (float(ball.position[0]) + 400.0, float(ball.position[1]))
    assert ball.innovation_nis(np.array(far), 1.5) > TrackerConfig().reseed_nis
    assert not ball.update_if_explained(*far, 1.5, TrackerConfig().reseed_nis)
    assert np.array_equal(ball.kf.x, x)
    assert np.array_equal(ball.kf.P, p)


def test_the_still_update_returns_the_centre_it_filtered_and_pins_the_velocity() -> None:
    ball = BallFilter(np.array([10.0, 20.0]), 2.0, TrackerConfig())
    centre = ball.update_still(12.0, 18.0, 2.0)
    assert centre == ball.xy == (11.0, 19.0)  # equal variances: the mean
    assert ball.speed == 0.0
    x0, vx, x1, vy, sigma = ball.state_and_sigma()
    assert (x0, x1, vx, vy) == (11.0, 19.0, 0.0, 0.0)
    assert sigma == ball.position_sigma == pytest.approx(math.sqrt(2.0))


def _read_from_arrays(ball: BallFilter) -> tuple[float, ...]:
    """`state_and_sigma` and the speed as read straight from filterpy's arrays."""
    x, p = ball.kf.x, ball.kf.P
    sigma = math.sqrt(0.5 * (float(p[0, 0]) + float(p[2, 2])))
    speed = math.hypot(float(x[1, 0]), float(x[3, 0]))
    return (*x.ravel().tolist(), sigma, speed)


@pytest.mark.parametrize("seed", range(10))
def test_the_floats_a_filter_keeps_are_its_arrays_to_the_bit(seed: int) -> None:
    # Every step writes kf.x and kf.P and keeps the floats it reads next; a random run of
    # steps must leave the two the same, bit for bit.
    rng = np.random.default_rng(seed)
    config = TrackerConfig()
    ball = BallFilter(rng.uniform(-900, 900, 2), 1.5, config)
    for _ in range(200):
        step = int(rng.integers(0, 8))
        z = ball.position + rng.normal(0.0, 3.0, 2)
        sigma = float(rng.uniform(0.5, 3.0))
        if step == 0:
            ball.predict(float(rng.uniform(0.005, 0.04)), False, bool(rng.integers(2)))
        elif step == 1:
            ball.predict_still(1 / 60)
        elif step == 2:
            ball.update_still(float(z[0]), float(z[1]), sigma)
        elif step == 3:
            ball.update_if_explained(float(z[0]), float(z[1]), sigma, config.reseed_nis)
        elif step == 4:
            ball.update(z, sigma)
        elif step == 5:
            ball.seed(z, rng.normal(0.0, 1500.0, 2), sigma, 800.0)
        elif step == 6:
            ball.hold_still()
        else:
            ball.reseed_from(z, z - rng.normal(0.0, 20.0, 2), 1 / 60, sigma)
        x0, v0, x1, v1, sigma_now = ball.state_and_sigma()
        kept = (x0, v0, x1, v1, sigma_now, ball.speed)
        assert np.array(kept).tobytes() == np.array(_read_from_arrays(ball)).tobytes()
        assert ball.centre_and_sigma() == (x0, x1, sigma_now) and ball.xy == (x0, x1)
        assert ball.position_sigma == sigma_now
