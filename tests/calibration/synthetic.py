"""Synthetic table frames with exactly known cloth and cushion-nose corners."""

from __future__ import annotations

import cv2
import numpy as np

SIZE = (1280, 720)

CLOTHS = {
    "green": (60, 140, 30),
    "blue": (170, 120, 20),
    "red": (40, 30, 160),
    "grey": (120, 118, 115),
}


def _quad(cx: float, cy: float, half_w: float, half_h: float, skew: float) -> np.ndarray:
    """A slightly perspective quad, clockwise from top-left (image y down)."""
    return np.array(
        [
            [cx - half_w + skew, cy - half_h],
            [cx + half_w - skew, cy - half_h],
            [cx + half_w, cy + half_h],
            [cx - half_w, cy + half_h],
        ]
    )


def _inset(quad: np.ndarray, by: float) -> np.ndarray:
    centre = quad.mean(axis=0)
    return centre + (quad - centre) * (1 - by)


SUPERSAMPLE = 4


def _fill(canvas: np.ndarray, quad: np.ndarray, colour) -> None:
    """Fill a quad given in final-image pixels (centres at integers) on the supersampled canvas."""
    scaled = (quad + 0.5) * SUPERSAMPLE - 0.5
    cv2.fillConvexPoly(canvas, np.round(scaled * 256).astype(np.int32), colour, cv2.LINE_8, 8)


def draw_table(cloth_bgr: tuple[int, int, int], rng: np.random.Generator, skew: float):
    """A table frame with exact edges (area-averaged from 4x supersampling): wood rail, a
    cushion band in a darker shade of the cloth, bed, balls, sensor noise."""
    big = np.full((SIZE[1] * SUPERSAMPLE, SIZE[0] * SUPERSAMPLE, 3), (40, 45, 50), np.uint8)
    cloth = _quad(640, 360, 520, 260, skew)  # a 2:1 table, as a camera could see it
    nose = _inset(cloth, 0.06)
    _fill(big, _inset(cloth, -0.08), (30, 70, 110))
    _fill(big, cloth, tuple(int(c * 0.75) for c in cloth_bgr))
    _fill(big, nose, cloth_bgr)
    for _ in range(9):
        centre = rng.uniform((300, 200), (980, 520)) * SUPERSAMPLE
        colour = tuple(int(c) for c in rng.integers(0, 255, 3))
        cv2.circle(big, tuple(int(v) for v in centre), 14 * SUPERSAMPLE, colour, -1)
    image = cv2.resize(big, SIZE, interpolation=cv2.INTER_AREA).astype(np.float64)
    noise = rng.normal(0, 3, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8), cloth, nose
