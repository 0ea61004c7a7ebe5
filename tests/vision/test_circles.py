"""Candidate centres by edge votes, and the outline fit (skipping the cushion test for balls
well inside changes nothing)."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision import scenes
from tests.vision.test_detector import CALIBRATION, CAMERA
from vision import circles
from vision.detector import BallDetector
from vision.outline import outline_inside
from vision.votes import edge_votes


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


def _disc_image(h: int, w: int, cx: int, cy: int, r: float) -> np.ndarray:
    """A dark disc on cloth, (h, w, 3) uint8."""
    yy, xx = np.mgrid[0:h, 0:w]
    image = np.full((h, w, 3), (60, 150, 60), np.uint8)
    image[np.hypot(xx - cx, yy - cy) <= r] = (20, 40, 200)
    return image


def test_edge_pixels_vote_one_radius_away_on_both_sides() -> None:
    # A disc's rim votes for its centre from every side (the near side's votes, within two
    # pixels of it: the rim is two pixels thick) and for a ring twice as wide (the far side's):
    # the centre is the one strong peak, and every edge pixel votes twice while both votes
    # land on the map.
    h, w, cx, cy, r = 40, 50, 24, 19, 6.0
    image = _disc_image(h, w, cx, cy, r)
    everywhere = np.full((h, w), 255, np.uint8)
    radius = np.full((h, w), r, np.float32)
    acc = edge_votes(image, everywhere, radius, 0, 0, w, h, 90.0)
    assert acc.dtype == np.float32 and acc.shape == (h, w)
    peak = np.unravel_index(np.argmax(acc), acc.shape)
    assert np.hypot(peak[1] - cx, peak[0] - cy) <= 1
    near_centre = acc[cy - 2 : cy + 3, cx - 2 : cx + 3].sum()
    assert near_centre > 0.45 * acc.sum() and acc.sum() % 2 == 0
    assert acc.max() > 1.5 * np.sort(acc.ravel())[-2]
    # Against the map's edge the far side's votes fall off it.
    edge = edge_votes(_disc_image(h, w, 3, cy, r), everywhere, radius, 0, 0, w, h, 90.0)
    assert 0 < edge.sum() < acc.sum()


def test_a_rectangle_votes_as_an_image_of_its_own() -> None:
    # The rectangle's borders are reflected and votes beyond it are lost, exactly as if it
    # were cut out: a search of a changed rectangle sees what a search of that cut-out would.
    rng = np.random.default_rng(3)
    h, w = 60, 80
    image = _disc_image(h, w, 30, 28, 7.0)
    image = np.clip(image.astype(int) + rng.integers(-30, 30, image.shape), 0, 255)
    image = image.astype(np.uint8)
    roi = np.full((h, w), 255, np.uint8)
    roi[:, 70:] = 0
    radius = rng.uniform(6.5, 7.5, (h, w)).astype(np.float32)
    x0, y0, x1, y1 = 12, 9, 61, 50
    part = edge_votes(image, roi, radius, x0, y0, x1, y1, 90.0)
    cut = edge_votes(
        np.ascontiguousarray(image[y0:y1, x0:x1]),
        np.ascontiguousarray(roi[y0:y1, x0:x1]),
        np.ascontiguousarray(radius[y0:y1, x0:x1]),
        0,
        0,
        x1 - x0,
        y1 - y0,
        90.0,
    )
    np.testing.assert_array_equal(part, cut)
    assert part.sum() > 0


def test_peaks_are_local_maxima_above_their_own_minimum_strongest_first() -> None:
    acc = np.zeros((30, 40), np.float32)
    acc[10, 10], acc[20, 30], acc[11, 11] = 9.0, 5.0, 8.0
    minimum = np.full(acc.shape, 1.0, np.float32)
    found = circles.peaks(acc, minimum, 5)
    assert [tuple(p) for p in found] == [(10.0, 10.0), (30.0, 20.0)]
    minimum[20, 30] = 10.0  # too weak where it is
    assert [tuple(p) for p in circles.peaks(acc, minimum, 5)] == [(10.0, 10.0)]


def test_only_edges_inside_the_region_asked_vote() -> None:
    small = np.zeros((30, 40, 3), np.uint8)
    small[:, 20:] = (40, 200, 90)  # a vertical colour step at x = 20
    roi = np.zeros((30, 40), np.uint8)
    roi[:15] = 255
    radius = np.full((30, 40), 5.0, np.float32)
    acc = edge_votes(small, roi, radius, 0, 0, 40, 30, 90.0)
    ys, xs = np.nonzero(acc)
    # Each edge pixel (x 19 or 20, rows 0-14) votes 5 pixels either side along its row.
    assert len(ys) and ys.max() < 15 and set(xs.tolist()) <= {14, 15, 24, 25}
    assert acc.sum() == 2 * 2 * 15
    assert edge_votes(small, roi, radius, 0, 0, 40, 30, 1e4).sum() == 0  # too weak an edge


def _ellipse_form(a: float, b: float) -> np.ndarray:
    """The quadratic form (`fit_circles`'s ``shape``) of an ellipse with semi-axes a along x and
    b along y."""
    return np.array([1 / a**2, 0.0, 1 / b**2])


def test_an_outline_of_known_stretch_half_lost_in_a_shadow_is_still_centred() -> None:
    # A ball at the end of the table is seen past its equator: its outline is an ellipse
    # stretched toward the image's centre (here along x, 12 %). Its contact shadow swallows
    # the rim on that side. A circle fitted to the arc that shows is pulled toward that arc;
    # the ellipse the camera model predicts is not.
    h, w = 60, 80
    cx, cy, a, b = 40.3, 30.6, 13.2, 11.8
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    inside = ((xx - cx) / a) ** 2 + ((yy - cy) / b) ** 2 <= 1.0
    image = np.full((h, w, 3), (60, 150, 60), np.uint8)
    image[inside] = (30, 80, 30)
    shadow = ~inside & (xx > cx + 0.4 * a) & (np.hypot((xx - cx) / 1.5, yy - cy) < 1.3 * b)
    image[shadow] = (30, 80, 30)
    start = np.array([[cx + 0.8, cy - 0.6]])
    known = circles.fit_circles(image, start, np.array([12.5]), shape=_ellipse_form(a, b)[None])[0]
    circle = circles.fit_circles(image, start, np.array([12.5]))[0]
    assert np.hypot(known.centre[0] - cx, known.centre[1] - cy) < 0.3
    assert np.hypot(circle.centre[0] - cx, circle.centre[1] - cy) > 0.4  # what it replaces
    assert abs(known.expected - np.sqrt(a * b)) < 0.3 and known.support > 0.6


def test_a_round_shape_fits_as_a_circle_does() -> None:
    balls = dict(list(scenes.hard_places().items())[:6])
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls, np.random.default_rng(2)))
    centres = CAMERA.project(np.array([(x, y, scenes.R) for x, y in balls.values()]))
    radii = np.full(len(centres), 12.0)
    plain = circles.fit_circles(image, centres, radii)
    round_shape = np.tile(_ellipse_form(12, 12), (6, 1))
    round_ = circles.fit_circles(image, centres, radii, shape=round_shape)
    for p, q in zip(plain, round_, strict=True):
        np.testing.assert_allclose(p.centre, q.centre, atol=1e-6)
        assert abs(p.radius - q.radius) < 1e-6 and p.support == q.support


def test_the_outline_mask_test_is_opencvs_nearest_pixel_remap() -> None:
    """`outline_inside` samples the allowed mask as `cv2.remap` (nearest pixel, edges repeated)
    at the midpoints of the steps, ties of the rounding included."""
    rng = np.random.default_rng(3)
    for trial in range(60):
        h, w = (int(v) for v in rng.integers(5, 60, 2))
        allowed = (rng.uniform(size=(h, w)) < 0.5).astype(np.uint8) * 255
        scale = int(rng.choice([1, 2]))
        n, angles, samples = int(rng.integers(1, 4)), 6, int(rng.integers(3, 12))
        maps = rng.uniform(-8, max(h, w) * scale + 8, (n * angles, samples, 2))
        if trial % 2:
            maps = np.round(maps * 2) / 2  # midpoints on half pixels: rounding ties
        maps = maps.astype(np.float32)
        near = rng.uniform(size=n) < 0.7
        inside = np.full((n, angles, samples - 2), 7.0, np.float32)
        outline_inside(allowed, scale, maps, near, inside)
        mid = (0.5 * (maps[:, :-2] + maps[:, 2:]) - (scale - 1) / 2) / scale
        want = cv2.remap(allowed, mid, None, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        want = (want > 0).astype(np.float32).reshape(inside.shape)
        np.testing.assert_array_equal(inside[near], want[near])
        assert (inside[~near] == 7.0).all()
