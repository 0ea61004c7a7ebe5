"""The pool table in the table frame: playing surface, cushions, pockets, spots and strings.

All numbers follow the WPA Equipment Specifications (the standards rule 3.1 refers to):

- Playing surface (cushion nose to cushion nose): 9 ft 100 x 50 in, 8 ft 88 x 44 in,
  7 ft 78 x 39 in, always twice as long as wide, within 1/8 in.
- Pocket mouth, measured between the jaw points where the cushion noses end: corner 4.5-4.625 in,
  side 5-5.125 in. Mouth (jaw) angle: corner 142 deg, side 104 deg, each +-1 deg.
- Shelf (mouth line to the edge of the drop): corner 1-2.25 in, side 0-0.375 in.
- Cushion nose height: 62.5-64.5 % of the ball diameter (about 36 mm for 2 1/4 in balls).
- Diamonds: 18, centred 3 11/16 in from the cushion nose, a quarter of the width apart on the end
  rails and an eighth of the length apart on the long rails.
- Head string through the second diamonds from the head rail, x = -L/4; foot spot at (+L/4, 0).

The frame (DESIGN.md): origin at the centre spot, +x toward the foot cushion, +y toward the left
long cushion seen from the head end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.geometry import (
    cross,
    distance_to_segment,
    dot,
    offset_convex_polygon,
    sub,
    unit,
)
from rules.balls import BALL_DIAMETER_MM
from rules.table import CushionId, PocketId, Point, RackShape

INCH_MM = 25.4


_ROWS = {RackShape.TRIANGLE: (1, 2, 3, 4, 5), RackShape.DIAMOND: (1, 2, 3, 2, 1)}


@dataclass(frozen=True, slots=True)
class Pocket:
    """One pocket's opening in the table frame.

    Attributes:
        id: Which pocket.
        jaws: The two jaw points, where the cushion nose lines end at the mouth.
        mouth_width: Distance between the jaw points.
        axis: Unit vector from the mouth centre into the pocket.
        shelf: Depth from the mouth line to the edge of the drop.
        jaw_convergence_deg: How far each jaw face turns in toward the axis, from the mouth angle.
    """

    id: PocketId
    jaws: tuple[Point, Point]
    mouth_width: float
    axis: Point
    shelf: float
    jaw_convergence_deg: float

    @property
    def mouth_centre(self) -> Point:
        """Midpoint of the jaw points: the middle of the mouth line."""
        (ax, ay), (bx, by) = self.jaws
        return ((ax + bx) / 2, (ay + by) / 2)

    @property
    def throat_width(self) -> float:
        """Width of the opening at the back of the shelf, where the ball drops."""
        taper = math.tan(math.radians(self.jaw_convergence_deg))
        return self.mouth_width - 2 * self.shelf * taper

    @property
    def centre(self) -> Point:
        """Centre of the drop: behind the shelf by half the throat width."""
        depth = self.shelf + self.throat_width / 2
        mx, my = self.mouth_centre
        return (mx + self.axis[0] * depth, my + self.axis[1] * depth)

    def depth_of(self, p: Point) -> float:
        """How far ``p`` is past the mouth line along the axis (negative: on the table side)."""
        return dot(sub(p, self.mouth_centre), self.axis)

    def contains(self, p: Point) -> bool:
        """True when ``p`` is in the opening: past the mouth line, between the jaw faces,
        and no deeper than the far side of the drop."""
        depth = self.depth_of(p)
        if depth < 0 or depth > self.shelf + self.throat_width:
            return False
        lateral = abs(cross(self.axis, sub(p, self.mouth_centre)))
        taper = math.tan(math.radians(self.jaw_convergence_deg))
        half_opening = self.mouth_width / 2 - min(depth, self.shelf) * taper
        return lateral <= half_opening


@dataclass(frozen=True, slots=True)
class CushionSegment:
    """One cushion nose segment between two pockets' jaw points.

    Attributes:
        id: Which cushion.
        start: One end (a jaw point).
        end: The other end (a jaw point).
        normal: Unit vector from the nose into the playing surface.
    """

    id: CushionId
    start: Point
    end: Point
    normal: Point

    def distance(self, p: Point) -> float:
        """Distance from ``p`` to the nose segment."""
        return distance_to_segment(p, self.start, self.end)


@dataclass(frozen=True, slots=True)
class JawFace:
    """A pocket's jaw face: the rubber running from a jaw point into the pocket, turned in
    toward the pocket's axis by the WPA mouth angle.

    Attributes:
        cushion: The cushion whose nose ends at its jaw point (a jaw hit is a hit of it).
        start: The jaw point.
        end: Where the face ends, past the shelf.
        normal: Unit vector from the face toward the pocket's axis, the side balls are on.
    """

    cushion: CushionId
    start: Point
    end: Point
    normal: Point


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A pool table's geometry in table millimetres (WPA Equipment Specifications).

    Use `TableSpec.standard("9ft")` (or ``8ft``, ``7ft``) or `TableSpec.custom(...)`.

    Attributes:
        name: ``9ft``, ``8ft``, ``7ft`` or ``custom``.
        length: Playing surface, head cushion nose to foot cushion nose.
        width: Playing surface, cushion nose to cushion nose.
        corner_mouth: Corner pocket mouth between jaw points (WPA: 4.5-4.625 in).
        side_mouth: Side pocket mouth between jaw points (WPA: 5-5.125 in).
        corner_shelf: Corner pocket shelf depth (WPA: 1-2.25 in).
        side_shelf: Side pocket shelf depth (WPA: 0-0.375 in).
        corner_mouth_angle_deg: Angle between cushion nose and jaw face (WPA: 142 +-1).
        side_mouth_angle_deg: The same for side pockets (WPA: 104 +-1).
        cushion_nose_height: Nose above the cloth (WPA: 62.5-64.5 % of the ball diameter).
        ball_diameter: The balls played on it (WPA: 2 1/4 in).
        diamond_setback: Cushion nose to diamond centre (WPA: 3 11/16 in).
    """

    name: str
    length: float
    width: float
    corner_mouth: float = 4.5625 * INCH_MM
    side_mouth: float = 5.0625 * INCH_MM
    corner_shelf: float = 1.625 * INCH_MM
    side_shelf: float = 0.1875 * INCH_MM
    corner_mouth_angle_deg: float = 142.0
    side_mouth_angle_deg: float = 104.0
    cushion_nose_height: float = 0.635 * BALL_DIAMETER_MM
    ball_diameter: float = BALL_DIAMETER_MM
    diamond_setback: float = 3.6875 * INCH_MM

    def __post_init__(self) -> None:
        for field in ("length", "width", "corner_mouth", "side_mouth", "ball_diameter"):
            if not getattr(self, field) > 0:
                raise ValueError(f"table {self.name!r}: {field} must be positive")
        if self.length < self.width:
            raise ValueError(
                f"table {self.name!r}: length {self.length} is under width {self.width}"
            )
        if self.corner_mouth <= self.ball_diameter or self.side_mouth <= self.ball_diameter:
            raise ValueError(f"table {self.name!r}: a pocket mouth must be wider than a ball")
        if self.corner_mouth / math.sqrt(2) * 2 >= self.width:
            raise ValueError(
                f"table {self.name!r}: corner pockets overlap on a {self.width} mm end"
            )

    @classmethod
    def standard(cls, name: str) -> TableSpec:
        """A WPA table by size name: ``9ft``, ``8ft`` or ``7ft``.

        Raises:
            ValueError: for an unknown size (the message lists the known ones).
        """
        inches = {"9ft": (100.0, 50.0), "8ft": (88.0, 44.0), "7ft": (78.0, 39.0)}
        if name not in inches:
            raise ValueError(f"unknown table size {name!r}; known: {', '.join(inches)}, custom")
        length_in, width_in = inches[name]
        return cls(name, length_in * INCH_MM, width_in * INCH_MM)

    @classmethod
    def custom(cls, length: float, width: float, **overrides: float) -> TableSpec:
        """A table of any playing-surface size (mm), other dimensions WPA unless overridden."""
        return cls("custom", float(length), float(width), **overrides)

    # Spots and strings -------------------------------------------------------------------------

    @property
    def head_string_x(self) -> float:
        """x of the head string, through the second diamonds from the head rail (rule 3.16)."""
        return -self.length / 4

    @property
    def foot_spot(self) -> Point:
        """The foot spot, where the rack apex and spotted balls go (rules 3.2, 3.32)."""
        return (self.length / 4, 0.0)

    @property
    def head_spot(self) -> Point:
        """The head spot, on the head string's middle."""
        return (-self.length / 4, 0.0)

    @property
    def centre_spot(self) -> Point:
        """The centre spot, the origin."""
        return (0.0, 0.0)

    @property
    def long_string(self) -> tuple[Point, Point]:
        """The long string used for spotting (3.32): from the centre spot through the foot spot
        to the foot cushion. Balls go behind the foot spot first, in front when there is no room."""
        return (self.centre_spot, (self.length / 2, 0.0))

    @property
    def kitchen(self) -> tuple[Point, Point]:
        """The kitchen as (min corner, max corner); the head string edge is not part of it."""
        return ((-self.length / 2, -self.width / 2), (self.head_string_x, self.width / 2))

    # Pockets and cushions ----------------------------------------------------------------------

    @property
    def pockets(self) -> tuple[Pocket, ...]:
        """The six pockets, in `PocketId` order."""
        return tuple(self.pocket(p) for p in PocketId)

    def pocket(self, pocket: PocketId) -> Pocket:
        """One pocket's opening."""
        hx, hy = self.length / 2, self.width / 2
        if pocket.is_side:
            sy = 1.0 if pocket is PocketId.SIDE_LEFT else -1.0
            jaws = ((-self.side_mouth / 2, sy * hy), (self.side_mouth / 2, sy * hy))
            return Pocket(
                pocket,
                jaws,
                self.side_mouth,
                (0.0, sy),
                self.side_shelf,
                self.side_mouth_angle_deg - 90.0,
            )
        sx = -1.0 if pocket.value.startswith("head") else 1.0
        sy = 1.0 if pocket.value.endswith("left") else -1.0
        c = self.corner_mouth / math.sqrt(2)
        jaws = ((sx * hx, sy * (hy - c)), (sx * (hx - c), sy * hy))
        return Pocket(
            pocket,
            jaws,
            self.corner_mouth,
            unit((sx, sy)),
            self.corner_shelf,
            self.corner_mouth_angle_deg - 135.0,
        )

    def jaw_faces(self, past_shelf: float = 0.0) -> tuple[JawFace, ...]:
        """The twelve jaw faces, two per pocket in `PocketId` order, each reaching
        ``past_shelf`` beyond the shelf's edge and a ball's diameter more."""
        faces = []
        for pocket in self.pockets:
            mouth = pocket.mouth_centre
            ax, ay = pocket.axis
            conv = math.radians(pocket.jaw_convergence_deg)
            length = (pocket.shelf + past_shelf) / math.cos(conv) + self.ball_diameter
            for jaw in pocket.jaws:
                side = 1.0 if ax * (jaw[1] - mouth[1]) - ay * (jaw[0] - mouth[0]) > 0 else -1.0
                # The lateral unit toward the jaw's side of the axis, then the face turned in.
                px, py = -ay * side, ax * side
                fx = ax * math.cos(conv) - px * math.sin(conv)
                fy = ay * math.cos(conv) - py * math.sin(conv)
                end = (jaw[0] + fx * length, jaw[1] + fy * length)
                normal = (-fy, fx)
                to_axis = (mouth[0] + ax * 10.0 - jaw[0], mouth[1] + ay * 10.0 - jaw[1])
                if normal[0] * to_axis[0] + normal[1] * to_axis[1] < 0:
                    normal = (fy, -fx)
                faces.append(JawFace(self._cushion_ending_at(jaw), jaw, end, normal))
        return tuple(faces)

    def _cushion_ending_at(self, point: Point) -> CushionId:
        """The cushion whose nose segment ends at a jaw point."""
        return min(
            self.cushions,
            key=lambda c: min(math.dist(c.start, point), math.dist(c.end, point)),
        ).id

    @property
    def cushions(self) -> tuple[CushionSegment, ...]:
        """The six cushion nose segments, in `CushionId` order."""
        return tuple(self.cushion(c) for c in CushionId)

    def cushion(self, cushion: CushionId) -> CushionSegment:
        """One cushion nose segment, from jaw point to jaw point."""
        hx, hy = self.length / 2, self.width / 2
        c = self.corner_mouth / math.sqrt(2)
        s = self.side_mouth / 2
        if cushion in (CushionId.HEAD, CushionId.FOOT):
            sx = -1.0 if cushion is CushionId.HEAD else 1.0
            return CushionSegment(cushion, (sx * hx, -(hy - c)), (sx * hx, hy - c), (-sx, 0.0))
        sy = 1.0 if cushion.rail == "left" else -1.0
        if cushion.value.endswith("head"):
            start, end = (-(hx - c), sy * hy), (-s, sy * hy)
        else:
            start, end = (s, sy * hy), (hx - c, sy * hy)
        return CushionSegment(cushion, start, end, (0.0, -sy))

    @property
    def diamonds(self) -> tuple[Point, ...]:
        """The 18 diamond centres on the rail tops: 6 on each long rail, 3 on each end rail."""
        hx, hy, off = self.length / 2, self.width / 2, self.diamond_setback
        long_rail = [-hx + k * self.length / 8 for k in (1, 2, 3, 5, 6, 7)]
        end_rail = [-hy + k * self.width / 4 for k in (1, 2, 3)]
        return tuple((x, sy * (hy + off)) for sy in (1.0, -1.0) for x in long_rail) + tuple(
            (sx * (hx + off), y) for sx in (-1.0, 1.0) for y in end_rail
        )

    # Racks -------------------------------------------------------------------------------------

    def rack_slots(self, shape: RackShape) -> tuple[Point, ...]:
        """Ball centres of a tight rack with its apex on the foot spot (rules 3.2, 4.3, 5.2, 6.4).

        Rows run from the apex toward the foot cushion; within a row, from +y (left) to -y.
        """
        fx, fy = self.foot_spot
        d = self.ball_diameter
        row_step = d * math.sqrt(3) / 2
        return tuple(
            (fx + row * row_step, fy + ((count - 1) / 2 - j) * d)
            for row, count in enumerate(_ROWS[shape])
            for j in range(count)
        )

    def rack_footprint(self, shape: RackShape) -> tuple[Point, ...]:
        """Outline of the rack (the outer edge of the balls' tangent polygon), as vertices."""
        slots = self.rack_slots(shape)
        rows = _ROWS[shape]
        starts = [sum(rows[:i]) for i in range(len(rows))]
        left = [slots[s] for s in starts]
        right = [slots[s + n - 1] for s, n in zip(starts, rows, strict=True)]
        hull = [slots[0]]
        if shape is RackShape.TRIANGLE:
            hull += [right[-1], left[-1]]
        else:
            hull += [right[2], slots[-1], left[2]]
        return offset_convex_polygon(tuple(hull), self.ball_diameter / 2)

    # Predicates --------------------------------------------------------------------------------

    def on_playing_surface(self, p: Point) -> bool:
        """True when ``p`` is on or inside the cushion nose lines and not past a corner
        pocket's mouth line (a ball's position is its base, rule 3.12)."""
        if abs(p[0]) > self.length / 2 or abs(p[1]) > self.width / 2:
            return False
        corners = (self.pocket(pid) for pid in PocketId if pid.is_corner)
        return all(pocket.depth_of(p) <= 0 for pocket in corners)

    def in_kitchen(self, p: Point) -> bool:
        """True when ``p`` is strictly behind the head string on the playing surface.

        Rule 3.16: the head string itself is not part of the kitchen.
        """
        return self.on_playing_surface(p) and p[0] < self.head_string_x

    def nearest_cushion(self, p: Point) -> CushionId:
        """The cushion segment closest to ``p``."""
        return min(self.cushions, key=lambda c: c.distance(p)).id

    def distance_to_cushion(self, p: Point, cushion: CushionId | None = None) -> float:
        """Distance from ``p`` to a cushion nose segment, the nearest one when not named.

        For a ball centre, the gap between ball and cushion is this minus the ball radius.
        """
        if cushion is None:
            return min(c.distance(p) for c in self.cushions)
        return self.cushion(cushion).distance(p)

    def pocket_at(self, p: Point) -> PocketId | None:
        """The pocket whose opening holds ``p`` (past its mouth line, between the jaws), or None."""
        for pocket in self.pockets:
            if pocket.contains(p):
                return pocket.id
        return None


STANDARD_TABLES: tuple[str, ...] = ("9ft", "8ft", "7ft")
"""Names accepted by `TableSpec.standard`."""
