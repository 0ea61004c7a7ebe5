"""Foreign pixels: the cloth's shades stay cloth, a ball's colours, white and black do not; a
disc's cover is the mean foreign weight on it."""

from __future__ import annotations

import numpy as np

from vision.foreign import ClothContrast
from vision.occluders import _disc_means

_CLOTH = (110.0, 140.0, 40.0)  # BGR of a blue-green cloth


def _contrast(h: int = 20, w: int = 30) -> ClothContrast:
    cloth = np.empty((h, w, 3), np.float32)
    cloth[:] = _CLOTH
    cloth *= np.linspace(0.8, 1.0, w, dtype=np.float32)[None, :, None]  # the light's fall-off
    bed = np.full((h, w), 255, np.uint8)
    bed[:, :2] = 0  # a cushion
    return ClothContrast(cloth, bed, 0.11, 1.3, 0.38)


def test_shades_of_the_cloth_are_cloth_and_balls_are_foreign() -> None:
    contrast = _contrast()
    image = np.clip(contrast.cloth, 0, 255).astype(np.uint8)
    image[2:4, 10:12] = np.clip(contrast.cloth[2:4, 10:12] * 0.55, 0, 255)  # a shadow
    image[6:8, 10:12] = (30, 40, 210)  # a red ball
    image[10:12, 10:12] = (250, 250, 250)  # the cue ball
    image[14:16, 10:12] = (15, 15, 15)  # the 8
    image[14:16, 0:2] = (30, 40, 210)  # red, but off the bed
    mask, weight = contrast.foreign(image, (0, 0, 30, 20))
    assert not mask[2:4, 10:12].any() and weight[2:4, 10:12].max() < 0.5
    for rows in (slice(6, 8), slice(10, 12), slice(14, 16)):
        assert (mask[rows, 10:12] == 255).all() and (weight[rows, 10:12] == 1.0).all()
    assert not weight[14:16, 0:2].any()
    assert mask.sum() == 3 * 4 * 255


def test_a_rectangle_written_in_place_is_the_patch_read_alone() -> None:
    contrast = _contrast()
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (20, 30, 3)).astype(np.uint8)
    rect = (4, 3, 25, 17)
    x0, y0, x1, y1 = rect
    mask = np.full((20, 30), 7, np.uint8)
    weight = np.full((20, 30), -1.0, np.float32)
    contrast.foreign_into(image, rect, mask, weight)
    alone_mask, alone_weight = contrast.foreign(image[y0:y1, x0:x1], rect)
    np.testing.assert_array_equal(mask[y0:y1, x0:x1], alone_mask)
    np.testing.assert_array_equal(weight[y0:y1, x0:x1], alone_weight)
    # Nothing outside the rectangle is touched.
    outside = np.ones((20, 30), bool)
    outside[y0:y1, x0:x1] = False
    assert (mask[outside] == 7).all() and (weight[outside] == -1.0).all()
    assert 0 < np.count_nonzero(alone_mask) < alone_mask.size


def test_a_discs_cover_is_the_mean_weight_of_the_grid_pixels_within_it() -> None:
    rng = np.random.default_rng(9)
    grid = rng.random((40, 50)).astype(np.float32)
    grid[grid < 0.6] = 0.0
    centres = np.array([[10.3, 12.7], [0.5, 39.2], [49.9, 20.0], [-30.0, -30.0]])
    radii = np.array([4.2, 5.0, 3.1, 2.0])
    yy, xx = np.mgrid[0:40, 0:50]
    want = []
    for (cx, cy), r in zip(centres, radii, strict=True):
        inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        want.append(grid[inside].astype(np.float64).mean() if inside.any() else 0.0)
    np.testing.assert_allclose(_disc_means(grid, centres, radii), want, rtol=1e-12)
