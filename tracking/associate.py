"""Matching detections to balls: physics gates, identity evidence, each ball exists once.

The cost of giving detection j to ball i is a position term (squared distance over the combined
variance, halved: a negative log-likelihood) plus an identity term (minus the log of the
probability vision gave ball i, with the "unknown" share spread over all 16). A detection farther
than the ball could have travelled since it was last seen is not a candidate at all. Each ball
gets at most one detection and each detection at most one ball: an assignment problem, solved by
`scipy.optimize.linear_sum_assignment` with one "unseen" column per ball.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
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
    unnamed_reach: np.ndarray | None = None,
    named: float = 0.6,
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
        unnamed_reach: (m,) how far (mm) from its prediction each ball may take a detection
            that vision does not name as it (with probability ``named``); inf, or None for
            all: up to the gate.
        named: See ``unnamed_reach``.

    Returns:
        Mapping candidate index -> detection index.
    """
    m, n = len(candidates), len(detections)
    if m == 0 or n == 0:
        return {}
    s2 = variance[:, None] + det_variance
    # Anywhere inside the gate the ball may have been struck or hit since: a broad second
    # hypothesis, a few nats dearer than the prediction, keeps such a ball matched.
    kick2 = ((gate / 3.0) ** 2)[:, None] + det_variance
    # One "unseen" column per ball, only its own: the matrix is built in place.
    full = np.full((m, n + m), _FORBIDDEN)
    if unnamed_reach is None:
        unnamed_reach = np.full(m, np.inf)
    # (The logarithms are numpy's: a compiled loop's may round differently.)
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
        np.asarray(candidates, dtype=np.int64),
        free_position_cost,
        unnamed_reach,
        -np.log(named + _ID_FLOOR),
    )
    cost = full[:, :n]
    if elsewhere is not None:
        np.minimum(cost, np.where(np.isfinite(elsewhere), elsewhere, _FORBIDDEN), out=cost)
    full.reshape(-1)[n :: n + m + 1] = miss_cost  # (i, n + i) for each ball i
    rows, cols = linear_sum_assignment(full)
    return {
        r: c
        for r, c, v in zip(rows.tolist(), cols.tolist(), full[rows, cols].tolist(), strict=True)
        if c < n and v < _FORBIDDEN
    }


@njit(cache=True, nogil=True)
def _fill_costs(
    full: np.ndarray,
    predicted: np.ndarray,
    detections: np.ndarray,
    s2: np.ndarray,
    log_s2: np.ndarray,
    kick2: np.ndarray,
    log_kick2: np.ndarray,
    gate: np.ndarray,
    id_cost: np.ndarray,
    candidates: np.ndarray,
    free_position_cost: float,
    unnamed_reach: np.ndarray,
    named_cost: float,
) -> None:
    """The position and identity cost of each ball and detection into ``full[:, :n]``, in one
    loop: the nearer of the prediction (variance ``s2``) and the broad kick hypothesis
    (``kick2``), the free cost where the position is unknown (nan), plus the identity cost,
    and `_FORBIDDEN` outside the gate, past ``unnamed_reach`` where the identity cost is over
    ``named_cost``, or where a cost is infinite. Each value is the one the
    array expressions (``0.5 * d2 / s2 + 0.5 * np.log(s2)`` and so on) give, operation for
    operation in the same order (numba fuses no multiply-add without fastmath)."""
    m, n = s2.shape
    for i in range(m):
        px, py = predicted[i, 0], predicted[i, 1]
        gate2 = gate[i] * gate[i]
        reach2 = unnamed_reach[i] * unnamed_reach[i]
        ids = candidates[i]
        for j in range(n):
            dx = px - detections[j, 0]
            dy = py - detections[j, 1]
            d2 = dx * dx + dy * dy
            half_d2 = 0.5 * d2
            nominal = half_d2 / s2[i, j] + 0.5 * log_s2[i, j]
            kicked = _KICK_COST + half_d2 / kick2[i, j] + 0.5 * log_kick2[i, j]
            cost = kicked if kicked < nominal else nominal
            if d2 != d2:
                cost = free_position_cost
            cost = cost + id_cost[ids, j]
            # (An unknown position's nan distance is never outside the gate.)
            unnamed_far = d2 > reach2 and id_cost[ids, j] > named_cost
            if d2 > gate2 or unnamed_far or not np.isfinite(cost):
                cost = _FORBIDDEN
            full[i, j] = cost


@njit(cache=True, nogil=True)
def fold_names(
    name_score: np.ndarray, named: np.ndarray, costs_t: np.ndarray, pairs: np.ndarray, memory: float
) -> float:
    """Fold this frame's identity evidence into each matched track's running name score, in
    place: for each (row, detection) in ``pairs``, ``name_score[row]`` becomes the detection's
    identity costs (``costs_t[detection]``, (16,)) plus ``memory`` times the old score (just
    the costs at a track's first sighting, ``named[row]`` False; it is then set True).

    Returns:
        The largest lead, over matched tracks, of the likeliest name over the track's own
        (its own name's score minus its lowest score): a track is renamed only past some lead.
    """
    lead = -np.inf
    for k in range(pairs.shape[0]):
        row, col = pairs[k, 0], pairs[k, 1]
        known = named[row]
        low = np.inf
        for j in range(name_score.shape[1]):
            score = costs_t[col, j]
            if known:
                score = score + memory * name_score[row, j]
            name_score[row, j] = score
            if score < low:
                low = score
        named[row] = True
        behind = name_score[row, row] - low
        if behind > lead:
            lead = behind
    return lead


@njit(cache=True, nogil=True)
def unstruck_reach(
    columns: np.ndarray,
    resting: np.ndarray,
    rolling: np.ndarray,
    travel: np.ndarray,
    diameter: float,
    reach: float,
) -> np.ndarray:
    """`assign`'s ``unnamed_reach``: how far from its prediction each ball may be taken to a
    detection vision does not name as it. ``columns``: each candidate's predicted x, y,
    variance and gate; ``travel``: how far each rolling ball's own speed carries it this
    frame (inf: unknown).

    A ball goes no faster than its own speed unless a ball strikes it, and then no faster
    than the two together: ``reach``, plus twice its own travel if it rolls (its prediction
    ran on one travel; it may have turned off a cushion, or been struck, and gone as far
    anywhere), plus the travel of the fastest rolling ball that came within a ``diameter``
    and both their travels of it (a rolling one's gate, where its travel is unknown, and then
    inf). Inf for a ball neither at rest nor rolling with a known travel."""
    m = len(resting)
    out = np.full(m, np.inf)
    for i in range(m):
        own = 0.0 if resting[i] else travel[i]
        if not (resting[i] or (rolling[i] and own < np.inf)):
            continue
        striker = 0.0
        for j in range(m):
            if j == i or not rolling[j]:
                continue
            gap = math.hypot(columns[i, 0] - columns[j, 0], columns[i, 1] - columns[j, 1])
            if gap <= diameter + min(columns[j, 3], travel[j]) + own:
                striker = max(striker, travel[j])
        out[i] = reach + 2.0 * own + striker
    return out
