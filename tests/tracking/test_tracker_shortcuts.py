"""The tracker's cheap per-frame tests give what the array steps they stand for give, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.tracker import _close_pairs, _surely_faster

_REACH = 2.5 * 57.15


def _pairs_by_arrays(xs, ys, moving, reach):
    """Every pair's distance in one array step, as the tracker computed it before."""
    px, py, mv = np.array(xs), np.array(ys), np.array(moving, dtype=bool)
    close = np.hypot(px[:, None] - px, py[:, None] - py) < reach
    close &= mv[:, None] | mv
    i, j = np.nonzero(np.triu(close, 1))
    return list(zip(i.tolist(), j.tolist(), strict=True))


@pytest.mark.parametrize("seed", range(40))
def test_close_pairs_are_the_pairs_the_distance_matrix_finds(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 17))
    # Balls packed in a small patch, so that many pairs lie near the reach.
    xs = rng.uniform(-300.0, 300.0, n).tolist()
    ys = rng.uniform(-200.0, 200.0, n).tolist()
    if n > 2:
        # A pair exactly at the reach, and one a rounding unit either side of it.
        xs[1], ys[1] = xs[0] + _REACH, ys[0]
        xs[2] = xs[0] + float(np.nextafter(_REACH, 0.0) if seed % 2 else np.nextafter(_REACH, 1e9))
        ys[2] = ys[0]
    if n > 4 and seed % 5 == 0:
        xs[3] = float("nan")
    moving = (rng.random(n) < 0.5).tolist()
    assert _close_pairs(xs, ys, moving, _REACH) == _pairs_by_arrays(xs, ys, moving, _REACH)


def test_close_pairs_need_one_of_the_two_moving() -> None:
    xs, ys = [0.0, 10.0, 500.0], [0.0, 0.0, 0.0]
    assert _close_pairs(xs, ys, [False, False, True], _REACH) == []
    assert _close_pairs(xs, ys, [False, True, False], _REACH) == [(0, 1)]


def _fit_speed(recent) -> float:
    """The rest test's straight-line fit, in array steps (`Tracker._check_rest`)."""
    times = np.array([t for t, _ in recent])
    pts = np.array([p for _, p in recent])
    mean_t = np.add.reduce(times) / len(recent)
    mean_pt = np.add.reduce(pts, axis=0) / len(recent)
    tc = times - mean_t
    slope = (tc @ (pts - mean_pt)) / (tc @ tc)
    return float(np.hypot(*slope))


@pytest.mark.parametrize("seed", range(30))
def test_a_ball_surely_faster_is_faster_by_the_exact_fit_rule_3_15(seed: int) -> None:
    rng = np.random.default_rng(seed)
    speed = 15.0
    start = float(rng.uniform(0.0, 1e5))  # a long session's clock
    for true_speed in np.linspace(0.0, 40.0, 81):
        heading = rng.uniform(0, 2 * np.pi)
        times = start + np.arange(16) / 60.0
        base = rng.uniform(-1200.0, 1200.0, 2)
        path = base + np.outer(
            times - start, true_speed * np.array([np.cos(heading), np.sin(heading)])
        )
        path += rng.normal(0.0, 1.5 * (seed % 3), path.shape)
        recent = [(float(t), p.tolist()) for t, p in zip(times, path, strict=True)]
        if _surely_faster(recent, speed):
            assert _fit_speed(recent) > speed
        elif abs(_fit_speed(recent) - speed) > 1e-3:
            # Away from the line the cheap test decides as the fit does.
            assert _fit_speed(recent) <= speed
