from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from bench.memory import FRAMES_PER_HOUR, growth_mb_per_hour, measure, rss_mb


def test_growth_is_the_late_slope_per_hour_of_video() -> None:
    frames = 6000
    # Warm-up jump in the first half, then 2 MB over the second half (3000 frames).
    samples = [
        (k / 100, 100.0 + (50.0 if k > 10 else 0.0) + 4.0 * max(k - 50, 0) / 100)
        for k in range(101)
    ]
    assert growth_mb_per_hour(samples, frames) == pytest.approx(2.0 / 3000 * FRAMES_PER_HOUR)
    flat = [(k / 100, 180.0) for k in range(101)]
    assert growth_mb_per_hour(flat, frames) == pytest.approx(0.0, abs=1e-9)


def test_too_few_samples_give_no_growth_figure() -> None:
    assert math.isnan(growth_mb_per_hour([(0.6, 100.0), (0.9, 101.0)], 1000))


def test_rss_is_read_from_proc() -> None:
    assert 10 < rss_mb() < 100_000


@pytest.mark.slow
def test_memory_replays_a_recording_in_a_subprocess_and_reports_its_peak(tmp_path: Path) -> None:
    # A big parent must not lend its size to the child's peak (ru_maxrss would, across exec).
    ballast = np.ones(400 * 2**20, np.uint8)
    figures = measure(0.5, (320, 180), scenario="scratch", directory=tmp_path)
    assert figures["peak_rss_mb"] < rss_mb() - 200
    del ballast
    assert figures["frames"] == 31
    assert figures["video_s"] == pytest.approx(31 / 60)
    # The child imported the pipeline before it replayed: its peak is at least that much.
    assert 20 < figures["rss_before_replay_mb"] <= figures["peak_rss_mb"] + 1
    assert figures["peak_rss_mb"] < 2000
    assert figures["target"].startswith(("met", "NOT met"))
