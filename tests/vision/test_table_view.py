"""The per-calibration maps: ball centres looked up in the grid, ball sizes where balls can be."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.colour import default_colour_model
from rules.balls import BALL_RADIUS_MM
from tests.vision import scenes
from vision.found import FoundBall
from vision.occluders import LeftoverReader
from vision.streaks import StreakReader
from vision.table_view import TableView

# A calibration made on a real Roboflow frame (videoplayback_mp4-0081): an 800x800 still with a
# strongly distorted lens estimate. Beyond the table, toward the image corners, the distortion
# folds the plane mapping and the expected ball size there ran to 6e6 pixels.
WILD_LENS = CameraModel(
    image_size=(800, 800),
    fx=2113.918645267932,
    fy=2113.918645267932,
    cx=399.5,
    cy=399.5,
    distortion=(0.8355535907182887, 0.0, 0.0, 0.0, 0.0),
    rvec=(1.300187229102269, 1.3513872002166456, -1.109283323324887),
    tvec=(199.2825367570397, 94.7891781400213, 5076.290084969426),
)


def _view(tilt_deg: float) -> TableView:
    return TableView(scenes.camera(tilt_deg=tilt_deg), scenes.TABLE, default_colour_model())


@pytest.mark.parametrize("tilt", [0.0, 3.0])
def test_ball_centres_from_the_lookup_agree_with_the_camera_model(tilt: float) -> None:
    view = _view(tilt)
    assert view.lookup_error_mm < 0.01
    rng = np.random.default_rng(5)
    ys, xs = np.nonzero(view.roi)
    pick = rng.integers(len(xs), size=300)
    pixels = view.to_full(np.column_stack((xs[pick], ys[pick]))) + rng.uniform(-1, 1, (300, 2))
    exact = view.camera.to_table(pixels, BALL_RADIUS_MM)
    assert np.abs(view.ball_xy(pixels) - exact).max() < 0.01


def test_a_lookup_that_strays_from_the_model_is_not_used() -> None:
    view = _view(3.0)
    view.lookup_error_mm = 1.0  # as for a lens OpenCV's undistortion does not follow
    pixels = np.array([[640.3, 360.7], [200.1, 150.9]])
    exact = view.camera.to_table(pixels, BALL_RADIUS_MM)
    assert np.array_equal(view.ball_xy(pixels), exact)


def _in_range_of_where_balls_can_be(view: TableView) -> None:
    inside = view.radius[view.roi > 0]
    assert view.radius.max() == inside.max() and view.radius.min() == inside.min()
    assert inside.max() < 60.0  # a ball, not the horizon


@pytest.mark.parametrize("tilt", [30.0, 3.0])
def test_ball_sizes_stay_within_those_where_balls_can_be(tilt: float) -> None:
    # Tilted far enough to see beyond the table, where the plane mapping runs on.
    _in_range_of_where_balls_can_be(_view(tilt))


def test_a_wild_lens_gives_ball_sizes_and_an_occluder_search_of_a_ball() -> None:
    view = TableView(WILD_LENS, scenes.TABLE, default_colour_model())
    _in_range_of_where_balls_can_be(view)
    # An arm-sized blob no ball explains: reading it as an occluder grows it by a ball's reach
    # (this was a MemoryError: a dilation kernel millions of pixels wide).
    h, w = view.roi.shape
    leftover = np.zeros((h, w), np.uint8)
    ys, xs = np.nonzero(view.roi)
    cx, cy = int(np.median(xs)), int(np.median(ys))
    cv2.rectangle(leftover, (cx - 40, cy - 6), (cx + 40, cy + 6), 255, -1)
    reader = LeftoverReader(view, WILD_LENS, StreakReader(view, WILD_LENS, 14.0), 2.5)
    leftovers = reader.read(leftover, leftover / np.float32(255), [], (0, 0, w, h))
    assert len(leftovers) == 1 and leftovers[0].polygons and leftovers[0].streak is None
    weak = FoundBall(view.to_full(np.array((cx, cy - 10.0))), 8.0, 0.5, 1.0)
    assert reader.unoccluded([weak], leftovers, (h, w)) == []


def test_the_expected_outline_is_the_ellipse_the_virtual_camera_draws() -> None:
    from hardware.sim.sprites import ball_geometry

    camera = scenes.camera(tilt_deg=3.0)
    view = TableView(camera, scenes.TABLE, default_colour_model())
    hx = scenes.TABLE.length / 2
    for x, y in [(0.0, 0.0), (hx - 40.0, 0.0), (-hx + 40.0, 500.0), (600.0, -550.0)]:
        centre = np.array([[x, y, BALL_RADIUS_MM]])
        px = camera.project(centre)[0]
        wx, wy = np.rint(view.to_working(px)).astype(int)
        a, b, c = view.silhouette[wy, wx]
        affine = ball_geometry(camera, camera.position_mm, centre).affine[0]
        # The renderer's outline: affine images of the unit circle; each must lie on the form.
        angles = np.linspace(0, 2 * np.pi, 36, endpoint=False)
        pts = np.column_stack((np.cos(angles), np.sin(angles))) @ affine.T
        on = a * pts[:, 0] ** 2 + 2 * b * pts[:, 0] * pts[:, 1] + c * pts[:, 1] ** 2
        np.testing.assert_allclose(on, 1.0, atol=0.02)
    # At the table's ends the outline is stretched toward the image's centre (along x), by
    # about 5 % for this camera; below it, round.
    row = view.size[1] // 2
    table = np.nonzero(view.roi[row])[0]
    for x, stretch in [(table[0] + 10, 1.04), (table[-1] - 10, 1.04), (view.size[0] // 2, None)]:
        a, _, c = view.silhouette[row, x]
        if stretch is None:
            assert abs(np.sqrt(c / a) - 1.0) < 0.002
        else:
            assert np.sqrt(c / a) > stretch
