"""Matching detections to balls: the compiled cost loop gives the array expressions' costs to
the bit, and the assignment honours gates, misses and identity."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.associate import (
    _FORBIDDEN,
    _KICK_COST,
    _fill_costs,
    assign,
    fold_names,
    identity_cost,
)


def _costs_by_arrays(
    predicted, variance, gate, candidates, detections, det_variance, id_cost, free
):
    """The cost matrix as array expressions (how `assign` built it before the compiled loop)."""
    dx = predicted[:, 0:1] - detections[None, :, 0]
    dy = predicted[:, 1:2] - detections[None, :, 1]
    d2 = dx * dx + dy * dy
    half_d2 = 0.5 * d2
    s2 = variance[:, None] + det_variance
    nominal = half_d2 / s2 + 0.5 * np.log(s2)
    kick2 = ((gate / 3.0) ** 2)[:, None] + det_variance
    kicked = _KICK_COST + half_d2 / kick2 + 0.5 * np.log(kick2)
    cost = np.minimum(nominal, kicked)
    cost[np.isnan(d2)] = free
    cost += id_cost[candidates]
    cost[(d2 > (gate**2)[:, None]) | ~np.isfinite(cost)] = _FORBIDDEN
    return cost


def _inputs(seed: int):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 17)), int(rng.integers(1, 17))
    predicted = rng.uniform(-1000.0, 1000.0, (m, 2))
    predicted[rng.random(m) < 0.15] = np.nan  # balls not on the table: anywhere
    variance = rng.uniform(0.1, 50.0, m)
    gate = rng.uniform(20.0, 900.0, m)
    gate[np.isnan(predicted[:, 0])] = np.inf
    candidates = rng.permutation(16)[:m]
    detections = rng.uniform(-1000.0, 1000.0, (n, 2))
    det_variance = rng.uniform(0.2, 9.0, n)
    identity = rng.dirichlet(np.ones(16), n) * rng.uniform(0.5, 1.0, (n, 1))
    unknown = np.clip(1.0 - identity.sum(axis=1), 0.0, 1.0)
    id_cost = identity_cost(identity, unknown)
    id_cost[rng.random(id_cost.shape) < 0.05] = np.inf  # names ruled out
    return predicted, variance, gate, candidates, detections, det_variance, id_cost


@pytest.mark.parametrize("seed", range(25))
def test_the_compiled_costs_are_the_array_expressions_to_the_bit(seed: int) -> None:
    predicted, variance, gate, candidates, detections, det_variance, id_cost = _inputs(seed)
    m, n = len(candidates), len(detections)
    full = np.full((m, n + m), _FORBIDDEN)
    s2 = variance[:, None] + det_variance
    kick2 = ((gate / 3.0) ** 2)[:, None] + det_variance
    _fill_costs(
        full,
        predicted,
        detections,
        s2,
        np.log(s2),
        kick2,
        np.log(kick2),
        gate,
        id_cost,
        candidates.astype(np.int64),
        6.0,
        np.full(m, np.inf),
        0.5,
    )
    want = _costs_by_arrays(
        predicted, variance, gate, candidates, detections, det_variance, id_cost, 6.0
    )
    assert full[:, :n].tobytes() == want.tobytes()
    assert np.all(full[:, n:] == _FORBIDDEN)


def test_each_ball_takes_its_own_detection_and_a_ball_past_its_gate_stays_unmatched() -> None:
    predicted = np.array([[0.0, 0.0], [100.0, 0.0], [900.0, 0.0]])
    detections = np.array([[101.0, 1.0], [1.0, -1.0]])
    identity = np.full((2, 16), 1.0 / 16)
    id_cost = identity_cost(identity, np.zeros(2))
    found = assign(
        predicted,
        np.full(3, 2.0),
        np.full(3, 50.0),
        np.array([0, 1, 2]),
        detections,
        np.full(2, 1.0),
        id_cost,
        np.full(3, 14.0),
        6.0,
    )
    assert found == {0: 1, 1: 0}


def test_a_detection_past_a_balls_unnamed_reach_needs_vision_to_name_it() -> None:
    # Ball 3 rests at the origin; its detection is lost and a ghost shows 120 mm off. Inside
    # its gate the kick hypothesis would take the ghost; past its unnamed reach it may not,
    # unless vision names the ghost as ball 3.
    predicted = np.array([[0.0, 0.0]])
    detections = np.array([[120.0, 0.0]])
    args = (np.full(1, 0.1), np.full(1, 200.0), np.array([3]), detections, np.full(1, 0.64))
    for p_three, reach, taken in ((0.3, 60.0, False), (0.9, 60.0, True), (0.3, np.inf, True)):
        identity = np.zeros((1, 16))
        identity[0, 3] = p_three
        id_cost = identity_cost(identity, np.zeros(1))
        found = assign(
            predicted, *args, id_cost, np.full(1, 20.0), 6.0, None, np.full(1, reach), 0.6
        )
        assert (found == {0: 0}) is taken, (p_three, reach)


@pytest.mark.parametrize("seed", range(10))
def test_folded_name_scores_are_the_array_steps_to_the_bit(seed: int) -> None:
    # Frames of evidence folded into the running name scores, some balls unseen in some
    # frames, against the same fold as whole-array steps.
    rng = np.random.default_rng(seed)
    scores, named = np.zeros((16, 16)), np.zeros(16, dtype=bool)
    want, want_named = np.zeros((16, 16)), np.zeros(16, dtype=bool)
    for _ in range(30):
        n = int(rng.integers(1, 17))
        identity = rng.dirichlet(np.full(16, 0.3), n) * rng.uniform(0.6, 1.0, (n, 1))
        id_cost = identity_cost(identity, np.clip(1.0 - identity.sum(axis=1), 0.0, 1.0))
        rows = sorted(rng.permutation(16)[: min(n, 16)].tolist())
        cols = rng.permutation(n)[: len(rows)].tolist()
        pairs = np.array(list(zip(rows, cols, strict=True)))
        lead = fold_names(scores, named, id_cost.T, pairs, 0.95)
        frame = np.take(id_cost, cols, axis=1).T
        known = want_named[rows]
        frame[known] += 0.95 * want[rows][known]
        want[rows] = frame
        want_named[rows] = True
        own = frame[np.arange(len(rows)), rows]
        assert scores.tobytes() == want.tobytes()
        assert np.array_equal(named, want_named)
        assert lead == float((own - frame.min(axis=1)).max())
