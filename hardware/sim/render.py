"""What a real overhead camera sees of the virtual table, rendered fast.

The picture is built the way a camera forms it, through the one `CameraModel` (perspective, lens
distortion, tilt), but cheaply: the static table is pre-rendered once per camera
(`table_picture`), each ball is a small shaded sprite turned with its orientation (`sprites`),
occluders (an arm, a cue) are polygons at their height drawn over everything with a soft shadow.

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

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.table import TableSpec
from hardware.sim.snapshot import Occluder, TableSnapshot
from hardware.sim.sprites import (
    BallLayer,
    Box,
    ball_geometry,
    ball_looks,
    ball_sprites,
    shadow_sprites,
)
from hardware.sim.table_picture import (
    CLOTH_BGR,
    ClothColour,
    build_background,
    lamps,
    vignette_at,
)
from rules.balls import BALL_RADIUS_MM, BallId
from rules.errors import ConfigError

__all__ = [
    "CLOTH_BGR",
    "ClothColour",
    "RenderConfig",
    "TableRenderer",
]

_NOISE_PAD = 64


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
        self._background = build_background(
            table, camera, config.cloth, config.seed, config.vignetting, self._lamps
        )
        self._looks = ball_looks()
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

    def _prepare(self, instants: list[_Shown]) -> BallLayer:
        """Shade the balls of one or more instants in one batch."""
        balls = [b for shown in instants for b in shown.balls]
        instant = np.array([k for k, shown in enumerate(instants) for _ in shown.balls], dtype=int)
        if not balls:
            return BallLayer.empty()
        centres = np.concatenate([shown.centres for shown in instants])
        orientations = np.concatenate([shown.orientations for shown in instants])
        geo = ball_geometry(self.camera, self._camera_position, centres)
        shadows = shadow_sprites(geo, centres)
        numbers = np.array([b.number for b in balls])
        sprites = ball_sprites(geo, centres, orientations, numbers, self._looks, self._lamps)
        shade = vignette_at(self.camera, self.config.vignetting, geo.centre_px)
        # A ball below its resting height is dropping into a pocket: into the dark.
        shade *= np.clip(centres[:, 2] / BALL_RADIUS_MM, 0.15, 1.0)
        colour = sprites.colour * shade.astype(np.float32)[:, None, None, None] + 0.5
        colour = np.clip(colour, 0.0, 255.0).astype(np.uint8)
        distance = np.linalg.norm(centres - self._camera_position, axis=1)
        return BallLayer(len(balls), instant, shadows, sprites, colour, distance)

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


def _view_radius(camera: CameraModel) -> float:
    """Largest ideal (undistorted) radius x/z seen in the image, with a little to spare."""
    w, h = camera.image_size
    corners = np.array([(0.0, 0.0), (w - 1.0, 0.0), (0.0, h - 1.0), (w - 1.0, h - 1.0)])
    return float(np.max(np.linalg.norm(camera.undistort(corners), axis=1))) * 1.05


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
