"""All balls' colour statistics at once agree with measuring each ball alone."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from calibration.colour import ball_pixels, disc_pixels
from vision import identity
from vision.discs import disc_stats

CLOTH_LAB = (120.0, 100.0, 140.0)


def _one_ball(image, centre, radius):
    """The per-ball measurement: a Lab patch around the ball, its disc and its rim ring."""
    h, w = image.shape[:2]
    r = math.ceil(radius) + 1
    x0, y0 = max(int(centre[0]) - r, 0), max(int(centre[1]) - r, 0)
    x1, y1 = min(int(centre[0]) + r + 1, w), min(int(centre[1]) + r + 1, h)
    patch = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    c = centre - (x0, y0)
    disc, ring = disc_pixels(patch, c, radius), disc_pixels(patch, c, radius, 0.97, 0.7)
    return ball_pixels(disc), ball_pixels(ring), identity.band_fraction(ring, CLOTH_LAB)


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(a, b)


@pytest.mark.parametrize("seed", [0, 1])
def test_disc_stats_match_each_ball_measured_alone(seed):
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    # Painted balls: white, coloured and black discs, some cut by the frame's edge.
    for _ in range(12):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        cx, cy = int(rng.integers(0, 120)), int(rng.integers(0, 90))
        cv2.circle(image, (cx, cy), int(rng.integers(4, 12)), colour, -1)
    centres = np.column_stack((rng.uniform(-3, 123, 40), rng.uniform(-3, 93, 40)))
    radii = rng.uniform(3.0, 13.0, 40)
    stats = disc_stats(image, centres, radii, CLOTH_LAB)
    assert len(stats) == 40
    for centre, radius, (disc, ring, band) in zip(centres, radii, stats, strict=True):
        want_disc, want_ring, want_band = _one_ball(image, centre, radius)
        for got, want in ((disc, want_disc), (ring, want_ring)):
            for g, w in zip(dataclasses.astuple(got), dataclasses.astuple(want), strict=True):
                assert _close(g, w), (centre, radius, got, want)
        assert band == pytest.approx(want_band, abs=1e-9)


def test_disc_stats_of_no_balls_is_empty():
    image = np.zeros((10, 10, 3), dtype=np.uint8)
    assert disc_stats(image, np.zeros((0, 2)), np.zeros(0), CLOTH_LAB) == []


def test_a_ball_off_the_frame_has_no_pixels():
    image = np.full((10, 10, 3), 200, dtype=np.uint8)
    ((disc, ring, band),) = disc_stats(
        image, np.array([[-50.0, -50.0]]), np.array([5.0]), CLOTH_LAB
    )
    assert disc.white_fraction == 0.0 and disc.colour_lab is None
    assert ring.colour_fraction == 0.0 and band == 0.0
