"""The per-calibration maps: ball centres looked up in the grid, ball sizes where balls can be."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.colour import default_colour_model
from rules.balls import BALL_RADIUS_MM
from tests.vision import scenes
from vision.table_view import TableView


def _view(tilt_deg: float) -> TableView:
    cam = scenes.camera(tilt_deg=tilt_deg)
    return TableView(cam, scenes.TABLE, default_colour_model())


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


def test_ball_sizes_stay_within_those_where_balls_can_be() -> None:
    # Tilted far enough to see beyond the table, where the plane mapping runs wild.
    view = _view(30.0)
    inside = view.radius[view.roi > 0]
    assert view.radius.max() == inside.max() and view.radius.min() == inside.min()
    assert inside.max() < 60.0  # a ball, not the horizon
