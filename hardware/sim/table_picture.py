"""The static table as a camera sees it: drawn once per camera into a background image.

Cloth with texture, cushions, wooden rails with diamonds, pocket openings, the lamps' uneven
light and the lens's vignetting. Every pixel's ray is met with the rail-top plane and the cloth
plane, and top-down textures of both are sampled there. The rail tops are taken to be flat at
the cushion-nose height, so the cushions hide the cloth just under their noses as they do from
above, and through the pocket cuts the camera sees the shelves and the dark drops.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.geometry import offset_convex_polygon
from calibration.table import TableSpec

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


def lamps(table: TableSpec) -> np.ndarray:
    """Lamp positions over the table, (3, 3) mm: three shades along its length."""
    third = table.length / 3
    return np.array([(k * third, 0.0, LAMP_HEIGHT_MM) for k in (-1, 0, 1)])


def vignette_at(camera: CameraModel, strength: float, pixels: np.ndarray) -> np.ndarray:
    """Brightness factor at pixels: 1 at the principal point, 1 - strength at the corners."""
    w, h = camera.image_size
    half_diag2 = (w / 2) ** 2 + (h / 2) ** 2
    r2 = ((pixels[..., 0] - camera.cx) ** 2 + (pixels[..., 1] - camera.cy) ** 2) / half_diag2
    return 1.0 - strength * np.clip(r2, 0.0, 1.5)


# The static table ------------------------------------------------------------------------------


_GRID_STEP = 4


def build_background(
    table: TableSpec,
    camera: CameraModel,
    cloth: ClothColour,
    seed: int,
    vignetting: float,
    lamp_positions: np.ndarray,
) -> np.ndarray:
    """The empty table through ``camera``, lit by the lamps, vignetted (H x W x 3 uint8 BGR)."""
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
    shade_grid = _illumination(cloth_grid, lamp_positions) * vignette_at(
        camera, vignetting, np.stack((gx, gy), axis=-1)
    )
    map_x = np.broadcast_to(np.arange(w, dtype=np.float32) / _GRID_STEP, (h, w))
    map_y = np.broadcast_to(np.arange(h, dtype=np.float32)[:, None] / _GRID_STEP, (h, w))

    def upsample(grid: np.ndarray) -> np.ndarray:
        return cv2.remap(grid, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    cloth_xy, rail_xy = upsample(cloth_grid), upsample(rail_grid)
    textures = _textures(table, cloth, seed)
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
        self._paint(canvas, _polygon_coverage(self.to_texel(np.asarray(points_mm, float))), value)

    def _circle(self, canvas: np.ndarray, centre_mm, radius_mm: float, value) -> None:
        centre = self.to_texel(np.asarray(centre_mm, dtype=np.float64))
        self._paint(canvas, _disc_coverage(centre, radius_mm / _TEXTURE_MM_PER_PX), value)

    @staticmethod
    def _paint(canvas: np.ndarray, coverage: _Coverage | None, value) -> None:
        """Blend ``value`` into ``canvas`` by each texel's covered share."""
        if coverage is None:
            return
        (row, col), share = coverage
        rows, cols = share.shape
        r0, c0 = max(row, 0), max(col, 0)
        r1, c1 = min(row + rows, canvas.shape[0]), min(col + cols, canvas.shape[1])
        if r0 >= r1 or c0 >= c1:
            return
        share = share[r0 - row : r1 - row, c0 - col : c1 - col]
        region = canvas[r0:r1, c0:c1]
        if canvas.ndim == 3:
            share = share[..., None]
        region += share * (np.asarray(value, dtype=np.float32) - region)

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


# Exact coverage ------------------------------------------------------------------------------
# OpenCV's polygon fill snaps vertices to whole pixels and fills both boundary pixels, and its
# anti-aliasing works on 8-bit images only and widens shapes by most of a pixel: at 2 mm a texel
# that put the cushion noses up to 2 mm away from where the table has them. Masks are painted
# with each texel's covered share instead (texel centres at integer coordinates, as remap samples).

_Coverage = tuple[tuple[int, int], np.ndarray]
"""(row, col) of a patch's top-left texel and the share of each of its texels covered."""

_SUPERSAMPLE = 8


def _interval_coverage(lo: float, hi: float, start: int, count: int) -> np.ndarray:
    """Share of texels start .. start+count-1 (each spanning i +- 0.5) inside [lo, hi]."""
    i = np.arange(start, start + count, dtype=np.float64)
    return np.clip(np.minimum(hi, i + 0.5) - np.maximum(lo, i - 0.5), 0.0, 1.0)


def _polygon_coverage(points: np.ndarray) -> _Coverage | None:
    """Covered share of texels by a convex polygon given in texel coordinates: exact for an
    axis-aligned rectangle, by 8 x 8 point samples per texel otherwise."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    col, row = math.floor(lo[0]) - 1, math.floor(lo[1]) - 1
    cols, rows = math.ceil(hi[0]) + 2 - col, math.ceil(hi[1]) + 2 - row
    xs, ys = np.unique(points[:, 0]), np.unique(points[:, 1])
    if len(points) == 4 and len(xs) == 2 and len(ys) == 2:
        across = _interval_coverage(xs[0], xs[1], col, cols)
        down = _interval_coverage(ys[0], ys[1], row, rows)
        return (row, col), np.outer(down, across).astype(np.float32)
    if cv2.contourArea(points.astype(np.float32)) <= 0:
        return None
    s = _SUPERSAMPLE
    fine = np.zeros((rows * s, cols * s), dtype=np.uint8)
    # Sample (i, j) of the fine grid sits at texel (col + (j + 0.5) / s - 0.5, ...); OpenCV
    # fills a pixel whose centre lies within half a pixel outside the outline, so the outline
    # is first pulled in by that half pixel.
    local = (points - (col, row) + 0.5) * s - 0.5
    inset = offset_convex_polygon(_corners_only(local), -0.5)
    pts = np.round(np.asarray(inset) * 256).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(fine, [pts], 1, cv2.LINE_8, 8)
    share = fine.reshape(rows, s, cols, s).mean(axis=(1, 3), dtype=np.float32)
    return (row, col), share


def _corners_only(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The polygon without repeated points and points on a straight edge (no corner there)."""
    kept = [p for i, p in enumerate(points) if np.hypot(*(p - points[i - 1])) > 1e-9]
    corners = []
    for i, p in enumerate(kept):
        before, after = p - kept[i - 1], kept[(i + 1) % len(kept)] - p
        if abs(before[0] * after[1] - before[1] * after[0]) > 1e-9 * np.hypot(*before):
            corners.append((float(p[0]), float(p[1])))
    return tuple(corners)


def _disc_coverage(centre: np.ndarray, radius: float) -> _Coverage | None:
    """Covered share of texels by a disc (texel coordinates), by 8 x 8 point samples."""
    if radius <= 0:
        return None
    s = _SUPERSAMPLE
    col, row = math.floor(centre[0] - radius) - 1, math.floor(centre[1] - radius) - 1
    size = math.ceil(2 * radius) + 3
    offsets = (np.arange(size * s) + 0.5) / s - 0.5
    dx = col + offsets - centre[0]
    dy = row + offsets - centre[1]
    inside = (dy[:, None] ** 2 + dx[None, :] ** 2) <= radius * radius
    return (row, col), inside.reshape(size, s, size, s).mean(axis=(1, 3), dtype=np.float32)
