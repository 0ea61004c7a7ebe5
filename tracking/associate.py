"""Matching detections to balls: physics gates, identity evidence, each ball exists once.

The cost of giving detection j to ball i is a position term (squared distance over the combined
variance, halved: a negative log-likelihood) plus an identity term (minus the log of the
probability vision gave ball i, with the "unknown" share spread over all 16). A detection farther
than the ball could have travelled since it was last seen is not a candidate at all. Each ball
gets at most one detection and each detection at most one ball: an assignment problem, solved by
`scipy.optimize.linear_sum_assignment` with one "unseen" column per ball.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

_FORBIDDEN = 1e9
_ID_FLOOR = 1e-4
_KICK_COST = 3.0


def identity_cost(identity: np.ndarray, unknown: np.ndarray) -> np.ndarray:
    """(16, n) minus log probability that detection j is ball i."""
    p = identity.T + unknown[None, :] / identity.shape[1]
    return -np.log(p + _ID_FLOOR)


def assign(
    predicted: np.ndarray,
    variance: np.ndarray,
    gate: np.ndarray,
    candidates: np.ndarray,
    detections: np.ndarray,
    det_variance: np.ndarray,
    id_cost: np.ndarray,
    miss_cost: np.ndarray,
    free_position_cost: float,
    elsewhere: np.ndarray | None = None,
) -> dict[int, int]:
    """Best ball -> detection matching.

    Args:
        predicted: (m, 2) predicted centres of the candidate balls (nan: position unknown).
        variance: (m,) predicted position variance per axis, mm^2.
        gate: (m,) how far (mm) each ball can be from its prediction (inf: anywhere).
        candidates: (m,) row numbers (0-15) of the balls, indexing ``id_cost``.
        detections: (n, 2) detected centres.
        det_variance: (n,) detection variance per axis.
        id_cost: (16, n) identity cost, from `identity_cost`.
        miss_cost: (m,) cost of leaving each ball unmatched.
        free_position_cost: Position cost for balls whose position is unknown (nan prediction).
        elsewhere: (m, n) cost of a second hypothesis that may be cheaper than the prediction
            (inf where it does not apply), not gated: a ball seen only once may have been
            that one sighting's misnamed neighbour and truly be anywhere.

    Returns:
        Mapping candidate index -> detection index.
    """
    m, n = len(candidates), len(detections)
    if m == 0 or n == 0:
        return {}
    dx = predicted[:, 0:1] - detections[None, :, 0]
    dy = predicted[:, 1:2] - detections[None, :, 1]
    d2 = dx * dx + dy * dy
    half_d2 = 0.5 * d2
    s2 = variance[:, None] + det_variance
    nominal = half_d2 / s2 + 0.5 * np.log(s2)
    # Anywhere inside the gate the ball may have been struck or hit since: a broad second
    # hypothesis, a few nats dearer than the prediction, keeps such a ball matched.
    kick2 = ((gate / 3.0) ** 2)[:, None] + det_variance
    kicked = _KICK_COST + half_d2 / kick2 + 0.5 * np.log(kick2)
    # One "unseen" column per ball, only its own: the matrix is built in place.
    full = np.full((m, n + m), _FORBIDDEN)
    cost = full[:, :n]
    np.minimum(nominal, kicked, out=cost)
    cost[np.isnan(d2)] = free_position_cost
    cost += id_cost[candidates]
    # (An unknown position's nan distance is never outside the gate.)
    cost[(d2 > (gate**2)[:, None]) | ~np.isfinite(cost)] = _FORBIDDEN
    if elsewhere is not None:
        np.minimum(cost, np.where(np.isfinite(elsewhere), elsewhere, _FORBIDDEN), out=cost)
    full.reshape(-1)[n :: n + m + 1] = miss_cost  # (i, n + i) for each ball i
    rows, cols = linear_sum_assignment(full)
    return {
        r: c
        for r, c, v in zip(rows.tolist(), cols.tolist(), full[rows, cols].tolist(), strict=True)
        if c < n and v < _FORBIDDEN
    }
