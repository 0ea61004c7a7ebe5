"""The static table picture: its shapes lie where the table spec puts them, to a fraction of a
texel, so calibration on rendered frames measures the calibration, not the renderer."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.table import TableSpec
from hardware.sim.render import RenderConfig, TableRenderer
from hardware.sim.table_picture import _disc_coverage, _polygon_coverage

TABLE = TableSpec.standard("9ft")


def _placed(coverage, size: int = 80) -> np.ndarray:
    (row, col), share = coverage
    canvas = np.zeros((size, size))
    canvas[row : row + share.shape[0], col : col + share.shape[1]] = share
    return canvas


def _area_and_centre(canvas: np.ndarray) -> tuple[float, np.ndarray]:
    ys, xs = np.mgrid[0 : canvas.shape[0], 0 : canvas.shape[1]]
    area = canvas.sum()
    return float(area), np.array([(canvas * xs).sum(), (canvas * ys).sum()]) / area


@pytest.mark.parametrize("shift", [0.0, 0.25, 0.5, 0.37])
def test_a_rectangle_covers_exactly_its_area_about_its_centre(shift: float) -> None:
    rect = np.array([(10.3, 5.1), (40.6, 5.1), (40.6, 20.7), (10.3, 20.7)]) + shift
    area, centre = _area_and_centre(_placed(_polygon_coverage(rect)))
    assert area == pytest.approx(30.3 * 15.6, abs=1e-6)
    assert centre == pytest.approx(
        rect.mean(axis=0), abs=0.01
    )  # part-covered texels count at their centres


@pytest.mark.parametrize("shift", [0.0, 0.37])
def test_slanted_shapes_and_discs_cover_their_area_about_their_centre(shift: float) -> None:
    diamond = np.array([(30, 10), (50, 30), (30, 50), (10, 30)], float) + shift
    area, centre = _area_and_centre(_placed(_polygon_coverage(diamond)))
    assert area == pytest.approx(800.0, rel=2e-3)
    assert centre == pytest.approx(diamond.mean(axis=0), abs=0.03)
    area, centre = _area_and_centre(_placed(_disc_coverage(np.array([40.2 + shift, 40.7]), 12.3)))
    assert area == pytest.approx(np.pi * 12.3**2, rel=2e-3)
    assert centre == pytest.approx([40.2 + shift, 40.7], abs=0.03)


def test_the_cushion_noses_are_drawn_where_the_camera_projects_them() -> None:
    camera = CameraModel.overhead(TABLE)
    image = TableRenderer(TABLE, camera, RenderConfig().clean).background
    light = image.astype(np.float32).sum(axis=2)
    hx, hy, z = TABLE.length / 2, TABLE.width / 2, TABLE.cushion_nose_height
    offsets = np.arange(-1.5, 1.51, 0.05)
    for nose, inward in [
        ((hx, 300.0), (-1, 0)),
        ((-hx, 300.0), (1, 0)),
        ((400.0, hy), (0, -1)),
        ((400.0, -hy), (0, 1)),
    ]:
        ends = camera.project(np.array([[*nose, z], [nose[0] + inward[0], nose[1] + inward[1], z]]))
        step = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0])
        pts = (ends[0] + offsets[:, None] * step).astype(np.float32)
        profile = cv2.remap(light, pts[:, :1], pts[:, 1:], cv2.INTER_LINEAR).ravel()
        # cushion top outside, the shadowed undercut inside: the step's midpoint is the nose
        middle = (profile[0] + profile[-1]) / 2
        crossing = offsets[np.argmax(profile < middle)]
        assert abs(crossing) < 0.2, (nose, crossing)
