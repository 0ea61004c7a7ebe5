"""Make a `Calibration` from a frame or from corners given by hand, and check it for drift."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraModel
from calibration.file import CALIBRATION_VERSION, Calibration
from calibration.solve import HeadSide, PoseSolution, solve_from_corners, solve_from_image
from calibration.table import TableSpec
from rules.errors import CalibrationError
from rules.table import Point

DRIFT_TOLERANCE_PX = 1.5
"""Corner movement beyond which the camera or the table is said to have moved."""


def calibrate_image(
    image: np.ndarray,
    table: TableSpec,
    lens: CameraModel | None = None,
    head: HeadSide | None = None,
    made_from: str = "frame",
    created_utc: str = "",
) -> Calibration:
    """Find the table in a frame and calibrate the camera on it.

    Raises:
        CalibrationError: no table in the frame, or no camera pose fits it.
    """
    solution, finding = solve_from_image(image, table, lens, head, where=made_from)
    # Once the pose is aligned on the noses, how much of their length agrees with it says more
    # than how neatly the cloth's outline (bitten by pockets, rails and arms) fits four lines.
    confidence = finding.confidence
    if solution.nose_agreement is not None:
        confidence = max(confidence, solution.nose_agreement)
    return _calibration(solution, table, finding.cloth_lab, confidence, made_from, created_utc)


def calibrate_corners(
    corners_px: Sequence[Point],
    image_size: tuple[int, int],
    table: TableSpec,
    lens: CameraModel | None = None,
    head: HeadSide | None = None,
    made_from: str = "corners given by hand",
    created_utc: str = "",
) -> Calibration:
    """The manual fallback: calibrate on four cushion-nose corners the user clicked or typed."""
    solution = solve_from_corners(table, corners_px, image_size, lens, head)
    return _calibration(solution, table, None, 1.0, made_from, created_utc)


def _calibration(
    solution: PoseSolution,
    table: TableSpec,
    cloth_lab: tuple[float, float, float] | None,
    confidence: float,
    made_from: str,
    created_utc: str,
) -> Calibration:
    return Calibration(
        CALIBRATION_VERSION,
        table,
        solution.camera,
        solution.intrinsics,
        solution.nose_corners_px,
        solution.reprojection_px,
        solution.reprojection_mm,
        cloth_lab,
        confidence,
        created_utc,
        made_from,
    )


@dataclass(frozen=True, slots=True)
class DriftReport:
    """Whether the camera or the table moved since a calibration.

    Attributes:
        moved: True when any corner moved more than the tolerance.
        corner_shifts_px: How far each cushion-nose corner moved, pixels.
        tolerance_px: The tolerance applied.
    """

    moved: bool
    corner_shifts_px: tuple[float, ...]
    tolerance_px: float

    @property
    def max_shift_px(self) -> float:
        """The largest corner movement."""
        return max(self.corner_shifts_px)


def check_drift(
    calibration: Calibration,
    image: np.ndarray,
    tolerance_px: float = DRIFT_TOLERANCE_PX,
    where: str = "frame",
) -> DriftReport:
    """Find the table again in a new frame and compare its corners with the calibration's.

    Raises:
        CalibrationError: the frame is of another size, or no table is found in it.
    """
    size = (image.shape[1], image.shape[0])
    if size != tuple(calibration.image_size):
        raise CalibrationError(
            f"{where}: frame is {size[0]}x{size[1]}, the calibration is for "
            f"{calibration.image_size[0]}x{calibration.image_size[1]}"
        )
    lens = calibration.camera if calibration.intrinsics == "given" else None
    solution, _ = solve_from_image(image, calibration.table, lens, _head_of(calibration), where)
    shifts = np.linalg.norm(
        np.asarray(solution.nose_corners_px) - np.asarray(calibration.nose_corners_px), axis=1
    )
    return DriftReport(
        bool(shifts.max() > tolerance_px), tuple(float(s) for s in shifts), tolerance_px
    )


def _head_of(calibration: Calibration) -> HeadSide:
    """Which image side the head cushion is on, from the calibrated camera."""
    cam = calibration.camera
    half = calibration.table.length / 2
    head, foot = cam.project(np.array([[-half, 0.0, 0.0], [half, 0.0, 0.0]]))
    dx, dy = head - foot
    if abs(dx) >= abs(dy):
        return HeadSide.LEFT if dx < 0 else HeadSide.RIGHT
    return HeadSide.TOP if dy < 0 else HeadSide.BOTTOM
