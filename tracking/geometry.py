"""The table's pockets and cushions, computed once, with quick rejects for the per-frame loops.

`calibration.TableSpec` builds its pockets and cushions on each call; the tracker asks about
every ball every frame, so it keeps them here and only runs the exact tests near the edges.
"""

from __future__ import annotations

import math

from calibration.table import TableSpec
from rules.table import PocketId


class TableCache:
    """Pockets, cushions and half-sizes of one table, for fast repeated questions."""

    def __init__(self, table: TableSpec) -> None:
        self.table = table
        self.pockets = table.pockets
        self.cushions = table.cushions
        self.hx = table.length / 2
        self.hy = table.width / 2
        self.d = table.ball_diameter
        # The deepest point of any pocket opening lies within this of the cushion lines.
        self._edge_band = max(p.shelf + p.throat_width for p in self.pockets) + self.d
        self._corners = tuple(p for p in self.pockets if p.id.is_corner)

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
