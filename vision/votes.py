"""Edge pixels voting for ball centres one radius away (`vision.circles.edge_votes`), compiled.

Per pixel of the working grid inside the region asked: the colour gradient (Sobel, 3 x 3, each
channel; borders reflected as OpenCV's default), Di Zenzo's edge strength and direction, and for
an edge pixel its two votes one expected radius away on both sides. As numpy expressions over a
rectangle this was a dozen passes over float32 copies of it, and the Sobel of every pixel even
where no edge can count (most of the grid in the whole-frame search); here it is one pass over
the pixels asked, in whole numbers where the expressions were (the gradients, their energy),
so the same pixels vote for the same places.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def edge_votes(
    small: np.ndarray,
    roi: np.ndarray,
    radius: np.ndarray,
    x0: int,
    y0: int,
    x1: int,
    y1: int,
    threshold: float,
) -> np.ndarray:
    """The vote map of a rectangle of the working grid, (y1 - y0, x1 - x0) float32: the
    rectangle is treated as an image of its own (its borders reflected, votes beyond it lost).

    Args:
        small: (H, W, 3) uint8 BGR working grid.
        roi: (H, W) uint8, non-zero where an edge pixel may vote.
        radius: (H, W) float32 expected ball radius at each pixel, working pixels.
        x0, y0, x1, y1: The rectangle (x1, y1 exclusive).
        threshold: Colour-gradient magnitude (Sobel, over the channels) of an edge pixel.
    """
    h, w = y1 - y0, x1 - x0
    acc = np.zeros((h, w), dtype=np.float32)
    limit = np.float32(threshold * threshold)
    for y in range(h):
        ym, yp = y0 + _reflect(y - 1, h), y0 + _reflect(y + 1, h)
        for x in range(w):
            if roi[y0 + y, x0 + x] == 0:
                continue
            xm, xp = x0 + _reflect(x - 1, w), x0 + _reflect(x + 1, w)
            yc, xc = y0 + y, x0 + x
            a = 0
            b = 0
            c = 0
            for ch in range(3):
                tl, tc = int(small[ym, xm, ch]), int(small[ym, xc, ch])
                tr, ml = int(small[ym, xp, ch]), int(small[yc, xm, ch])
                mr, bl = int(small[yc, xp, ch]), int(small[yp, xm, ch])
                bc, br = int(small[yp, xc, ch]), int(small[yp, xp, ch])
                gx = (tr + 2 * mr + br) - (tl + 2 * ml + bl)
                gy = (bl + 2 * bc + br) - (tl + 2 * tc + tr)
                a += gx * gx
                b += gy * gy
                c += gx * gy
            energy = a + b
            if np.float32(energy) <= limit:
                continue
            theta = np.float32(0.5) * np.float32(
                math.atan2(np.float32(2 * c), np.float32(a) - np.float32(b))
            )
            r = radius[yc, xc]
            dx = np.float64(r * np.float32(math.cos(theta)))
            dy = np.float64(r * np.float32(math.sin(theta)))
            for sign in (1.0, -1.0):
                vx = int(np.rint(x + sign * dx))
                vy = int(np.rint(y + sign * dy))
                if 0 <= vx < w and 0 <= vy < h:
                    acc[vy, vx] += 1
    return acc


@njit(cache=True, nogil=True)
def local_maxima(
    smooth: np.ndarray, minimum: np.ndarray, spacing: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pixels of a (smoothed) vote map that are the greatest within a ``spacing``-wide
    square around them (`cv2.dilate`'s, the map's edge not extended) and above their own
    ``minimum``: rows, columns and values, row by row.

    Args:
        smooth: (h, w) float32 vote map.
        minimum: (h, w) float32 each pixel's least value for a peak.
        spacing: The square's side, pixels.
    """
    h, w = smooth.shape
    lo = spacing // 2
    hi = spacing - 1 - lo
    ys = np.empty(h * w, np.int64)
    xs = np.empty(h * w, np.int64)
    values = np.empty(h * w, np.float32)
    m = 0
    for y in range(h):
        for x in range(w):
            v = smooth[y, x]
            if not v > minimum[y, x]:
                continue
            top = True
            for yy in range(max(y - lo, 0), min(y + hi, h - 1) + 1):
                for xx in range(max(x - lo, 0), min(x + hi, w - 1) + 1):
                    if smooth[yy, xx] > v:
                        top = False
                        break
                if not top:
                    break
            if top:
                ys[m], xs[m], values[m] = y, x, v
                m += 1
    return ys[:m], xs[:m], values[:m]


@njit(cache=True, nogil=True, inline="always")
def _reflect(p: int, size: int) -> int:
    """A pixel index past an edge reflected back, the edge pixel not repeated (OpenCV's
    BORDER_REFLECT_101)."""
    if size == 1:
        return 0
    if p < 0:
        return -p
    if p >= size:
        return 2 * size - 2 - p
    return p
