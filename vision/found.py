"""A ball as the detector holds it between its stages (full-resolution pixels), before it
becomes a row of `Detections`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class FoundBall:
    """One ball found in a frame.

    Attributes:
        centre_px: (x, y) full-resolution pixels (for a streak: the centre at mid-exposure).
        radius_px: Fitted (or expected) radius, pixels.
        support: Share of the outline seen, 0-1.
        residual: RMS distance of the outline points from the fitted circle, pixels.
        blur_mm: Streak travel (dx, dy) over the exposure in table mm; None for a ball at rest.
        like: Identity likelihoods (16,), kept while the ball rests; None until measured.
    """

    centre_px: np.ndarray
    radius_px: float
    support: float
    residual: float
    blur_mm: np.ndarray | None = None
    like: np.ndarray | None = None
