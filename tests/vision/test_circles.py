"""The outline fit: skipping the cushion test for balls well inside changes nothing."""

from __future__ import annotations

import numpy as np

from tests.vision import scenes
from tests.vision.test_detector import CALIBRATION, CAMERA
from vision import circles
from vision.detector import BallDetector


def test_the_outline_test_is_skipped_only_where_it_could_not_matter() -> None:
    balls = scenes.hard_places() | {k: v for k, v in list(scenes.rack().items())[:6]}
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls, np.random.default_rng(4)))
    detector = BallDetector(CALIBRATION)
    d = detector.detect(image)
    assert len(d) >= len(balls) - 1
    view = detector.view
    rng = np.random.default_rng(6)
    centres = np.array([b.centre_px for b in detector._balls]) + rng.uniform(-2, 2, (len(d), 2))
    radii = np.array([b.radius_px for b in detector._balls])
    # Some balls are against a cushion (tested ray by ray), the rest far from any.
    clear = view.outline_clear[centres[:, 1].astype(int), centres[:, 0].astype(int)]
    assert (clear < 2 * radii).any() and (clear > 3 * radii).any()
    every = circles.fit_circles(image, centres, radii, allowed=view.outline)
    skipped = circles.fit_circles(
        image, centres, radii, allowed=view.outline, clear=view.outline_clear
    )
    for a, b in zip(every, skipped, strict=True):
        np.testing.assert_array_equal(a.centre, b.centre)
        assert (a.radius, a.support, a.residual) == (b.radius, b.support, b.residual)
