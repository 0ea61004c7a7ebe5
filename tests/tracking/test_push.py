"""The push measure: how long the cue tip drove the cue ball (rule 3.24)."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.push import PUSH_MIN_S, ramp_time

FRAME = 1 / 60


def _way(start: float, ramp: float, speed: float, accel_after: float) -> tuple[np.ndarray, ...]:
    """Frames from 3 before the start to 0.15 s after it, and the way (mm) of a ball driven
    from rest to ``speed`` over ``ramp`` s (0: struck), changing speed by ``accel_after`` after."""
    times = np.arange(-3, 10) * FRAME + 0.5 * FRAME
    after = np.maximum(times - start, 0.0)
    if ramp > 0:
        way = np.where(after < ramp, speed * after**2 / (2 * ramp), speed * (after - ramp / 2))
    else:
        way = speed * after
    since = np.maximum(after - ramp, 0.0)
    return times, way + 0.5 * accel_after * since**2


def _timed(times: np.ndarray, way: np.ndarray, noisy: np.ndarray) -> float:
    """`ramp_time` with the start bracketed as the assembler does: after the last frame the
    ball lay still (less a frame) and by the first it had moved."""
    moved = int(np.argmax(way > 0))
    return ramp_time(times, noisy, 0.75, times[moved - 1] - FRAME, times[moved])


def _measured(times: np.ndarray, way: np.ndarray, seed: int) -> float:
    rng = np.random.default_rng(seed)
    return _timed(times, way, way + rng.normal(0.0, 0.75, len(way)))


def test_a_clean_stroke_drives_the_ball_for_no_time() -> None:
    times, way = _way(0.01, 0.0, 2000.0, -300.0)
    assert _timed(times, way, way) == 0.0


@pytest.mark.parametrize("ramp", [0.05, 0.07, 0.09])
def test_a_push_is_timed_by_its_ramp_rule_3_24(ramp: float) -> None:
    times, way = _way(0.004, ramp, 1200.0, -300.0)
    assert _timed(times, way, way) == pytest.approx(ramp, abs=0.006)


@pytest.mark.parametrize("seed", range(12))
def test_pushes_are_found_through_the_noise_rule_3_24(seed: int) -> None:
    # 50-90 ms from rest to 0.8-1.5 m/s, the strike anywhere inside its frame.
    rng = np.random.default_rng(100 + seed)
    ramp, speed = rng.uniform(0.05, 0.09), rng.uniform(800.0, 1500.0)
    times, way = _way(rng.uniform(0.0, FRAME), ramp, speed, -400.0)
    assert _measured(times, way, seed) == pytest.approx(ramp, abs=0.02)


@pytest.mark.parametrize("seed", range(12))
def test_follow_after_a_clean_stroke_is_no_push_rule_3_24(seed: int) -> None:
    # Struck to 0.5-2 m/s; the spin's grip then speeds it up (or the cloth slows it) by up to
    # 2 m/s^2: nothing drives it from rest.
    rng = np.random.default_rng(200 + seed)
    times, way = _way(
        rng.uniform(0.0, FRAME), 0.0, rng.uniform(500.0, 2000.0), rng.uniform(-2000.0, 2000.0)
    )
    assert _measured(times, way, seed) < PUSH_MIN_S
