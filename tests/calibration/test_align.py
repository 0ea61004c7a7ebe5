"""Model-based edge alignment of the cushion noses: from a pose a few pixels off to the truth."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.align import align_to_noses, nose_points
from calibration.camera import MILD_BARREL, CameraModel
from calibration.solve import HeadSide, nose_corners_mm
from calibration.table import TableSpec
from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from hardware.sim.snapshot import Occluder
from rules.balls import BALL_RADIUS_MM, BallId
from tests.hardware.sim.snapshots import snapshot

T9 = TableSpec.standard("9ft")
HY = T9.width / 2


def _nudged(camera: CameraModel, rng: np.random.Generator) -> CameraModel:
    """The camera turned by about 0.1 degree and moved by about 10 mm."""
    return camera.with_pose(
        np.array(camera.rvec) + rng.normal(0, 2e-3, 3),
        np.array(camera.tvec) + rng.normal(0, 8.0, 3),
    )


def _corner_error(camera: CameraModel, truth: CameraModel) -> float:
    corners = nose_corners_mm(T9, HeadSide.LEFT)
    return float(np.linalg.norm(camera.project(corners) - truth.project(corners), axis=1).max())


def test_nose_points_run_along_the_six_cushions_between_the_jaws() -> None:
    points, along, inward = nose_points(T9)
    assert np.allclose(points[:, 2], T9.cushion_nose_height)
    on_a_nose = (np.abs(np.abs(points[:, 0]) - T9.length / 2) < 1e-9) | (
        np.abs(np.abs(points[:, 1]) - HY) < 1e-9
    )
    assert on_a_nose.all()
    assert not any(T9.pocket_at(tuple(p[:2])) for p in points)
    assert np.allclose(np.einsum("ij,ij->i", along, inward), 0.0)
    assert np.all(np.einsum("ij,ij->i", -points[:, :2], inward[:, :2]) > 0)  # toward the bed


@pytest.mark.parametrize(
    "pose",
    [{"tilt_deg": 6.0, "yaw_deg": 1.0}, {"side_tilt_deg": 4.0, "distortion": MILD_BARREL}],
    ids=["tilted", "distorted"],
)
def test_a_pose_a_few_pixels_off_is_pulled_onto_the_noses(pose: dict) -> None:
    truth = CameraModel.overhead(T9, **pose)
    image = TableRenderer(T9, truth, RenderConfig()).render(snapshot({}), 0)
    start = _nudged(truth, np.random.default_rng(4))
    assert _corner_error(start, truth) > 2.0
    alignment = align_to_noses(image, T9, start)
    assert _corner_error(alignment.camera, truth) < 0.3
    assert alignment.edge_rms_px < 0.3
    assert alignment.share > 0.95


def test_balls_on_the_cushions_and_an_arm_over_the_rail_cost_only_their_own_points() -> None:
    truth = CameraModel.overhead(T9, tilt_deg=4.0)
    arm = Occluder(((-200.0, HY + 300), (-100.0, HY + 300), (-120.0, HY - 250), (-220.0, HY - 250)))
    balls = {BallId(str(k)): (-900.0 + 180 * k, HY - BALL_RADIUS_MM) for k in range(1, 9)}
    image = TableRenderer(T9, truth, RenderConfig(cloth=ClothColour.BLUE)).render(
        snapshot(balls, occluders=(arm,)), 0
    )
    alignment = align_to_noses(image, T9, _nudged(truth, np.random.default_rng(8)))
    assert _corner_error(alignment.camera, truth) < 0.4
    assert 0.9 < alignment.share < 0.99  # the arm hides 100 mm of a nose: ten points left out


def test_a_frame_without_noses_leaves_the_pose_as_it_was() -> None:
    camera = CameraModel.overhead(T9)
    flat = np.full((720, 1280, 3), 90, np.uint8)
    alignment = align_to_noses(flat, T9, camera)
    assert alignment.camera == camera
    assert alignment.share == 0.0
