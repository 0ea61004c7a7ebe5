"""The detector's compiled loops made ready before the first frame.

numba compiles each loop on its first call (about 20 s for them all on a small machine, the
first run after an install) or loads it from its cache beside the source (half a second). Left
to the first frames, that lands on a frame of a session; here every loop is called once on a
tiny input of the types the detector passes, when the first detector is built.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from calibration.colour import default_colour_model
from vision import circles, discs, identity, occluders, regions, streaks, table_view, votes
from vision.apart import apart
from vision.detections import Detections
from vision.foreign import ClothContrast

log = logging.getLogger(__name__)

_READY = False


def warm_up() -> None:
    """Call every compiled loop once (once per process)."""
    global _READY
    if _READY:
        return
    started = time.perf_counter()
    image = np.zeros((24, 24, 3), np.uint8)
    mask = np.full((24, 24), 255, np.uint8)
    grid = np.ones((24, 24), np.float32)
    circles.fit_circles(
        image,
        np.array([[12.0, 12.0]]),
        np.array([5.0]),
        allowed=mask,
        clear=grid,
        shape=np.array([[0.04, 0.0, 0.04]]),
    )
    circles.peaks(votes.edge_votes(image, mask, grid, 0, 0, 24, 24, 90.0), grid, 5)
    cloth = np.ones((24, 24, 3), np.float32)
    ClothContrast(cloth, mask, 0.1, 1.3, 0.4).foreign_into(
        image, (0, 0, 24, 24), np.zeros((24, 24), np.uint8), np.zeros((24, 24), np.float32)
    )
    regions.changed_pixels(image, image, mask, 36.0)
    regions.merge([(0, 0, 2, 2), (1, 1, 3, 3)])
    disc, ring, band = discs.disc_arrays(
        image, np.array([[12.0, 12.0]]), np.array([5.0]), (150.0, 120.0, 130.0)
    )
    identity.likelihoods_of(disc, default_colour_model((150.0, 120.0, 130.0)), ring, band)
    identity.assign(identity.probabilities(np.full((2, 16), 0.05)), np.array([0.9, 0.9]))
    apart(np.array([[0.0, 0.0], [50.0, 0.0]]), np.array([True, True]))
    Detections.of(0, 0.0, [(0.0, 0.0)])
    occluders.warm()
    streaks.warm()
    table_view.warm()
    _READY = True
    took = time.perf_counter() - started
    log.log(logging.INFO if took > 2.0 else logging.DEBUG, "vision loops ready in %.1f s", took)
