"""Lens intrinsics and distortion from chessboard or ChArUco pictures (OpenCV's calibrateCamera).

When the user has a few photos of a printed board taken with the table camera, this gives
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
    size = _common_size(images)
    board = chessboard_points(pattern, square_mm).astype(np.float32)
    views = []
    for image in images:
        corners = find_chessboard(image, pattern)
        views.append(None if corners is None else (board, corners))
    return _fit(size, views, f"a {pattern[0]}x{pattern[1]} chessboard")


def calibrate_intrinsics_charuco(
    images: Sequence[np.ndarray],
    *,
    squares: tuple[int, int] = (7, 5),
    square_mm: float = 30.0,
    marker_mm: float = 22.0,
    dictionary: str = "DICT_5X5_100",
) -> tuple[CameraModel, float]:
    """Intrinsics and distortion from views of a ChArUco board (a chessboard with ArUco
    markers in its white squares: it is found even when partly out of view or covered).

    Args:
        images: BGR or grey pictures of the board, all the same size, in varied poses.
        squares: Squares per row and per column.
        square_mm: Side of one square.
        marker_mm: Side of one marker.
        dictionary: The ArUco dictionary the board was printed with (OpenCV's name).

    Returns:
        The fitted camera (pose: the first usable view's board pose) and the RMS reprojection
        error in pixels.

    Raises:
        CalibrationError: an unknown dictionary, no images, images of different sizes, or
            fewer than `MIN_VIEWS` views with at least 6 corners found.
    """
    size = _common_size(images)
    board = charuco_board(squares, square_mm, marker_mm, dictionary)
    detector = cv2.aruco.CharucoDetector(board)
    all_corners = np.asarray(board.getChessboardCorners(), dtype=np.float32)
    views = []
    for image in images:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < 6:
            views.append(None)
            continue
        views.append((all_corners[ids.ravel()], corners.reshape(-1, 2).astype(np.float64)))
    return _fit(size, views, f"a {squares[0]}x{squares[1]} ChArUco board")


def charuco_board(
    squares: tuple[int, int], square_mm: float, marker_mm: float, dictionary: str
) -> cv2.aruco.CharucoBoard:
    """The ChArUco board of these dimensions (print it with ``generateImage``).

    Raises:
        CalibrationError: ``dictionary`` is not one of OpenCV's predefined ones.
    """
    code = getattr(cv2.aruco, dictionary, None) if dictionary.startswith("DICT_") else None
    if not isinstance(code, int):
        raise CalibrationError(f"intrinsics: unknown ArUco dictionary {dictionary!r}")
    return cv2.aruco.CharucoBoard(
        squares, square_mm, marker_mm, cv2.aruco.getPredefinedDictionary(code)
    )


def _common_size(images: Sequence[np.ndarray]) -> tuple[int, int]:
    if not images:
        raise CalibrationError("intrinsics: no calibration images given")
    sizes = {(img.shape[1], img.shape[0]) for img in images}
    if len(sizes) != 1:
        raise CalibrationError(f"intrinsics: images differ in size: {sorted(sizes)}")
    return sizes.pop()


def _fit(
    size: tuple[int, int],
    views: list[tuple[np.ndarray, np.ndarray] | None],
    what: str,
) -> tuple[CameraModel, float]:
    missing = [i for i, v in enumerate(views) if v is None]
    found = [v for v in views if v is not None]
    if len(found) < MIN_VIEWS:
        raise CalibrationError(
            f"intrinsics: {what} was found in {len(found)} of {len(views)} images "
            f"(need {MIN_VIEWS}); not found in images {missing}"
        )
    if missing:
        log.info("intrinsics: no board in images %s; %d used", missing, len(found))
    object_points = [obj.astype(np.float32) for obj, _ in found]
    image_points = [img.astype(np.float32).reshape(-1, 1, 2) for _, img in found]
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
