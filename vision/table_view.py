"""What the camera sees of the table, worked out once per calibration.

The detector works on a half-resolution copy of each frame to find candidates and goes back to
full resolution only around them. For the half-resolution grid this precomputes where each pixel
lies on the plane of ball centres, whether a ball's pixels can be there at all (inside the cushion
noses or in a pocket's opening), how big a ball looks there, and the empty cloth the colour model
predicts there.
"""

from __future__ import annotations

import cv2
import numpy as np
from numba import njit

from calibration.camera import CameraModel
from calibration.colour import ColourModel, shading_points
from calibration.table import TableSpec
from rules.balls import BALL_RADIUS_MM
from rules.errors import CalibrationError

SCALE = 2
"""Full-resolution pixels per working pixel along each axis."""

_RADIUS_GRID_PX = 8
_LOOKUP_TOLERANCE_MM = 0.01
"""The lookup may place a ball this far from the camera model's exact mapping (a hundredth of
the error budget)."""
_LOOKUP_PROBES = 400


class TableView:
    """Per-calibration maps on the working (half-resolution) grid.

    Args:
        camera: The calibrated camera.
        table: The table.
        colours: The colour model (its cloth and shading predict the empty table).

    Attributes:
        size: (width, height) of the working grid.
        table_xy: (h, w, 2) float32 table mm of each working pixel on the plane of ball centres.
        roi: (h, w) uint8, 255 where a ball's pixels may be (playing surface and pocket mouths).
        bed: (h, w) uint8, 255 on the playing surface only (where the cloth model holds).
        outline: (H, W) uint8 at full resolution, 255 where a ball's outline may lie.
        outline_clear: (H, W) float32, each pixel's distance from where no outline may lie.
        radius: (h, w) float32 expected ball radius in full-resolution pixels.
        silhouette: (h, w, 3) float32 the expected outline of a ball centred there, as the
            quadratic form (a, b, c) of its ellipse: offsets (x, y) in full-resolution pixels
            on it have a x^2 + 2 b x y + c y^2 = 1. Away from below the camera a ball is seen
            past its equator and its outline is stretched toward and away from the image's
            centre (by about 1 / cos of the viewing angle, less what barrel distortion takes
            back: 5 % at the ends of a 9 ft table seen from 2.6 m).
        cloth: (h, w, 3) float32 predicted empty-cloth BGR (None when the shading is unknown).
        lookup_error_mm: The worst distance between `plane_xy` and the camera model's exact
            mapping, measured once; `ball_xy` uses the lookup only when it is negligible.
    """

    def __init__(self, camera: CameraModel, table: TableSpec, colours: ColourModel) -> None:
        self.camera = camera
        self.table = table
        width, height = camera.image_size
        self.size = (width // SCALE, height // SCALE)
        w, h = self.size
        gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
        full = np.stack((gx * SCALE + (SCALE - 1) / 2, gy * SCALE + (SCALE - 1) / 2), axis=-1)
        self.table_xy = _plane_points(camera, full.reshape(-1, 2), BALL_RADIUS_MM).reshape(h, w, 2)
        self.roi = _roi(table, self.table_xy)
        self.bed = _bed(table, self.table_xy)
        # Full resolution, to the millimetre: where a ball's outline may lie (a ball frozen to
        # a cushion reaches its nose, on the plane of ball centres, and no further).
        full_xy = cv2.resize(self.table_xy, (width, height), interpolation=cv2.INTER_LINEAR)
        self.outline = _roi(table, full_xy, margin=1.0)
        self.outline_clear = cv2.distanceTransform(self.outline, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        self.radius = _radius_map(camera, self.table_xy, self.roi)
        self.silhouette = _silhouette_map(camera, self.table_xy, self.roi)
        self.lookup_error_mm = _lookup_error(camera, self)
        self.cloth_lab = colours.cloth_lab
        self.cloth = self.predict_cloth(colours)

    def predict_cloth(self, colours: ColourModel) -> np.ndarray | None:
        """The empty cloth at every working pixel, BGR float32, or None without a shading grid."""
        grid = colours.shading_array()
        if grid is None:
            return None
        lab = np.array(colours.cloth_lab, dtype=np.float32).reshape(1, 1, 3).round()
        bgr = cv2.cvtColor(lab.astype(np.uint8), cv2.COLOR_LAB2BGR).reshape(3).astype(np.float32)
        gain = _sample_grid(grid, self.table, self.table_xy)
        return gain[..., None] * bgr[None, None, :]

    def plane_xy(self, pixels: np.ndarray) -> np.ndarray:
        """Table mm on the plane of ball centres of full-resolution pixels, (n, 2), interpolated
        in ``table_xy`` (bilinear, clamped to the grid): within a thousandth of a millimetre of
        the camera model's exact mapping, and far cheaper for a few points (a streak's ends)."""
        pixels = np.ascontiguousarray(pixels, dtype=np.float64).reshape(-1, 2)
        return _bilinear(self.table_xy, pixels, (SCALE - 1) / 2, SCALE)

    def silhouettes(self, pixels: np.ndarray) -> np.ndarray:
        """The expected outline ellipses (`silhouette`) of balls centred at full-resolution
        pixels, (n, 3): the working pixel nearest each, clamped to the grid."""
        pixels = np.ascontiguousarray(pixels, dtype=np.float64).reshape(-1, 2)
        return _nearest(self.silhouette, pixels, (SCALE - 1) / 2, SCALE)

    def ball_xy(self, pixels: np.ndarray) -> np.ndarray:
        """Table mm of ball centres seen at full-resolution pixels, (n, 2): `plane_xy` when the
        lookup agrees with the camera model (`lookup_error_mm`), else the model itself (a lens
        whose distortion OpenCV's undistortion does not follow)."""
        if self.lookup_error_mm <= _LOOKUP_TOLERANCE_MM:
            return self.plane_xy(pixels)
        return self.camera.to_table(np.asarray(pixels, dtype=np.float64), BALL_RADIUS_MM)

    def to_working(self, pixels: np.ndarray) -> np.ndarray:
        """Working-grid coordinates of full-resolution pixels."""
        return (np.asarray(pixels, dtype=np.float64) - (SCALE - 1) / 2) / SCALE

    def to_full(self, working: np.ndarray) -> np.ndarray:
        """Full-resolution pixels of working-grid coordinates."""
        return np.asarray(working, dtype=np.float64) * SCALE + (SCALE - 1) / 2


@njit(cache=True, nogil=True)
def _bilinear(grid: np.ndarray, pixels: np.ndarray, half: float, scale: int) -> np.ndarray:
    """Bilinear samples of a working-grid map of (x, y) pairs (float32) at full-resolution
    pixels, clamped to the grid, in float64: one compiled loop (a dozen numpy calls for the
    few points a frame asks)."""
    gh, gw = grid.shape[0], grid.shape[1]
    out = np.empty((len(pixels), 2))
    for i in range(len(pixels)):
        x = min(max((pixels[i, 0] - half) / scale, 0.0), gw - 1.000001)
        y = min(max((pixels[i, 1] - half) / scale, 0.0), gh - 1.000001)
        x0, y0 = int(x), int(y)
        fx, fy = x - x0, y - y0
        for k in range(2):
            c00, c01 = np.float64(grid[y0, x0, k]), np.float64(grid[y0, x0 + 1, k])
            c10, c11 = np.float64(grid[y0 + 1, x0, k]), np.float64(grid[y0 + 1, x0 + 1, k])
            top = c00 * (1 - fx) + c01 * fx
            bottom = c10 * (1 - fx) + c11 * fx
            out[i, k] = top * (1 - fy) + bottom * fy
    return out


@njit(cache=True, nogil=True)
def _nearest(grid: np.ndarray, pixels: np.ndarray, half: float, scale: int) -> np.ndarray:
    """A working-grid map's values (float32, k per pixel) at the working pixel nearest each
    full-resolution pixel, clamped to the grid, (n, k)."""
    gh, gw, k = grid.shape
    out = np.empty((len(pixels), k), np.float32)
    for i in range(len(pixels)):
        x = min(max(int(np.rint((pixels[i, 0] - half) / scale)), 0), gw - 1)
        y = min(max(int(np.rint((pixels[i, 1] - half) / scale)), 0), gh - 1)
        out[i] = grid[y, x]
    return out


def warm() -> None:
    """Compile (or load) this module's loops on a tiny input (`vision.warm`)."""
    _bilinear(np.zeros((4, 4, 2), np.float32), np.array([[1.0, 1.0]]), 0.5, 2)
    _nearest(np.zeros((4, 4, 3), np.float32), np.array([[1.0, 1.0]]), 0.5, 2)


def _plane_points(camera: CameraModel, pixels: np.ndarray, z_mm: float) -> np.ndarray:
    """Table (x, y) on the plane z of many pixels (OpenCV's undistortion: ample for masks)."""
    ideal = cv2.undistortPoints(
        pixels.reshape(-1, 1, 2).astype(np.float64), camera.camera_matrix, camera.dist_coeffs
    ).reshape(-1, 2)
    rays = np.column_stack((ideal, np.ones(len(ideal)))) @ camera.rotation
    eye = camera.position_mm
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (z_mm - eye[2]) / rays[:, 2]
    scale = np.where(scale > 0, scale, np.nan)
    xy = eye[:2] + scale[:, None] * rays[:, :2]
    return np.nan_to_num(xy, nan=1e7).astype(np.float32)


def _lookup_error(camera: CameraModel, view: TableView) -> float:
    """The worst distance, mm, between `TableView.plane_xy` and the camera model's exact mapping
    over probes spread (deterministically) across where balls can be."""
    ys, xs = np.nonzero(view.roi)
    if len(xs) == 0:
        return 0.0
    pick = np.linspace(0, len(xs) - 1, _LOOKUP_PROBES).astype(np.int64)
    # Off the grid's nodes by a fraction of a pixel, where interpolation errs most.
    pixels = view.to_full(np.column_stack((xs[pick], ys[pick])).astype(np.float64)) + 0.37
    try:
        exact = camera.to_table(pixels, BALL_RADIUS_MM)
    except CalibrationError:
        return float("inf")
    return float(np.max(np.hypot(*(exact - view.plane_xy(pixels)).T)))


def _roi(table: TableSpec, xy: np.ndarray, margin: float = 4.0) -> np.ndarray:
    """Where ball pixels can be: inside the cushion noses (seen on the plane of ball centres, a
    ball against a cushion reaches the nose line) or in a pocket opening."""
    x, y = xy[..., 0], xy[..., 1]
    inside = (np.abs(x) <= table.length / 2 + margin) & (np.abs(y) <= table.width / 2 + margin)
    for pocket in table.pockets:
        cx, cy = pocket.mouth_centre
        reach = pocket.mouth_width / 2 + BALL_RADIUS_MM
        inside |= np.hypot(x - cx, y - cy) <= reach
    return inside.astype(np.uint8) * 255


def _bed(table: TableSpec, xy: np.ndarray) -> np.ndarray:
    """The playing surface inside the cushion noses, a little inset (the noses' shadow)."""
    inset = 3.0
    x, y = xy[..., 0], xy[..., 1]
    inside = (np.abs(x) <= table.length / 2 - inset) & (np.abs(y) <= table.width / 2 - inset)
    return inside.astype(np.uint8) * 255


def _radius_map(camera: CameraModel, xy: np.ndarray, roi: np.ndarray) -> np.ndarray:
    """Expected ball radius (full-resolution pixels) at each working pixel, held within its
    range over ``roi`` (where balls can be)."""
    h, w = xy.shape[:2]
    step = _RADIUS_GRID_PX
    coarse = xy[::step, ::step]
    ch, cw = coarse.shape[:2]
    pts = coarse.reshape(-1, 2).astype(np.float64)
    pts = np.clip(pts, -5000, 5000)
    r = BALL_RADIUS_MM
    z = np.full(len(pts), r)
    probes = [pts + d for d in ((0, 0), (r, 0), (-r, 0), (0, r), (0, -r))]
    px = [camera.project(np.column_stack((p, z))) for p in probes]
    jx = (px[1] - px[2]) / 2
    jy = (px[3] - px[4]) / 2
    radius = np.sqrt(np.abs(jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0])).reshape(ch, cw)
    radius = np.nan_to_num(radius, nan=1.0).astype(np.float32)
    radius = cv2.resize(radius, (w, h), interpolation=cv2.INTER_LINEAR)
    # Far outside the table (toward a real camera's horizon) the plane mapping, and so the
    # radius, runs wild; only where balls can be matters, and sizes taken from the map's
    # maximum (search margins, dilations) must stay a ball's.
    inside = radius[roi > 0]
    if len(inside):
        radius = np.clip(radius, float(inside.min()), float(inside.max()))
    return radius


def _silhouette_map(camera: CameraModel, xy: np.ndarray, roi: np.ndarray) -> np.ndarray:
    """The outline ellipse of a ball centred at each working pixel, as a quadratic form (see
    `TableView.silhouette`): the image of the disc through the ball's centre square to the
    line of sight (the sphere's silhouette, to a few hundredths of a pixel at these sizes)."""
    h, w = xy.shape[:2]
    step = _RADIUS_GRID_PX
    coarse = xy[::step, ::step]
    ch, cw = coarse.shape[:2]
    inside = roi[::step, ::step] > 0
    pts = np.clip(coarse.reshape(-1, 2).astype(np.float64), -5000, 5000)
    centres = np.column_stack((pts, np.full(len(pts), BALL_RADIUS_MM)))
    sight = camera.position_mm - centres
    sight /= np.linalg.norm(sight, axis=1, keepdims=True)
    helper = np.where(np.abs(sight[:, :1]) > 0.9, (0.0, 1.0, 0.0), (1.0, 0.0, 0.0))
    u = np.cross(helper, sight)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(sight, u)
    r = BALL_RADIUS_MM
    px = [camera.project(centres + d) for d in (r * u, -r * u, r * v, -r * v)]
    a = np.stack(((px[0] - px[1]) / 2, (px[2] - px[3]) / 2), axis=2)  # unit disc -> pixels
    # Points p = A q with |q| = 1: p^T (A A^T)^-1 p = 1.
    aat = a @ np.transpose(a, (0, 2, 1))
    det = aat[:, 0, 0] * aat[:, 1, 1] - aat[:, 0, 1] ** 2
    ok = np.isfinite(det) & (det > 1e-9)
    det = np.where(ok, det, 1.0)
    form = np.stack((aat[:, 1, 1] / det, -aat[:, 0, 1] / det, aat[:, 0, 0] / det), axis=1)
    # Where the plane mapping runs wild (toward a real camera's horizon, never a ball's place)
    # a table node's shape stands in, so the map stays finite.
    good = ok & inside.reshape(-1)
    fill = form[good].mean(axis=0) if good.any() else np.array((1.0, 0.0, 1.0))
    form = np.where(ok[:, None], form, fill).reshape(ch, cw, 3)
    return cv2.resize(form.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _sample_grid(grid: np.ndarray, table: TableSpec, xy: np.ndarray) -> np.ndarray:
    """Bilinear samples of a grid over the playing surface at table points (clamped)."""
    rows, cols = grid.shape
    nodes = shading_points(table, (rows, cols))
    x0, y0 = nodes[0, 0]
    x1, y1 = nodes[-1, -1]
    col = (xy[..., 0] - x0) / (x1 - x0) * (cols - 1)
    row = (xy[..., 1] - y0) / (y1 - y0) * (rows - 1)
    return cv2.remap(
        grid.astype(np.float32),
        np.clip(col, 0, cols - 1).astype(np.float32),
        np.clip(row, 0, rows - 1).astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
