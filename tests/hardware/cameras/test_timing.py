from __future__ import annotations

import random

import pytest

from hardware.cameras import FrameTiming


def test_steady_frames_are_numbered_in_order_without_drops() -> None:
    timing = FrameTiming(nominal_fps=30.0)
    indices = [timing.arrive(i / 30.0) for i in range(10)]
    assert indices == list(range(10))
    assert timing.dropped == 0
    assert timing.measured_fps == pytest.approx(30.0)


def test_a_gap_of_missing_frames_skips_indices_and_counts_drops() -> None:
    timing = FrameTiming(nominal_fps=60.0)
    times = [0, 1, 2, 5, 6]  # frames 3 and 4 never arrived
    indices = [timing.arrive(t / 60.0) for t in times]
    assert indices == [0, 1, 2, 5, 6]
    assert timing.dropped == 2
    assert timing.dropped_since(2.5 / 60.0) == 2
    assert timing.dropped_since(5.5 / 60.0) == 0


def test_jitter_under_half_an_interval_is_not_a_drop() -> None:
    rng = random.Random(7)
    timing = FrameTiming(nominal_fps=100.0)
    t = 0.0
    for _ in range(200):
        t += 0.01 + rng.uniform(-0.0045, 0.0045)
        timing.arrive(t)
    assert timing.dropped == 0
    assert timing.measured_fps == pytest.approx(100.0, rel=0.1)


def test_without_a_nominal_rate_the_measured_one_detects_drops() -> None:
    timing = FrameTiming()
    for i in range(6):
        timing.arrive(i * 0.02)
    assert timing.measured_fps == pytest.approx(50.0)
    assert timing.arrive(0.16) == 8  # 0.06 s after the last: two frames lost
    assert timing.dropped == 2


def test_the_median_rate_ignores_a_drop_and_a_restart() -> None:
    timing = FrameTiming(nominal_fps=30.0, window=10)
    for i in range(10):
        timing.arrive(i / 30.0)
    timing.restart()
    assert timing.arrive(100.0) == 10  # a reopened stream continues the numbering
    assert timing.dropped == 0
    assert timing.measured_fps == pytest.approx(30.0)


def test_a_device_sequence_number_decides_over_arrival_gaps() -> None:
    timing = FrameTiming(nominal_fps=30.0)
    assert timing.arrive(0 / 30, device_index=10) == 0
    assert timing.arrive(1 / 30, device_index=13) == 3  # two lost, though on time
    assert timing.arrive(4 / 30, device_index=14) == 4  # late, but nothing lost
    assert timing.dropped == 2
    assert timing.arrive(5 / 30, device_index=1) == 5  # the counter reset: no evidence
    assert timing.arrive(9 / 30, device_index=None) == 9  # no number: the gap decides
    assert timing.dropped == 5
