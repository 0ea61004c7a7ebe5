"""Draw a calibration over a frame so a person can check it by eye."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.file import Calibration

GRID_MM = 100.0
_NOSE = (0, 255, 255)
_GRID = (255, 255, 255)
_STRING = (255, 0, 255)
_POCKET = (0, 0, 255)


def draw_overlay(image: np.ndarray, calibration: Calibration) -> np.ndarray:
    """A copy of ``image`` with the cushion noses, pockets, head string, foot spot and a
    100 mm grid on the cloth drawn where the calibration puts them."""
    out = image.copy()
    table, cam = calibration.table, calibration.camera
    hx, hy, z_nose = table.length / 2, table.width / 2, table.cushion_nose_height
    grid = out.copy()
    for x in np.arange(-hx, hx + 1e-6, GRID_MM):
        _polyline(grid, cam, [(x, -hy, 0.0), (x, hy, 0.0)], _GRID, 1)
    for y in np.arange(0.0, hy + 1e-6, GRID_MM):
        for sy in (1.0, -1.0):
            _polyline(grid, cam, [(-hx, sy * y, 0.0), (hx, sy * y, 0.0)], _GRID, 1)
    cv2.addWeighted(grid, 0.35, out, 0.65, 0, dst=out)
    for cushion in table.cushions:
        ends = [(*cushion.start, z_nose), (*cushion.end, z_nose)]
        _polyline(out, cam, ends, _NOSE, 2)
    for pocket in table.pockets:
        _polyline(out, cam, [(*j, z_nose) for j in pocket.jaws], _POCKET, 2)
        centre = cam.project(np.array([(*pocket.centre, 0.0)]))[0]
        cv2.circle(out, _px(centre), 4, _POCKET, -1, cv2.LINE_AA)
    _polyline(
        out, cam, [(table.head_string_x, -hy, 0.0), (table.head_string_x, hy, 0.0)], _STRING, 2
    )
    foot = cam.project(np.array([(*table.foot_spot, 0.0)]))[0]
    cv2.drawMarker(out, _px(foot), _STRING, cv2.MARKER_CROSS, 16, 2, cv2.LINE_AA)
    label = (
        f"{table.name}  reprojection {calibration.reprojection_px:.2f} px / "
        f"{calibration.reprojection_mm:.1f} mm  lens {calibration.intrinsics}"
    )
    cv2.putText(out, label, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(out, label, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, _NOSE, 1, cv2.LINE_AA)
    return out


def _polyline(image, cam, points_mm, colour, thickness: int, samples: int = 24) -> None:
    """A table-frame line drawn through the lens (sampled, so distortion bends it as it should)."""
    a, b = np.asarray(points_mm, dtype=np.float64)
    t = np.linspace(0.0, 1.0, samples)[:, None]
    pixels = cam.project(a + t * (b - a))
    cv2.polylines(
        image,
        [np.round(pixels * 16).astype(np.int32)],
        False,
        colour,
        thickness,
        cv2.LINE_AA,
        shift=4,
    )


def _px(point: np.ndarray) -> tuple[int, int]:
    return (round(float(point[0])), round(float(point[1])))
