"""Ball outlines of a known size: candidate centres by gradient voting, then a sub-pixel fit.

Every ball is a circle of a radius the camera model predicts at that place, so each edge pixel
votes for the two points one radius away along its gradient (Hough with the radius known). Balls
frozen together keep most of their outline (their shaded rims meet in a dark crease), so a full
rack gives fifteen clean peaks where a blob or a distance transform would see one lump.

Each candidate is then fitted at full resolution: the image is unrolled around it in polar
coordinates (one `cv2.remap` for all candidates), the outline is the strongest radial colour
step near the expected radius on each ray, and ``r(theta) = R + dx cos(theta) + dy sin(theta)``
is solved by robust least squares for the centre offset and the radius.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

_ANGLES = 48
_STEP_PX = 0.5


@dataclass(frozen=True, slots=True)
class CircleFit:
    """One fitted ball outline, full-resolution pixels.

    Attributes:
        centre: (x, y) of the outline's centre.
        radius: Fitted radius.
        expected: The radius the camera model predicts there.
        support: Share of rays whose outline point agrees with the fit (0-1).
        residual: RMS distance of the agreeing outline points from the circle.
    """

    centre: np.ndarray
    radius: float
    expected: float
    support: float
    residual: float


def edge_directions(small: np.ndarray, roi: np.ndarray, threshold: float) -> tuple[np.ndarray, ...]:
    """Edge pixels of a colour image and their gradient directions (Di Zenzo's colour gradient).

    Returns:
        ys, xs, cos, sin, strength of every pixel whose colour gradient exceeds ``threshold``
        inside ``roi``.
    """
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    jxx = cv2.transform(gx * gx, np.ones((1, 3), np.float32))
    jyy = cv2.transform(gy * gy, np.ones((1, 3), np.float32))
    energy = jxx + jyy
    ys, xs = np.nonzero((energy > threshold * threshold) & (roi > 0))
    if len(ys) == 0:
        empty = np.zeros(0, dtype=np.float32)
        return ys, xs, empty, empty, empty
    gxs, gys = gx[ys, xs], gy[ys, xs]
    a = (gxs * gxs).sum(axis=1)
    b = (gys * gys).sum(axis=1)
    c = (gxs * gys).sum(axis=1)
    theta = 0.5 * np.arctan2(2 * c, a - b)
    return ys, xs, np.cos(theta), np.sin(theta), np.sqrt(energy[ys, xs])


def vote(
    shape: tuple[int, int],
    ys: np.ndarray,
    xs: np.ndarray,
    cos: np.ndarray,
    sin: np.ndarray,
    radius: np.ndarray,
) -> np.ndarray:
    """Accumulate each edge pixel's votes one radius away on both sides, (h, w) float32."""
    h, w = shape
    r = radius[ys, xs]
    acc = np.zeros(h * w, dtype=np.float64)
    for sign in (1.0, -1.0):
        vx = np.round(xs + sign * r * cos).astype(np.int64)
        vy = np.round(ys + sign * r * sin).astype(np.int64)
        ok = (vx >= 0) & (vx < w) & (vy >= 0) & (vy < h)
        acc += np.bincount(vy[ok] * w + vx[ok], minlength=h * w)
    return acc.reshape(h, w).astype(np.float32)


def peaks(acc: np.ndarray, minimum: np.ndarray, spacing: int) -> np.ndarray:
    """Local maxima of a vote map above a per-pixel minimum, (n, 2) as (x, y), strongest first."""
    smooth = cv2.GaussianBlur(acc, (3, 3), 0.8)
    dilated = cv2.dilate(smooth, np.ones((spacing, spacing), np.uint8))
    ys, xs = np.nonzero((smooth >= dilated) & (smooth > minimum))
    order = np.argsort(-smooth[ys, xs])
    return np.column_stack((xs[order], ys[order])).astype(np.float64)


def fit_circles(
    image: np.ndarray,
    centres: np.ndarray,
    expected: np.ndarray,
    iterations: int = 2,
    allowed: np.ndarray | None = None,
    scale: int = 1,
) -> list[CircleFit]:
    """Fit ball outlines near ``centres`` in a full-resolution image, all at once.

    Args:
        image: BGR image (uint8).
        centres: (n, 2) starting centres (x, y), within a few pixels.
        expected: (n,) expected radii, pixels.
        iterations: Re-centrings of the polar unrolling after the first, wide search.
        allowed: Where an outline may be (a mask, non-zero inside, at 1/``scale`` of the
            image's resolution): a ball frozen to a cushion must not take the cushion's edge.
        scale: Image pixels per ``allowed`` pixel.
    """
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 2).copy()
    exp = np.asarray(expected, dtype=np.float64).reshape(-1)
    n = len(c)
    if n == 0:
        return []
    max_r = 1.4 * float(exp.max())
    bins = max(math.ceil(max_r / _STEP_PX), 8)
    step_px = max_r / bins
    angles = np.arange(_ANGLES) * (2 * math.pi / _ANGLES)
    cos, sin = np.cos(angles), np.sin(angles)
    design = np.column_stack((np.ones(_ANGLES), cos, sin))
    # Only the band where an outline may be (0.72-1.32 of the expected radius, and two steps
    # either side) is sampled: a radial step at sample k compares samples k - 1 and k + 1.
    k_lo = max(math.floor(0.72 * float(exp.min()) / step_px) - 2, 1)
    k_hi = min(math.ceil(1.32 * float(exp.max()) / step_px) + 3, bins - 1)
    radii = np.arange(k_lo, k_hi) * step_px
    rho = np.arange(k_lo - 1, k_hi + 1) * step_px
    ray_x = (cos[:, None] * rho[None, :]).astype(np.float32)
    ray_y = (sin[:, None] * rho[None, :]).astype(np.float32)
    rel = radii[None, :] / exp[:, None]
    prior = np.exp(-0.5 * ((rel - 1.0) / 0.12) ** 2).astype(np.float32)[:, None, :]
    wide = prior * ((rel > 0.72) & (rel < 1.32))[:, None, :]
    narrow = prior * ((rel > 0.88) & (rel < 1.1))[:, None, :]
    outer = (design[:, :, None] * design[:, None, :]).reshape(_ANGLES, 9)
    rows, cols = np.arange(n)[:, None], np.arange(_ANGLES)[None, :]
    fit_r = exp.copy()
    err = np.zeros((n, _ANGLES))
    good = np.zeros((n, _ANGLES), dtype=bool)
    for it in range(iterations + 1):
        # All candidates' rays in one remap: (n * angles) rows of samples along each ray.
        map_x = (c[:, 0, None, None].astype(np.float32) + ray_x[None]).reshape(n * _ANGLES, -1)
        map_y = (c[:, 1, None, None].astype(np.float32) + ray_y[None]).reshape(n * _ANGLES, -1)
        polar = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        polar = polar.astype(np.float32).reshape(n, _ANGLES, len(rho), -1)
        step = polar[:, :, 2:] - polar[:, :, :-2]
        energy = np.einsum("nabc,nabc->nab", step, step) * (narrow if it else wide)
        if allowed is not None:
            energy *= _inside(allowed, scale, map_x, map_y, energy.shape)
        peak = energy.max(axis=2, keepdims=True)
        # The outline is the outermost strong step on each ray: a stripe's cap or a number
        # disc can be stronger, but it is never outside (the first pass takes the strongest).
        local = np.zeros(energy.shape, dtype=bool)
        local[..., 1:-1] = (energy[..., 1:-1] >= energy[..., :-2]) & (
            energy[..., 1:-1] >= energy[..., 2:]
        )
        strong = local & (energy >= (0.35 if it else 1.0) * peak) & (peak > 0)
        last = energy.shape[2] - 1
        k = np.where(strong.any(axis=2), last - np.argmax(strong[..., ::-1], axis=2), 0)
        k = np.minimum(np.maximum(k, 1), last - 1)
        e0 = energy[rows, cols, k - 1]
        e1 = energy[rows, cols, k]
        e2 = energy[rows, cols, k + 1]
        denom = e0 - 2 * e1 + e2
        offset = np.where(denom < 0, 0.5 * (e0 - e2) / np.where(denom < 0, denom, -1), 0.0)
        r = radii[k] + np.minimum(np.maximum(offset, -1), 1) * step_px
        typical = np.median(e1, axis=1, keepdims=True)
        good = (e1 > 0.15 * typical) & (e1 > 0)
        sol = np.zeros((n, 3))
        for _ in range(2):
            sol = _weighted_fit(design, outer, r, good)
            err = np.abs(sol @ design.T - r)
            med = _masked_median(err, good)
            keep = good & (err < np.maximum(1.0, 2.5 * med)[:, None])
            enough = keep.sum(axis=1) >= 8
            good = np.where(enough[:, None], keep, good)
        fit_r = sol[:, 0]
        moved = np.hypot(sol[:, 1], sol[:, 2])
        c = c + np.where(good.sum(axis=1, keepdims=True) >= 8, sol[:, 1:], 0.0)
        if it > 0 and moved.max() < 0.05:
            break
    fits = []
    for i in range(n):
        ok = good[i]
        if ok.sum() < 8:
            fits.append(CircleFit(c[i], float(exp[i]), float(exp[i]), 0.0, math.inf))
            continue
        support = float(np.mean(ok & (err[i] < 1.2)))
        residual = float(np.sqrt(np.mean(err[i][ok] ** 2)))
        fits.append(CircleFit(c[i], float(fit_r[i]), float(exp[i]), support, residual))
    return fits


def _inside(
    allowed: np.ndarray,
    scale: int,
    map_x: np.ndarray,
    map_y: np.ndarray,
    shape: tuple[int, ...],
) -> np.ndarray:
    """1 where a radial step's sample (between the samples of the maps) lies where an outline
    may be, else 0, shaped like the steps (n, angles, radii)."""
    mx = (0.5 * (map_x[:, :-2] + map_x[:, 2:]) - (scale - 1) / 2) / scale
    my = (0.5 * (map_y[:, :-2] + map_y[:, 2:]) - (scale - 1) / 2) / scale
    inside = cv2.remap(allowed, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
    return (inside > 0).reshape(shape).astype(np.float32)


def _masked_median(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Median of each row's masked values (0 for an empty row), without a Python loop."""
    ordered = np.sort(np.where(mask, values, np.inf), axis=1)
    count = mask.sum(axis=1)
    every = np.arange(len(values))
    lo = ordered[every, np.maximum((count - 1) // 2, 0)]
    hi = ordered[every, np.minimum(count // 2, values.shape[1] - 1)]
    return np.where(count > 0, 0.5 * (lo + hi), 0.0)


def _weighted_fit(
    design: np.ndarray, outer: np.ndarray, r: np.ndarray, good: np.ndarray
) -> np.ndarray:
    """Per row, least squares of r(theta) = R + dx cos + dy sin over the good rays, (n, 3).

    ``outer`` holds each ray's design row's outer product with itself, flattened (angles, 9).
    """
    w = good.astype(np.float64)
    ata = (w @ outer).reshape(-1, 3, 3) + np.eye(3) * 1e-9
    atb = (w * r) @ design
    return np.linalg.solve(ata, atb[..., None])[..., 0]


def fit_circle(image: np.ndarray, centre: np.ndarray, expected: float) -> CircleFit:
    """Fit one ball outline near ``centre`` (see `fit_circles`)."""
    return fit_circles(image, np.asarray(centre).reshape(1, 2), np.array([expected]))[0]
