"""Table landmarks: solving the pose on them at their true heights."""

from __future__ import annotations

import numpy as np

from calibration.camera import MILD_BARREL, CameraModel
from calibration.landmarks import table_landmarks
from calibration.table import TableSpec
from rules.balls import BALL_RADIUS_MM

TABLE = TableSpec.standard("9ft")


def test_landmarks_are_named_and_at_their_heights() -> None:
    marks = table_landmarks(TABLE, rail_top_mm=42.0)
    assert len(marks) == 4 + 12 + 18
    nose = TABLE.cushion_nose_height
    assert marks["nose-corner-foot-left"] == (TABLE.length / 2, TABLE.width / 2, nose)
    assert marks["diamond-0"][2] == 42.0
    assert marks["jaw-side-left-0"][2] == TABLE.cushion_nose_height


def _solve(marks: dict, truth: CameraModel) -> CameraModel:
    pts = np.array(list(marks.values()))
    start = CameraModel.overhead(TABLE, distortion=truth.distortion)
    start = CameraModel(
        truth.image_size, truth.fx, truth.fy, truth.cx, truth.cy, truth.distortion,
        start.rvec, start.tvec,
    )  # fmt: skip
    posed, _ = start.solve_pose(pts, truth.project(pts))
    return posed


def test_a_pose_solved_on_the_cloth_plane_misplaces_balls_the_true_heights_do_not() -> None:
    truth = CameraModel.overhead(TABLE, tilt_deg=5, side_tilt_deg=-3, distortion=MILD_BARREL)
    marks = table_landmarks(TABLE)
    right = _solve(marks, truth)
    flat = {name: (x, y, 0.0) for name, (x, y, _) in marks.items()}
    # The flat solve is fed the real image positions of raised points.
    pts = np.array(list(marks.values()))
    start = CameraModel(
        truth.image_size, truth.fx, truth.fy, truth.cx, truth.cy, truth.distortion,
        right.rvec, right.tvec,
    )  # fmt: skip
    wrong, rms_px = start.solve_pose(np.array(list(flat.values())), truth.project(pts))
    hx, hy = TABLE.length / 2 - BALL_RADIUS_MM, TABLE.width / 2 - BALL_RADIUS_MM
    balls = np.array([(x, y, BALL_RADIUS_MM) for x in (-hx, 0, hx) for y in (-hy, 0, hy)])
    seen = truth.project(balls)

    def error(cam: CameraModel) -> float:
        mapped = cam.to_table(seen, BALL_RADIUS_MM)
        return float(np.max(np.linalg.norm(mapped - balls[:, :2], axis=1)))

    assert error(right) < 0.01
    # The flat solve fits the image perfectly (the landmarks are coplanar, so the camera just
    # slides 36 mm), so its reprojection error cannot reveal that balls near the rails are
    # then about 2 cm off.
    assert rms_px < 1e-6
    assert error(wrong) > 15.0
