"""Virtual-table scenes with exact truth for the detector's tests and benchmark.

A scene is a hand-made `TableSnapshot` (balls at known places: a rack, balls frozen together,
against cushions, in pocket jaws, under an arm, rolling fast) rendered by the virtual camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.camera import MILD_BARREL, CameraModel
from calibration.file import CALIBRATION_VERSION, Calibration
from calibration.solve import IntrinsicsSource
from calibration.table import TableSpec
from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from hardware.sim.snapshot import Occluder, TableSnapshot
from rules.balls import BALL_RADIUS_MM, BallId
from rules.table import Point, RackShape

TABLE = TableSpec.standard("9ft")
R = BALL_RADIUS_MM


def camera(tilt_deg: float = 3.0, distortion=MILD_BARREL) -> CameraModel:
    """A 1280x720 overhead camera over the 9 ft table."""
    return CameraModel.overhead(TABLE, tilt_deg=tilt_deg, distortion=distortion)


def calibration_for(cam: CameraModel, cloth_lab=None) -> Calibration:
    """A calibration that knows the camera exactly (the virtual table's truth)."""
    return Calibration(
        CALIBRATION_VERSION,
        TABLE,
        cam,
        IntrinsicsSource.GIVEN,
        (),
        0.0,
        0.0,
        cloth_lab,
        1.0,
        "",
        "virtual table",
    )


def renderer(cam: CameraModel, cloth: ClothColour = ClothColour.GREEN, **kw) -> TableRenderer:
    """The virtual camera with noise and JPEG on (unless overridden)."""
    return TableRenderer(TABLE, cam, RenderConfig(cloth=cloth, **kw))


def rotation(rng: np.random.Generator) -> np.ndarray:
    """A random ball orientation (stripes and numbers anywhere)."""
    q = rng.standard_normal(4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def snapshot(
    balls: dict[BallId, Point],
    rng: np.random.Generator | None = None,
    occluders: tuple[Occluder, ...] = (),
    time: float = 0.0,
) -> TableSnapshot:
    """Balls resting at (x, y), randomly turned when ``rng`` is given."""
    ids = tuple(balls)
    pos = np.array([(x, y, R) for x, y in balls.values()], dtype=float).reshape(-1, 3)
    rots = np.array([rotation(rng) if rng is not None else np.eye(3) for _ in ids])
    return TableSnapshot(time, ids, pos, rots.reshape(-1, 3, 3), np.ones(len(ids), bool), occluders)


def rack(cue: Point = (-600.0, 80.0)) -> dict[BallId, Point]:
    """A 15-ball rack on the foot spot (balls frozen together) and the cue ball."""
    slots = TABLE.rack_slots(RackShape.TRIANGLE)
    # A legal 8-ball rack (rule 4.3): the 8 in the middle, a stripe and a solid in the corners.
    order = (1, 9, 2, 10, 8, 3, 11, 4, 12, 5, 13, 6, 14, 15, 7)
    balls = {BallId(str(n)): s for n, s in zip(order, slots, strict=True)}
    balls[BallId.CUE] = cue
    return balls


def hard_places() -> dict[BallId, Point]:
    """Balls against cushions, in pocket jaws, and frozen in pairs."""
    hx, hy = TABLE.length / 2, TABLE.width / 2
    side = TABLE.pocket(next(p.id for p in TABLE.pockets if p.id.is_side))
    corner = TABLE.pockets[0]
    jaw = np.array(corner.mouth_centre) - np.array(corner.axis) * (R + 2)
    side_jaw = np.array(side.mouth_centre) - np.array(side.axis) * (R - 4)
    return {
        BallId.CUE: (0.0, 0.0),
        BallId.ONE: (hx - R - 0.5, 100.0),  # frozen to the foot cushion
        BallId.TWO: (-300.0, hy - R - 0.5),  # frozen to a long cushion
        BallId.THREE: (300.0, -hy + R + 0.5),
        BallId.FOUR: (-hx + R + 0.5, -200.0),
        BallId.FIVE: tuple(jaw),  # in a corner pocket's jaws
        BallId.SIX: tuple(side_jaw),  # in a side pocket's mouth
        BallId.SEVEN: (500.0, 200.0),  # a frozen pair
        BallId.EIGHT: (500.0 + 2 * R, 200.0),
        BallId.NINE: (-500.0, -250.0),  # a frozen triple
        BallId.TEN: (-500.0 + 2 * R, -250.0),
        BallId.ELEVEN: (-500.0 + R, -250.0 + math.sqrt(3) * R),
        BallId.TWELVE: (800.0, -300.0),
        BallId.THIRTEEN: (-900.0, 350.0),
        BallId.FOURTEEN: (200.0, 450.0),
        BallId.FIFTEEN: (-200.0, -450.0),
    }


def random_layout(rng: np.random.Generator, count: int = 16) -> dict[BallId, Point]:
    """``count`` balls scattered over the table, none overlapping (some may touch)."""
    hx, hy = TABLE.length / 2 - R, TABLE.width / 2 - R
    placed: list[np.ndarray] = []
    while len(placed) < count:
        p = rng.uniform((-hx, -hy), (hx, hy))
        if all(np.hypot(*(p - q)) >= 2 * R + 0.2 for q in placed):
            placed.append(p)
    ids = list(BallId)[:count]
    return {b: (float(p[0]), float(p[1])) for b, p in zip(ids, placed, strict=True)}


def arm(x: float, y: float, angle_deg: float = 30.0, length: float = 700.0) -> Occluder:
    """A forearm and hand reaching over the table from the rail, as a polygon."""
    a = math.radians(angle_deg)
    d = np.array((math.cos(a), math.sin(a)))
    n = np.array((-d[1], d[0]))
    tip = np.array((x, y))
    back = tip - d * length
    poly = [tip + n * 45, tip - n * 45, back - n * 60, back + n * 60]
    return Occluder(tuple((float(p[0]), float(p[1])) for p in poly), 250.0, (70, 95, 150))


@dataclass(frozen=True, slots=True)
class Moving:
    """Balls rolling in straight lines: positions over the exposure, and the true mid-exposure
    centres and velocities."""

    balls: dict[BallId, Point]
    velocity: dict[BallId, tuple[float, float]]

    def at(self, t: float, rng_seed: int = 0) -> TableSnapshot:
        """The table ``t`` seconds after mid-exposure."""
        pos = {
            b: (p[0] + self.velocity[b][0] * t, p[1] + self.velocity[b][1] * t)
            for b, p in self.balls.items()
        }
        return snapshot(pos, np.random.default_rng(rng_seed))

    def exposure(self, config: RenderConfig) -> list[TableSnapshot]:
        """The sub-frame snapshots the renderer averages into one blurred frame."""
        n = config.blur_subframes
        ts = np.linspace(-config.exposure_s / 2, config.exposure_s / 2, n) if n > 1 else [0.0]
        return [self.at(float(t)) for t in ts]
