"""What a real overhead camera sees of the virtual table, rendered fast.

The picture is built the way a camera forms it, through the one `CameraModel` (perspective, lens
distortion, tilt), but cheaply:

- The static table (cloth with texture, cushions, wooden rails with diamonds, pocket openings,
  the lamps' uneven light and the lens's vignetting) is drawn once per camera into a background
  image: every pixel's ray is met with the rail-top plane and the cloth plane, and top-down
  textures of both are sampled there. The rail tops are taken to be flat at the cushion-nose
  height, so the cushions hide the cloth just under their noses as they do from above.
- Each ball is a small sprite. A ball is small against the lens's curvature, so its outline is
  the image of the sphere's silhouette circle under the projection's local affine map at its
  centre (secants through four points on the circle, distortion included); the centre itself is
  projected exactly. `sprite_outline_error_px` measures the approximation against the exact
  projected silhouette: under 0.1 px anywhere on the table for a 2.6 m rig, with or without
  mild barrel distortion.
  For each sprite pixel the sphere point is rebuilt, shaded (Lambert plus a specular highlight
  per lamp) and turned into the ball's body frame with its orientation to decide white, colour,
  stripe or number disc, so stripes and numbers roll with the ball.
- Shadows are soft blobs on the cloth under each ball; occluders (an arm, a cue) are polygons at
  their height, drawn over everything with a soft shadow beneath.
- Motion blur averages the instants of the exposure (`TableRenderer.expose`): balls that stay
  put are drawn once, moving ones are shaded in one batch, and more instants are interpolated
  wherever a ball would jump over 2 px, so fast balls leave streaks rather than ghosts.
- Then Gaussian sensor noise (from a precomputed bank, seeded per frame) and a JPEG round trip,
  as an MJPEG webcam link would.

Everything random is drawn from the config's seed and the frame index, so a frame is the same
however often and in whatever order it is rendered.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

from calibration.balls import BALL_SET
from calibration.camera import CameraModel
from calibration.table import TableSpec
from hardware.sim.snapshot import Occluder, TableSnapshot
from rules.balls import BALL_RADIUS_MM, BallId
from rules.errors import ConfigError

CUSHION_WIDTH_MM = 50.0
"""Cushion nose to the cushion's back edge at the wooden rail, seen from above."""

RAIL_WIDTH_MM = 165.0
"""Cushion nose to the rail's outer edge."""

LAMP_HEIGHT_MM = 1000.0
"""Height of the lamps above the cloth (WPA: at least 40 in / 1016 mm)."""

_TEXTURE_MM_PER_PX = 2.0
_FLOOR_BGR = (38, 40, 44)
_POCKET_BGR = (10, 10, 12)
_LINER_BGR = (22, 22, 26)
_WOOD_BGR = (32, 62, 112)
_DIAMOND_BGR = (225, 232, 236)
_WHITE_BGR = np.array((232, 242, 244), dtype=np.float32)
_INK_BGR = np.array((28, 26, 26), dtype=np.float32)
_AMBIENT = 0.32
_DIFFUSE = 0.78
_SPECULAR = 0.55
_SHININESS_SQUARINGS = 6  # Blinn-Phong exponent 2**6 = 64, by squaring (pow is slow)
_STRIPE_HALF_WIDTH = 0.55
_DISC_COS = math.cos(math.radians(26.0))
_DISC_SIN = math.sin(math.radians(26.0))
_GLYPH_PX = 32
_SHADOW_STRENGTH = 0.55
_NOISE_PAD = 64

Box = tuple[int, int, int, int]
"""A pixel rectangle (x0, y0, x1, y1), end exclusive."""


class ClothColour(StrEnum):
    """The cloth colours the renderer knows."""

    GREEN = "green"
    BLUE = "blue"
    RED = "red"
    GREY = "grey"


CLOTH_BGR: dict[ClothColour, tuple[int, int, int]] = {
    ClothColour.GREEN: (62, 128, 32),
    ClothColour.BLUE: (150, 96, 28),
    ClothColour.RED: (40, 30, 140),
    ClothColour.GREY: (112, 110, 104),
}
"""Nominal BGR of each cloth under full light."""


@dataclass(frozen=True, slots=True)
class RenderConfig:
    """How the virtual camera renders.

    Attributes:
        resolution: (width, height) pixels; must match the camera model's image size.
        fps: Frames per second.
        cloth: Cloth colour.
        noise_sigma: Standard deviation of the sensor noise, grey levels (0: none).
        blur_subframes: Renders averaged over the exposure (1: no motion blur).
        exposure_s: Shutter time, over which motion blur is accumulated.
        jpeg_quality: JPEG quality of the video link's compression (None: no compression).
        vignetting: Fraction of brightness the lens loses at the image corners.
        seed: Seed of the cloth texture, the wood grain and the noise.
    """

    resolution: tuple[int, int] = (1280, 720)
    fps: float = 60.0
    cloth: ClothColour = ClothColour.GREEN
    noise_sigma: float = 2.0
    blur_subframes: int = 1
    exposure_s: float = 1 / 120
    jpeg_quality: int | None = 90
    vignetting: float = 0.3
    seed: int = 0

    def __post_init__(self) -> None:
        width, height = self.resolution
        if width < 16 or height < 16:
            raise ValueError(f"render: resolution {self.resolution} is too small")
        if not self.fps > 0:
            raise ValueError(f"render: fps {self.fps} must be positive")
        if self.noise_sigma < 0:
            raise ValueError(f"render: noise_sigma {self.noise_sigma} must not be negative")
        if self.blur_subframes < 1:
            raise ValueError(f"render: blur_subframes {self.blur_subframes} must be at least 1")
        if not 0 <= self.exposure_s <= 1 / self.fps:
            raise ValueError(
                f"render: exposure {self.exposure_s} s must be within one frame (1/{self.fps} s)"
            )
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"render: jpeg_quality {self.jpeg_quality} must be 1-100 or None")
        if not 0 <= self.vignetting < 1:
            raise ValueError(f"render: vignetting {self.vignetting} must be within 0-1")

    @property
    def clean(self) -> RenderConfig:
        """The same settings without noise, compression or blur: exact pictures for tests."""
        return RenderConfig(
            self.resolution,
            self.fps,
            self.cloth,
            0.0,
            1,
            self.exposure_s,
            None,
            self.vignetting,
            self.seed,
        )


def lamps(table: TableSpec) -> np.ndarray:
    """Lamp positions over the table, (3, 3) mm: three shades along its length."""
    third = table.length / 3
    return np.array([(k * third, 0.0, LAMP_HEIGHT_MM) for k in (-1, 0, 1)])


class TableRenderer:
    """Renders `TableSnapshot`s as a camera over the table sees them.

    Args:
        table: The table's geometry.
        camera: The camera looking at it (its image size must be the config's resolution).
        config: Render settings.

    Raises:
        ConfigError: the camera's image size is not the configured resolution.
    """

    def __init__(self, table: TableSpec, camera: CameraModel, config: RenderConfig) -> None:
        if camera.image_size != config.resolution:
            raise ConfigError(
                f"render: camera image size {camera.image_size} differs from the configured "
                f"resolution {config.resolution}"
            )
        self.table = table
        self.camera = camera
        self.config = config
        self._lamps = lamps(table)
        self._camera_position = camera.position_mm
        self._view_radius = _view_radius(camera)
        self._background = _build_background(table, camera, config, self._lamps)
        self._looks = _ball_looks()
        self._noise = _noise_bank(config)

    @property
    def background(self) -> np.ndarray:
        """The empty table as this camera sees it, before noise and compression (BGR, read-only)."""
        view = self._background.view()
        view.flags.writeable = False
        return view

    def render(
        self, snapshots: TableSnapshot | Sequence[TableSnapshot], frame_index: int = 0
    ) -> np.ndarray:
        """One camera frame.

        Args:
            snapshots: The table at the frame's time, or several instants over the exposure to
                average into motion blur.
            frame_index: Seeds the frame's noise, so a frame renders identically every time.

        Returns:
            H x W x 3 uint8 BGR.
        """
        subs = [snapshots] if isinstance(snapshots, TableSnapshot) else list(snapshots)
        if not subs:
            raise ValueError("render: no snapshot to render")
        if len(subs) == 1:
            image = self.compose(subs[0])
        else:
            image = self.expose(_fill_gaps(subs, self.camera))
        return self._degrade(image, frame_index)

    def compose(self, snapshot: TableSnapshot) -> np.ndarray:
        """The clean picture of one instant: table, shadows, balls and occluders, no noise."""
        image = self._background.copy()
        layer = self._prepare([_shown(snapshot, set(snapshot.balls), self._in_view)])
        layer.paint(image, np.arange(layer.count))
        for occluder in snapshot.occluders:
            self._draw_occluder(image, occluder)
        return image

    def expose(self, snapshots: Sequence[TableSnapshot]) -> np.ndarray:
        """The clean average of several instants: motion blur, no noise.

        Equal to averaging `compose` of each instant, but cheaper: balls that do not move are
        drawn once, the moving ones of every instant are shaded in one batch, and only the
        pixels that something moving touched are averaged.
        """
        still = _still_balls(snapshots)
        base = self._background.copy()
        fixed = self._prepare([_shown(snapshots[0], still, self._in_view)])
        fixed.paint(base, np.arange(fixed.count))
        moving = self._prepare([_shown(s, set(s.balls) - still, self._in_view) for s in snapshots])
        frames, boxes = [], []
        for k, snap in enumerate(snapshots):
            image = base.copy()
            boxes.extend(moving.paint(image, np.flatnonzero(moving.instant == k)))
            for occluder in snap.occluders:
                box = self._draw_occluder(image, occluder)
                if box is not None:
                    boxes.append(box)
            frames.append(image)
        n = len(frames)
        for x0, y0, x1, y1 in _merge_boxes(boxes):
            total = np.zeros((y1 - y0, x1 - x0, 3), dtype=np.uint16)
            for image in frames:
                total += image[y0:y1, x0:x1]
            base[y0:y1, x0:x1] = ((total + n // 2) // n).astype(np.uint8)
        return base

    def _prepare(self, instants: list[_Shown]) -> _BallLayer:
        """Shade the balls of one or more instants in one batch."""
        balls = [b for shown in instants for b in shown.balls]
        instant = np.array([k for k, shown in enumerate(instants) for _ in shown.balls], dtype=int)
        if not balls:
            return _BallLayer.empty()
        centres = np.concatenate([shown.centres for shown in instants])
        orientations = np.concatenate([shown.orientations for shown in instants])
        geo = _ball_geometry(self.camera, self._camera_position, centres)
        shadows = _shadow_sprites(geo, centres)
        numbers = np.array([b.number for b in balls])
        sprites = _ball_sprites(geo, centres, orientations, numbers, self._looks, self._lamps)
        shade = _vignette_at(self.camera, self.config.vignetting, geo.centre_px)
        # A ball below its resting height is dropping into a pocket: into the dark.
        shade *= np.clip(centres[:, 2] / BALL_RADIUS_MM, 0.15, 1.0)
        colour = sprites.colour * shade.astype(np.float32)[:, None, None, None] + 0.5
        colour = np.clip(colour, 0.0, 255.0).astype(np.uint8)
        distance = np.linalg.norm(centres - self._camera_position, axis=1)
        return _BallLayer(len(balls), instant, shadows, sprites, colour, distance)

    # Balls -------------------------------------------------------------------------------------

    def _in_view(self, centres: np.ndarray) -> np.ndarray:
        """Balls in front of the camera and within the lens's field: a distortion polynomial
        folds back outside it, so balls beyond it (off the table, far away) are not drawn."""
        cam = centres @ self.camera.rotation.T + np.array(self.camera.tvec)
        depth = cam[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            radius = np.hypot(cam[:, 0], cam[:, 1]) / depth
            margin = BALL_RADIUS_MM / depth
        return (depth > BALL_RADIUS_MM) & (radius - margin < self._view_radius)

    # Occluders ---------------------------------------------------------------------------------

    def _draw_occluder(self, image: np.ndarray, occluder: Occluder) -> Box | None:
        """Draw an occluder and its shadow; returns the box drawn over (None: nothing)."""
        outline = _densify(np.array(occluder.polygon, dtype=np.float64))
        if len(outline) < 3:
            return None
        below = self.camera.project(np.column_stack((outline, np.zeros(len(outline)))))
        shadow_box = _soft_shadow(image, below, strength=0.35)
        above = self.camera.project(
            np.column_stack((outline, np.full(len(outline), occluder.height_mm)))
        )
        pts = np.round(above * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(image, [pts], occluder.colour_bgr, cv2.LINE_AA, shift=4)
        edge = tuple(int(c * 0.7) for c in occluder.colour_bgr)
        cv2.polylines(image, [pts], True, edge, 2, cv2.LINE_AA, shift=4)
        h, w = image.shape[:2]
        x0, y0 = np.floor(above.min(axis=0)).astype(int) - 3
        x1, y1 = np.ceil(above.max(axis=0)).astype(int) + 4
        drawn = (max(x0, 0), max(y0, 0), min(x1, w), min(y1, h))
        boxes = [b for b in (shadow_box, drawn) if b is not None and b[0] < b[2] and b[1] < b[3]]
        if not boxes:
            return None
        return (
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        )

    # Camera artefacts --------------------------------------------------------------------------

    def _degrade(self, image: np.ndarray, frame_index: int) -> np.ndarray:
        cfg = self.config
        if self._noise is not None:
            rng = np.random.default_rng((cfg.seed, frame_index))
            oy, ox = rng.integers(0, _NOISE_PAD, size=2)
            h, w = image.shape[:2]
            brighter, darker = self._noise
            view = (slice(oy, oy + h), slice(ox, ox + w))
            # Signed noise as two saturating uint8 passes over precomputed banks.
            image = cv2.subtract(cv2.add(image, brighter[view]), darker[view])
        if cfg.jpeg_quality is not None:
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, cfg.jpeg_quality])
            if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
                raise RuntimeError("render: JPEG encoding failed")
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return image


# Ball geometry ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _BallGeometry:
    centre_px: np.ndarray  # (m, 2) exact projection of each centre
    affine: np.ndarray  # (m, 2, 2) sphere-silhouette unit disc -> pixel offsets
    to_camera: np.ndarray  # (m, 3) unit vector from the centre toward the camera
    across: np.ndarray  # (m, 2, 3) the disc's two axes in the table frame
    base_px: np.ndarray  # (m, 2) the point of the cloth under the centre
    base_affine: np.ndarray  # (m, 2, 2) cloth-plane (x, y) / radius -> pixel offsets


def _ball_geometry(camera: CameraModel, eye: np.ndarray, centres: np.ndarray) -> _BallGeometry:
    r = BALL_RADIUS_MM
    view = eye - centres
    view /= np.linalg.norm(view, axis=1, keepdims=True)
    helper = np.where(np.abs(view[:, :1]) > 0.9, (0.0, 1.0, 0.0), (1.0, 0.0, 0.0))
    u = np.cross(helper, view)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(view, u)
    base = centres * (1.0, 1.0, 0.0)
    ex, ey = np.array((r, 0.0, 0.0)), np.array((0.0, r, 0.0))
    m = len(centres)
    pts = np.concatenate(
        [
            *(centres, centres + r * u, centres - r * u, centres + r * v, centres - r * v),
            *(base, base + ex, base - ex, base + ey, base - ey),
        ]
    )
    px = camera.project(pts).reshape(10, m, 2)
    affine = np.stack(((px[1] - px[2]) / 2, (px[3] - px[4]) / 2), axis=2)
    base_affine = np.stack(((px[6] - px[7]) / 2, (px[8] - px[9]) / 2), axis=2)
    return _BallGeometry(px[0], affine, view, np.stack((u, v), axis=1), px[5], base_affine)


def _view_radius(camera: CameraModel) -> float:
    """Largest ideal (undistorted) radius x/z seen in the image, with a little to spare."""
    w, h = camera.image_size
    corners = np.array([(0.0, 0.0), (w - 1.0, 0.0), (0.0, h - 1.0), (w - 1.0, h - 1.0)])
    return float(np.max(np.linalg.norm(camera.undistort(corners), axis=1))) * 1.05


def sprite_outline_error_px(
    camera: CameraModel, centre_mm: np.ndarray, radius_mm: float = BALL_RADIUS_MM
) -> float:
    """Largest distance, in pixels, between a ball's sprite outline and its exact silhouette.

    The exact silhouette is the circle where the cone from the optical centre touches the
    sphere, projected point by point through the camera (distortion included); the sprite
    outline is the local affine image of the unit circle used by the renderer.
    """
    centre = np.asarray(centre_mm, dtype=np.float64).reshape(1, 3)
    eye = camera.position_mm
    if radius_mm != BALL_RADIUS_MM:
        raise ValueError("sprites are built for the standard ball radius")
    geo = _ball_geometry(camera, eye, centre)
    to_eye = eye - centre[0]
    dist = np.linalg.norm(to_eye)
    ring_centre = centre[0] + to_eye / dist * (radius_mm**2 / dist)
    ring_radius = radius_mm * math.sqrt(1 - (radius_mm / dist) ** 2)
    angles = np.linspace(0, 2 * math.pi, 360, endpoint=False)
    u, v = geo.across[0]
    ring = ring_centre + ring_radius * (np.cos(angles)[:, None] * u + np.sin(angles)[:, None] * v)
    exact = camera.project(ring)
    inverse = np.linalg.inv(geo.affine[0])
    q = (exact - geo.centre_px[0]) @ inverse.T
    rho = np.linalg.norm(q, axis=1)
    # The sprite's outline point in the same direction is offset / rho.
    offsets = exact - geo.centre_px[0]
    return float(np.max(np.linalg.norm(offsets - offsets / rho[:, None], axis=1)))


# Sprites ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sprites:
    origin: np.ndarray  # (m, 2) int: top-left pixel (x, y) of each sprite
    alpha: np.ndarray  # (m, S, S) float32 coverage
    colour: np.ndarray  # (m, S, S, 3) float32 BGR (empty for shadows)


def _sprite_grid(centre_px: np.ndarray, extent_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Top-left corners (m, 2) and pixel offsets from each centre, x and y as (2, m, S, S)."""
    size = 2 * math.ceil(extent_px) + 3
    origin = np.floor(centre_px).astype(np.int64) - size // 2
    steps = np.arange(size, dtype=np.float32)
    start = (origin - centre_px).astype(np.float32)  # (m, 2)
    dx = start[:, 0, None, None] + steps[None, None, :]
    dy = start[:, 1, None, None] + steps[None, :, None]
    return origin, np.stack(np.broadcast_arrays(dx, dy))


def _apply(matrix: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-sprite 2x2 ``matrix`` (m, 2, 2) applied to offset grids (m, S, S)."""
    m = matrix.astype(np.float32)[:, :, :, None, None]
    return m[:, 0, 0] * dx + m[:, 0, 1] * dy, m[:, 1, 0] * dx + m[:, 1, 1] * dy


def _ball_sprites(
    geo: _BallGeometry,
    centres: np.ndarray,
    orientations: np.ndarray,
    numbers: np.ndarray,
    looks: _BallLooks,
    lamp_positions: np.ndarray,
) -> _Sprites:
    # Explicit component arithmetic on float32 grids: einsum on these small batches is slower.
    extent = float(np.max(np.linalg.norm(geo.affine, ord=2, axis=(1, 2))))
    origin, (dx, dy) = _sprite_grid(geo.centre_px, extent)
    qu, qv = _apply(np.linalg.inv(geo.affine), dx, dy)
    rho = np.sqrt(qu * qu + qv * qv)
    radius_px = np.sqrt(np.abs(np.linalg.det(geo.affine))).astype(np.float32)
    alpha = np.clip((1.0 - rho) * radius_px[:, None, None] + 0.5, 0.0, 1.0)
    rim = np.maximum(rho, 1.0)
    qu /= rim
    qv /= rim
    depth = np.sqrt(np.clip(1.0 - qu * qu - qv * qv, 0.0, 1.0))
    basis = np.stack((geo.across[:, 0], geo.across[:, 1], geo.to_camera), axis=1)  # (m, 3, 3)
    # Normal in the table frame: n = qu * u + qv * v + depth * to_camera.
    b = basis.astype(np.float32)[:, :, :, None, None]
    normal = [qu * b[:, 0, k] + qv * b[:, 1, k] + depth * b[:, 2, k] for k in range(3)]
    # Body frame: orientations take body to table, so body = O^T n.
    o = orientations.astype(np.float32)[:, :, :, None, None]
    body = [
        normal[0] * o[:, 0, i] + normal[1] * o[:, 1, i] + normal[2] * o[:, 2, i] for i in range(3)
    ]
    albedo = looks.albedo(numbers, body)
    to_lamp = lamp_positions[None] - centres[:, None]  # (m, K, 3)
    lamp_dist2 = np.sum(to_lamp * to_lamp, axis=-1)
    to_lamp /= np.sqrt(lamp_dist2)[..., None]
    power = (LAMP_HEIGHT_MM**2 / lamp_dist2) / len(lamp_positions) * 1.6  # (m, K)
    halfway = to_lamp + geo.to_camera[:, None]
    halfway /= np.linalg.norm(halfway, axis=-1, keepdims=True)
    # Lambert from lamps above is linear in the normal while every lamp lights the point, so
    # the lamps fold into one weighted direction (exact on the upper, visible part of a ball).
    lit = (_DIFFUSE * power[..., None] * to_lamp).sum(axis=1).astype(np.float32)[..., None, None]
    light = _AMBIENT + np.maximum(sum(normal[i] * lit[:, i] for i in range(3)), 0.0)
    shine = np.zeros(qu.shape, dtype=np.float32)
    for k in range(len(lamp_positions)):
        hk = halfway[:, k].astype(np.float32)[:, :, None, None]
        gloss = np.maximum(normal[0] * hk[:, 0] + normal[1] * hk[:, 1] + normal[2] * hk[:, 2], 0.0)
        for _ in range(_SHININESS_SQUARINGS):
            gloss *= gloss
        shine += np.sqrt(power[:, k]).astype(np.float32)[:, None, None] * gloss
    colour = albedo * light[..., None] + (255.0 * _SPECULAR) * shine[..., None]
    return _Sprites(origin, alpha, colour)


def _shadow_sprites(geo: _BallGeometry, centres: np.ndarray) -> _Sprites:
    # Lamps about a metre up make a soft contact shadow about a ball wide, spread along the
    # row of lamps; it widens and fades as a ball leaves the cloth.
    lift = np.clip(centres[:, 2] / BALL_RADIUS_MM, 0.0, None)
    spread = (1.0 + 0.4 * np.abs(lift - 1.0)).astype(np.float32)
    extent = float(np.max(np.linalg.norm(geo.base_affine, ord=2, axis=(1, 2)) * 1.6 * spread))
    origin, (dx, dy) = _sprite_grid(geo.base_px, extent)
    qx, qy = _apply(np.linalg.inv(geo.base_affine), dx, dy)
    scale = spread[:, None, None]
    rho2 = (qx / (1.25 * scale)) ** 2 + (qy / scale) ** 2
    alpha = (_SHADOW_STRENGTH / spread**2)[:, None, None] * np.exp(-(rho2 * rho2) / 0.8)
    return _Sprites(origin, alpha.astype(np.float32), np.zeros((0,), dtype=np.float32))


def _clip_box(
    image: np.ndarray, origin: np.ndarray, size: int
) -> tuple[slice, slice, slice, slice] | None:
    h, w = image.shape[:2]
    x0, y0 = int(origin[0]), int(origin[1])
    x1, y1 = min(x0 + size, w), min(y0 + size, h)
    sx, sy = max(0, -x0), max(0, -y0)
    x0, y0 = max(0, x0), max(0, y0)
    if x0 >= x1 or y0 >= y1:
        return None
    return (
        slice(y0, y1),
        slice(x0, x1),
        slice(sy, sy + y1 - y0),
        slice(sx, sx + x1 - x0),
    )


def _blend(
    image: np.ndarray, origin: np.ndarray, alpha: np.ndarray, colour: np.ndarray
) -> Box | None:
    """Mix a uint8 sprite into the image where it covers it (``alpha``), clipped to the image;
    returns the box it was drawn in."""
    box = _clip_box(image, origin, alpha.shape[0])
    if box is None:
        return None
    iy, ix, sy, sx = box
    a = alpha[sy, sx]
    image[iy, ix] = cv2.blendLinear(image[iy, ix], colour[sy, sx], 1.0 - a, a)
    return (ix.start, iy.start, ix.stop, iy.stop)


@dataclass(frozen=True, slots=True)
class _Shown:
    """The balls of one instant to draw."""

    balls: tuple[BallId, ...]
    centres: np.ndarray
    orientations: np.ndarray


def _shown(snapshot: TableSnapshot, balls: set[BallId], in_view) -> _Shown:
    """Of ``balls``, those on the table and in view at this instant."""
    positions = np.asarray(snapshot.positions, dtype=np.float64)
    wanted = np.array([b in balls for b in snapshot.balls], dtype=bool)
    on_table = np.asarray(snapshot.on_table, dtype=bool)
    keep = wanted & on_table
    if keep.any():
        keep &= in_view(positions)
    idx = np.flatnonzero(keep)
    orientations = np.asarray(snapshot.orientations, dtype=np.float64)[idx]
    return _Shown(tuple(snapshot.balls[i] for i in idx), positions[idx], orientations)


@dataclass(frozen=True, slots=True)
class _BallLayer:
    """Shaded sprites and shadows of a batch of balls, ready to paint."""

    count: int
    instant: np.ndarray  # (m,) which instant each ball belongs to
    shadows: _Sprites | None
    sprites: _Sprites | None
    colour: np.ndarray | None  # (m, S, S, 3) uint8
    distance: np.ndarray | None  # (m,) from the camera

    @classmethod
    def empty(cls) -> _BallLayer:
        return cls(0, np.zeros(0, dtype=int), None, None, None, None)

    def paint(self, image: np.ndarray, which: np.ndarray) -> list[Box]:
        """Paint the shadows, then the balls (farthest first, so nearer balls, airborne ones,
        cover farther ones); returns the boxes drawn over."""
        if not len(which) or self.shadows is None:
            return []
        assert self.sprites is not None and self.colour is not None
        assert self.distance is not None
        black = np.zeros((*self.shadows.alpha.shape[1:], 3), dtype=np.uint8)
        boxes = [_blend(image, self.shadows.origin[i], self.shadows.alpha[i], black) for i in which]
        for i in which[np.argsort(-self.distance[which])]:
            boxes.append(
                _blend(image, self.sprites.origin[i], self.sprites.alpha[i], self.colour[i])
            )
        return [b for b in boxes if b is not None]


_MAX_STEP_PX = 2.0
_MAX_SPLIT = 8


def _fill_gaps(snapshots: Sequence[TableSnapshot], camera: CameraModel) -> Sequence[TableSnapshot]:
    """More instants between those given wherever a ball jumps more than 2 px between them,
    so a fast ball leaves a smooth streak rather than a row of ghosts.

    Positions are interpolated linearly; orientations and everything else are taken from the
    nearer given instant. Instants with different balls are left as they are.
    """
    first = snapshots[0]
    if any(s.balls != first.balls for s in snapshots) or not first.balls:
        return snapshots
    positions = np.stack([np.asarray(s.positions, dtype=np.float64) for s in snapshots])
    steps, n = positions.shape[0] - 1, positions.shape[1]
    pixels = camera.project(positions.reshape(-1, 3)).reshape(steps + 1, n, 2)
    jump = np.linalg.norm(np.diff(pixels, axis=0), axis=-1).max(axis=1)  # (steps,)
    splits = np.clip(np.ceil(jump / _MAX_STEP_PX), 1, _MAX_SPLIT).astype(int)
    if np.all(splits == 1):
        return snapshots
    filled: list[TableSnapshot] = []
    for k in range(steps):
        a, b = snapshots[k], snapshots[k + 1]
        for j in range(splits[k]):
            f = j / splits[k]
            near = a if f < 0.5 else b
            filled.append(
                TableSnapshot(
                    a.time + f * (b.time - a.time),
                    first.balls,
                    positions[k] + f * (positions[k + 1] - positions[k]),
                    near.orientations,
                    near.on_table,
                    near.occluders,
                )
            )
    filled.append(snapshots[-1])
    return filled


def _still_balls(snapshots: Sequence[TableSnapshot]) -> set[BallId]:
    """Balls with the same place, orientation and table state at every instant."""
    first = snapshots[0]
    n = len(first.balls)
    still = np.ones(n, dtype=bool)
    for snap in snapshots[1:]:
        if snap.balls == first.balls:
            order = np.arange(n)
        else:
            index = {b: j for j, b in enumerate(snap.balls)}
            order = np.array([index.get(b, -1) for b in first.balls], dtype=int)
        present = order >= 0
        j = np.where(present, order, 0)
        moved = np.abs(np.asarray(snap.positions)[j] - first.positions).max(axis=1) > 1e-3
        turned = np.abs(np.asarray(snap.orientations)[j] - first.orientations).max(axis=(1, 2))
        flipped = np.asarray(snap.on_table)[j] != np.asarray(first.on_table)
        still &= present & ~moved & (turned <= 1e-6) & ~flipped
    return {b for b, s in zip(first.balls, still, strict=True) if s}


def _merge_boxes(boxes: list[Box]) -> list[Box]:
    """Overlapping boxes merged, so each pixel is averaged once."""
    merged: list[Box] = []
    for box in sorted(boxes):
        x0, y0, x1, y1 = box
        changed = True
        while changed:
            changed = False
            for other in merged:
                if x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1:
                    merged.remove(other)
                    x0, y0 = min(x0, other[0]), min(y0, other[1])
                    x1, y1 = max(x1, other[2]), max(y1, other[3])
                    changed = True
                    break
        merged.append((x0, y0, x1, y1))
    return merged


def _soft_shadow(image: np.ndarray, outline_px: np.ndarray, strength: float) -> Box | None:
    h, w = image.shape[:2]
    pad = 12
    x0, y0 = np.floor(outline_px.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(outline_px.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x0 >= x1 or y0 >= y1:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), dtype=np.float32)
    pts = np.round((outline_px - (x0, y0)) * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(mask, [pts], 1.0, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), 5.0)
    region = image[y0:y1, x0:x1].astype(np.float32)
    image[y0:y1, x0:x1] = (region * (1.0 - strength * mask[..., None]) + 0.5).astype(np.uint8)
    return (int(x0), int(y0), int(x1), int(y1))


def _densify(polygon: np.ndarray, step_mm: float = 20.0) -> np.ndarray:
    """Points along a closed polygon at most ``step_mm`` apart, so edges bend with the lens."""
    out = []
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        count = max(1, math.ceil(np.linalg.norm(b - a) / step_mm))
        out.append(a + (b - a) * (np.arange(count) / count)[:, None])
    return np.concatenate(out) if out else polygon


def _vignette_at(camera: CameraModel, strength: float, pixels: np.ndarray) -> np.ndarray:
    w, h = camera.image_size
    half_diag2 = (w / 2) ** 2 + (h / 2) ** 2
    r2 = ((pixels[..., 0] - camera.cx) ** 2 + (pixels[..., 1] - camera.cy) ** 2) / half_diag2
    return 1.0 - strength * np.clip(r2, 0.0, 1.5)


# Ball looks ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _ball_looks() -> _BallLooks:
    return _BallLooks()


class _BallLooks:
    """Colours, stripes and number glyphs of the set, as arrays indexed by ball number."""

    def __init__(self) -> None:
        self.colour = np.array(
            [look.colour_rgb[::-1] for look in BALL_SET], dtype=np.float32
        )  # BGR
        self.striped = np.array([look.striped for look in BALL_SET])
        self.glyphs = np.stack([_glyph(look.ball.number) for look in BALL_SET])

    def albedo(self, numbers: np.ndarray, body: list[np.ndarray]) -> np.ndarray:
        """Surface colour (m, S, S, 3) at body-frame points (x, y, z grids) of balls ``numbers``."""
        bx, by, bz = body
        n = numbers[:, None, None]
        coloured = np.where(self.striped[n], np.abs(bz) < _STRIPE_HALF_WIDTH, True)
        coloured &= n != 0
        disc = (np.abs(bx) > _DISC_COS) & (n != 0)
        # Glyph coordinates: right and down as seen from outside the disc.
        last = _GLYPH_PX - 1
        gx = np.sign(bx) * by * (0.5 * last / _DISC_SIN) + 0.5 * last
        gy = bz * (-0.5 * last / _DISC_SIN) + 0.5 * last
        col = np.clip(gx + 0.5, 0, last).astype(np.int64)
        row = np.clip(gy + 0.5, 0, last).astype(np.int64)
        ink = np.where(disc, self.glyphs[np.broadcast_to(n, disc.shape), row, col], 0.0)
        base = self.colour[numbers][:, None, None, :]
        surface = np.where((coloured & ~disc)[..., None], base, _WHITE_BGR)
        return surface + ink[..., None] * (_INK_BGR - surface)


def _glyph(number: int) -> np.ndarray:
    """The number printed in a disc, as ink coverage on a square grid (0 for the cue ball)."""
    size = _GLYPH_PX
    canvas = np.zeros((size * 4, size * 4), dtype=np.uint8)
    if number:
        text = str(number)
        font = cv2.FONT_HERSHEY_SIMPLEX
        scale = 3.0 if len(text) == 1 else 2.4
        (tw, th), _ = cv2.getTextSize(text, font, scale, 9)
        org = ((canvas.shape[1] - tw) // 2, (canvas.shape[0] + th) // 2)
        cv2.putText(canvas, text, org, font, scale, 255, 9, cv2.LINE_AA)
    small = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0


# The static table ------------------------------------------------------------------------------


_GRID_STEP = 4


def _build_background(
    table: TableSpec, camera: CameraModel, config: RenderConfig, lamp_positions: np.ndarray
) -> np.ndarray:
    # Where each pixel's ray meets the cloth and the rail tops varies smoothly across the image,
    # so it is solved on a 4-pixel grid and interpolated (error far below 0.01 mm).
    w, h = camera.image_size
    gw, gh = (w - 1) // _GRID_STEP + 2, (h - 1) // _GRID_STEP + 2
    gy, gx = np.mgrid[0:gh, 0:gw].astype(np.float32) * _GRID_STEP
    pixels = np.stack((gx, gy), axis=-1).reshape(-1, 1, 2)
    # OpenCV's iterative undistortion is good to about 0.01 px: plenty for textures.
    ideal = cv2.undistortPoints(pixels, camera.camera_matrix, camera.dist_coeffs).reshape(-1, 2)
    rays = np.column_stack((ideal, np.ones(len(ideal)))) @ camera.rotation
    eye = camera.position_mm
    down = rays[:, 2] < 0

    def meet(z: float) -> np.ndarray:
        scale = np.where(down, (z - eye[2]) / np.where(down, rays[:, 2], -1.0), 1e6)
        return (eye[:2] + scale[:, None] * rays[:, :2]).reshape(gh, gw, 2).astype(np.float32)

    cloth_grid, rail_grid = meet(0.0), meet(table.cushion_nose_height)
    shade_grid = _illumination(cloth_grid, lamp_positions) * _vignette_at(
        camera, config.vignetting, np.stack((gx, gy), axis=-1)
    )
    map_x = np.broadcast_to(np.arange(w, dtype=np.float32) / _GRID_STEP, (h, w))
    map_y = np.broadcast_to(np.arange(h, dtype=np.float32)[:, None] / _GRID_STEP, (h, w))

    def upsample(grid: np.ndarray) -> np.ndarray:
        return cv2.remap(grid, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    cloth_xy, rail_xy = upsample(cloth_grid), upsample(rail_grid)
    textures = _textures(table, config.cloth, config.seed)
    cloth = textures.sample(textures.cloth, cloth_xy)
    rail = textures.sample(textures.rail, rail_xy)
    rail_cover = textures.sample(textures.rail_mask, rail_xy)[..., None]
    image = cloth + rail_cover * (rail - cloth)
    image *= upsample(shade_grid.astype(np.float32))[..., None]
    return np.clip(image + 0.5, 0, 255).astype(np.uint8)


def _illumination(xy: np.ndarray, lamp_positions: np.ndarray) -> np.ndarray:
    """Relative light at table points from the lamps: about 1 under the lamps, less toward
    the rails and far less on the floor."""

    def irradiance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        total = np.zeros(np.shape(x), dtype=np.float32)
        for lx, ly, lz in lamp_positions:
            d2 = (x - lx) ** 2 + (y - ly) ** 2 + lz * lz
            total += (lz / np.sqrt(d2)) * (lz * lz / d2)
        return total

    under_middle = irradiance(np.zeros(1), np.zeros(1))[0]
    return 0.45 + 0.6 * irradiance(xy[..., 0], xy[..., 1]) / under_middle


@dataclass(frozen=True, slots=True)
class _Textures:
    """Top-down pictures of the cloth plane and the rail-top plane for one cloth colour."""

    layout: _Layout
    cloth: np.ndarray  # uint8 BGR
    rail: np.ndarray  # uint8 BGR
    rail_mask: np.ndarray  # float32 coverage of the rail tops

    def sample(self, texture: np.ndarray, xy: np.ndarray) -> np.ndarray:
        """Bilinear samples of a texture at table points (outside: the floor / no rail)."""
        texel = self.layout.to_texel(xy).astype(np.float32)
        out = cv2.remap(
            texture,
            texel[..., 0],
            texel[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=_FLOOR_BGR if texture.ndim == 3 else 0,
        )
        return out.astype(np.float32)


@functools.lru_cache(maxsize=4)
def _textures(table: TableSpec, cloth: ClothColour, seed: int) -> _Textures:
    layout = _layout(table, seed)
    bgr = np.array(CLOTH_BGR[cloth], dtype=np.float32)
    # Past the rails the floor; between the cushion noses and the rails' outer edge the cloth
    # plane shows only the cushions' undercut faces; inside, the bed and the pockets' shelves;
    # through the pocket cuts past the shelves, the pockets' insides.
    floor = np.array(_FLOOR_BGR, dtype=np.float32)
    outside = floor + layout.rails_zone[..., None] * (bgr * 0.5 - floor)
    bed = bgr * layout.grain[..., None]
    picture = outside + layout.inside[..., None] * (bed - outside)
    picture += layout.dark[..., None] * (np.array(_POCKET_BGR, dtype=np.float32) - picture)
    spot = np.minimum(255.0, bgr * 1.3 + 35)  # a worn foot-spot sticker, not a ball
    picture += layout.spot[..., None] * (spot - picture)
    # Cushion tops are cloth-covered, a shade darker than the bed.
    rail = layout.wood + layout.cushion[..., None] * (bgr * 0.85 - layout.wood)
    return _Textures(layout, _to_uint8(picture), _to_uint8(rail), layout.rail_mask)


def _to_uint8(picture: np.ndarray) -> np.ndarray:
    return np.clip(picture + 0.5, 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=2)
def _layout(table: TableSpec, seed: int) -> _Layout:
    return _Layout(table, seed)


class _Layout:
    """The colour-free layers of the table's top-down pictures, 2 mm per texel: cloth grain,
    the masks of bed, pockets, cushions and rails, and the wooden rails with their diamonds."""

    def __init__(self, table: TableSpec, seed: int) -> None:
        self.table = table
        self.half = (table.length / 2 + RAIL_WIDTH_MM + 60, table.width / 2 + RAIL_WIDTH_MM + 60)
        self.shape = (
            math.ceil(2 * self.half[1] / _TEXTURE_MM_PER_PX),
            math.ceil(2 * self.half[0] / _TEXTURE_MM_PER_PX),
        )
        rng = np.random.default_rng((seed, 7))
        self.grain = self._grain(rng)
        self._cloth_masks()
        self._rails(rng)

    def to_texel(self, xy: np.ndarray) -> np.ndarray:
        """Texture pixel coordinates of table points (row 0 at +y, the top of the image)."""
        col = (xy[..., 0] + self.half[0]) / _TEXTURE_MM_PER_PX
        row = (self.half[1] - xy[..., 1]) / _TEXTURE_MM_PER_PX
        return np.stack((col, row), axis=-1)

    def _mask(self) -> np.ndarray:
        return np.zeros(self.shape, dtype=np.float32)

    def _poly(self, canvas: np.ndarray, points_mm: np.ndarray, value) -> None:
        pts = np.round(self.to_texel(np.asarray(points_mm, dtype=np.float64)) * 16)
        cv2.fillPoly(canvas, [pts.astype(np.int32).reshape(-1, 1, 2)], value, cv2.LINE_AA, 4)

    def _circle(self, canvas: np.ndarray, centre_mm, radius_mm: float, value) -> None:
        c = np.round(self.to_texel(np.asarray(centre_mm, dtype=np.float64)) * 16).astype(int)
        r = round(radius_mm / _TEXTURE_MM_PER_PX * 16)
        cv2.circle(canvas, (int(c[0]), int(c[1])), r, value, -1, cv2.LINE_AA, 4)

    def _rect(self, margin: float) -> np.ndarray:
        x, y = self.table.length / 2 + margin, self.table.width / 2 + margin
        return np.array([(-x, -y), (x, -y), (x, y), (-x, y)])

    def _grain(self, rng: np.random.Generator) -> np.ndarray:
        h, w = self.shape
        fine = rng.standard_normal((h, w), dtype=np.float32)
        nap = cv2.blur(fine, (7, 1))  # felt fibres lie along the table's length
        coarse = rng.standard_normal((h // 16 + 1, w // 16 + 1), dtype=np.float32)
        blotches = cv2.resize(cv2.GaussianBlur(coarse, (0, 0), 2.0), (w, h), cv2.INTER_CUBIC)
        blotches /= max(float(np.abs(blotches).max()), 1e-6)
        return 1.0 + 0.05 * fine + 0.06 * nap + 0.04 * blotches

    def _cloth_masks(self) -> None:
        pockets = self.table.pockets
        self.rails_zone = self._mask()
        self._poly(self.rails_zone, self._rect(RAIL_WIDTH_MM), 1.0)
        self.inside = self._mask()
        self._poly(self.inside, self._rect(0.0), 1.0)
        for pocket in pockets:
            self._poly(self.inside, _pocket_cut(pocket, 0.0), 1.0)
        self.dark = self._mask()
        for pocket in pockets:
            self._poly(self.dark, _pocket_cut(pocket, RAIL_WIDTH_MM), 1.0)
        self.dark *= 1.0 - self.inside
        for pocket in pockets:
            self._circle(self.dark, pocket.centre, pocket.throat_width / 2, 1.0)
        self.spot = self._mask()
        self._circle(self.spot, self.table.foot_spot, 11.0, 1.0)

    def _rails(self, rng: np.random.Generator) -> None:
        t = self.table
        h, w = self.shape
        hx, hy = t.length / 2, t.width / 2
        # Wood grain runs along each rail: streaks along x on the long rails, y on the ends.
        along_x = cv2.blur(rng.standard_normal((h, w), dtype=np.float32), (61, 3))
        along_y = cv2.blur(rng.standard_normal((h, w), dtype=np.float32), (3, 61))
        x = np.abs((np.arange(w) + 0.5) * _TEXTURE_MM_PER_PX - self.half[0])[None, :] - hx
        y = np.abs(self.half[1] - (np.arange(h) + 0.5) * _TEXTURE_MM_PER_PX)[:, None] - hy
        grain = np.where(x > y, along_y, along_x)
        wood = np.array(_WOOD_BGR, dtype=np.float32) * (1.0 + 1.2 * grain)[..., None]
        self.cushion = self._mask()
        self._poly(self.cushion, self._rect(CUSHION_WIDTH_MM), 1.0)
        self._poly(self.cushion, self._rect(0.0), 0.0)
        for pocket in t.pockets:
            self._poly(self.cushion, _jaw_corner(pocket, hx, hy), 1.0)
        for dx, dy in t.diamonds:
            long, across = (9.0, 5.0) if abs(dy) > hy else (5.0, 9.0)
            d = np.array([(dx - long, dy), (dx, dy + across), (dx + long, dy), (dx, dy - across)])
            self._poly(wood, d, _DIAMOND_BGR)
        for pocket in t.pockets:
            self._circle(wood, pocket.centre, pocket.throat_width / 2 + 14, _LINER_BGR)
            self._circle(self.cushion, pocket.centre, pocket.throat_width / 2 + 14, 0.0)
        self.wood = wood
        self.rail_mask = self._mask()
        self._poly(self.rail_mask, self._rect(RAIL_WIDTH_MM), 1.0)
        self._poly(self.rail_mask, self._rect(0.0), 0.0)
        for pocket in t.pockets:
            self._poly(self.rail_mask, _jaw_corner(pocket, hx, hy), 1.0)
            self._poly(self.rail_mask, _pocket_cut(pocket), 0.0)
            self._circle(self.rail_mask, pocket.centre, pocket.throat_width / 2, 0.0)


def _jaw_corner(pocket, hx: float, hy: float) -> np.ndarray:
    """Behind a corner pocket's mouth line, the cushion ends (jaws) fill the corner of the
    nose rectangle; for a side pocket the mouth lies on the nose line and this is empty."""
    (ax, ay), (bx, by) = pocket.jaws
    corner = (math.copysign(hx, pocket.axis[0]), math.copysign(hy, pocket.axis[1]))
    if pocket.id.is_side:
        return np.array([(ax, ay), (bx, by), (bx, by)])
    return np.array([(ax, ay), corner, (bx, by)])


def _pocket_cut(pocket, depth_mm: float | None = None) -> np.ndarray:
    """The opening cut through the cushions: from the jaw points along the jaw faces, on past
    the shelf by ``depth_mm`` (default: to the middle of the drop)."""
    depth_mm = pocket.throat_width / 2 if depth_mm is None else depth_mm
    axis = np.array(pocket.axis)
    lateral = np.array((-axis[1], axis[0]))
    mouth = np.array(pocket.mouth_centre)
    taper = math.tan(math.radians(pocket.jaw_convergence_deg))
    half = pocket.mouth_width / 2
    inner = half - pocket.shelf * taper
    return np.array(
        [
            mouth + half * lateral - axis * 2.0,
            mouth + inner * lateral + axis * pocket.shelf,
            mouth + inner * lateral + axis * (pocket.shelf + depth_mm),
            mouth - inner * lateral + axis * (pocket.shelf + depth_mm),
            mouth - inner * lateral + axis * pocket.shelf,
            mouth - half * lateral - axis * 2.0,
        ]
    )


def _noise_bank(config: RenderConfig) -> tuple[np.ndarray, np.ndarray] | None:
    """Gaussian noise a little larger than a frame, split into what it adds and what it takes
    away (uint8 each); frames take shifted views."""
    if config.noise_sigma == 0:
        return None
    return _noise_bank_of(config.resolution, config.noise_sigma, config.seed)


@functools.lru_cache(maxsize=2)
def _noise_bank_of(
    resolution: tuple[int, int], sigma: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    w, h = resolution
    rng = np.random.default_rng((seed, 11))
    noise = rng.standard_normal((h + _NOISE_PAD, w + _NOISE_PAD, 3), dtype=np.float32) * sigma
    noise = np.round(noise)
    brighter = np.clip(noise, 0, 255).astype(np.uint8)
    darker = np.clip(-noise, 0, 255).astype(np.uint8)
    brighter.flags.writeable = False
    darker.flags.writeable = False
    return brighter, darker
