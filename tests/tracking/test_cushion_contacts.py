"""The cushion rebound test's pieces: which frames of a side one line explains."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.cushion_contacts import straight_side

DT = 1 / 60
SIGMA = 0.7


def _side(speeds: list[float], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The frame times and a ball's distance to a nose, noisy, moving off it at ``speeds``
    (mm/s) over the successive frames after a rebound at frame 0."""
    times = np.arange(len(speeds) + 1) * DT
    dist = np.concatenate([[28.6], 28.6 + np.cumsum(np.asarray(speeds) * DT)])
    rng = np.random.default_rng(seed)
    return times, dist + rng.normal(0.0, SIGMA, len(dist))


@pytest.mark.parametrize("seed", range(5))
def test_a_side_that_runs_straight_is_kept_whole(seed: int) -> None:
    times, dist = _side([400.0, 400.0, 400.0, 400.0], seed)
    side = np.arange(1, 5)
    assert straight_side(side, times, dist, SIGMA).tolist() == side.tolist()


@pytest.mark.parametrize("seed", range(5))
def test_a_side_bent_by_the_next_cushion_of_a_corner_is_cut_at_the_bend_rule_3_20(
    seed: int,
) -> None:
    # Off the foot cushion at 250 mm/s, then the side cushion of the corner two frames on turns
    # it back in at 800 mm/s: a line through all four frames misses both rebounds.
    times, dist = _side([250.0, 250.0, -800.0, -800.0], seed)
    assert straight_side(np.arange(1, 5), times, dist, SIGMA).tolist() == [1, 2]
