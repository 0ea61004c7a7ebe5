"""One instant on the virtual table: what the physics hands to the renderer."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rules.balls import BallId
from rules.table import Point


@dataclass(frozen=True, slots=True)
class Occluder:
    """Something over the table that hides what is under it (an arm, a cue, a bridge hand).

    Attributes:
        polygon: Outline in table millimetres, as seen from straight above.
        height_mm: Height above the cloth.
        colour_bgr: Its colour in the rendered image.
    """

    polygon: tuple[Point, ...]
    height_mm: float = 150.0
    colour_bgr: tuple[int, int, int] = (60, 80, 110)


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Every ball's pose at one session time, as parallel arrays.

    Attributes:
        time: Session seconds.
        balls: Ball ids, one per row of the arrays.
        positions: (n, 3) ball centres in table mm; z is the centre's height above the cloth
            (the ball radius when on the cloth; larger when airborne, smaller when dropping).
        orientations: (n, 3, 3) rotation matrices taking ball-body axes to the table frame, so
            stripes and number discs turn as the ball rolls.
        on_table: (n,) False for balls pocketed or off the table (not to be drawn on the cloth).
        occluders: Things over the table at this instant.
    """

    time: float
    balls: tuple[BallId, ...]
    positions: np.ndarray = field(repr=False)
    orientations: np.ndarray = field(repr=False)
    on_table: np.ndarray = field(repr=False)
    occluders: tuple[Occluder, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.balls)
        shapes = {
            "positions": (self.positions.shape, (n, 3)),
            "orientations": (self.orientations.shape, (n, 3, 3)),
            "on_table": (self.on_table.shape, (n,)),
        }
        for name, (got, want) in shapes.items():
            if got != want:
                raise ValueError(f"snapshot at {self.time}: {name} has shape {got}, want {want}")
