"""Lens calibration from chessboard views rendered through a known camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.intrinsics import (
    calibrate_intrinsics,
    calibrate_intrinsics_charuco,
    charuco_board,
    chessboard_points,
)
from rules.errors import CalibrationError

PATTERN = (9, 6)
SQUARE = 30.0
LENS = CameraModel((800, 600), 650.0, 650.0, 403.0, 297.0, (-0.15, 0.04, 0.001, -0.0005, 0.0))


_TEXEL_MM = 0.25
_STEP = 4


def _board_texture() -> np.ndarray:
    """The printed card: squares with a white margin, on a grey desk, 0.25 mm per texel."""
    cols, rows = PATTERN
    size = (np.array((cols + 5, rows + 5)) * SQUARE / _TEXEL_MM).astype(int)
    texture = np.full((size[1], size[0]), 90.0, dtype=np.float32)
    card = (slice(int(SQUARE / _TEXEL_MM), -int(SQUARE / _TEXEL_MM)),) * 2
    texture[card] = 235.0
    cell = int(SQUARE / _TEXEL_MM)
    for i in range(-1, cols):
        for j in range(-1, rows):
            if (i + j) % 2 == 0:
                y0, x0 = (j + 3) * cell, (i + 3) * cell
                texture[y0 : y0 + cell, x0 : x0 + cell] = 20.0
    return cv2.GaussianBlur(texture, (0, 0), 2.0)  # about one image pixel of footprint


def _board_view(
    pose: tuple, texture: np.ndarray, origin_mm: float, centre_mm: tuple[float, float]
) -> np.ndarray:
    """A board seen through LENS from about 650 mm.

    Args:
        pose: (rx, ry, rz) degrees and an (x, y) shift in mm of the board centre.
        texture: The board's picture, 0.25 mm per texel.
        origin_mm: Board coordinates of texel (0, 0) (the same on both axes).
        centre_mm: The board point the camera looks at.
    """
    rx, ry, rz, shift = pose
    rot = cv2.Rodrigues(np.radians([rx, ry, rz]))[0]
    tvec = -rot @ np.array((*centre_mm, 0.0)) + np.array((shift[0], shift[1], 650.0))
    view = LENS.with_pose(cv2.Rodrigues(rot)[0], tvec)
    w, h = view.image_size
    # Board coordinates of every 4th pixel, exactly; bilinear in between.
    gh, gw = h // _STEP + 2, w // _STEP + 2
    gy, gx = np.mgrid[0:gh, 0:gw] * _STEP
    grid = np.column_stack((gx.ravel(), gy.ravel())).astype(np.float64)
    uv = view.to_table(grid, 0.0).reshape(gh, gw, 2)
    texel = ((uv - origin_mm) / _TEXEL_MM).astype(np.float32)
    mx = np.broadcast_to(np.arange(w, dtype=np.float32) / _STEP, (h, w))
    my = np.broadcast_to(np.arange(h, dtype=np.float32)[:, None] / _STEP, (h, w))
    full = cv2.remap(texel, mx, my, cv2.INTER_LINEAR)
    image = cv2.remap(texture, full[..., 0], full[..., 1], cv2.INTER_LINEAR, borderValue=90.0)
    return np.clip(image + 0.5, 0, 255).astype(np.uint8)


def _chessboard_view(pose: tuple) -> np.ndarray:
    cols, rows = PATTERN
    centre = ((cols - 1) * SQUARE / 2, (rows - 1) * SQUARE / 2)
    return _board_view(pose, _TEXTURE, -3 * SQUARE, centre)


_TEXTURE = _board_texture()
CHARUCO = {"squares": (7, 5), "square_mm": 30.0, "marker_mm": 22.0, "dictionary": "DICT_5X5_100"}


def _charuco_view(pose: tuple) -> np.ndarray:
    board = charuco_board(**CHARUCO)
    cols, rows = CHARUCO["squares"]
    margin = int(CHARUCO["square_mm"] / _TEXEL_MM)
    size = (int(cols * CHARUCO["square_mm"] / _TEXEL_MM) + 2 * margin,
            int(rows * CHARUCO["square_mm"] / _TEXEL_MM) + 2 * margin)  # fmt: skip
    printed = board.generateImage(size, marginSize=margin).astype(np.float32)
    texture = cv2.GaussianBlur(20.0 + printed * (215.0 / 255.0), (0, 0), 2.0)
    centre = (cols * CHARUCO["square_mm"] / 2, rows * CHARUCO["square_mm"] / 2)
    return _board_view(pose, texture, -CHARUCO["square_mm"], centre)


POSES = [
    (0, 0, 0, (0, 0)),
    (25, 0, 5, (-120, -80)),
    (-25, 10, -5, (120, 80)),
    (10, 25, 0, (-140, 90)),
    (-10, -25, 10, (140, -90)),
    (20, -20, -10, (0, 110)),
]


def test_calibration_recovers_the_lens_from_chessboard_views() -> None:
    images = [_chessboard_view(pose) for pose in POSES]
    camera, rms = calibrate_intrinsics(images, pattern=PATTERN, square_mm=SQUARE)
    assert rms < 0.3
    assert camera.fx == pytest.approx(LENS.fx, rel=0.01)
    assert camera.fy == pytest.approx(LENS.fy, rel=0.01)
    assert abs(camera.cx - LENS.cx) < 2 and abs(camera.cy - LENS.cy) < 2
    # What matters is the mapping: rays through pixels agree wherever the boards were seen
    # (outside that, as with any lens calibration, the distortion is extrapolated). A common
    # offset of all rays (the principal point's uncertainty) is a small camera rotation that
    # the table pose absorbs, so it is taken out.
    grid = np.mgrid[140:661:40, 140:461:40].reshape(2, -1).T.astype(float)
    diff = camera.undistort(grid) - LENS.undistort(grid)
    assert np.max(np.abs(diff - diff.mean(axis=0))) * LENS.fx < 0.3


def test_calibration_recovers_the_lens_from_charuco_views() -> None:
    images = [_charuco_view(pose) for pose in POSES]
    camera, rms = calibrate_intrinsics_charuco(images, **CHARUCO)
    assert rms < 0.3
    assert camera.fx == pytest.approx(LENS.fx, rel=0.01)
    assert abs(camera.cx - LENS.cx) < 3 and abs(camera.cy - LENS.cy) < 3
    grid = np.mgrid[180:621:40, 160:441:40].reshape(2, -1).T.astype(float)  # a smaller board
    diff = camera.undistort(grid) - LENS.undistort(grid)
    assert np.max(np.abs(diff - diff.mean(axis=0))) * LENS.fx < 0.3


def test_an_unknown_aruco_dictionary_is_named() -> None:
    with pytest.raises(CalibrationError, match="unknown ArUco dictionary 'DICT_7X7_9'"):
        charuco_board((7, 5), 30.0, 22.0, "DICT_7X7_9")
    with pytest.raises(CalibrationError, match="unknown ArUco dictionary"):
        charuco_board((7, 5), 30.0, 22.0, "CharucoBoard")


def test_too_few_boards_is_a_calibration_error_naming_the_images() -> None:
    blank = np.full((600, 800), 128, dtype=np.uint8)
    message = r"found in 0 of 2 images.*not found in images \[0, 1\]"
    with pytest.raises(CalibrationError, match=message):
        calibrate_intrinsics([blank, blank], pattern=PATTERN, square_mm=SQUARE)


def test_images_of_different_sizes_are_refused() -> None:
    with pytest.raises(CalibrationError, match="differ in size"):
        calibrate_intrinsics([np.zeros((10, 20), np.uint8), np.zeros((20, 10), np.uint8)])
    with pytest.raises(CalibrationError, match="no calibration images"):
        calibrate_intrinsics([])


def test_chessboard_points_run_row_by_row() -> None:
    pts = chessboard_points((3, 2), 10.0)
    assert pts.tolist() == [[0, 0, 0], [10, 0, 0], [20, 0, 0], [0, 10, 0], [10, 10, 0], [20, 10, 0]]
