"""Calibration on rendered virtual-table frames, against the camera that rendered them."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.calibrate import calibrate_image
from calibration.camera import MILD_BARREL, CameraModel
from calibration.solve import HeadSide, nose_corners_mm
from calibration.table import TableSpec
from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from rules.balls import BALL_RADIUS_MM, BallId
from tests.hardware.sim.snapshots import snapshot

T9 = TableSpec.standard("9ft")
BALLS = snapshot({BallId.CUE: (-800, 100), BallId.ONE: (600, 0), BallId.NINE: (1100, -500)})

RIGS = [
    ({}, ClothColour.GREEN),
    ({"tilt_deg": 5.0, "yaw_deg": 1.5}, ClothColour.BLUE),
    ({"side_tilt_deg": -4.0, "distortion": MILD_BARREL}, ClothColour.RED),
]


@pytest.mark.parametrize(("pose", "cloth"), RIGS, ids=[c for _, c in RIGS])
def test_rendered_table_calibrates_with_a_known_lens(pose: dict, cloth: ClothColour) -> None:
    truth = CameraModel.overhead(T9, **pose)
    image = TableRenderer(T9, truth, RenderConfig(cloth=cloth)).render(BALLS, 0)
    calibration = calibrate_image(image, T9, lens=truth, head=HeadSide.LEFT)
    seen = np.asarray(calibration.nose_corners_px)
    assert np.abs(seen - truth.project(nose_corners_mm(T9, HeadSide.LEFT))).max() < 1.5
    hx, hy = T9.length / 2 - BALL_RADIUS_MM, T9.width / 2 - BALL_RADIUS_MM
    xs, ys = np.meshgrid(np.linspace(-hx, hx, 25), np.linspace(-hy, hy, 13))
    centres = np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, BALL_RADIUS_MM)])
    mapped = calibration.camera.to_table(truth.project(centres), BALL_RADIUS_MM)
    assert np.linalg.norm(mapped - centres[:, :2], axis=1).max() < 4.0
