"""Foreign pixels: where the working-grid image is not the empty cloth the colour model predicts.

A pixel is foreign where its colour leaves the cloth's after allowing for a brightness gain (so
shadows and the light's fall-off stay cloth), or where it is far brighter or darker than any
shade of cloth. Besides the hard mask, a soft weight (0-1) rises a little below the thresholds:
a streak's faint ends and a ball's cloth-coloured rim still count for part.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.regions import Rect


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
        self.level = float(np.median(cloth[bed > 0].max(axis=1)))
        """The brightest channel of the cloth, typical over the bed (a pocket is far darker)."""
        self._chroma = chroma_threshold
        self._bright = bright_gain
        self._dark = dark_gain

    def foreign(self, small: np.ndarray, rect: Rect) -> tuple[np.ndarray, np.ndarray]:
        """Mask (uint8 0/255) and soft weight (float32 0-1) of the pixels of ``small`` (the
        working-grid image cut to ``rect``) that are not cloth."""
        x0, y0, x1, y1 = rect
        cloth = self.cloth[y0:y1, x0:x1]
        inv_bb = self._inv_bb[y0:y1, x0:x1]
        img = small.astype(np.float32)
        ones = np.ones((1, 3), np.float32)
        # With g the best brightness gain fitting the pixel to the cloth, the colour departure
        # |img - g cloth|^2 / |cloth|^2 = |img|^2 / |cloth|^2 - g^2.
        gain = cv2.transform(img * cloth, ones) * inv_bb
        chroma = np.sqrt(np.maximum(cv2.transform(img * img, ones) * inv_bb - gain * gain, 0))
        weight = cv2.max(
            chroma * (1.0 / self._chroma),
            cv2.max(
                (gain - 1.0) * (1.0 / (self._bright - 1.0)),
                (1.0 - gain) * (1.0 / (1.0 - self._dark)),
            ),
        )
        # Foreign from a score of 1 (the thresholds); the soft weight starts a little below.
        weight = np.clip((weight - 0.6) * 2.5, 0.0, 1.0) * self._bed[y0:y1, x0:x1]
        mask = (weight >= 0.999).astype(np.uint8) * 255
        return mask, weight

    def no_cloth(self, foreign: np.ndarray) -> bool:
        """Whether a frame's foreign mask leaves (almost) no cloth on the bed: nothing to find."""
        inside = np.count_nonzero(self.bed)
        return inside == 0 or np.count_nonzero(foreign) > 0.85 * inside
