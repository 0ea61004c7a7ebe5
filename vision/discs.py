"""Every ball's colour statistics in one pass: the pixels of all discs gathered at once.

Naming a ball needs its disc's pixels (rim left out) and the ring just inside its rim, split into
white, black and coloured (`calibration.colour.ball_pixels`), and the share of the ring that shows
a stripe's band (`vision.identity.band_fraction`). Done ball by ball that is a dozen small numpy
calls each; here all balls' pixels are gathered with one index, converted to Lab with one
`cv2.cvtColor`, and summed per ball with `np.bincount`, with the same results.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.colour import WHITE_CHROMA, BallPixels
from vision.identity import PixelArrays, band_evidence

_DISC = 0.9  # the disc: within this share of the radius (the rim is shaded)
_RING = (0.7, 0.97)  # the ring just inside the rim, shares of the radius
_WHITE_L = 165.0
_DARK_L = 70.0


def disc_stats(
    image: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    cloth_lab: tuple[float, float, float],
) -> list[tuple[BallPixels, BallPixels, float]]:
    """Per ball: its disc's `BallPixels`, its ring's, and the ring's band fraction (see
    `disc_arrays`, which gives the same as arrays)."""
    discs, rings, bands = disc_arrays(image, centres, radii, cloth_lab)
    return [(discs.row(i), rings.row(i), float(bands[i])) for i in range(len(bands))]


def disc_arrays(
    image: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    cloth_lab: tuple[float, float, float],
) -> tuple[PixelArrays, PixelArrays, np.ndarray]:
    """All balls' discs' and rings' statistics, and the rings' band fractions, (n,).

    Args:
        image: The full-resolution BGR frame.
        centres: (n, 2) ball centres, pixels.
        radii: (n,) ball radii, pixels.
        cloth_lab: The cloth's Lab (a rim pixel tinged by the cloth is no band).
    """
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    n = len(centres)
    if n == 0:
        none = _ball_pixels(np.zeros((0, 3), np.float32), np.zeros(0, np.int64), 0)
        return none, none, np.zeros(0)
    h, w = image.shape[:2]
    reach = math.ceil(float(radii.max())) + 1
    offsets = np.arange(-reach, reach + 1)
    base = np.trunc(centres).astype(np.int64)
    xs = base[:, 0, None] + offsets[None]  # (n, k)
    ys = base[:, 1, None] + offsets[None]
    dx2 = (xs - centres[:, 0, None]) ** 2
    dy2 = (ys - centres[:, 1, None]) ** 2
    d2 = dy2[:, :, None] + dx2[:, None, :]  # (n, k, k)
    r2 = (radii**2)[:, None, None]
    disc = d2 <= (_DISC * _DISC) * r2
    ring = (d2 <= (_RING[1] ** 2) * r2) & (d2 >= (_RING[0] ** 2) * r2)
    valid = ((ys >= 0) & (ys < h))[:, :, None] & ((xs >= 0) & (xs < w))[:, None, :]
    disc &= valid
    ring &= valid
    ball, iy, ix = np.nonzero(disc | ring)
    flat = image.reshape(-1, 3)
    bgr = flat[ys[ball, iy] * w + xs[ball, ix]]
    # One row of pixels (OpenCV converts row by row: a column of single pixels is slow). No
    # pixel at all when every ball is off the frame: cvtColor refuses an empty image.
    lab = cv2.cvtColor(bgr.reshape(1, -1, 3), cv2.COLOR_BGR2LAB) if len(bgr) else bgr
    lab = lab.reshape(-1, 3).astype(np.float32)
    in_disc = disc[ball, iy, ix]
    in_ring = ring[ball, iy, ix]
    # Discs and rings (which overlap) summed in one pass: ball i's ring is group n + i.
    pick = np.concatenate((np.flatnonzero(in_disc), np.flatnonzero(in_ring)))
    group = np.concatenate((ball[in_disc], ball[in_ring] + n))
    both = _ball_pixels(lab[pick], group, 2 * n)
    discs, rings = both.part(slice(0, n)), both.part(slice(n, 2 * n))
    band = band_evidence(lab[in_ring], cloth_lab)
    count = np.bincount(ball[in_ring], minlength=n)
    hits = np.bincount(ball[in_ring], weights=band, minlength=n)
    bands = np.where(count > 0, hits / np.maximum(count, 1), 0.0)
    return discs, rings, bands


def _ball_pixels(px: np.ndarray, ball: np.ndarray, n: int) -> PixelArrays:
    """`calibration.colour.ball_pixels` of every ball's pixels (``ball``: each pixel's ball)."""
    chroma = np.hypot(px[:, 1] - 128.0, px[:, 2] - 128.0)
    neutral = chroma < WHITE_CHROMA
    white = neutral & (px[:, 0] >= _WHITE_L)
    dark = neutral & (px[:, 0] < _DARK_L)
    coloured = ~(white | dark)
    grey = coloured & neutral
    white |= grey & (px[:, 0] >= (_WHITE_L + _DARK_L) / 2)
    dark |= grey & (px[:, 0] < (_WHITE_L + _DARK_L) / 2)
    coloured &= ~neutral
    total = np.bincount(ball, minlength=n).astype(np.float64)
    per = np.maximum(total, 1.0)
    n_white = np.bincount(ball, weights=white, minlength=n)
    n_dark = np.bincount(ball, weights=dark, minlength=n)
    n_col = np.bincount(ball, weights=coloured, minlength=n)
    return PixelArrays(
        n_white / per,
        n_dark / per,
        _means(px, ball, coloured, n_col, n),
        n_col / per,
        _means(px, ball, white, n_white, n),
    )


def _means(px: np.ndarray, ball: np.ndarray, mask: np.ndarray, count: np.ndarray, n: int):
    """Per ball, the mean Lab of its pixels in ``mask``, (n, 3); NaN for fewer than two."""
    sums = np.column_stack(
        [np.bincount(ball, weights=px[:, c] * mask, minlength=n) for c in range(3)]
    ).reshape(n, 3)
    # Lab pixels are whole numbers, so the sums are exact; dividing in float32, as the mean of
    # the per-ball path does, gives its very bits (a near tie in the assignment must not flip).
    mean = (sums.astype(np.float32) / np.maximum(count, 1).astype(np.float32)[:, None]).astype(
        np.float64
    )
    return np.where((count >= 2)[:, None], mean, np.nan)
