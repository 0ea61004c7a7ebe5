"""Every ball's colour statistics in one pass: the pixels of all discs gathered at once.

Naming a ball needs its disc's pixels (rim left out) and the ring just inside its rim, split into
white, black and coloured (`calibration.colour.ball_pixels`), and the share of the ring that shows
a stripe's band (`vision.identity.band_fraction`). Done ball by ball that is a dozen small numpy
calls each; here all balls' pixels are gathered in one compiled pass, converted to Lab with one
`cv2.cvtColor`, and tallied per ball in another (the same tests in the same float32 precision),
with the same results.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numba import njit

from calibration.colour import WHITE_CHROMA, BallPixels
from vision.identity import BAND_DARK_L, CLOTH_BAND, PixelArrays

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
    reach = math.ceil(float(radii.max())) + 1 if n else 0
    bgr, ball, in_disc = _gather(
        np.ascontiguousarray(image),
        centres,
        radii,
        reach,
        _DISC * _DISC,
        _RING[0] ** 2,
        _RING[1] ** 2,
    )
    # One row of pixels (OpenCV converts row by row: a column of single pixels is slow). No
    # pixel at all when every ball is off the frame: cvtColor refuses an empty image.
    lab = cv2.cvtColor(bgr.reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3) if len(bgr) else bgr
    ca, cb = cloth_lab[1] - 128.0, cloth_lab[2] - 128.0
    counts, sums, bands = _tally(lab, ball, in_disc, n, ca, cb, math.hypot(ca, cb))
    both = _pixel_arrays(counts, sums)
    return both.part(slice(0, n)), both.part(slice(n, 2 * n)), bands


@njit(cache=True, nogil=True)
def _gather(
    image: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    reach: int,
    disc2: float,
    ring_in2: float,
    ring_out2: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ball's pixels in its disc or its ring, ball by ball, row by row: their BGR (m, 3),
    their ball (m,) and whether each is in the disc (else only in the ring; a pixel in both
    counts for both) as 0 ring only, 1 disc only, 2 both."""
    h, w = image.shape[0], image.shape[1]
    n = len(radii)
    most = n * (2 * reach + 1) ** 2
    bgr = np.empty((most, 3), np.uint8)
    ball = np.empty(most, np.int64)
    where = np.empty(most, np.int8)
    m = 0
    for i in range(n):
        cx, cy = centres[i, 0], centres[i, 1]
        bx, by = int(cx), int(cy)
        r2 = radii[i] * radii[i]
        for dy in range(-reach, reach + 1):
            y = by + dy
            if y < 0 or y >= h:
                continue
            dy2 = (y - cy) ** 2
            for dx in range(-reach, reach + 1):
                x = bx + dx
                if x < 0 or x >= w:
                    continue
                d2 = dy2 + (x - cx) ** 2
                disc = d2 <= disc2 * r2
                ring = d2 <= ring_out2 * r2 and d2 >= ring_in2 * r2
                if not (disc or ring):
                    continue
                bgr[m, 0], bgr[m, 1], bgr[m, 2] = image[y, x, 0], image[y, x, 1], image[y, x, 2]
                ball[m] = i
                where[m] = 2 if disc and ring else (1 if disc else 0)
                m += 1
    return bgr[:m], ball[:m], where[:m]


@njit(cache=True, nogil=True)
def _tally(
    lab: np.ndarray,
    ball: np.ndarray,
    where: np.ndarray,
    n: int,
    ca: float,
    cb: float,
    norm: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group (ball i's disc is group i, its ring group n + i): pixel counts (2n, 4) of all,
    white, dark and coloured pixels, and Lab sums (2n, 2, 3) of the coloured and the white
    ones; and each ring's band fraction (n,). The same float32 tests as
    `calibration.colour.ball_pixels` and `vision.identity.band_evidence`."""
    counts = np.zeros((2 * n, 4))
    sums = np.zeros((2 * n, 2, 3))
    band_hits = np.zeros(n)
    ring_count = np.zeros(n)
    white_chroma = np.float32(WHITE_CHROMA)
    f128 = np.float32(128.0)
    ca32, cb32, norm32 = np.float32(ca), np.float32(cb), np.float32(norm)
    cloth_band = np.float32(CLOTH_BAND)
    for p in range(len(ball)):
        lightness = np.float32(lab[p, 0])
        a, b = np.float32(lab[p, 1]) - f128, np.float32(lab[p, 2]) - f128
        chroma = np.float32(math.hypot(a, b))
        neutral = chroma < white_chroma
        white = neutral and lightness >= np.float32(_WHITE_L)
        dark = neutral and lightness < np.float32(_DARK_L)
        if neutral and not (white or dark):  # grey: the nearer of the two
            white = lightness >= np.float32((_WHITE_L + _DARK_L) / 2)
            dark = not white
        coloured = not neutral
        i = ball[p]
        for group, member in ((i, where[p] >= 1), (n + i, where[p] != 1)):
            if not member:
                continue
            counts[group, 0] += 1
            if white:
                counts[group, 1] += 1
                for ch in range(3):
                    sums[group, 1, ch] += np.float64(lab[p, ch])
            if dark:
                counts[group, 2] += 1
            if coloured:
                counts[group, 3] += 1
                for ch in range(3):
                    sums[group, 0, ch] += np.float64(lab[p, ch])
        if where[p] != 1:
            ring_count[i] += 1
            if norm < 1.0:
                clothlike = chroma < cloth_band
            else:
                along = (a * ca32 + b * cb32) / norm32
                across = abs(b * ca32 - a * cb32) / norm32
                clothlike = across < cloth_band and along > 0
            if (chroma >= white_chroma or lightness < np.float32(BAND_DARK_L)) and not clothlike:
                band_hits[i] += 1
    bands = np.zeros(n)
    for i in range(n):
        if ring_count[i] > 0:
            bands[i] = band_hits[i] / ring_count[i]
    return counts, sums, bands


def _pixel_arrays(counts: np.ndarray, sums: np.ndarray) -> PixelArrays:
    """`calibration.colour.ball_pixels` of every group from its counts and sums."""
    return PixelArrays(*_pixel_stats(counts, sums))


@njit(cache=True, nogil=True)
def _pixel_stats(
    counts: np.ndarray, sums: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group: the white, dark and coloured shares and the mean Lab of the coloured and of
    the white pixels (NaN for fewer than two). Lab pixels are whole numbers, so the sums are
    exact; dividing in float32, as the mean of the per-ball path does, gives its very bits (a
    near tie in the assignment must not flip)."""
    m = len(counts)
    white = np.empty(m)
    dark = np.empty(m)
    coloured = np.empty(m)
    colour_lab = np.full((m, 3), np.nan)
    white_lab = np.full((m, 3), np.nan)
    for g in range(m):
        per = max(counts[g, 0], 1.0)
        white[g] = counts[g, 1] / per
        dark[g] = counts[g, 2] / per
        coloured[g] = counts[g, 3] / per
        for kind, count, out in ((0, counts[g, 3], colour_lab), (1, counts[g, 1], white_lab)):
            if count >= 2:
                for ch in range(3):
                    out[g, ch] = np.float64(np.float32(sums[g, kind, ch]) / np.float32(count))
    return white, dark, colour_lab, coloured, white_lab
