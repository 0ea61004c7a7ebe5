"""The one camera model: lens intrinsics, distortion and pose against the table.

A pinhole camera with OpenCV's five-coefficient lens distortion (k1, k2, p1, p2, k3), posed by a
rotation vector and translation taking table millimetres to camera coordinates. The table frame
is DESIGN.md's, with z up: the cloth is z = 0 and ball centres sit at z = ball radius
(28.575 mm). Camera coordinates are OpenCV's: x right, y down in the image, z along the view.

Why the plane matters: a homography of the cloth plane maps a ball centre seen from 2.6 m up to a
point displaced away from the camera's foot by ``d * r / (H - r)``; at the corner pockets
(``d`` about 1.4 m) that is about 15 mm. `CameraModel.to_table` therefore back-projects rays onto
the plane the point really lies on (z = ball radius for detections), which is exact.

Arrays do not go through the codec, so the dataclass stores plain tuples of floats and builds
numpy arrays in its methods.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableSpec
from rules.errors import CalibrationError

Distortion = tuple[float, float, float, float, float]
Vec3 = tuple[float, float, float]

NO_DISTORTION: Distortion = (0.0, 0.0, 0.0, 0.0, 0.0)
"""Distortion coefficients of an ideal pinhole lens."""

MILD_BARREL: Distortion = (-0.12, 0.03, 0.0, 0.0, 0.0)
"""A typical wide-angle webcam lens: mild barrel distortion."""

_UNDISTORT_ITERATIONS = 30
_UNDISTORT_TOLERANCE = 1e-13


@dataclass(frozen=True, slots=True)
class CameraModel:
    """A calibrated camera: intrinsics, lens distortion and pose (table -> camera).

    Attributes:
        image_size: (width, height) in pixels.
        fx: Focal length along x, pixels.
        fy: Focal length along y, pixels.
        cx: Principal point x, pixels (pixel centres at integer coordinates, as OpenCV).
        cy: Principal point y, pixels.
        distortion: OpenCV coefficients (k1, k2, p1, p2, k3).
        rvec: Rodrigues rotation vector taking table axes to camera axes.
        tvec: Translation, mm: the table origin in camera coordinates.
    """

    image_size: tuple[int, int]
    fx: float
    fy: float
    cx: float
    cy: float
    distortion: Distortion = NO_DISTORTION
    rvec: Vec3 = (0.0, 0.0, 0.0)
    tvec: Vec3 = (0.0, 0.0, 1000.0)

    def __post_init__(self) -> None:
        width, height = self.image_size
        if width <= 0 or height <= 0:
            raise ValueError(f"camera: image size {self.image_size} must be positive")
        if not (self.fx > 0 and self.fy > 0):
            raise ValueError(f"camera: focal lengths ({self.fx}, {self.fy}) must be positive")
        # Coerce numpy scalars to plain floats so the value encodes and compares cleanly.
        object.__setattr__(self, "image_size", (int(width), int(height)))
        for name in ("fx", "fy", "cx", "cy"):
            object.__setattr__(self, name, float(getattr(self, name)))
        for name, count in (("distortion", 5), ("rvec", 3), ("tvec", 3)):
            values = tuple(float(v) for v in getattr(self, name))
            if len(values) != count or not all(math.isfinite(v) for v in values):
                raise ValueError(f"camera: {name} must be {count} finite numbers, got {values}")
            object.__setattr__(self, name, values)

    # Arrays ------------------------------------------------------------------------------------

    @property
    def camera_matrix(self) -> np.ndarray:
        """K, the 3x3 intrinsic matrix."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def dist_coeffs(self) -> np.ndarray:
        """The distortion coefficients as OpenCV wants them, shape (5,)."""
        return np.array(self.distortion, dtype=np.float64)

    @property
    def rotation(self) -> np.ndarray:
        """R, the 3x3 rotation taking table axes to camera axes."""
        return cv2.Rodrigues(np.array(self.rvec, dtype=np.float64))[0]

    @property
    def position_mm(self) -> np.ndarray:
        """The camera's optical centre in table millimetres, shape (3,)."""
        return -self.rotation.T @ np.array(self.tvec)

    @property
    def height_mm(self) -> float:
        """Height of the optical centre above the cloth."""
        return float(self.position_mm[2])

    # Mapping -----------------------------------------------------------------------------------

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixels of table points, lens distortion included.

        Args:
            points_mm: (n, 3) points in table millimetres (z above the cloth).

        Returns:
            (n, 2) pixel coordinates (x right, y down).
        """
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        if len(pts) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(
            pts, np.array(self.rvec), np.array(self.tvec), self.camera_matrix, self.dist_coeffs
        )
        return px.reshape(-1, 2)

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Normalised ideal-pinhole coordinates (x/z, y/z) of distorted pixels, shape (n, 2).

        OpenCV's `undistortPoints` stops after a few fixed-point steps, leaving up to a few
        hundredths of a pixel near the corners; this refines with Newton steps to 1e-13.
        """
        px = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        if len(px) == 0:
            return np.zeros((0, 2))
        target = np.column_stack(((px[:, 0] - self.cx) / self.fx, (px[:, 1] - self.cy) / self.fy))
        guess = cv2.undistortPoints(px.reshape(-1, 1, 2), self.camera_matrix, self.dist_coeffs)
        xy = guess.reshape(-1, 2).copy()
        if not any(self.distortion):
            return target
        for _ in range(_UNDISTORT_ITERATIONS):
            residual = _distort(xy, self.distortion) - target
            if np.max(np.abs(residual)) < _UNDISTORT_TOLERANCE:
                break
            jac = _distort_jacobian(xy, self.distortion)
            xy -= np.linalg.solve(jac, residual[:, :, None])[:, :, 0]
        return xy

    def rays(self, pixels: np.ndarray) -> np.ndarray:
        """Unit view directions in the table frame through distorted pixels, shape (n, 3)."""
        xy = self.undistort(pixels)
        cam = np.column_stack((xy, np.ones(len(xy))))
        table = cam @ self.rotation  # R^T applied to each row
        return table / np.linalg.norm(table, axis=1, keepdims=True)

    def to_table(self, pixels: np.ndarray, z_mm: float | np.ndarray) -> np.ndarray:
        """Table (x, y) where the rays through ``pixels`` meet the plane z = ``z_mm``.

        Use ``z_mm`` = ball radius for ball centres (DESIGN.md: map on the plane of ball centres),
        0 for marks on the cloth, the cushion-nose height for the cushion noses.

        Args:
            pixels: (n, 2) distorted pixel coordinates.
            z_mm: Height of the plane above the cloth, one for all or (n,) one per pixel.

        Returns:
            (n, 2) table millimetres.

        Raises:
            CalibrationError: a ray misses the plane (it points away from it).
        """
        dirs = self.rays(pixels)
        origin = self.position_mm
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = (np.asarray(z_mm, dtype=np.float64) - origin[2]) / dirs[:, 2]
        if not np.all(np.isfinite(scale) & (scale > 0)):
            bad = int(np.flatnonzero(~(np.isfinite(scale) & (scale > 0)))[0])
            z_bad = float(np.broadcast_to(z_mm, scale.shape)[bad])
            raise CalibrationError(
                f"camera: the ray through pixel {tuple(np.round(pixels[bad], 1))} "
                f"never reaches the plane z = {z_bad} mm"
            )
        return origin[:2] + scale[:, None] * dirs[:, :2]

    def cloth_homography(self) -> np.ndarray:
        """H mapping cloth-plane table (x, y, 1) to undistorted pixels: K [r1 r2 t].

        This is what a plain four-corner homography calibration gives. It is exact for marks on
        the cloth only; a ball centre (28.575 mm up) mapped through it lands up to about 15 mm
        off near the corner pockets for a camera 2.6 m up. Use `to_table` with the right plane.
        """
        rot = self.rotation
        h = self.camera_matrix @ np.column_stack((rot[:, 0], rot[:, 1], np.array(self.tvec)))
        return h / h[2, 2]

    def cloth_homography_to_table(self, pixels: np.ndarray) -> np.ndarray:
        """Table (x, y) of distorted pixels through the inverse cloth homography."""
        xy = self.undistort(pixels)
        ideal = np.column_stack(
            (xy[:, 0] * self.fx + self.cx, xy[:, 1] * self.fy + self.cy, np.ones(len(xy)))
        )
        table = ideal @ np.linalg.inv(self.cloth_homography()).T
        return table[:, :2] / table[:, 2:3]

    def mm_per_pixel(self, point_mm: np.ndarray) -> float:
        """Millimetres per pixel at a table point (mean of both axes), for error reports."""
        p = np.asarray(point_mm, dtype=np.float64).reshape(3)
        step = 10.0
        pts = p + np.array([(0, 0, 0), (step, 0, 0), (0, step, 0)])
        px = self.project(pts)
        per_px = [step / np.linalg.norm(px[i] - px[0]) for i in (1, 2)]
        return float(np.mean(per_px))

    def solve_pose(self, points_mm: np.ndarray, pixels: np.ndarray) -> tuple[CameraModel, float]:
        """This lens posed so known table points land on their observed pixels (solvePnP).

        Args:
            points_mm: (n, 3) known points at their true heights (cushion-nose corners at the
                nose height, pocket jaws, diamonds on the rail top), n >= 4.
            pixels: (n, 2) where they are seen.

        Returns:
            The posed camera and the RMS reprojection error in pixels.

        Raises:
            CalibrationError: too few points, or the solver fails.
        """
        obj = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        img = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        if len(obj) < 4 or len(obj) != len(img):
            raise CalibrationError(
                f"camera: solving the pose needs at least 4 matched points, got {len(obj)} "
                f"table points and {len(img)} pixels"
            )
        ok, rvec, tvec = cv2.solvePnP(
            obj,
            img,
            self.camera_matrix,
            self.dist_coeffs,
            np.array(self.rvec).reshape(3, 1),
            np.array(self.tvec).reshape(3, 1),
            useExtrinsicGuess=True,
            flags=cv2.SOLVEPNP_ITERATIVE,
        )
        if not ok:
            raise CalibrationError("camera: solvePnP found no pose for the given points")
        k, d = self.camera_matrix, self.dist_coeffs
        rvec, tvec = cv2.solvePnPRefineLM(obj, img, k, d, rvec, tvec)
        posed = self.with_pose(rvec, tvec)
        residual = posed.project(obj) - img
        return posed, float(np.sqrt(np.mean(np.sum(residual**2, axis=1))))

    def reprojection_error(self, points_mm: np.ndarray, pixels: np.ndarray) -> tuple[float, float]:
        """How well this camera explains observations of known points.

        Args:
            points_mm: (n, 3) known table points.
            pixels: (n, 2) where they were seen.

        Returns:
            RMS error in pixels (projected points vs observed pixels), and in millimetres
            (observed pixels mapped back onto each point's own horizontal plane vs the points).
        """
        obj = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        img = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        px = np.sqrt(np.mean(np.sum((self.project(obj) - img) ** 2, axis=1)))
        back = self.to_table(img, obj[:, 2])
        mm = np.sqrt(np.mean(np.sum((back - obj[:, :2]) ** 2, axis=1)))
        return float(px), float(mm)

    def with_pose(self, rvec: np.ndarray, tvec: np.ndarray) -> CameraModel:
        """The same lens at another pose."""
        return CameraModel(
            self.image_size,
            self.fx,
            self.fy,
            self.cx,
            self.cy,
            self.distortion,
            tuple(np.asarray(rvec, dtype=np.float64).reshape(3)),
            tuple(np.asarray(tvec, dtype=np.float64).reshape(3)),
        )

    # Construction ------------------------------------------------------------------------------

    @classmethod
    def default(
        cls, image_size: tuple[int, int], *, hfov_deg: float = 70.0, height_mm: float = 2600.0
    ) -> CameraModel:
        """A sensible camera when the lens was never calibrated: square pixels, the principal
        point in the middle, no distortion, a typical webcam's horizontal field of view, and a
        starting pose straight above the centre spot (`solve_pose` then finds the real one)."""
        width, height = image_size
        focal = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        rot = np.array([[1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]])
        rvec = cv2.Rodrigues(rot)[0].reshape(3)
        return cls(
            image_size,
            focal,
            focal,
            (width - 1) / 2,
            (height - 1) / 2,
            NO_DISTORTION,
            tuple(rvec),
            (0.0, 0.0, height_mm),
        )

    @classmethod
    def overhead(
        cls,
        table: TableSpec,
        *,
        image_size: tuple[int, int] = (1280, 720),
        height_mm: float = 2600.0,
        tilt_deg: float = 0.0,
        side_tilt_deg: float = 0.0,
        yaw_deg: float = 0.0,
        distortion: Distortion = NO_DISTORTION,
        margin_mm: float = 200.0,
        margin_px: float = 6.0,
        principal_offset_px: tuple[float, float] = (0.0, 0.0),
    ) -> CameraModel:
        """A realistic overhead rig: a camera above the table looking at its centre.

        The table's length runs along the image's width with the foot (+x) on the right and
        the left long cushion (+y) at the top. The focal length is the largest at which the
        playing surface grown by ``margin_mm`` (the rails) fits inside the image, ``margin_px``
        from its edges, lens distortion included.

        Args:
            table: The table watched.
            image_size: (width, height) pixels.
            height_mm: Height of the optical centre above the cloth.
            tilt_deg: Tilt of the optical axis from vertical along the table's length; positive
                puts the camera over the foot half looking back toward the head.
            side_tilt_deg: Tilt across the table; positive puts the camera over the right side.
            yaw_deg: Rotation of the camera about its optical axis.
            distortion: Lens distortion (k1, k2, p1, p2, k3).
            margin_mm: How far beyond the cushion noses must stay in view.
            margin_px: Free pixels left at the image border.
            principal_offset_px: Principal point offset from the image centre.

        Raises:
            CalibrationError: no focal length fits the table (distortion folds the image).
        """
        width, height = image_size
        cam_to_table = (
            _rot_x(math.radians(side_tilt_deg))
            @ _rot_y(math.radians(tilt_deg))
            @ np.array([[1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]])
            @ _rot_z(math.radians(yaw_deg))
        )
        axis = cam_to_table[:, 2]
        position = -axis * (height_mm / -axis[2])  # looks at the table centre on the cloth
        rot = cam_to_table.T
        tvec = -rot @ position
        rvec = cv2.Rodrigues(rot)[0].reshape(3)
        cx = (width - 1) / 2 + principal_offset_px[0]
        cy = (height - 1) / 2 + principal_offset_px[1]
        hx, hy = table.length / 2 + margin_mm, table.width / 2 + margin_mm
        outline = np.array(
            [(sx * hx * t, sy * hy, 0.0) for sx in (-1, 1) for sy in (-1, 1) for t in (1, 0.5)]
            + [(sx * hx, 0.0, 0.0) for sx in (-1, 1)],
            dtype=np.float64,
        )
        focal = 1000.0
        for _ in range(40):
            cam = cls(image_size, focal, focal, cx, cy, distortion, tuple(rvec), tuple(tvec))
            px = cam.project(outline)
            over_x = np.max(np.abs(px[:, 0] - cx)) / (width / 2 - margin_px)
            over_y = np.max(np.abs(px[:, 1] - cy)) / (height / 2 - margin_px)
            over = max(over_x, over_y)
            if abs(over - 1.0) < 1e-4:
                return cam
            focal /= over
        raise CalibrationError(
            f"camera: no focal length fits a {table.name} table in {image_size} "
            f"with distortion {distortion}"
        )


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _distort(xy: np.ndarray, d: Distortion) -> np.ndarray:
    """OpenCV's distortion of normalised coordinates, (n, 2) -> (n, 2)."""
    k1, k2, p1, p2, k3 = d
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.column_stack((xd, yd))


def _distort_jacobian(xy: np.ndarray, d: Distortion) -> np.ndarray:
    """d(distorted)/d(xy), shape (n, 2, 2)."""
    k1, k2, p1, p2, k3 = d
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    dradial = k1 + 2 * k2 * r2 + 3 * k3 * r2 * r2  # d radial / d r2
    jac = np.empty((len(xy), 2, 2))
    jac[:, 0, 0] = radial + x * dradial * 2 * x + 2 * p1 * y + 6 * p2 * x
    jac[:, 0, 1] = x * dradial * 2 * y + 2 * p1 * x + 2 * p2 * y
    jac[:, 1, 0] = y * dradial * 2 * x + 2 * p1 * x + 2 * p2 * y
    jac[:, 1, 1] = radial + y * dradial * 2 * y + 6 * p1 * y + 2 * p2 * x
    return jac
