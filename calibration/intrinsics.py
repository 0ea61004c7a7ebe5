"""Lens intrinsics and distortion from chessboard pictures (OpenCV's calibrateCamera).

When the user has a few photos of a printed chessboard taken with the table camera, this gives
the focal lengths, principal point and distortion; without them, `CameraModel.default` is the
fallback and the pose is solved against the table alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.camera import CameraModel
from rules.errors import CalibrationError

log = logging.getLogger(__name__)

MIN_VIEWS = 4
"""Chessboard views needed for a trustworthy calibration."""


def chessboard_points(pattern: tuple[int, int], square_mm: float) -> np.ndarray:
    """The board's inner corners in its own plane (z = 0), row by row, (cols * rows, 3) mm."""
    cols, rows = pattern
    grid = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    return np.column_stack((grid, np.zeros(len(grid))))


def find_chessboard(image: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Sub-pixel inner corners of a chessboard in an image, (cols * rows, 2), or None."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    found, corners = cv2.findChessboardCorners(grey, pattern, flags=flags)
    if found:
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
        corners = cv2.cornerSubPix(grey, corners, (7, 7), (-1, -1), criteria)
    else:  # the sector-based detector copes better with blur and uneven light, but is slower
        found, corners = cv2.findChessboardCornersSB(grey, pattern)
    return corners.reshape(-1, 2).astype(np.float64) if found else None


def calibrate_intrinsics(
    images: Sequence[np.ndarray],
    *,
    pattern: tuple[int, int] = (9, 6),
    square_mm: float = 25.0,
) -> tuple[CameraModel, float]:
    """Intrinsics and distortion from views of a chessboard.

    Args:
        images: BGR or grey pictures of the board, all the same size, in varied poses.
        pattern: Inner corners per row and per column.
        square_mm: Side of one square.

    Returns:
        A camera with the fitted lens (its pose is the first view's board pose; solve the
        table pose with `CameraModel.solve_pose`), and the RMS reprojection error in pixels.

    Raises:
        CalibrationError: no images, images of different sizes, or fewer than `MIN_VIEWS`
            views in which the board was found (the message names the ones without it).
    """
    if not images:
        raise CalibrationError("intrinsics: no chessboard images given")
    sizes = {(img.shape[1], img.shape[0]) for img in images}
    if len(sizes) != 1:
        raise CalibrationError(f"intrinsics: images differ in size: {sorted(sizes)}")
    (size,) = sizes
    board = chessboard_points(pattern, square_mm).astype(np.float32)
    object_points, image_points, missing = [], [], []
    for i, image in enumerate(images):
        corners = find_chessboard(image, pattern)
        if corners is None:
            missing.append(i)
            continue
        object_points.append(board)
        image_points.append(corners.astype(np.float32).reshape(-1, 1, 2))
    if len(image_points) < MIN_VIEWS:
        raise CalibrationError(
            f"intrinsics: a {pattern[0]}x{pattern[1]} chessboard was found in "
            f"{len(image_points)} of {len(images)} images (need {MIN_VIEWS}); "
            f"not found in images {missing}"
        )
    if missing:
        log.info("intrinsics: no chessboard in images %s; %d used", missing, len(image_points))
    rms, k, dist, rvecs, tvecs = cv2.calibrateCamera(object_points, image_points, size, None, None)
    d = np.asarray(dist, dtype=np.float64).ravel()[:5]
    camera = CameraModel(
        size,
        k[0, 0],
        k[1, 1],
        k[0, 2],
        k[1, 2],
        tuple(d),
        tuple(np.asarray(rvecs[0]).ravel()),
        tuple(np.asarray(tvecs[0]).ravel()),
    )
    return camera, float(rms)
