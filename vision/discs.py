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
from vision.identity import band_evidence

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
    """Per ball: its disc's `BallPixels`, its ring's, and the ring's band fraction.

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
        return []
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
    bgr = image[ys[ball, iy], xs[ball, ix]]
    # (No pixel at all when every ball is off the frame: cvtColor refuses an empty image.)
    lab = cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB) if len(bgr) else bgr
    lab = lab.reshape(-1, 3).astype(np.float32)
    in_disc = disc[ball, iy, ix]
    in_ring = ring[ball, iy, ix]
    discs = _ball_pixels(lab[in_disc], ball[in_disc], n)
    rings = _ball_pixels(lab[in_ring], ball[in_ring], n)
    band = band_evidence(lab[in_ring], cloth_lab)
    count = np.bincount(ball[in_ring], minlength=n)
    hits = np.bincount(ball[in_ring], weights=band, minlength=n)
    bands = np.where(count > 0, hits / np.maximum(count, 1), 0.0)
    return [(discs[i], rings[i], float(bands[i])) for i in range(n)]


def _ball_pixels(px: np.ndarray, ball: np.ndarray, n: int) -> list[BallPixels]:
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
    out = []
    n_white = np.bincount(ball, weights=white, minlength=n)
    n_dark = np.bincount(ball, weights=dark, minlength=n)
    n_col = np.bincount(ball, weights=coloured, minlength=n)
    sums_col = [np.bincount(ball, weights=px[:, c] * coloured, minlength=n) for c in range(3)]
    sums_white = [np.bincount(ball, weights=px[:, c] * white, minlength=n) for c in range(3)]
    for i in range(n):
        t = total[i]
        if t == 0:
            out.append(BallPixels(0.0, 0.0, None, 0.0, None))
            continue
        out.append(
            BallPixels(
                float(n_white[i] / t),
                float(n_dark[i] / t),
                _mean(sums_col, n_col[i], i),
                float(n_col[i] / t),
                _mean(sums_white, n_white[i], i),
            )
        )
    return out


def _mean(sums: list[np.ndarray], count: float, i: int) -> tuple[float, float, float] | None:
    if count < 2:
        return None
    # Lab pixels are whole numbers, so the sums are exact; dividing in float32, as the mean of
    # the per-ball path does, gives its very bits (a near tie in the assignment must not flip).
    n = np.float32(count)
    return tuple(float(np.float32(sums[c][i]) / n) for c in range(3))
