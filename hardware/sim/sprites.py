"""Balls as small shaded sprites: the fast way the renderer draws them.

A ball is small against the lens's curvature, so its outline is the image of the sphere's
silhouette circle under the projection's local affine map at its centre (secants through four
points on the circle, distortion included), and the centre itself is projected exactly.
`sprite_outline_error_px` measures the approximation against the exact projected silhouette:
under 0.1 px anywhere on the table for a 2.6 m rig, with or without mild barrel distortion.
For each sprite pixel the sphere point is rebuilt, shaded (Lambert plus a specular highlight per
lamp) and turned into the ball's body frame with its orientation to decide white, colour,
stripe or number disc, so stripes and numbers roll with the ball. Shadows are soft blobs on the
cloth under each ball, wider and fainter as a ball leaves the cloth.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.balls import BALL_SET
from calibration.camera import CameraModel
from hardware.sim.table_picture import LAMP_HEIGHT_MM
from rules.balls import BALL_RADIUS_MM

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

Box = tuple[int, int, int, int]
"""A pixel rectangle (x0, y0, x1, y1), end exclusive."""


# Ball geometry ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BallGeometry:
    """Where a batch of balls appears: centres and the local affine maps of their outlines."""

    centre_px: np.ndarray  # (m, 2) exact projection of each centre
    affine: np.ndarray  # (m, 2, 2) sphere-silhouette unit disc -> pixel offsets
    to_camera: np.ndarray  # (m, 3) unit vector from the centre toward the camera
    across: np.ndarray  # (m, 2, 3) the disc's two axes in the table frame
    base_px: np.ndarray  # (m, 2) the point of the cloth under the centre
    base_affine: np.ndarray  # (m, 2, 2) cloth-plane (x, y) / radius -> pixel offsets


def ball_geometry(camera: CameraModel, eye: np.ndarray, centres: np.ndarray) -> BallGeometry:
    """Project ball centres (m, 3) seen from the optical centre ``eye``: exact centres, and
    secant affine maps of each silhouette circle and of the cloth under each ball."""
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
    return BallGeometry(px[0], affine, view, np.stack((u, v), axis=1), px[5], base_affine)


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
    geo = ball_geometry(camera, eye, centre)
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
class Sprites:
    """Small square images of a batch of balls (or their shadows) with their coverage."""

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


def ball_sprites(
    geo: BallGeometry,
    centres: np.ndarray,
    orientations: np.ndarray,
    numbers: np.ndarray,
    looks: BallLooks,
    lamp_positions: np.ndarray,
) -> Sprites:
    """Shaded, textured sprites of balls (numbers 0-15) at their orientations (m, 3, 3),
    lit by the lamps (Lambert plus one Blinn-Phong highlight per lamp)."""
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
    return Sprites(origin, alpha, colour)


def shadow_sprites(geo: BallGeometry, centres: np.ndarray) -> Sprites:
    """Soft contact shadows on the cloth under each ball (coverage only)."""
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
    return Sprites(origin, alpha.astype(np.float32), np.zeros((0,), dtype=np.float32))


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


def blend(
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
class BallLayer:
    """Shaded sprites and shadows of a batch of balls, ready to paint."""

    count: int
    instant: np.ndarray  # (m,) which instant each ball belongs to
    shadows: Sprites | None
    sprites: Sprites | None
    colour: np.ndarray | None  # (m, S, S, 3) uint8
    distance: np.ndarray | None  # (m,) from the camera

    @classmethod
    def empty(cls) -> BallLayer:
        """A layer with no balls."""
        return cls(0, np.zeros(0, dtype=int), None, None, None, None)

    def paint(self, image: np.ndarray, which: np.ndarray) -> list[Box]:
        """Paint the shadows, then the balls (farthest first, so nearer balls, airborne ones,
        cover farther ones); returns the boxes drawn over."""
        if not len(which) or self.shadows is None:
            return []
        assert self.sprites is not None and self.colour is not None
        assert self.distance is not None
        black = np.zeros((*self.shadows.alpha.shape[1:], 3), dtype=np.uint8)
        boxes = [blend(image, self.shadows.origin[i], self.shadows.alpha[i], black) for i in which]
        for i in which[np.argsort(-self.distance[which])]:
            boxes.append(
                blend(image, self.sprites.origin[i], self.sprites.alpha[i], self.colour[i])
            )
        return [b for b in boxes if b is not None]


# Ball looks ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def ball_looks() -> BallLooks:
    """The set's looks, built once."""
    return BallLooks()


class BallLooks:
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
