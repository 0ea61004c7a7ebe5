"""The camera model: projection, back-projection on the right plane, the overhead rig."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import MILD_BARREL, NO_DISTORTION, CameraModel
from calibration.table import TableSpec
from rules.balls import BALL_RADIUS_MM
from rules.codec import dumps, loads
from rules.errors import CalibrationError

TABLE = TableSpec.standard("9ft")
PINCUSHION = (0.06, -0.01, 0.0005, -0.0004, 0.0)


def _points_on_table(seed: int, count: int, z: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    hx, hy = TABLE.length / 2, TABLE.width / 2
    xy = rng.uniform((-hx, -hy), (hx, hy), (count, 2))
    return np.column_stack((xy, np.full(count, z)))


@pytest.mark.parametrize("distortion", [NO_DISTORTION, MILD_BARREL, PINCUSHION])
@pytest.mark.parametrize(("tilt", "side", "yaw"), [(0, 0, 0), (6, -3, 2), (-4, 5, -1.5)])
def test_project_then_to_table_round_trips_under_distortion(distortion, tilt, side, yaw) -> None:
    cam = CameraModel.overhead(
        TABLE, tilt_deg=tilt, side_tilt_deg=side, yaw_deg=yaw, distortion=distortion
    )
    for z in (0.0, BALL_RADIUS_MM, TABLE.cushion_nose_height):
        pts = _points_on_table(1, 400, z)
        back = cam.to_table(cam.project(pts), z)
        assert np.max(np.linalg.norm(back - pts[:, :2], axis=1)) < 0.01


def test_overhead_rig_fits_the_table_and_rails_in_the_image() -> None:
    for distortion in (NO_DISTORTION, MILD_BARREL, PINCUSHION):
        cam = CameraModel.overhead(TABLE, distortion=distortion, tilt_deg=5, margin_mm=200)
        hx, hy = TABLE.length / 2 + 200, TABLE.width / 2 + 200
        corners = np.array([(sx * hx, sy * hy, 0) for sx in (-1, 1) for sy in (-1, 1)])
        px = cam.project(corners)
        w, h = cam.image_size
        assert np.all((px >= 0) & (px <= (w - 1, h - 1)))
        # Tight: some corner is within a few pixels of the border the margin asks for.
        slack = np.min(np.concatenate([px, (w - 1, h - 1) - px], axis=1))
        assert slack < 12
    assert cam.height_mm == pytest.approx(2600)


def test_overhead_rig_puts_the_foot_right_and_the_left_cushion_on_top() -> None:
    cam = CameraModel.overhead(TABLE)
    foot_left = cam.project(np.array([[TABLE.length / 2, TABLE.width / 2, 0.0]]))[0]
    w, h = cam.image_size
    assert foot_left[0] > w / 2 and foot_left[1] < h / 2
    # A 9 ft table from 2.6 m in 1280 px: about 2.4 mm per pixel, a ball about 24 px across.
    assert 2.0 < cam.mm_per_pixel(np.array([0.0, 0.0, BALL_RADIUS_MM])) < 2.8


@pytest.mark.parametrize("distortion", [NO_DISTORTION, MILD_BARREL])
def test_cloth_homography_misplaces_balls_near_the_rails_but_the_ball_plane_is_exact(
    distortion,
) -> None:
    cam = CameraModel.overhead(TABLE, height_mm=2600, distortion=distortion)
    r = BALL_RADIUS_MM
    hx, hy = TABLE.length / 2 - r, TABLE.width / 2 - r
    near_rails = np.array(
        [(hx, hy, r), (-hx, -hy, r), (hx, 0, r), (0, hy, r), (-hx, 0.3 * hy, r), (0.5 * hx, -hy, r)]
    )
    pixels = cam.project(near_rails)
    homography_error = np.linalg.norm(
        cam.cloth_homography_to_table(pixels) - near_rails[:, :2], axis=1
    )
    plane_error = np.linalg.norm(cam.to_table(pixels, r) - near_rails[:, :2], axis=1)
    assert np.all(homography_error > 5.0)
    assert homography_error.max() > 12.0  # the corners: about 15 mm
    assert plane_error.max() < 0.01
    # At the centre, under the camera, both agree.
    centre = np.array([[0.0, 0.0, r]])
    assert np.linalg.norm(cam.cloth_homography_to_table(cam.project(centre))) < 0.01


def test_cloth_homography_is_exact_for_marks_on_the_cloth() -> None:
    cam = CameraModel.overhead(TABLE, tilt_deg=4, distortion=MILD_BARREL)
    pts = _points_on_table(3, 200, 0.0)
    err = np.linalg.norm(cam.cloth_homography_to_table(cam.project(pts)) - pts[:, :2], axis=1)
    assert err.max() < 0.01


def test_solve_pose_recovers_the_camera_from_table_landmarks() -> None:
    truth = CameraModel.overhead(TABLE, tilt_deg=3, side_tilt_deg=-2, distortion=MILD_BARREL)
    hx, hy = TABLE.length / 2, TABLE.width / 2
    nose = TABLE.cushion_nose_height
    landmarks = np.array(
        [(sx * hx, sy * hy, nose) for sx in (-1, 1) for sy in (-1, 1)]
        + [(x, y, 40.0) for x, y in TABLE.diamonds]
    )
    start = CameraModel.overhead(TABLE, distortion=MILD_BARREL)
    start = CameraModel(
        truth.image_size, truth.fx, truth.fy, truth.cx, truth.cy, truth.distortion,
        start.rvec, start.tvec,
    )  # fmt: skip
    posed, rms_px = start.solve_pose(landmarks, truth.project(landmarks))
    assert rms_px < 1e-3
    pts = _points_on_table(5, 100, BALL_RADIUS_MM)
    assert np.max(np.abs(posed.project(pts) - truth.project(pts))) < 1e-3


def test_solve_pose_needs_four_points() -> None:
    cam = CameraModel.overhead(TABLE)
    with pytest.raises(CalibrationError, match="at least 4"):
        cam.solve_pose(np.zeros((3, 3)), np.zeros((3, 2)))


def test_a_ray_that_misses_the_plane_is_a_calibration_error() -> None:
    cam = CameraModel.overhead(TABLE)
    with pytest.raises(CalibrationError, match="never reaches the plane"):
        cam.to_table(np.array([[640.0, 360.0]]), z_mm=5000.0)  # above the camera


def test_bad_values_are_refused() -> None:
    with pytest.raises(ValueError, match="focal"):
        CameraModel((640, 480), 0.0, 500.0, 320, 240)
    with pytest.raises(ValueError, match="image size"):
        CameraModel((0, 480), 500.0, 500.0, 320, 240)
    with pytest.raises(ValueError, match="distortion must be 5"):
        CameraModel((640, 480), 500.0, 500.0, 320, 240, (0.1, 0.0))


def test_json_round_trip_keeps_the_mapping() -> None:
    cam = CameraModel.overhead(TABLE, tilt_deg=2.5, distortion=MILD_BARREL)
    again = loads(CameraModel, dumps(cam))
    assert again == cam
    pts = _points_on_table(7, 10, BALL_RADIUS_MM)
    assert np.array_equal(again.project(pts), cam.project(pts))


def test_default_camera_is_a_plain_webcam_above_the_centre_spot() -> None:
    cam = CameraModel.default((1280, 720), hfov_deg=90.0, height_mm=2500.0)
    assert cam.fx == pytest.approx(640.0) and cam.fy == cam.fx
    assert cam.distortion == NO_DISTORTION
    assert cam.height_mm == pytest.approx(2500.0)
    centre = cam.project(np.array([[0.0, 0.0, 0.0]]))[0]
    assert centre == pytest.approx((639.5, 359.5))
    foot_left = cam.project(np.array([[1000.0, 500.0, 0.0]]))[0]
    assert foot_left[0] > 639.5 and foot_left[1] < 359.5


def test_reprojection_error_is_reported_in_pixels_and_millimetres() -> None:
    cam = CameraModel.overhead(TABLE, distortion=MILD_BARREL)
    pts = np.vstack([_points_on_table(9, 20, 0.0), _points_on_table(10, 20, BALL_RADIUS_MM)])
    exact = cam.project(pts)
    assert cam.reprojection_error(pts, exact) == pytest.approx((0.0, 0.0), abs=1e-6)
    rng = np.random.default_rng(2)
    angles = rng.uniform(0, 2 * np.pi, len(pts))
    off_by_one = exact + np.column_stack((np.cos(angles), np.sin(angles)))
    px, mm = cam.reprojection_error(pts, off_by_one)
    assert px == pytest.approx(1.0)
    assert mm == pytest.approx(cam.mm_per_pixel(np.array([0.0, 0.0, 0.0])), rel=0.15)


def test_to_table_takes_one_plane_per_pixel() -> None:
    cam = CameraModel.overhead(TABLE, tilt_deg=3, distortion=MILD_BARREL)
    pts = np.array([(100.0, 200.0, 0.0), (-900.0, 400.0, BALL_RADIUS_MM), (1200, -600, 36.3)])
    back = cam.to_table(cam.project(pts), pts[:, 2])
    assert np.abs(back - pts[:, :2]).max() < 1e-6
