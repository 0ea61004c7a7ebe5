"""Foreign pixels: where the working-grid image is not the empty cloth the colour model predicts.

A pixel is foreign where its colour leaves the cloth's after allowing for a brightness gain (so
shadows and the light's fall-off stay cloth), or where it is far brighter or darker than any
shade of cloth. Besides the hard mask, a soft weight (0-1) rises a little below the thresholds:
a streak's faint ends and a ball's cloth-coloured rim still count for part.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from vision.regions import Rect


@njit(cache=True, nogil=True)
def _foreign(
    image: np.ndarray,
    cloth: np.ndarray,
    inv_bb: np.ndarray,
    bed: np.ndarray,
    bare: np.ndarray,
    x0: int,
    y0: int,
    x1: int,
    y1: int,
    ox: int,
    oy: int,
    per_chroma: float,
    per_bright: float,
    per_dark: float,
    mask: np.ndarray,
    weight: np.ndarray,
) -> None:
    """The test, pixel by pixel, of the grid's rectangle (x0, y0)-(x1, y1): ``image``,
    ``mask`` and ``weight`` start at the grid's pixel (ox, oy), the per-pixel maps at its
    corner. One pass in float32, operation for operation as the array expressions it
    replaces (a dozen passes over float32 copies of the rectangle). Off the bed (``bare``
    non-zero there) the answer is 0 whatever the pixel, and is written without the test."""
    kc, kb, kd = np.float32(per_chroma), np.float32(per_bright), np.float32(per_dark)
    one, zero = np.float32(1.0), np.float32(0.0)
    for y in range(y0, y1):
        iy = y - oy
        for x in range(x0, x1):
            ix = x - ox
            if bare[y, x]:
                weight[iy, ix] = zero
                mask[iy, ix] = 0
                continue
            b, g, r = (
                np.float32(image[iy, ix, 0]),
                np.float32(image[iy, ix, 1]),
                np.float32(image[iy, ix, 2]),
            )
            cb, cg, cr = cloth[y, x, 0], cloth[y, x, 1], cloth[y, x, 2]
            # With gain the best brightness gain fitting the pixel to the cloth, the colour
            # departure |img - gain cloth|^2 / |cloth|^2 = |img|^2 / |cloth|^2 - gain^2.
            gain = (b * cb + g * cg + r * cr) * inv_bb[y, x]
            departure = (b * b + g * g + r * r) * inv_bb[y, x] - gain * gain
            chroma = np.float32(math.sqrt(max(departure, zero)))
            score = max(chroma * kc, max((gain - one) * kb, (one - gain) * kd))
            # Foreign from a score of 1 (the thresholds); the soft weight starts a little below.
            w = min(max((score - np.float32(0.6)) * np.float32(2.5), zero), one) * bed[y, x]
            weight[iy, ix] = w
            mask[iy, ix] = 255 if w >= np.float32(0.999) else 0


class ClothContrast:
    """The empty cloth's prediction on the working grid, and the test against it.

    Args:
        cloth: (h, w, 3) float32 predicted empty-cloth BGR.
        bed: (h, w) uint8, non-zero on the playing surface (the only place the test holds).
        chroma_threshold: Colour departure from the cloth (relative, after a brightness gain)
            that makes a pixel foreign.
        bright_gain: A pixel this much brighter than the cloth there is foreign.
        dark_gain: A pixel darker than this fraction of the cloth there is foreign.
    """

    def __init__(
        self,
        cloth: np.ndarray,
        bed: np.ndarray,
        chroma_threshold: float,
        bright_gain: float,
        dark_gain: float,
    ) -> None:
        self.cloth = cloth
        self.bed = bed
        self._bed = (bed > 0).astype(np.float32)
        self._inv_bb = 1.0 / ((cloth * cloth).sum(axis=2) + 1.0)
        # Off the bed a finite test's weight is 0 times a finite number: 0, not worth testing.
        finite = np.isfinite(cloth).all(axis=2) & np.isfinite(self._inv_bb)
        self._bare = ((bed == 0) & finite).astype(np.uint8)
        self.level = float(np.median(cloth[bed > 0].max(axis=1)))
        """The brightest channel of the cloth, typical over the bed (a pocket is far darker)."""
        self._chroma = chroma_threshold
        self._bright = bright_gain
        self._dark = dark_gain

    def foreign(self, small: np.ndarray, rect: Rect) -> tuple[np.ndarray, np.ndarray]:
        """Mask (uint8 0/255) and soft weight (float32 0-1) of the pixels of ``small`` (the
        working-grid image cut to ``rect``) that are not cloth."""
        x0, y0, x1, y1 = rect
        mask = np.empty((y1 - y0, x1 - x0), np.uint8)
        weight = np.empty((y1 - y0, x1 - x0), np.float32)
        self.foreign_into(np.ascontiguousarray(small), rect, mask, weight, (x0, y0))
        return mask, weight

    def foreign_into(
        self,
        image: np.ndarray,
        rect: Rect,
        mask: np.ndarray,
        weight: np.ndarray,
        at: tuple[int, int] = (0, 0),
    ) -> None:
        """`foreign` of a rectangle of the working grid, written into ``mask`` and ``weight``.

        Args:
            image: The working-grid image (BGR uint8), or its part from ``at`` on.
            rect: The rectangle, working grid.
            mask: Where the mask goes (uint8), from ``at`` on.
            weight: Where the weight goes (float32), from ``at`` on.
            at: The working-grid pixel that ``image``'s, ``mask``'s and ``weight``'s first
                elements are (the whole grid's arrays: (0, 0)).
        """
        x0, y0, x1, y1 = rect
        ax, ay = at
        _foreign(
            image,
            self.cloth,
            self._inv_bb,
            self._bed,
            self._bare,
            x0,
            y0,
            x1,
            y1,
            ax,
            ay,
            1.0 / self._chroma,
            1.0 / (self._bright - 1.0),
            1.0 / (1.0 - self._dark),
            mask,
            weight,
        )

    def no_cloth(self, foreign: np.ndarray) -> bool:
        """Whether a frame's foreign mask leaves (almost) no cloth on the bed: nothing to find."""
        inside = np.count_nonzero(self.bed)
        return inside == 0 or np.count_nonzero(foreign) > 0.85 * inside
