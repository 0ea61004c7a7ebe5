"""Finding the table: synthetic frames with known corners, real broadcast frames, bad input."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.table_finder import find_table
from rules.errors import CalibrationError

SIZE = (1280, 720)
DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "real" / "broadcast-8ball"

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


def _draw_table(cloth_bgr: tuple[int, int, int], rng: np.random.Generator, skew: float):
    """A table frame with exact edges (area-averaged from 4x supersampling): wood rail, a
    cushion band in a darker shade of the cloth, bed, balls, sensor noise."""
    big = np.full((SIZE[1] * SUPERSAMPLE, SIZE[0] * SUPERSAMPLE, 3), (40, 45, 50), np.uint8)
    cloth = _quad(640, 360, 520, 270, skew)
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


@pytest.mark.parametrize("cloth", list(CLOTHS))
@pytest.mark.parametrize("skew", [0.0, 40.0])
def test_finds_cloth_and_noses_on_synthetic_tables(cloth: str, skew: float) -> None:
    rng = np.random.default_rng(7)
    image, cloth_quad, nose_quad = _draw_table(CLOTHS[cloth], rng, skew)
    found = find_table(image, f"synthetic {cloth}")
    assert np.abs(np.asarray(found.cloth_corners) - cloth_quad).max() < 0.5
    assert np.abs(np.asarray(found.nose_corners) - nose_quad).max() < 0.5
    assert found.confidence > 0.7


def test_an_arm_over_the_rail_does_not_bend_the_edges() -> None:
    rng = np.random.default_rng(3)
    image, cloth_quad, _ = _draw_table(CLOTHS["blue"], rng, 20.0)
    arm = np.array([[0, 500], [420, 560], [430, 600], [0, 620]], np.int32)
    cv2.fillConvexPoly(image, arm, (90, 120, 170))
    found = find_table(image, "arm")
    assert np.abs(np.asarray(found.cloth_corners) - cloth_quad).max() < 1.5


@pytest.mark.parametrize(
    "image",
    [
        np.zeros((720, 1280, 3), np.uint8),
        np.random.default_rng(0).integers(0, 255, (720, 1280, 3), dtype=np.uint8),
    ],
    ids=["blank", "noise"],
)
def test_a_frame_with_no_table_is_a_clear_error(image: np.ndarray) -> None:
    with pytest.raises(CalibrationError, match="frame 12"):
        find_table(image, "frame 12")


def test_a_frame_of_the_wrong_shape_is_a_clear_error() -> None:
    with pytest.raises(CalibrationError, match="expected an HxWx3 uint8 image"):
        find_table(np.zeros((720, 1280), np.uint8))


def _real_frames():
    if not DATA.is_dir():
        return []
    return sorted(DATA.glob("*/frames/frame_*.png"))


# Labelled masks mark the cloth including the cushion tops; the oblique game3 view shows the
# near cushions' faces in shadow, which the colour model does not take as cloth.
MIN_OVERLAP = {"game3": 0.75}


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/real is not present")
@pytest.mark.parametrize("path", _real_frames(), ids=lambda p: f"{p.parents[1].name}-{p.stem}")
def test_cloth_agrees_with_the_labelled_mask_on_broadcast_frames(path: Path) -> None:
    image = cv2.imread(str(path))
    labels = cv2.imread(str(path.parents[1] / "masks" / path.name), cv2.IMREAD_UNCHANGED)
    labelled = labels[:, :, 0] > 0  # cloth and the balls on it
    found = find_table(image, str(path))
    ours = found.cloth_mask((image.shape[1], image.shape[0])) > 0
    overlap = (ours & labelled).sum() / (ours | labelled).sum()
    game = path.parents[1].name.split("_")[0]
    assert overlap >= MIN_OVERLAP.get(game, 0.94)
