"""The segmenter's line fits: straight-line velocities through a ball's last centres; knots."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tracking.helpers import slid_then_rolled
from tracking.fits import (
    fit_line,
    kick_time,
    knot_time,
    launch_velocity,
    straight_velocities,
    trimmed_lines,
)

LIMITS = np.array([math.inf, math.inf, math.inf, 9.21, 13.28])
"""Chi-square limits by number of frames (p = 0.01 at 2(n - 2) degrees of freedom)."""


def _window(path, frames: int = 4, sigma: float = 0.5):
    """``frames`` samples, 1/60 s apart, of ball 3 following ``path(t)``; the other balls
    unseen."""
    times = np.arange(frames) / 60.0
    seen = np.zeros((frames, 16), dtype=bool)
    seen[:, 3] = True
    measured = np.full((frames, 16, 2), np.nan)
    measured[:, 3] = [path(t) for t in times]
    return times, seen, measured, np.full((frames, 16), sigma)


def _fit(window, since: float = -math.inf) -> np.ndarray:
    times, seen, measured, sigma = window
    fallback = np.array([[-1.0, -1.0]])
    return straight_velocities(
        times, seen, measured, sigma, np.array([3]), np.array([since]), fallback, LIMITS
    )[0]


def test_a_straight_run_gives_its_velocity() -> None:
    v = _fit(_window(lambda t: (100.0 + 600.0 * t, -50.0 - 300.0 * t)))
    assert np.allclose(v, (600.0, -300.0))


def test_a_turn_inside_the_window_leaves_only_the_frames_after_it() -> None:
    # Turned round between the first and second frames: the four do not lie on a line, the
    # last three do.
    def path(t: float) -> tuple[float, float]:
        return (600.0 * t, 0.0) if t < 0.01 else (12.0 - 600.0 * (t - 0.01), 0.0)

    assert np.allclose(_fit(_window(path)), (-600.0, 0.0))


def test_frames_before_the_last_contact_are_not_used() -> None:
    # The same bent path, with its turn found: the fit starts after it, at the second frame.
    def path(t: float) -> tuple[float, float]:
        return (0.0, 900.0 * t) if t < 0.01 else (0.0, 9.0 + 300.0 * (t - 0.01))

    assert np.allclose(_fit(_window(path), since=0.01), (0.0, 300.0))


def test_fewer_than_two_frames_since_the_last_contact_keep_the_fallback() -> None:
    v = _fit(_window(lambda t: (600.0 * t, 0.0)), since=2.5 / 60)
    assert np.allclose(v, (-1.0, -1.0))


def _stepped(tau: float, v_before: np.ndarray, v_out: np.ndarray, dt: float) -> np.ndarray:
    """A ball's step across an interval of ``dt`` s, kicked ``tau`` s into it."""
    return v_before * tau + v_out * (dt - tau)


@pytest.mark.parametrize("share", [0.0, 0.3, 0.8, 1.0])
def test_a_kick_is_timed_by_the_ball_s_step_across_the_interval(share: float) -> None:
    dt, before, after = 1 / 60, np.array([900.0, 0.0]), np.array([-300.0, 500.0])
    tau, sigma = kick_time(_stepped(share * dt, before, after, dt), before, after, dt, 60.0)
    assert tau == pytest.approx(share * dt, abs=1e-9)
    assert 0 < sigma < 0.1 * dt  # 1.3 m/s of change against 60 mm/s of noise


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_a_kick_time_s_sigma_matches_its_scatter(share: float) -> None:
    # Centres 0.75 mm off a side, so one frame's velocity is off by 64 mm/s a side. The sigma
    # is right for a kick at the start of the interval, a little generous later in it.
    rng = np.random.default_rng(5)
    dt, before, after = 1 / 60, np.array([400.0, 100.0]), np.array([80.0, -150.0])
    noise = math.sqrt(2.0) * 0.75 / dt
    off = []
    for _ in range(2000):
        step = _stepped(share * dt, before, after, dt) + rng.normal(0.0, 0.75 * math.sqrt(2), 2)
        tau, sigma = kick_time(step, before, after + rng.normal(0.0, noise, 2), dt, noise)
        off.append(abs(tau - share * dt) / sigma)
    assert np.mean(np.array(off) > 2.0) < 0.1
    assert np.mean(np.array(off) > 0.5) > 0.4


def test_no_change_has_no_kick_time() -> None:
    v = np.array([300.0, 0.0])
    tau, sigma = kick_time(v / 60, v, v, 1 / 60, 60.0)
    assert math.isnan(tau) and sigma == math.inf


@pytest.mark.parametrize("bend", [0.131, 0.2, 0.262])
def test_the_knot_of_two_lines_is_where_the_path_bent(bend: float) -> None:
    # A relative position closing at 200 mm/s and parting at 120 mm/s after ``bend``, seen
    # with 0.8 mm noise: the bend is found within a few milliseconds, wherever it falls.
    rng = np.random.default_rng(7)
    times = np.arange(24) / 60.0
    s = times - bend
    path = np.stack([np.where(s < 0, -200.0 * s, 120.0 * s), 40.0 * s], axis=1)
    seen = path + rng.normal(0.0, 0.8, path.shape)
    assert knot_time(times, seen, times[0], times[-1], 1 / 480) == pytest.approx(bend, abs=0.006)


def test_no_knot_without_two_samples_each_side() -> None:
    times = np.arange(3) / 60.0
    assert math.isnan(knot_time(times, np.zeros((3, 2)), times[0], times[-1], 1 / 480))


SLIDING = 1960.0
"""mm/s^2: mu_s g on a usual cloth."""


@pytest.mark.parametrize("speed", [150.0, 600.0, 2500.0])
def test_a_ball_launched_from_a_rack_gives_its_speed_at_the_hit(speed: float) -> None:
    hit = 0.004
    t = hit + np.arange(1, 5) / 60.0 - 0.004
    rng = np.random.default_rng(7)
    run = speed * slid_then_rolled(t - hit, speed, SLIDING)
    pts = np.array([100.0, 50.0]) + np.outer(run, (0.6, -0.8)) + rng.normal(0.0, 0.3, (len(t), 2))
    velocity, sigma = launch_velocity(t, pts, hit, SLIDING, 0.3)
    assert np.hypot(*velocity) == pytest.approx(speed, abs=4 * sigma + 2.0)
    assert velocity @ np.array([0.6, -0.8]) > 0.99 * np.hypot(*velocity)
    line = np.hypot(fit_line(t, pts[:, 0], 0.3)[0], fit_line(t, pts[:, 1], 0.3)[0])
    assert speed - line > 20.0  # a plain line is slow by tens of mm/s: what is corrected


def test_without_sliding_the_launch_is_the_line() -> None:
    t = np.arange(4) / 60.0
    pts = np.column_stack([10.0 + 400.0 * t, -20.0 + 100.0 * t])
    velocity, _ = launch_velocity(t, pts, -0.01, 0.0, 0.5)
    assert np.allclose(velocity, (400.0, 100.0))


def _noisy_line(seed: int, frames: int = 6, sigma: float = 0.8):
    """``frames`` centres 1/60 s apart of a ball rolling at (900, -300) mm/s, with noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / 60.0
    y = np.stack([900.0 * t + 10.0, -300.0 * t - 5.0], axis=1) + rng.normal(0, sigma, (frames, 2))
    return t, y


@pytest.mark.parametrize("seed", range(5))
def test_trimmed_lines_leave_out_a_centre_seen_millimetres_off(seed: int) -> None:
    t, y = _noisy_line(seed, sigma=0.4)
    clean = fit_line(t, y[:, 1], 0.8)[0]
    y[-1, 1] += 5.0  # the last centre seen 5 mm off
    plain = fit_line(t, y[:, 1], 0.8)[0]
    assert abs(plain - clean) > 40.0  # one such centre turns a 6-frame line
    trimmed = trimmed_lines(t, y, 0.8, 4)
    assert trimmed == [fit_line(t[:-1], y[:-1, i], 0.8) for i in (0, 1)]


def test_trimmed_lines_keep_clean_centres_and_the_fewest_asked() -> None:
    t, y = _noisy_line(0, frames=8)
    plain = [fit_line(t, y[:, i], 0.8) for i in (0, 1)]
    assert trimmed_lines(t, y, 0.8, 4) == plain
    y[0] += 10.0
    y[-1] -= 10.0
    both_out = trimmed_lines(t, y, 0.8, 4)
    assert both_out[0][2] == pytest.approx(np.mean(t[1:-1]))
    assert both_out[0][0] == pytest.approx(900.0, abs=4 * both_out[0][1])
    assert trimmed_lines(t, y, 0.8, 8) == [fit_line(t, y[:, i], 0.8) for i in (0, 1)]
