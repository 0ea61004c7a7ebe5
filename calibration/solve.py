"""Solve the camera against the table: from a frame (or four corners) to a `Calibration`.

The cushion-nose corners found in the image are matched to the table's nose corners at the
nose height (WPA: 62.5-64.5 % of a ball diameter above the cloth) and the camera is posed on them
with solvePnP. When the lens is known (from a chessboard, or the virtual table's truth), the
image is undistorted first so the table edges are straight lines; otherwise a default lens is
assumed and said so, since from one overhead view the focal length and the camera height cannot
be told apart, and the ball-centre plane depends on that height.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableSpec
from calibration.table_finder import TableFinding, find_table
from rules.errors import CalibrationError
from rules.table import Point

log = logging.getLogger(__name__)

DEFAULT_HORIZONTAL_FOV_DEG = 70.0
"""Field of view of the default lens: a typical wide webcam."""


class HeadSide(StrEnum):
    """Which side of the image the head cushion is on."""

    LEFT = "left"
    RIGHT = "right"
    TOP = "top"
    BOTTOM = "bottom"


class IntrinsicsSource(StrEnum):
    """Where the lens parameters of a calibration came from."""

    GIVEN = "given"
    DEFAULT = "default"


@dataclass(frozen=True, slots=True)
class PoseSolution:
    """A posed camera with its fit to what was seen.

    Attributes:
        camera: The camera, lens and pose.
        nose_corners_px: The four cushion-nose corners used, in raw image pixels.
        reprojection_px: RMS distance between seen and reprojected corners, pixels.
        reprojection_mm: The same on the table, millimetres.
        intrinsics: Where the lens came from.
    """

    camera: CameraModel
    nose_corners_px: tuple[Point, ...]
    reprojection_px: float
    reprojection_mm: float
    intrinsics: IntrinsicsSource


def default_lens(image_size: tuple[int, int]) -> CameraModel:
    """A distortion-free lens with a typical webcam field of view, centred principal point."""
    width, height = image_size
    focal = (width / 2) / math.tan(math.radians(DEFAULT_HORIZONTAL_FOV_DEG) / 2)
    return CameraModel(image_size, focal, focal, (width - 1) / 2, (height - 1) / 2)


def nose_corners_mm(table: TableSpec, head: HeadSide) -> np.ndarray:
    """The four cushion-nose corners at nose height, in the order find_table reports corners
    (clockwise in the image from the top-left), for a table whose head is on ``head``."""
    hx, hy, z = table.length / 2, table.width / 2, table.cushion_nose_height
    # Clockwise in the image as seen with the head on the left: head-left, foot-left, foot-right,
    # head-right (the left long cushion, +y, at the top).
    ring = [(-hx, hy, z), (hx, hy, z), (hx, -hy, z), (-hx, -hy, z)]
    turns = {HeadSide.LEFT: 0, HeadSide.BOTTOM: 1, HeadSide.RIGHT: 2, HeadSide.TOP: 3}[head]
    return np.array(ring[turns:] + ring[:turns], dtype=np.float64)


def solve_from_corners(
    table: TableSpec,
    corners_px: Sequence[Point],
    image_size: tuple[int, int],
    lens: CameraModel | None = None,
    head: HeadSide = HeadSide.LEFT,
) -> PoseSolution:
    """Pose the camera on four cushion-nose corners given in raw image pixels.

    Args:
        table: The table.
        corners_px: The nose corners, clockwise in the image from the top-left one.
        image_size: (width, height) of the frames.
        lens: Known intrinsics and distortion; None for the default lens.
        head: Which image side the head cushion is on.

    Raises:
        CalibrationError: not four corners, not a convex quad, or no pose fits.
    """
    corners = np.asarray(corners_px, dtype=np.float64)
    if corners.shape != (4, 2):
        raise CalibrationError(f"calibration: need 4 corners (x, y), got {corners.tolist()}")
    if not cv2.isContourConvex(corners.astype(np.float32)):
        raise CalibrationError(f"calibration: corners {corners.tolist()} make no convex table")
    _check_aspect(table, corners, head)
    source = IntrinsicsSource.GIVEN if lens is not None else IntrinsicsSource.DEFAULT
    lens = lens or default_lens(image_size)
    if tuple(lens.image_size) != tuple(image_size):
        raise CalibrationError(
            f"calibration: the lens is for {lens.image_size} images, the frames are {image_size}"
        )
    points = nose_corners_mm(table, head)
    camera, error_px = _planar_seed(lens, points, corners).solve_pose(points, corners)
    error_mm = error_px * camera.mm_per_pixel(np.zeros(3))
    return PoseSolution(camera, _as_points(corners), error_px, error_mm, source)


def solve_from_image(
    image: np.ndarray,
    table: TableSpec,
    lens: CameraModel | None = None,
    head: HeadSide = HeadSide.LEFT,
    where: str = "frame",
) -> tuple[PoseSolution, TableFinding]:
    """Find the table in a frame and pose the camera on it.

    With a known lens the frame is undistorted first, so the cushion noses are straight.

    Raises:
        CalibrationError: no table found, or no pose fits (the message says which and where).
    """
    size = (image.shape[1], image.shape[0])
    ideal = image
    if lens is not None and any(lens.distortion):
        ideal = cv2.undistort(image, lens.camera_matrix, lens.dist_coeffs)
    finding = find_table(ideal, where)
    corners = np.asarray(finding.nose_corners)
    if lens is not None and any(lens.distortion):
        corners = _distort_pixels(lens, corners)
    return solve_from_corners(table, _as_points(corners), size, lens, head), finding


def _planar_seed(lens: CameraModel, points: np.ndarray, corners: np.ndarray) -> CameraModel:
    """A first pose from a global solver (SQPnP), which needs no guess: an iterative solver
    seeded with a fixed overhead pose falls into the mirror solution when the camera is turned."""
    count, rvecs, tvecs, _ = cv2.solvePnPGeneric(
        points, corners, lens.camera_matrix, lens.dist_coeffs, flags=cv2.SOLVEPNP_SQPNP
    )
    for rvec, tvec in zip(rvecs[:count], tvecs[:count], strict=True):
        rotation = cv2.Rodrigues(rvec)[0]
        if (-rotation.T @ tvec.reshape(3))[2] > 0:  # a mirror solution would sit under the table
            return lens.with_pose(rvec, tvec)
    raise CalibrationError("calibration: no camera pose above the table fits the four corners")


def _distort_pixels(lens: CameraModel, ideal_px: np.ndarray) -> np.ndarray:
    """Ideal (undistorted) pixels back to the raw pixels the lens would show."""
    k = lens.camera_matrix
    normalised = (ideal_px - [lens.cx, lens.cy]) / [lens.fx, lens.fy]
    rays = np.column_stack([normalised, np.ones(len(normalised))])
    raw, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), k, lens.dist_coeffs)
    return raw.reshape(-1, 2)


def _check_aspect(table: TableSpec, corners: np.ndarray, head: HeadSide) -> None:
    """Refuse corners whose long sides do not run the way ``head`` says (a 90-degree mix-up)."""
    top = np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])
    side = np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1])
    horizontal_long = top >= side
    if table.length > table.width * 1.05 and horizontal_long != (
        head in (HeadSide.LEFT, HeadSide.RIGHT)
    ):
        raise CalibrationError(
            f"calibration: the table's long sides run {'across' if horizontal_long else 'down'} "
            f"the image but the head is said to be at the {head}: pass the head side"
        )


def _as_points(corners: np.ndarray) -> tuple[Point, ...]:
    return tuple((float(x), float(y)) for x, y in corners)
