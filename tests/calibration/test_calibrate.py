"""Solving the camera on the cushion-nose corners, calibration files, and drift."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.calibrate import calibrate_corners, calibrate_image, check_drift
from calibration.camera import MILD_BARREL, CameraModel
from calibration.file import CALIBRATION_VERSION, load, save
from calibration.solve import HeadSide, IntrinsicsSource, nose_corners_mm
from calibration.table import TableSpec
from rules.balls import BALL_RADIUS_MM
from rules.errors import CalibrationError
from tests.calibration.synthetic import CLOTHS, draw_table

T9 = TableSpec.standard("9ft")
SIZE = (1280, 720)


def _ball_plane_grid(table: TableSpec, step: float = 100.0) -> np.ndarray:
    """Ball centres over the whole playing surface, rails included."""
    hx, hy = table.length / 2 - BALL_RADIUS_MM, table.width / 2 - BALL_RADIUS_MM
    xs, ys = np.meshgrid(np.arange(-hx, hx + 1, step), np.arange(-hy, hy + 1, step))
    return np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, BALL_RADIUS_MM)])


def _mapping_error_mm(truth: CameraModel, solved: CameraModel, table: TableSpec) -> float:
    centres = _ball_plane_grid(table)
    mapped = solved.to_table(truth.project(centres), BALL_RADIUS_MM)
    return float(np.max(np.linalg.norm(mapped - centres[:, :2], axis=1)))


POSES = [
    {"tilt_deg": 0.0},
    {"tilt_deg": 6.0, "yaw_deg": 1.5},
    {"side_tilt_deg": -5.0, "distortion": MILD_BARREL},
    {"tilt_deg": 3.0, "side_tilt_deg": 2.0, "height_mm": 2300.0, "distortion": MILD_BARREL},
]


@pytest.mark.parametrize("pose", POSES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_known_lens_maps_ball_centres_within_a_millimetre(pose: dict) -> None:
    truth = CameraModel.overhead(T9, image_size=SIZE, **pose)
    rng = np.random.default_rng(1)
    corners = truth.project(nose_corners_mm(T9, HeadSide.LEFT)) + rng.normal(0, 0.2, (4, 2))
    calibration = calibrate_corners(corners, SIZE, T9, lens=truth)
    assert calibration.intrinsics is IntrinsicsSource.GIVEN
    assert _mapping_error_mm(truth, calibration.camera, T9) <= 1.0
    assert calibration.reprojection_px < 0.5


def test_tilted_view_gives_its_focal_length() -> None:
    truth = CameraModel.overhead(T9, image_size=SIZE, tilt_deg=25.0, height_mm=1800.0)
    corners = truth.project(nose_corners_mm(T9, HeadSide.LEFT))
    calibration = calibrate_corners(corners, SIZE, T9)
    assert calibration.intrinsics is IntrinsicsSource.ESTIMATED
    assert calibration.camera.fx == pytest.approx(truth.fx, rel=0.02)
    assert _mapping_error_mm(truth, calibration.camera, T9) <= 1.0


def test_straight_down_view_falls_back_to_the_default_lens_and_says_so() -> None:
    truth = CameraModel.overhead(T9, image_size=SIZE)
    corners = truth.project(nose_corners_mm(T9, HeadSide.LEFT))
    calibration = calibrate_corners(corners, SIZE, T9)
    assert calibration.intrinsics is IntrinsicsSource.DEFAULT
    # From straight above, focal length and height trade off: the ball-centre plane is only
    # roughly placed (the error grows toward the rails).
    assert _mapping_error_mm(truth, calibration.camera, T9) < 5.0


@pytest.mark.parametrize("yaw", [0.0, 90.0, 180.0, 270.0])
def test_head_side_decides_which_corner_is_which(yaw: float) -> None:
    size = SIZE if yaw in (0.0, 180.0) else SIZE[::-1]
    truth = CameraModel.overhead(T9, image_size=size, yaw_deg=yaw)
    head_px, foot_px = truth.project(np.array([[-T9.length / 2, 0, 0], [T9.length / 2, 0, 0]]))
    dx, dy = head_px - foot_px
    if abs(dx) > abs(dy):
        head = HeadSide.LEFT if dx < 0 else HeadSide.RIGHT
    else:
        head = HeadSide.TOP if dy < 0 else HeadSide.BOTTOM
    seen = truth.project(nose_corners_mm(T9, HeadSide.LEFT))
    order = np.argsort(np.arctan2(seen[:, 1] - seen[:, 1].mean(), seen[:, 0] - seen[:, 0].mean()))
    clockwise = seen[order]
    corners = np.roll(clockwise, -int(np.argmin(clockwise.sum(axis=1))), axis=0)
    calibration = calibrate_corners(corners, size, T9, lens=truth, head=head)
    assert _mapping_error_mm(truth, calibration.camera, T9) <= 1.0


def test_corners_that_make_no_table_are_refused() -> None:
    with pytest.raises(CalibrationError, match="need 4 corners"):
        calibrate_corners([(0, 0), (1, 1)], SIZE, T9)
    bow_tie = [(100, 100), (1100, 600), (1100, 100), (100, 600)]
    with pytest.raises(CalibrationError, match="no convex table"):
        calibrate_corners(bow_tie, SIZE, T9)
    portrait = [(500, 50), (780, 50), (780, 670), (500, 670)]
    with pytest.raises(CalibrationError, match="try another --head"):
        calibrate_corners(portrait, SIZE, T9, head=HeadSide.LEFT)


def test_calibration_file_round_trip_and_refusals(tmp_path: Path) -> None:
    truth = CameraModel.overhead(T9, image_size=SIZE)
    calibration = calibrate_corners(
        truth.project(nose_corners_mm(T9, HeadSide.LEFT)), SIZE, T9, lens=truth
    )
    path = tmp_path / "calib.json"
    save(calibration, path)
    assert load(path, image_size=SIZE) == calibration
    with pytest.raises(CalibrationError, match="made for 1280x720 frames, not 1920x1080"):
        load(path, image_size=(1920, 1080))
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "version": CALIBRATION_VERSION + 1}))
    with pytest.raises(CalibrationError, match="format version 2"):
        load(path)
    path.write_text("{ not json")
    with pytest.raises(CalibrationError, match="unreadable calibration file"):
        load(path)
    with pytest.raises(CalibrationError, match="not found"):
        load(tmp_path / "missing.json")
    path.write_text(json.dumps({**data, "camera": {**data["camera"], "fx": "wide"}}))
    with pytest.raises(CalibrationError, match=r"camera\.fx: expected float"):
        load(path)


def test_calibrate_image_and_drift() -> None:
    rng = np.random.default_rng(5)
    image, _, _ = draw_table(CLOTHS["green"], rng, 20.0)
    calibration = calibrate_image(image, T9, made_from="synthetic")
    assert calibration.confidence > 0.7 and calibration.cloth_lab is not None
    same = check_drift(calibration, image)
    assert not same.moved and same.max_shift_px < 0.1
    moved = np.roll(image, 4, axis=1)
    report = check_drift(calibration, moved)
    assert report.moved and 3.0 < report.max_shift_px < 5.0
    with pytest.raises(CalibrationError, match="frame is 640x360"):
        check_drift(calibration, image[:360, :640])


def test_overlay_draws_the_noses_where_the_camera_puts_them() -> None:
    from calibration.overlay import draw_overlay

    truth = CameraModel.overhead(T9, image_size=SIZE, tilt_deg=2.0)
    calibration = calibrate_corners(
        truth.project(nose_corners_mm(T9, HeadSide.LEFT)), SIZE, T9, lens=truth
    )
    blank = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    drawn = draw_overlay(blank, calibration)
    head_cushion = truth.project(np.array([[-T9.length / 2, 0.0, T9.cushion_nose_height]]))[0]
    x, y = (round(v) for v in head_cushion)
    assert tuple(drawn[y, x]) == (0, 255, 255)  # the nose colour, on the head cushion
    assert drawn.sum() > 0 and blank.sum() == 0
