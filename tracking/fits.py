"""Least-squares lines through a few samples: the segmenter's velocity fits, where numpy's general
fitting costs more than the fit; when inside a frame interval a ball's velocity changed; and
where a path that bent over a window of frames bent."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


def kick_time(
    step: np.ndarray, v_before: np.ndarray, v_out: np.ndarray, dt: float, v_noise: float
) -> tuple[float, float]:
    """When (s into the interval) a ball whose velocity went from ``v_before`` to ``v_out``
    was kicked, by its ``step`` across the interval of ``dt`` s: the step is ``v_before`` up
    to the kick and ``v_out`` after it. Also the time's sigma, for ``v_noise`` (mm/s) on one
    frame's velocity (the step's noise and the velocity after's, alike). A time outside
    [0, dt] says the kick came before or after the interval."""
    change = v_before - v_out
    size2 = float(change @ change)
    if size2 <= 0.0:
        return math.nan, math.inf
    tau = float((step - v_out * dt) @ change) / size2
    return tau, math.sqrt(2.0) * v_noise * dt / math.sqrt(size2)


def fit_line(t: np.ndarray, y: np.ndarray, sigma: float) -> tuple[float, float, float, float]:
    """Least-squares line through y(t): its slope, the slope's standard deviation for noise
    ``sigma``, and the point it passes through (the means of t and y)."""
    # np.add.reduce / n is ndarray.mean without its overhead, which counts on a few samples.
    t_mean, y_mean = np.add.reduce(t) / len(t), np.add.reduce(y) / len(y)
    tc = t - t_mean
    ss = float(tc @ tc)
    if ss <= 0:
        return 0.0, math.inf, t_mean, y_mean
    return float(tc @ (y - y_mean)) / ss, sigma / math.sqrt(ss), t_mean, y_mean


def trimmed_lines(
    t: np.ndarray, y: np.ndarray, sigma: float, least: int, sigmas: float = 3.0
) -> list[tuple[float, float, float, float]]:
    """`fit_line` through each column of ``y`` (n, 2) at ``t``, leaving out the sample farthest
    off the lines the others give while it is more than ``sigmas`` times its sigma off and
    more than ``least`` samples remain: one centre in ten is seen a few millimetres off, and on
    a short window that one turns the line by tens of mm/s. (Off the lines fitted through it,
    a centre at a window's end is pulled in by half: its pull on the slope is the largest.)"""
    keep = np.arange(len(t))
    while True:
        lines = [fit_line(t[keep], y[keep, i], sigma) for i in range(y.shape[1])]
        tc = t[keep] - lines[0][2]
        fitted = np.stack([m + v * tc for v, _, _, m in lines], axis=1)
        # Leverage: the share of its own sample in each fitted value.
        spread = float(tc @ tc)
        lever = 1.0 / len(keep) + (tc * tc / spread if spread > 0 else 0.0)
        off = np.hypot(*(y[keep] - fitted).T) / np.sqrt(np.maximum(1.0 - lever, 1e-9))
        worst = int(np.argmax(off))
        if len(keep) <= least or off[worst] <= sigmas * sigma:
            return lines
        keep = np.delete(keep, worst)


def line_change(
    before: tuple[np.ndarray, np.ndarray, float],
    after: tuple[np.ndarray, np.ndarray, float],
    least: int,
) -> tuple[list[tuple[float, float, float, float]], np.ndarray, float]:
    """How the slope of samples (n, 2) changed across an event: ``before`` and ``after`` are
    each (times, samples, their sigma), fitted by `trimmed_lines` keeping ``least`` samples at
    fewest. Returns the lines before, the change of the slope (2,), and its noise (one axis's
    slope sigma each side, added in quadrature; a trim keeps or drops a sample in both axes,
    so they are alike)."""
    lines_in = trimmed_lines(*before, least)
    lines_out = trimmed_lines(*after, least)
    change = np.array([out[0] - into[0] for into, out in zip(lines_in, lines_out, strict=True)])
    return lines_in, change, math.hypot(lines_in[0][1], lines_out[0][1])


def launch_velocity(
    t: np.ndarray, pts: np.ndarray, t_hit: float, sliding_decel: float, sigma: float
) -> tuple[np.ndarray, float]:
    """The velocity at ``t_hit`` of a ball struck from rest through its centre, from its
    centres ``pts`` (n, 2) at ``t`` after it, and that velocity's sigma per axis for centre
    noise ``sigma``. Struck without spin, the ball slides, friction slowing it at
    ``sliding_decel`` (mm/s^2) along its straight path until it rolls at 5/7 of its launch
    speed: a line through its centres gives its velocity in the middle of the frames, a few
    tens of mm/s slower than at the hit. A rolling ball struck slides by its change of
    velocity alike: given its centres less its rolling on, this is that change."""
    velocity, spread = np.zeros(2), math.inf
    abscissa = t
    for _ in range(3):
        velocity, spread = _slopes(abscissa, pts, sigma)
        speed = float(np.hypot(*velocity))
        if speed <= 0.0 or sliding_decel <= 0.0:
            break
        abscissa = _slide_then_roll(t - t_hit, speed, sliding_decel)
    return velocity, spread


def _slopes(abscissa: np.ndarray, pts: np.ndarray, sigma: float) -> tuple[np.ndarray, float]:
    x, spread, _, _ = fit_line(abscissa, pts[:, 0], sigma)
    y = fit_line(abscissa, pts[:, 1], sigma)[0]
    return np.array([x, y]), spread


def _slide_then_roll(tau: np.ndarray, speed: float, decel: float) -> np.ndarray:
    """How far a ball launched at ``speed`` without spin has gone ``tau`` s after, per unit
    launch speed: sliding with ``decel`` until its speed is 5/7 of the launch's (the
    rolling speed of a ball whose spin friction built up), then rolling on."""
    tau = np.maximum(tau, 0.0)
    rolls = 2.0 * speed / (7.0 * decel)
    slid = np.minimum(tau, rolls)
    return slid - 0.5 * decel * slid**2 / speed + 5 / 7 * (tau - slid)


def knot_time(t: np.ndarray, y: np.ndarray, lo: float, hi: float, step: float) -> float:
    """The time in [``lo``, ``hi``] (on a grid of ``step``) at which two lines, meeting there,
    best explain the samples ``y`` (n, dims) at ``t``: when a ball's path bent at a contact.
    Unlike one line fitted up to the contact, the frames past it pull the time no later. NaN
    when no time on the grid has two samples each side."""
    knots = np.arange(lo, hi + 0.5 * step, step)
    # Two samples each side at least, or one of the lines is not determined.
    ordered = np.sort(t)
    knots = knots[(knots > ordered[1]) & (knots < ordered[-2])] if len(t) >= 4 else knots[:0]
    if not len(knots):
        return math.nan
    s = t[None, :] - knots[:, None]
    basis = np.stack([np.ones_like(s), np.minimum(s, 0.0), np.maximum(s, 0.0)], axis=-1)
    normal = basis.transpose(0, 2, 1) @ basis
    fitted = basis @ np.linalg.solve(normal, basis.transpose(0, 2, 1) @ y)
    residual = ((fitted - y[None]) ** 2).sum(axis=(1, 2))
    return float(knots[int(np.argmin(residual))])


@njit(cache=True, nogil=True)
def straight_velocities(
    times: np.ndarray,
    seen: np.ndarray,
    measured: np.ndarray,
    sigma: np.ndarray,
    balls: np.ndarray,
    since: np.ndarray,
    fallback: np.ndarray,
    limits: np.ndarray,
) -> np.ndarray:
    """Each of ``balls``' velocity (mm/s) from a least-squares line through its centres on the
    last frames of a window: the longest run of frames, ending at the window's last and all
    after the ball's ``since`` time and seen, that a line explains (chi-square at most
    ``limits[n]`` for n frames, the centres' ``sigma`` (nan: 1 mm) as their noise; two
    frames always fit). ``fallback`` (balls, 2) where fewer than two such frames were seen.

    Args:
        times: (frames,) frame times.
        seen: (frames, 16) seen flags.
        measured: (frames, 16, 2) measured centres.
        sigma: (frames, 16) their sigmas.
        balls: (b,) rows.
        since: (b,) when each ball last turned (its frames must be later).
        fallback: (b, 2) velocities to keep where no line fits.
        limits: (frames + 1,) chi-square limit by number of frames.
    """
    out = fallback.copy()
    total = len(times)
    for k in range(len(balls)):
        r = balls[k]
        run = 0
        while run < total and seen[total - 1 - run, r] and times[total - 1 - run] > since[k]:
            run += 1
        for n in range(run, 1, -1):
            first = total - n
            t_mean = 0.0
            x_mean = 0.0
            y_mean = 0.0
            for f in range(first, total):
                t_mean += times[f]
                x_mean += measured[f, r, 0]
                y_mean += measured[f, r, 1]
            t_mean /= n
            x_mean /= n
            y_mean /= n
            stt = 0.0
            stx = 0.0
            sty = 0.0
            for f in range(first, total):
                c = times[f] - t_mean
                stt += c * c
                stx += c * (measured[f, r, 0] - x_mean)
                sty += c * (measured[f, r, 1] - y_mean)
            vx, vy = stx / stt, sty / stt
            misfit = 0.0
            for f in range(first, total):
                c = times[f] - t_mean
                s = sigma[f, r] if sigma[f, r] == sigma[f, r] else 1.0
                ex = measured[f, r, 0] - x_mean - c * vx
                ey = measured[f, r, 1] - y_mean - c * vy
                misfit += (ex * ex + ey * ey) / (s * s)
            if misfit <= limits[n]:
                out[k, 0] = vx
                out[k, 1] = vy
                break
    return out
