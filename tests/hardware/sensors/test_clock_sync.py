from __future__ import annotations

import random

import pytest

from hardware.sensors.clock_sync import ClockSync


def _feed(
    sync: ClockSync,
    *,
    drift_ppm: float,
    seconds: float,
    rng: random.Random,
    offset_s: float = 37.0,
    boot_us: int = 5_000_000_000,
    floor_s: float = 0.001,
    jitter_s: float = 0.0008,
    period_s: float = 0.25,
) -> tuple[float, float, int]:
    """Samples of a board whose clock runs drift_ppm fast; returns the truth mapping."""
    rate = 1.0 + drift_ppm * 1e-6  # device seconds per session second
    t = 0.0
    while t < seconds:
        t_us = boot_us + round(t * rate * 1e6)
        sync.add(t_us, offset_s + t + floor_s + rng.expovariate(1 / jitter_s))
        t += period_s
    return offset_s, rate, boot_us


def _true_session(t_us: int, offset_s: float, rate: float, boot_us: int) -> float:
    return offset_s + (t_us - boot_us) * 1e-6 / rate


@pytest.mark.parametrize("drift_ppm", [-4000.0, -150.0, 0.0, 900.0, 5000.0])
def test_mapping_recovers_offset_and_drift_within_a_fraction_of_a_millisecond(
    drift_ppm: float,
) -> None:
    rng = random.Random(int(drift_ppm))
    sync = ClockSync()
    offset_s, rate, boot_us = _feed(sync, drift_ppm=drift_ppm, seconds=60, rng=rng)
    fit = sync.fit()
    assert fit is not None and fit.fitted
    assert fit.drift_ppm == pytest.approx(-drift_ppm / (1 + drift_ppm * 1e-6), abs=20)
    for t in (30.0, 59.0, 60.5):  # inside the window and just past the newest sample
        t_us = boot_us + round(t * rate * 1e6)
        time, uncertainty = sync.to_session(t_us)
        truth = _true_session(t_us, offset_s, rate, boot_us) + 0.001  # + latency floor
        assert abs(time - truth) < 3e-4
        assert uncertainty < 2e-3
        assert abs(time - truth) <= uncertainty


def test_before_enough_span_the_rate_is_assumed_and_uncertainty_is_large() -> None:
    sync = ClockSync(min_span_s=2.0)
    sync.add(1_000_000, 10.0)
    sync.add(1_500_000, 10.6)
    fit = sync.fit()
    assert fit is not None and not fit.fitted and fit.rate == 1.0
    time, uncertainty = sync.to_session(1_500_000)
    assert time == pytest.approx(10.5)  # the lower envelope: the first sample's latency
    assert uncertainty > 5e-3


def test_a_late_line_does_not_move_the_envelope() -> None:
    rng = random.Random(3)
    sync = ClockSync()
    offset_s, rate, boot_us = _feed(sync, drift_ppm=200, seconds=20, rng=rng)
    before = sync.to_session(boot_us + 10_000_000)[0]
    sync.add(boot_us + round(20.1 * rate * 1e6), offset_s + 20.1 + 0.5)  # stuck for 0.5 s
    assert sync.to_session(boot_us + 10_000_000)[0] == pytest.approx(before, abs=1e-5)


def test_rate_is_clamped_to_a_plausible_board() -> None:
    sync = ClockSync(max_rate_error=0.01)
    sync.add(0, 0.0)
    sync.add(5_000_000, 6.0)  # 20 % fast: not a clock, a broken link
    fit = sync.fit()
    assert fit is not None and fit.rate == pytest.approx(1.01)


def test_reset_forgets_the_old_boot() -> None:
    sync = ClockSync()
    _feed(sync, drift_ppm=0, seconds=10, rng=random.Random(1))
    sync.reset()
    assert sync.fit() is None
    with pytest.raises(ValueError, match="no device time"):
        sync.to_session(0)
    sync.add(2_000, 100.0)
    assert sync.to_session(3_000)[0] == pytest.approx(100.001)


def test_window_drops_old_samples() -> None:
    sync = ClockSync(window_s=10)
    _feed(sync, drift_ppm=0, seconds=30, rng=random.Random(2), period_s=1.0)
    assert sync.samples == 11
