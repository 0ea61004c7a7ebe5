"""The table's pockets and cushions, computed once, with quick rejects for the per-frame loops.

`calibration.TableSpec` builds its pockets and cushions on each call; the tracker asks about
every ball every frame, so it keeps them here and only runs the exact tests near the edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.table import TableSpec
from rules.table import CushionId, PocketId

_BOUNCE_STEPS = 17
"""Points along a frame interval at which a path turned back by a cushion is tried."""


@dataclass(frozen=True, slots=True, eq=False)
class Wall:
    """A straight rubber face a ball rebounds off: a cushion nose or a pocket's jaw face.

    Attributes:
        cushion: The cushion it belongs to (a jaw belongs to the cushion ending at its point).
        start: One end.
        along: From ``start`` to the other end.
        normal: Unit normal toward the side the balls are on.
        mouth: A jaw's pocket: the middle of its mouth line (None for a nose).
        axis: ... the unit vector into that pocket.
        shelf: ... the depth past the mouth line where the slate ends.
    """

    cushion: CushionId
    start: np.ndarray
    along: np.ndarray
    normal: np.ndarray
    mouth: np.ndarray | None = None
    axis: np.ndarray | None = None
    shelf: float = math.inf

    def on_slate(self, points: np.ndarray) -> np.ndarray:
        """Which of ``points`` (n, 2) are short of the drop behind a jaw's pocket shelf: past
        it a ball is falling, and its path bends with no rubber touched."""
        if self.mouth is None or self.axis is None:
            return np.ones(len(points), dtype=bool)
        return (points - self.mouth) @ self.axis < self.shelf


class TableCache:
    """Pockets, cushions and half-sizes of one table, for fast repeated questions."""

    def __init__(self, table: TableSpec) -> None:
        self.table = table
        self.pockets = table.pockets
        self.cushions = table.cushions
        self.walls = _walls(table)
        # The walls as arrays, to find the few a point lies along in one step.
        self.wall_starts = np.array([w.start for w in self.walls])
        self.wall_alongs = np.array([w.along for w in self.walls])
        self.wall_normals = np.array([w.normal for w in self.walls])
        self.wall_lengths_sq = np.einsum("wi,wi->w", self.wall_alongs, self.wall_alongs)
        self.wall_lengths = np.sqrt(self.wall_lengths_sq)
        # Where each jaw face meets its cushion's nose (a jaw's start): a corner of rubber.
        self.jaw_walls = np.array([i for i, w in enumerate(self.walls) if w.mouth is not None])
        self.jaw_points = self.wall_starts[self.jaw_walls]
        self.mouth_centres = np.array([p.mouth_centre for p in self.pockets])
        self.hx = table.length / 2
        self.hy = table.width / 2
        self.d = table.ball_diameter
        # The deepest point of any pocket opening lies within this of the cushion lines.
        self._edge_band = max(p.shelf + p.throat_width for p in self.pockets) + self.d
        self._corners = tuple(p for p in self.pockets if p.id.is_corner)
        self._noses = {w.cushion: w for w in self.walls if w.mouth is None}

    def near_a_mouth(self, points: np.ndarray, reach: float) -> np.ndarray:
        """Which of ``points`` (n, 2) lie within ``reach`` of a pocket's mouth centre."""
        gaps = np.hypot(*(points[:, None, :] - self.mouth_centres[None, :, :]).transpose(2, 0, 1))
        return np.min(gaps, axis=1) < reach

    def nose(self, cushion: CushionId) -> Wall:
        """The nose wall of a cushion (not its jaws)."""
        return self._noses[cushion]

    def walls_along(self, point: np.ndarray, margin: float = 0.1) -> np.ndarray:
        """Indices of the walls ``point`` lies along (its projection within ``margin`` of the
        wall's length past either end), those it lies along least far past an end first: two
        noses on one line (a long cushion's two halves) are as near a ball by the side pocket,
        and the one it is beside is the one it touches."""
        s = np.einsum("wi,wi->w", point - self.wall_starts, self.wall_alongs)
        s /= self.wall_lengths_sq
        along = np.flatnonzero((s >= -margin) & (s <= 1.0 + margin))
        past = np.maximum(np.maximum(-s[along], s[along] - 1.0), 0.0) * self.wall_lengths[along]
        return along[np.argsort(past, kind="stable")]

    def walls_within(self, point: np.ndarray, reach: float) -> np.ndarray:
        """Indices of the walls ``point`` lies along and within ``reach`` of (on the table's
        side): the cushions a ball there may push on."""
        along = self.walls_along(point)
        dist = np.einsum("wi,wi->w", point - self.wall_starts[along], self.wall_normals[along])
        return along[dist <= reach]

    def near_edge(self, points: np.ndarray, reach: float) -> np.ndarray:
        """Which of ``points`` (n, 2) lie within ``reach`` of a cushion nose line (`edge_gap`):
        only those can be in a pocket opening, for ``reach`` of a ball width."""
        gap = np.minimum(self.hx - np.abs(points[:, 0]), self.hy - np.abs(points[:, 1]))
        return gap <= reach

    def edge_gap(self, x: float, y: float) -> float:
        """Distance from (x, y) to the nearest cushion nose line, ignoring pockets (mm)."""
        return min(self.hx - abs(x), self.hy - abs(y))

    def on_surface(self, x: float, y: float) -> bool:
        """`TableSpec.on_playing_surface`, with the corner pockets kept, and cheap inside."""
        gap = self.edge_gap(x, y)
        if gap < 0:
            return False
        if gap > self._edge_band:
            return True
        return all(p.depth_of((x, y)) <= 0 for p in self._corners)

    def pocket_at(self, x: float, y: float) -> PocketId | None:
        """The pocket whose opening holds (x, y), as `TableSpec.pocket_at`, but cheap inside."""
        if self.edge_gap(x, y) > self.d:
            return None
        for pocket in self.pockets:
            if pocket.contains((x, y)):
                return pocket.id
        return None

    def bounced_touch(
        self, p0: np.ndarray, v: np.ndarray, dt: float, tolerance: float
    ) -> tuple[float, np.ndarray] | None:
        """When, inside (0, ``dt``], two balls at ``p0`` (2, 2) moving at ``v`` (2, 2) touch
        (to ``tolerance`` mm) after one of them comes off a cushion nose (a ball pinned
        between a cushion and a ball), by their ways turned back at the nose lines (centre one
        radius in; not where a way crosses into a pocket's mouth); and their line of centres
        then (unit, from the first to the second). None when neither way reaches a nose in
        the interval, or the turned ways do not touch in it."""
        half = np.array([self.hx, self.hy]) - self.d / 2
        ends = np.abs(np.concatenate([p0, p0 + v * dt]))
        if (ends < half).all():
            return None  # a straight way's farthest out is at an end: neither reaches a nose
        taus = np.linspace(0.0, dt, _BOUNCE_STEPS)
        paths = [p0[k] + np.outer(taus, v[k]) for k in (0, 1)]
        bent = False
        for path in paths:
            # The rebound turns the normal velocity round; losing some of it on the way
            # changes a touch by little.
            over = np.abs(path) - half
            beyond = (over > 0).any(axis=1)
            if beyond.any() and not self.near_a_mouth(path[beyond], self.d).any():
                path[:] = np.where(over > 0, np.sign(path) * (half - over), path)
                bent = True
        if not bent:
            return None
        gaps = np.hypot(*(paths[0] - paths[1]).T) - self.d
        touching = np.flatnonzero(gaps <= tolerance)
        if len(touching) == 0:
            return None
        inside = np.flatnonzero(gaps <= 0.0)
        at = int(inside[0] if len(inside) else np.argmin(gaps))
        n = paths[1][at] - paths[0][at]
        return float(taus[at]), n / max(float(np.hypot(*n)), 1e-9)

    def nearest_mouth(self, x: float, y: float, reach: float) -> PocketId | None:
        """The pocket whose mouth centre is nearest (x, y), if within ``reach`` mm."""
        if self.edge_gap(x, y) > reach:
            return None
        best, best_d = None, reach
        for pocket in self.pockets:
            dist = math.dist((x, y), pocket.mouth_centre)
            if dist < best_d:
                best, best_d = pocket.id, dist
        return best


def inside_any(point, polygons) -> bool:
    """Whether ``point`` lies inside any of ``polygons`` (each a sequence of corners, table mm),
    by the crossings of a ray from it."""
    x, y = float(point[0]), float(point[1])
    for polygon in polygons:
        corners = [(float(cx), float(cy)) for cx, cy in polygon]
        inside = False
        for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1], strict=True):
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                inside = not inside
        if inside:
            return True
    return False


def touch_roots(p: np.ndarray, v: np.ndarray, d: float) -> tuple[float, ...]:
    """The two times tau (sorted) with |p + v tau| = d, or () when the motion never gets there."""
    a = float(v @ v)
    b = 2.0 * float(p @ v)
    c = float(p @ p) - d * d
    if a < 1e-9:
        return (-math.inf, math.inf) if c <= 0 else ()
    disc = b * b - 4 * a * c
    if disc < 0:
        return ()
    sq = math.sqrt(disc)
    return ((-b - sq) / (2 * a), (-b + sq) / (2 * a))


def closest_time(p: np.ndarray, v: np.ndarray, lo: float, hi: float) -> float:
    """The time in [lo, hi] when ``p + v tau`` (a relative position moving straight) is
    shortest."""
    a = float(v @ v)
    if a < 1e-9:
        return lo
    return float(np.clip(-float(p @ v) / a, lo, hi))


def closest_distance(p: np.ndarray, v: np.ndarray, lo: float, hi: float) -> float:
    """The shortest length of ``p + v tau`` over tau in [lo, hi]."""
    t = closest_time(p, v, lo, hi)
    return float(np.hypot(*(p + v * t)))


def _walls(table: TableSpec) -> tuple[Wall, ...]:
    """The six cushion noses, then each pocket's two jaw faces."""
    walls = [
        Wall(c.id, np.array(c.start), np.subtract(c.end, c.start), np.array(c.normal))
        for c in table.cushions
    ]
    jaws = table.jaw_faces()
    for pocket, faces in zip(table.pockets, zip(jaws[::2], jaws[1::2], strict=True), strict=True):
        mouth, axis = np.array(pocket.mouth_centre), np.array(pocket.axis)
        for j in faces:
            along = np.subtract(j.end, j.start)
            start, normal = np.array(j.start), np.array(j.normal)
            walls.append(Wall(j.cushion, start, along, normal, mouth, axis, pocket.shelf))
    return tuple(walls)
