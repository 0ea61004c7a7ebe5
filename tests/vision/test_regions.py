"""Where the frame changed: a pixel changed when its channels' changes add up past the
threshold, inside the region that matters only."""

from __future__ import annotations

import numpy as np

from vision.regions import changed_pixels


def test_a_pixel_changed_when_its_channels_changes_add_up_past_the_threshold() -> None:
    last = np.full((4, 6, 3), 100, np.uint8)
    now = last.copy()
    now[0, 0] = (112, 112, 112)  # 36 in all: not past 36
    now[0, 1] = (112, 112, 113)  # 37
    now[1, 0] = (100, 100, 63)  # 37, one channel darker
    now[1, 1] = (255, 0, 255)  # far past
    now[2, 2] = (255, 0, 255)  # far past, but outside the region
    roi = np.full((4, 6), 255, np.uint8)
    roi[2:, :] = 0
    changed = changed_pixels(now, last, roi, 36.0)
    assert changed.dtype == np.uint8 and changed.shape == (4, 6)
    assert {tuple(p) for p in np.argwhere(changed == 255)} == {(0, 1), (1, 0), (1, 1)}
    assert set(np.unique(changed).tolist()) == {0, 255}


def test_the_threshold_counts_in_whole_steps_and_no_sum_passes_255() -> None:
    rng = np.random.default_rng(8)
    last = rng.integers(0, 256, (30, 40, 3)).astype(np.uint8)
    now = rng.integers(0, 256, (30, 40, 3)).astype(np.uint8)
    roi = np.full((30, 40), 255, np.uint8)
    total = np.abs(now.astype(int) - last.astype(int)).sum(axis=2)
    for threshold in (-3.0, 0.0, 36.0, 36.5, 200.0, 254.9, 255.0, 400.0):
        want = (np.minimum(total, 255) > threshold).astype(np.uint8) * 255
        np.testing.assert_array_equal(changed_pixels(now, last, roi, threshold), want)
