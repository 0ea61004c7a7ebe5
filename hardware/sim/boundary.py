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
        knuckles: list[Knuckle] = []
        pockets: list[PocketLines] = []
        for pocket in table.pockets:
            mouth = pocket.mouth_centre
            ax, ay = pocket.axis
            conv = math.radians(pocket.jaw_convergence_deg)
            depth = pocket.shelf + drop_margin
            face_length = depth / math.cos(conv) + table.ball_diameter
            for jaw in pocket.jaws:
                owner = _cushion_ending_at(table, jaw)
                lat = ax * (jaw[1] - mouth[1]) - ay * (jaw[0] - mouth[0])
                side = 1.0 if lat > 0 else -1.0
                # Lateral unit (pointing to the jaw's side of the axis), then turn the face in.
                px, py = -ay * side, ax * side
                fx = ax * math.cos(conv) - px * math.sin(conv)
                fy = ay * math.cos(conv) - py * math.sin(conv)
                end = (jaw[0] + fx * face_length, jaw[1] + fy * face_length)
                # Normal of the face toward the pocket axis (the side balls are on).
                nx, ny = _toward(jaw, (-fy, fx), mouth, (ax, ay))
                walls.append(Wall(jaw, end, (nx, ny), owner, is_jaw=True))
                knuckles.append(Knuckle(jaw, owner))
            pockets.append(PocketLines(pocket.id, mouth, (ax, ay), pocket.mouth_width / 2, depth))
        return cls(tuple(walls), tuple(knuckles), tuple(pockets))


def _toward(origin: Point, normal: Point, mouth: Point, axis: Point) -> Point:
    """Flip ``normal`` so it points from the jaw face toward the pocket's axis line."""
    to_axis_x = mouth[0] + axis[0] * 10.0 - origin[0]
    to_axis_y = mouth[1] + axis[1] * 10.0 - origin[1]
    if normal[0] * to_axis_x + normal[1] * to_axis_y < 0:
        return (-normal[0], -normal[1])
    return normal


def _cushion_ending_at(table: TableSpec, point: Point) -> CushionId:
    """The cushion whose nose segment ends at a jaw point."""
    best = min(
        table.cushions,
        key=lambda c: min(math.dist(c.start, point), math.dist(c.end, point)),
    )
    return best.id
