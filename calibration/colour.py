"""The colour model: how the cloth and each ball look under this table's light.

Colours are CIE L*a*b* as OpenCV scales it for 8-bit images (L 0-255, a and b offset by 128):
perceptual, so distances mean something, and lightness is kept apart from hue so a dimmer corner
of the table changes L far more than a and b.

- The cloth: its colour, and how its brightness falls off across the table (lamps, vignetting)
  as a coarse grid of gains over the playing surface, so the detector can predict the empty
  cloth at every pixel.
- Each ball: the Lab of its coloured part (the cue ball: its white), and the white of the set
  (stripes' caps, number discs).

`default_colour_model` works out of the box from the reference colours in `calibration.balls`;
`learn_colour_model` measures the real ones from a frame with balls in known places (a rack that
`rules.rack.check_rack` found right, or balls the user named by clicking on them).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.balls import BALL_SET
from calibration.camera import CameraModel
from calibration.table import TableSpec
from rules.balls import BALL_RADIUS_MM, BallId
from rules.errors import CalibrationError
from rules.table import Point

Lab = tuple[float, float, float]

WHITE_CHROMA = 22.0
"""Pixels with a Lab chroma (distance of a, b from neutral) below this are white or black."""

SHADING_GRID = (9, 17)
"""Rows (across the table, y) x columns (along it, x) of the cloth's brightness grid."""


@dataclass(frozen=True, slots=True)
class BallColour:
    """One ball's colour under this table's light.

    Attributes:
        ball: Which ball.
        lab: Mean Lab of the coloured part (for the cue ball: its white).
        spread: Standard deviation of a and b around it between frames and positions, Lab units.
    """

    ball: BallId
    lab: Lab
    spread: float = 10.0


@dataclass(frozen=True, slots=True)
class ColourModel:
    """The cloth and ball colours of one table under its light.

    Attributes:
        cloth_lab: The cloth's Lab under full light.
        shading: Cloth brightness relative to ``cloth_lab`` on a grid over the playing surface,
            rows from -y to +y and columns from -x to +x (cushion nose to cushion nose); empty
            when unknown (the detector then measures it from its first frame).
        balls: The 16 balls' colours, in `BallId` order.
        white_lab: The white of the set (the cue ball, stripes' caps, number discs).
        source: How it was made (``default``, ``rack``, ``named balls``).
    """

    cloth_lab: Lab
    shading: tuple[tuple[float, ...], ...]
    balls: tuple[BallColour, ...]
    white_lab: Lab
    source: str = "default"

    def __post_init__(self) -> None:
        ids = tuple(c.ball for c in self.balls)
        if ids != tuple(BallId):
            raise ValueError(f"colour model: balls must be the 16 ids in order, got {ids}")
        if self.shading:
            widths = {len(row) for row in self.shading}
            if len(widths) != 1 or min(widths) < 2 or len(self.shading) < 2:
                raise ValueError("colour model: shading must be a rectangular grid, 2x2 or more")
            if not all(math.isfinite(v) and v > 0 for row in self.shading for v in row):
                raise ValueError("colour model: shading gains must be positive numbers")

    def colour_of(self, ball: BallId) -> BallColour:
        """One ball's colour."""
        return self.balls[BallId(ball).number]

    def shading_array(self) -> np.ndarray | None:
        """The shading grid as a float32 array (rows, cols), or None when unknown."""
        return np.array(self.shading, dtype=np.float32) if self.shading else None

    def with_shading(self, shading: np.ndarray) -> ColourModel:
        """The same model with a measured cloth brightness grid."""
        grid = tuple(tuple(round(float(v), 4) for v in row) for row in shading)
        return ColourModel(self.cloth_lab, grid, self.balls, self.white_lab, self.source)


def rgb_to_lab(rgb: tuple[int, int, int] | np.ndarray) -> Lab:
    """OpenCV 8-bit Lab of one sRGB colour."""
    bgr = np.array(rgb, dtype=np.uint8)[::-1].reshape(1, 1, 3)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(3)
    return (float(lab[0]), float(lab[1]), float(lab[2]))


DEFAULT_CLOTH_LAB: Lab = rgb_to_lab((32, 128, 62))
"""A tournament green cloth, used until the table's own cloth is measured."""


def default_colour_model(cloth_lab: Lab | None = None) -> ColourModel:
    """A model from the reference colours of the standard set (no table measured yet).

    Args:
        cloth_lab: The cloth's colour when known (a calibration's ``cloth_lab``).
    """
    balls = tuple(BallColour(look.ball, rgb_to_lab(look.colour_rgb), 14.0) for look in BALL_SET)
    cloth = tuple(float(v) for v in cloth_lab) if cloth_lab is not None else DEFAULT_CLOTH_LAB
    return ColourModel(cloth, (), balls, balls[0].lab, "default")


# Measuring ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BallPixels:
    """What the pixels of one ball's disc say about its colour.

    Attributes:
        white_fraction: Share of the disc that is white (bright, without chroma).
        dark_fraction: Share that is black (dark, without chroma).
        colour_lab: Mean Lab of the coloured (neither white nor black) pixels; None if none.
        colour_fraction: Share of coloured pixels.
        white_lab: Mean Lab of the white pixels; None if none.
    """

    white_fraction: float
    dark_fraction: float
    colour_lab: Lab | None
    colour_fraction: float
    white_lab: Lab | None


def ball_pixels(lab: np.ndarray, white_l: float = 165.0, dark_l: float = 70.0) -> BallPixels:
    """Split one ball's Lab pixels into white, black and coloured and summarise each.

    Args:
        lab: (n, 3) OpenCV Lab pixels inside the ball's outline (rim left out: it is shaded).
        white_l: Lightness above which a chroma-free pixel is white.
        dark_l: Lightness below which a chroma-free pixel is black.
    """
    px = np.asarray(lab, dtype=np.float32).reshape(-1, 3)
    if len(px) == 0:
        return BallPixels(0.0, 0.0, None, 0.0, None)
    chroma = np.hypot(px[:, 1] - 128.0, px[:, 2] - 128.0)
    neutral = chroma < WHITE_CHROMA
    white = neutral & (px[:, 0] >= white_l)
    dark = neutral & (px[:, 0] < dark_l)
    coloured = ~(white | dark)
    # A neutral pixel of middling lightness is a shaded white or a lit black: call it coloured
    # only when it has some chroma, else split it by lightness.
    grey = coloured & neutral
    white |= grey & (px[:, 0] >= (white_l + dark_l) / 2)
    dark |= grey & (px[:, 0] < (white_l + dark_l) / 2)
    coloured &= ~neutral
    n = float(len(px))

    def mean(mask: np.ndarray) -> Lab | None:
        if mask.sum() < 2:
            return None
        m = px[mask].mean(axis=0)
        return (float(m[0]), float(m[1]), float(m[2]))

    return BallPixels(
        float(white.sum() / n),
        float(dark.sum() / n),
        mean(coloured),
        float(coloured.sum() / n),
        mean(white),
    )


def disc_pixels(
    image_lab: np.ndarray,
    centre_px: np.ndarray,
    radius_px: float,
    inner: float = 0.9,
    hole: float = 0.0,
) -> np.ndarray:
    """Lab pixels within ``inner`` x radius of a ball's centre (and beyond ``hole`` x radius:
    a ring), (n, 3) uint8."""
    h, w = image_lab.shape[:2]
    r = radius_px * inner
    x0, x1 = max(int(centre_px[0] - r), 0), min(int(centre_px[0] + r) + 2, w)
    y0, y1 = max(int(centre_px[1] - r), 0), min(int(centre_px[1] + r) + 2, h)
    if x0 >= x1 or y0 >= y1:
        return np.zeros((0, 3), dtype=np.uint8)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - centre_px[0]) ** 2 + (yy - centre_px[1]) ** 2
    inside = (d2 <= r * r) & (d2 >= (radius_px * hole) ** 2)
    return image_lab[y0:y1, x0:x1][inside]


def placed_from_pixels(
    camera: CameraModel, named: Mapping[BallId, tuple[float, float]]
) -> dict[BallId, Point]:
    """Table positions of balls the user named by clicking on their centres in the image.

    The clicked pixel is the ball's centre, so it is mapped on the plane of ball centres.
    """
    if not named:
        return {}
    balls = list(named)
    table = camera.to_table(np.array([named[b] for b in balls], dtype=float), BALL_RADIUS_MM)
    return {BallId(b): (float(x), float(y)) for b, (x, y) in zip(balls, table, strict=True)}


def learn_colour_model(
    image: np.ndarray,
    camera: CameraModel,
    table: TableSpec,
    placed: Mapping[BallId, Point],
    base: ColourModel | None = None,
    source: str = "rack",
) -> ColourModel:
    """Measure the cloth and the named balls' colours from a frame with balls in known places.

    Balls not in ``placed`` keep ``base``'s colours (the default model's when None), shifted by
    how much the measured balls differ from it on average, so one light's tint carries over.

    Args:
        image: The frame, BGR uint8, of the camera's image size.
        camera: The calibrated camera.
        table: The table.
        placed: Ball centres (table mm, on the cloth) known in this frame: a checked rack, or
            balls the user named.
        base: The model to start from.
        source: What the placement came from, recorded in the model.

    Raises:
        CalibrationError: the frame does not fit the camera, or shows no cloth.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise CalibrationError(
            f"colour model: want a BGR uint8 frame, got shape {image.shape} {image.dtype}"
        )
    if (image.shape[1], image.shape[0]) != tuple(camera.image_size):
        raise CalibrationError(
            f"colour model: frame is {image.shape[1]}x{image.shape[0]}, the camera is "
            f"{camera.image_size[0]}x{camera.image_size[1]}"
        )
    base = base or default_colour_model()
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    balls_mm = {b: np.array((p[0], p[1], BALL_RADIUS_MM)) for b, p in placed.items()}
    cloth_lab, shading = _measure_cloth(image, lab, camera, table, list(balls_mm.values()))
    measured: dict[BallId, tuple[Lab, Lab | None]] = {}
    for ball, centre in balls_mm.items():
        centre_px = camera.project(centre[None])[0]
        radius_px = BALL_RADIUS_MM / camera.mm_per_pixel(centre)
        stats = ball_pixels(disc_pixels(lab, centre_px, radius_px))
        if ball is BallId.CUE or ball is BallId.EIGHT:
            colour = (
                stats.white_lab if ball is BallId.CUE else _dark_mean(lab, centre_px, radius_px)
            )
        else:
            colour = stats.colour_lab
        if colour is not None:
            measured[BallId(ball)] = (colour, stats.white_lab)
    shift = np.zeros(3)
    if measured:
        shift = np.mean(
            [np.subtract(c, base.colour_of(b).lab) for b, (c, _) in measured.items()], axis=0
        )
    balls = []
    for c in base.balls:
        if c.ball in measured:
            balls.append(BallColour(c.ball, _round(measured[c.ball][0]), 10.0))
        else:
            balls.append(BallColour(c.ball, _round(np.add(c.lab, shift)), c.spread))
    whites = [w for _, w in measured.values() if w is not None]
    white = _round(np.mean(whites, axis=0)) if whites else base.white_lab
    model = ColourModel(_round(cloth_lab), (), tuple(balls), white, source)
    return model.with_shading(shading)


def _dark_mean(lab: np.ndarray, centre_px: np.ndarray, radius_px: float) -> Lab | None:
    px = disc_pixels(lab, centre_px, radius_px).astype(np.float32)
    if len(px) == 0:
        return None
    dark = px[px[:, 0] <= np.percentile(px[:, 0], 60)]
    m = dark.mean(axis=0)
    return (float(m[0]), float(m[1]), float(m[2]))


def _round(v) -> Lab:
    return (round(float(v[0]), 2), round(float(v[1]), 2), round(float(v[2]), 2))


def shading_points(table: TableSpec, grid: tuple[int, int] = SHADING_GRID) -> np.ndarray:
    """Table points (rows, cols, 2) of the shading grid's nodes, on the playing surface."""
    rows, cols = grid
    xs = np.linspace(-table.length / 2, table.length / 2, cols)
    ys = np.linspace(-table.width / 2, table.width / 2, rows)
    return np.stack(np.meshgrid(xs, ys), axis=-1)


def measure_cloth(
    image: np.ndarray, camera: CameraModel, table: TableSpec, avoid: list[Point] = ()
) -> tuple[Lab, np.ndarray]:
    """The cloth's Lab at full light and its brightness grid (`ColourModel.shading`).

    Args:
        image: A BGR frame of the table.
        camera: The calibrated camera.
        table: The table.
        avoid: Table points (ball centres) whose surroundings are not cloth.

    Raises:
        CalibrationError: no cloth is seen.
    """
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    balls = [np.array((p[0], p[1], BALL_RADIUS_MM)) for p in avoid]
    return _measure_cloth(image, lab, camera, table, balls)


def _measure_cloth(
    image: np.ndarray,
    lab: np.ndarray,
    camera: CameraModel,
    table: TableSpec,
    balls: list[np.ndarray],
) -> tuple[Lab, np.ndarray]:
    """The cloth's Lab at full light and its brightness grid, from pixels away from the balls."""
    nodes = shading_points(table)
    rows, cols = nodes.shape[:2]
    step = min(table.length / (cols - 1), table.width / (rows - 1))
    offsets = np.stack(np.meshgrid(*(np.linspace(-0.3, 0.3, 7) * step,) * 2), axis=-1)
    samples = nodes[:, :, None, None, :] + offsets[None, None]
    # Keep samples inside the playing surface and off the balls (and their shadows).
    half = np.array((table.length / 2 - 20, table.width / 2 - 20))
    samples = np.clip(samples, -half, half)
    flat = samples.reshape(-1, 2)
    keep = np.ones(len(flat), dtype=bool)
    for b in balls:
        keep &= np.hypot(flat[:, 0] - b[0], flat[:, 1] - b[1]) > 3 * BALL_RADIUS_MM
    px = camera.project(np.column_stack((flat, np.zeros(len(flat)))))
    h, w = lab.shape[:2]
    ix = np.clip(np.round(px[:, 0]).astype(int), 0, w - 1)
    iy = np.clip(np.round(px[:, 1]).astype(int), 0, h - 1)
    values = lab[iy, ix].astype(np.float32)
    values[~keep] = np.nan
    values = values.reshape(rows, cols, -1, 3)
    # Brightness as the camera's 8-bit values see it (the detector predicts the cloth in BGR).
    bright = image[iy, ix].astype(np.float32).sum(axis=1)
    bright[~keep] = np.nan
    if np.isnan(values[..., 0]).all():
        raise CalibrationError("colour model: no cloth visible away from the balls")
    cloth_ab = np.nanmedian(values[..., 1:].reshape(-1, 2), axis=0)
    chroma = np.hypot(values[..., 1] - cloth_ab[0], values[..., 2] - cloth_ab[1])
    if np.nanmedian(chroma) > 15:
        raise CalibrationError("colour model: the table's cloth is not one colour here")
    # Balls not named (or a hand) in a cell would pull its median: keep cloth-coloured samples.
    bright = np.where(chroma.reshape(-1) < 10, bright, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # cells without cloth: filled below
        cell = np.nanmedian(bright.reshape(rows, cols, -1), axis=2)
    if np.isnan(cell).all():
        raise CalibrationError("colour model: no cloth-coloured pixels on the table")
    full = float(np.nanpercentile(cell, 90))
    if not full > 60.0:
        raise CalibrationError("colour model: the table is too dark to see the cloth")
    cell = np.where(np.isnan(cell), full, cell)
    gain = np.clip(cell / full, 0.05, 4.0)
    # The cloth at full light: samples divided by their cell's gain (chroma shrinks in the dim).
    bgr = image[iy, ix].astype(np.float32).reshape(rows, cols, -1, 3) / gain[:, :, None, None]
    ok = np.isfinite(bright).reshape(rows, cols, -1)
    full_bgr = np.clip(np.median(bgr[ok], axis=0), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    cloth = cv2.cvtColor(full_bgr, cv2.COLOR_BGR2LAB).reshape(3)
    return (float(cloth[0]), float(cloth[1]), float(cloth[2])), gain
