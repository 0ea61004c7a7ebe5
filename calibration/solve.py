"""Solve the camera against the table: from a frame (or four corners) to a `Calibration`.

The cushion-nose corners found in the image are matched to the table's nose corners at the
nose height (WPA: 62.5-64.5 % of a ball diameter above the cloth) and the camera is posed on them
with solvePnP. When the lens is known (from a chessboard, or the virtual table's truth), the
image is undistorted first so the table edges are straight lines; otherwise a default lens is
assumed and said so, since from one overhead view the focal length and the camera height cannot
be told apart, and the ball-centre plane depends on that height.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

from calibration.align import MIN_POINTS_SHARE, align_to_noses
from calibration.camera import CameraModel
from calibration.table import TableSpec
from calibration.table_finder import TableFinding, find_table
from rules.errors import CalibrationError
from rules.table import Point

log = logging.getLogger(__name__)


class HeadSide(StrEnum):
    """Which side of the image the head cushion is on."""

    LEFT = "left"
    RIGHT = "right"
    TOP = "top"
    BOTTOM = "bottom"


class IntrinsicsSource(StrEnum):
    """Where the lens parameters of a calibration came from."""

    GIVEN = "given"
    ESTIMATED = "estimated"
    """Focal length estimated from the table's perspective (a tilted view)."""
    DEFAULT = "default"


@dataclass(frozen=True, slots=True)
class PoseSolution:
    """A posed camera with its fit to what was seen.

    Attributes:
        camera: The camera, lens and pose.
        nose_corners_px: The four cushion-nose corners used, in raw image pixels.
        reprojection_px: RMS distance between what was seen and its reprojection, pixels: of
            the cushion-nose edges when the pose was aligned on them (`align`), else of the
            corners.
        reprojection_mm: The same on the table, millimetres.
        intrinsics: Where the lens came from.
        nose_agreement: Share of the points along the noses whose image edge lies within
            1.5 px of the posed noses, when the pose was aligned on them; None otherwise.
    """

    camera: CameraModel
    nose_corners_px: tuple[Point, ...]
    reprojection_px: float
    reprojection_mm: float
    intrinsics: IntrinsicsSource
    nose_agreement: float | None = None


def nose_corners_mm(table: TableSpec, head: HeadSide) -> np.ndarray:
    """The four cushion-nose corners at nose height, in the order find_table reports corners
    (clockwise in the image from the top-left), for a table whose head is on ``head``."""
    hx, hy, z = table.length / 2, table.width / 2, table.cushion_nose_height
    # Clockwise in the image as seen with the head on the left: head-left, foot-left, foot-right,
    # head-right (the left long cushion, +y, at the top).
    ring = [(-hx, hy, z), (hx, hy, z), (hx, -hy, z), (-hx, -hy, z)]
    turns = {HeadSide.LEFT: 0, HeadSide.BOTTOM: 1, HeadSide.RIGHT: 2, HeadSide.TOP: 3}[head]
    return np.array(ring[turns:] + ring[:turns], dtype=np.float64)


MAX_REPROJECTION_PX = 5.0
"""A pose that misses its own corners by more than this is wrong, not imprecise."""


def solve_from_corners(
    table: TableSpec,
    corners_px: Sequence[Point],
    image_size: tuple[int, int],
    lens: CameraModel | None = None,
    head: HeadSide | None = None,
) -> PoseSolution:
    """Pose the camera on four cushion-nose corners given in raw image pixels.

    Args:
        table: The table.
        corners_px: The nose corners, clockwise in the image from the top-left one.
        image_size: (width, height) of the frames.
        lens: Known intrinsics and distortion; None to estimate or assume them.
        head: Which image side the head cushion is on; None to work out whether the table runs
            across or along the image (which end is the head cannot be seen, so then the head
            is taken to be on the left or at the top).

    Raises:
        CalibrationError: not four corners, not a convex quad, or no pose fits.
    """
    corners = np.asarray(corners_px, dtype=np.float64)
    if corners.shape != (4, 2):
        raise CalibrationError(f"calibration: need 4 corners (x, y), got {corners.tolist()}")
    if not cv2.isContourConvex(corners.astype(np.float32)):
        raise CalibrationError(f"calibration: corners {corners.tolist()} make no convex table")
    if lens is not None and tuple(lens.image_size) != tuple(image_size):
        raise CalibrationError(
            f"calibration: the lens is for {lens.image_size} images, the frames are {image_size}"
        )
    heads = [head] if head is not None else [HeadSide.LEFT, HeadSide.TOP]
    solutions = [_solve(table, corners, image_size, lens, h) for h in heads]
    best = min(
        solutions, key=lambda s: (s.intrinsics is IntrinsicsSource.DEFAULT, s.reprojection_px)
    )
    if best.reprojection_px > MAX_REPROJECTION_PX:
        hint = "try another --head" if head is not None else "give the lens or the corners"
        raise CalibrationError(
            f"calibration: no camera fits the corners (reprojection {best.reprojection_px:.1f} "
            f"px): {hint}"
        )
    return best


def _solve(
    table: TableSpec,
    corners: np.ndarray,
    image_size: tuple[int, int],
    lens: CameraModel | None,
    head: HeadSide,
) -> PoseSolution:
    if lens is not None:
        source = IntrinsicsSource.GIVEN
    else:
        lens, source = _lens_from_perspective(table, corners, image_size, head)
    points = nose_corners_mm(table, head)
    camera, error_px = _planar_seed(lens, points, corners).solve_pose(points, corners)
    error_mm = error_px * camera.mm_per_pixel(np.zeros(3))
    return PoseSolution(camera, _as_points(corners), error_px, error_mm, source)


def solve_from_image(
    image: np.ndarray,
    table: TableSpec,
    lens: CameraModel | None = None,
    head: HeadSide | None = None,
    where: str = "frame",
) -> tuple[PoseSolution, TableFinding]:
    """Find the table in a frame and pose the camera on it.

    With a known lens the frame is undistorted first, so the cushion noses are straight. The
    pose solved on the four nose corners is then refined on the whole length of the six noses
    in the raw frame (`align.align_to_noses`); for a lens not given, its focal length (when the
    view has perspective) and radial distortion k1 (the noses' bend) are refined with it.

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
    solution = solve_from_corners(table, _as_points(corners), size, lens, head)
    aligned = _aligned(image, table, solution, head, where)
    if solution.intrinsics is IntrinsicsSource.ESTIMATED and _agreement(aligned) < CLEAR_AGREEMENT:
        # The corners of a table bent by an unknown lens can give a focal length far off, and
        # an alignment started there a wrong pose: start once more from the default lens.
        seed = _solve(table, corners, size, CameraModel.default(size), head or _head_side(solution))
        seed = dataclasses.replace(seed, intrinsics=IntrinsicsSource.ESTIMATED)
        other = _aligned(image, table, seed, head, where)
        if _agreement(other) > _agreement(aligned):
            aligned = other
    return aligned, finding


CLEAR_AGREEMENT = 0.9
"""Share of the noses agreeing with an aligned pose above which no other start is tried."""


def _agreement(solution: PoseSolution) -> float:
    return solution.nose_agreement if solution.nose_agreement is not None else 0.0


MAX_EDGE_RMS_PX = 1.0
"""An edge alignment whose noses miss their edges by more than this (RMS) is not used."""


def _aligned(
    image: np.ndarray,
    table: TableSpec,
    solution: PoseSolution,
    head: HeadSide | None,
    where: str,
) -> PoseSolution:
    """The corner solution refined on the whole length of the cushion noses (`align`), or the
    corner solution as it is when too little of the noses' edges agrees with it."""
    refine_focal = solution.intrinsics is IntrinsicsSource.ESTIMATED
    refine_k1 = solution.intrinsics is not IntrinsicsSource.GIVEN
    alignment = align_to_noses(image, table, solution.camera, refine_focal, refine_k1)
    if alignment.share < MIN_POINTS_SHARE or alignment.edge_rms_px > MAX_EDGE_RMS_PX:
        log.info(
            "%s: nose edges agree on %.0f%% of the noses (RMS %.2f px): posed on the corners",
            where,
            100 * alignment.share,
            alignment.edge_rms_px,
        )
        return solution
    camera = alignment.camera
    corners = camera.project(nose_corners_mm(table, head or _head_side(solution)))
    error_mm = alignment.edge_rms_px * camera.mm_per_pixel(np.zeros(3))
    return PoseSolution(
        camera,
        _as_points(corners),
        alignment.edge_rms_px,
        error_mm,
        solution.intrinsics,
        alignment.share,
    )


def _head_side(solution: PoseSolution) -> HeadSide:
    """The image side the solution put the head cushion on (LEFT or TOP, as it solved)."""
    cam = solution.camera
    head, foot = cam.project(np.array([[-1000.0, 0.0, 0.0], [1000.0, 0.0, 0.0]]))
    dx, dy = head - foot
    if abs(dx) >= abs(dy):
        return HeadSide.LEFT if dx < 0 else HeadSide.RIGHT
    return HeadSide.TOP if dy < 0 else HeadSide.BOTTOM


MIN_FOV_DEG, MAX_FOV_DEG = 15.0, 120.0
"""Fields of view an estimated focal length must imply to be believed."""


def _lens_from_perspective(
    table: TableSpec, corners: np.ndarray, image_size: tuple[int, int], head: HeadSide
) -> tuple[CameraModel, IntrinsicsSource]:
    """Estimate the focal length from the table rectangle's perspective (Zhang's constraints:
    the plane's two axes are orthogonal and equally long in the camera frame), with square
    pixels and a centred principal point. A view from nearly straight above carries no focal
    information, so then, or when the estimate is implausible, fall back to the default lens."""
    default = CameraModel.default(image_size)
    plane = nose_corners_mm(table, head)[:, :2].astype(np.float32)
    h = cv2.getPerspectiveTransform(plane, corners.astype(np.float32))
    shift = np.array([[1, 0, -default.cx], [0, 1, -default.cy], [0, 0, 1]])
    (a1, a2), (b1, b2), (c1, c2) = (shift @ h)[:, :2]
    coeffs = np.array([a1 * a2 + b1 * b2, a1**2 + b1**2 - a2**2 - b2**2])
    rhs = np.array([c1 * c2, c1**2 - c2**2])
    if float(coeffs @ coeffs) == 0:
        return default, IntrinsicsSource.DEFAULT
    inv_f2 = -float(coeffs @ rhs) / float(coeffs @ coeffs)
    if inv_f2 <= 0:
        return default, IntrinsicsSource.DEFAULT
    focal = 1 / math.sqrt(inv_f2)
    fov = math.degrees(2 * math.atan(image_size[0] / 2 / focal))
    if not MIN_FOV_DEG <= fov <= MAX_FOV_DEG:
        return default, IntrinsicsSource.DEFAULT
    lens = CameraModel(image_size, focal, focal, default.cx, default.cy)
    return lens, IntrinsicsSource.ESTIMATED


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


def _as_points(corners: np.ndarray) -> tuple[Point, ...]:
    return tuple((float(x), float(y)) for x, y in corners)
