"""What a ball on the cloth can hit or fall through: cushion noses, jaws, jaw points, pockets.

Built once from a `calibration.TableSpec`. The playing region is closed: six cushion nose
segments, at each pocket two jaw faces running from the jaw points into the pocket (turned in
by the WPA mouth angle), and across the back of the shelf the drop line. A ball whose centre
crosses a pocket's drop line falls; one that crosses the mouth line and comes back out
rattled (a pocket rebound, rule 3.11).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.table import TableSpec
from rules.table import CushionId, PocketId, Point


@dataclass(frozen=True, slots=True)
class Wall:
    """A straight rubber face: a cushion nose or a pocket jaw.

    Attributes:
        start: One end.
        end: The other end.
        normal: Unit normal pointing to the side balls are on.
        cushion: The cushion segment this face belongs to (a jaw belongs to its cushion).
        is_jaw: True for a jaw face inside a pocket mouth.
    """

    start: Point
    end: Point
    normal: Point
    cushion: CushionId
    is_jaw: bool = False

    @property
    def direction(self) -> Point:
        """Unit vector from start to end."""
        dx, dy = self.end[0] - self.start[0], self.end[1] - self.start[1]
        n = math.hypot(dx, dy)
        return (dx / n, dy / n)

    @property
    def length(self) -> float:
        """Length of the face."""
        return math.dist(self.start, self.end)


@dataclass(frozen=True, slots=True)
class Knuckle:
    """A jaw point, where a cushion nose turns into a jaw face: a ball can hit the corner."""

    point: Point
    cushion: CushionId


@dataclass(frozen=True, slots=True)
class PocketLines:
    """A pocket's mouth line and drop line, as depths along its axis.

    Attributes:
        pocket: Which pocket.
        mouth_centre: Middle of the mouth line (between the jaw points).
        axis: Unit vector into the pocket.
        half_mouth: Half the mouth width.
        drop_depth: Depth past the mouth line where the slate ends: a centre past it drops.
    """

    pocket: PocketId
    mouth_centre: Point
    axis: Point
    half_mouth: float
    drop_depth: float

    def depth(self, p: Point) -> float:
        """How far ``p`` is past the mouth line (negative on the table side)."""
        return (p[0] - self.mouth_centre[0]) * self.axis[0] + (
            p[1] - self.mouth_centre[1]
        ) * self.axis[1]

    def lateral(self, p: Point) -> float:
        """Signed distance of ``p`` from the pocket's axis line."""
        dx, dy = p[0] - self.mouth_centre[0], p[1] - self.mouth_centre[1]
        return self.axis[0] * dy - self.axis[1] * dx


@dataclass(frozen=True, slots=True)
class Boundary:
    """Everything a rolling ball meets at the edge of the playing surface."""

    walls: tuple[Wall, ...]
    knuckles: tuple[Knuckle, ...]
    pockets: tuple[PocketLines, ...]

    @classmethod
    def of(cls, table: TableSpec, drop_margin: float = 0.0) -> Boundary:
        """The boundary of a table.

        Args:
            table: The table.
            drop_margin: Extra depth past the shelf before a ball drops (0: at the shelf edge).
        """
        walls: list[Wall] = [Wall(c.start, c.end, c.normal, c.id) for c in table.cushions]
        for face in table.jaw_faces(drop_margin):
            walls.append(Wall(face.start, face.end, face.normal, face.cushion, is_jaw=True))
        knuckles = [Knuckle(face.start, face.cushion) for face in table.jaw_faces(drop_margin)]
        pockets = [
            PocketLines(p.id, p.mouth_centre, p.axis, p.mouth_width / 2, p.shelf + drop_margin)
            for p in table.pockets
        ]
        return cls(tuple(walls), tuple(knuckles), tuple(pockets))
