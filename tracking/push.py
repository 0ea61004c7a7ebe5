"""How long the cue tip drove the cue ball (rule 3.24), from the ball's way along its line of
travel around the strike.

A clean stroke is an impulse: the ball is at full speed within a millisecond or two, then only
the cloth changes its speed (sliding friction slows it, or its spin's grip speeds it up, a
couple of metres per second squared either way). A push keeps the tip on the ball for 50 ms
or more, and the ball gathers speed all that time. So the way is fitted twice: as a clean
stroke (still, then a steady speed changed by a constant acceleration) and as a ramp (still,
then a constant acceleration from rest for a while, then the same), each from its best start,
and a push is a ramp that fits clearly better. At 60 fps a push's ramp spans three to five
frames, and the strike is often seen only mid-ramp, when the speed between two frames has
already climbed; the fit sees the curve in all of them. Pure: arrays in, a time out."""

from __future__ import annotations

import numpy as np

RAMPS_S = np.round(np.arange(0.0, 0.1201, 0.005), 3)
"""The ramp lengths tried (s); 0 is a clean stroke."""

PUSH_MIN_S = 0.02
"""The shortest ramp taken for a push: more than a frame, far more than a stroke's contact."""

PUSH_CHI2 = 9.0
"""How much better (chi-square, in the centres' noise) the ramp must fit than the clean stroke:
three sigmas. On the 300 benchmark shots clean strokes reach 2.6 and pushes 26 or more. With
centres 0.75 mm off, 2 of 500 clean strokes (0.3-3 m/s, then up to 2.5 m/s^2 of follow or
drag) reach it, and 1 of 500 pushes (50-90 ms, to 0.6-1.5 m/s) does not. At 16, 7 of 48
pushes of 50-70 ms through the whole tracker were missed, at 9 two (both 50 ms, to 0.9 m/s)."""

_START_STEP_S = 0.002
"""The grid of start times tried: an eighth of a frame (1 ms steps cost twice as much, once a
shot, and find the same)."""


def ramp_time(times: np.ndarray, way: np.ndarray, sigma: float, earliest: float, latest: float):
    """How long the ball was driven (s), from ``way`` (mm along its line of travel, measured
    centres with noise ``sigma``) at ``times``: the best ramp of `RAMPS_S` from `PUSH_MIN_S`
    up when it fits better than a clean stroke by `PUSH_CHI2`, else 0.0. The ball left rest
    between ``earliest`` and ``latest``."""
    starts = np.arange(earliest, latest + 1e-9, _START_STEP_S)
    chi2 = _best_fits(np.asarray(times, float), np.asarray(way, float), starts) / sigma**2
    pushes = RAMPS_S >= PUSH_MIN_S
    best = int(np.argmin(np.where(pushes, chi2, np.inf)))
    if chi2[0] - chi2[best] >= PUSH_CHI2:
        return float(RAMPS_S[best])
    return 0.0


def _best_fits(t: np.ndarray, way: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(len(RAMPS_S),) the least squared residual of each ramp length over the start times:
    the way is a + v g(t) - c h(t)^2 / 2, fitted linearly for (a, v, c), where g is the ramp's
    shape at unit final speed and h the time since the ramp ended."""
    after = np.maximum(t[None, None, :] - starts[None, :, None], 0.0)  # (1, starts, n)
    ramp = RAMPS_S[:, None, None]
    safe = np.maximum(ramp, 1e-9)
    shape = np.where(after < ramp, after * after / (2.0 * safe), after - ramp / 2.0)
    since = np.maximum(after - ramp, 0.0)
    design = np.stack(
        [np.ones_like(shape), shape, -0.5 * since * since], axis=-1
    )  # (ramps, starts, n, 3)
    normal = np.einsum("rsni,rsnj->rsij", design, design) + 1e-12 * np.eye(3)
    rhs = np.einsum("rsni,n->rsi", design, way)
    coef = np.linalg.solve(normal, rhs[..., None])[..., 0]
    residual = way - np.einsum("rsni,rsi->rsn", design, coef)
    return np.min(np.einsum("rsn,rsn->rs", residual, residual), axis=1)
