"""Exact event times: the first root of the polynomial that says two things touch.

Within a phase each ball's centre moves on a parabola, so the squared distance between two
balls (or a ball and a jaw point) is a quartic in time and the distance to a straight face a
quadratic. Contacts count only where the gap is closing; a pair that starts touching and
approaching collides at once. Quartics are solved in batches through the eigenvalues of their
companion matrices, then polished with Newton steps.
"""

from __future__ import annotations

import math

import numpy as np

_IMAG_TOL = 1e-7
_NEWTON_STEPS = 3
_MIN_APPROACH = 0.5
"""mm/s: slower closing is a resting contact, not a collision (no event, no chatter)."""
_TOUCH_TOL = 1e-6
"""mm^2 (quartics) or mm (quadratics) within which two things count as touching now."""


def first_closing_roots(
    coeffs: np.ndarray, horizons: np.ndarray, contact: float = 57.15
) -> np.ndarray:
    """For each quartic, the first time in ``[0, horizon]`` where it falls through zero.

    Args:
        coeffs: (k, 5) coefficients ``c4 s^4 + c3 s^3 + c2 s^2 + c1 s + c0`` of a squared gap
            (distance^2 - contact distance^2): positive apart, negative overlapping.
        horizons: (k,) the latest time each quartic is valid for.
        contact: The contact distance the quartics were built with (sets the rate floor).

    Returns:
        (k,) times, ``inf`` where the gap does not close within the horizon.
    """
    k = len(coeffs)
    contact2 = contact * contact
    out = np.full(k, np.inf)
    if k == 0:
        return out
    c0, c1 = coeffs[:, 4], coeffs[:, 3]
    # c1 = d/ds of the squared gap = 2 |d| * closing rate; |d| is about the contact distance.
    min_rate = -2 * np.sqrt(np.maximum(c0 + 0.0, 0.0) + contact2) * _MIN_APPROACH
    now = (c0 <= _TOUCH_TOL) & (c1 < min_rate)
    out[now] = 0.0
    todo = ~now
    lead = np.abs(coeffs[:, 0])
    scale = np.abs(coeffs).max(axis=1) + 1e-300
    quartic = todo & (lead > 1e-12 * scale)
    idx = np.nonzero(quartic)[0]
    if len(idx):
        c = coeffs[idx] / coeffs[idx, :1]
        companion = np.zeros((len(idx), 4, 4))
        companion[:, 0, :] = -c[:, 1:]
        companion[:, 1, 0] = companion[:, 2, 1] = companion[:, 3, 2] = 1.0
        roots = np.linalg.eigvals(companion)
        for row, r in zip(idx, roots, strict=True):
            out[row] = _pick(coeffs[row], r, horizons[row], 2 * contact * _MIN_APPROACH)
    for row in np.nonzero(todo & ~quartic)[0]:
        poly = np.trim_zeros(coeffs[row], "f")
        if len(poly) > 1:
            out[row] = _pick(
                coeffs[row], np.roots(poly), horizons[row], 2 * contact * _MIN_APPROACH
            )
    return out


def _pick(c: np.ndarray, roots: np.ndarray, horizon: float, min_rate: float) -> float:
    best = math.inf
    for r in roots:
        if abs(r.imag) > _IMAG_TOL * max(1.0, abs(r.real)):
            continue
        s = _polish(c, r.real)
        if s < -1e-9 or s > horizon or s >= best:
            continue
        if _derivative(c, s) < -min_rate:
            best = max(s, 0.0)
    return best


def _polish(c: np.ndarray, s: float) -> float:
    for _ in range(_NEWTON_STEPS):
        d = _derivative(c, s)
        if d == 0:
            break
        s -= (((c[0] * s + c[1]) * s + c[2]) * s + c[3]) * s / d + c[4] / d
    return s


def _derivative(c: np.ndarray, s: float) -> float:
    return ((4 * c[0] * s + 3 * c[1]) * s + 2 * c[2]) * s + c[3]


def gap_quartic(
    d: tuple[float, float], v: tuple[float, float], a: tuple[float, float], contact: float
) -> tuple[float, float, float, float, float]:
    """Coefficients of ``|d + v s + a s^2/2|^2 - contact^2`` (relative motion of two centres)."""
    dx, dy = d
    vx, vy = v
    ax, ay = a
    return (
        0.25 * (ax * ax + ay * ay),
        ax * vx + ay * vy,
        vx * vx + vy * vy + ax * dx + ay * dy,
        2 * (dx * vx + dy * vy),
        dx * dx + dy * dy - contact * contact,
    )


def first_closing_quadratic(c: float, v: float, a: float, horizon: float) -> float:
    """First time in ``[0, horizon]`` where ``c + v s + a s^2 / 2`` falls through zero.

    ``c`` is a signed gap (positive apart); the gap must be closing (derivative < 0) there.
    Returns ``inf`` when it does not.
    """
    if c <= _TOUCH_TOL and v < -_MIN_APPROACH:
        return 0.0
    for s in _quadratic_roots(c, v, a):
        if -1e-12 <= s <= horizon and v + a * s < -_MIN_APPROACH:
            return max(s, 0.0)
    return math.inf


def _quadratic_roots(c: float, v: float, a: float) -> list[float]:
    """Real roots of ``c + v s + a s^2 / 2``, ascending."""
    half = 0.5 * a
    if abs(half) < 1e-12:
        return [-c / v] if v != 0 else []
    disc = v * v - 4 * half * c
    if disc < 0:
        return []
    sq = math.sqrt(disc)
    return sorted(((-v - sq) / (2 * half), (-v + sq) / (2 * half)))


def first_crossing(c: float, v: float, a: float, horizon: float, inward: bool) -> float:
    """First time in ``(0, horizon]`` where ``c + v s + a s^2/2`` crosses zero.

    A crossing within a nanosecond of now is the one just handled and is skipped.

    Args:
        c: Signed depth at ``s = 0``.
        v: Its rate of change.
        a: Its second derivative.
        horizon: Latest time.
        inward: True for a crossing from negative to positive, False for the reverse.
    """
    sign = 1.0 if inward else -1.0
    for s in _quadratic_roots(c, v, a):
        if 1e-9 < s <= horizon and sign * (v + a * s) > 0:
            return s
    return math.inf
