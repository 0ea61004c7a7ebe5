"""Hand-made `TableSnapshot`s for renderer and camera tests."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from hardware.sim.snapshot import Occluder, TableSnapshot
from rules.balls import BALL_RADIUS_MM, BallId
from rules.table import Point


def rotation(axis: str, degrees: float) -> np.ndarray:
    """A rotation matrix about a table axis."""
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    i, j = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}[axis]
    m = np.eye(3)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m


def snapshot(
    balls: Mapping[BallId, Point | tuple[float, float, float]],
    *,
    time: float = 0.0,
    orientations: Mapping[BallId, np.ndarray] | None = None,
    off_table: tuple[BallId, ...] = (),
    occluders: tuple[Occluder, ...] = (),
) -> TableSnapshot:
    """Balls at (x, y) on the cloth (or (x, y, z)), upright unless an orientation is given."""
    ids = tuple(balls)
    positions = np.array(
        [(*p, BALL_RADIUS_MM) if len(p) == 2 else tuple(p) for p in balls.values()], dtype=float
    ).reshape(len(ids), 3)
    turns = orientations or {}
    rots = np.array([turns.get(b, np.eye(3)) for b in ids]).reshape(len(ids), 3, 3)
    on_table = np.array([b not in off_table for b in ids], dtype=bool)
    return TableSnapshot(time, ids, positions, rots, on_table, occluders)
