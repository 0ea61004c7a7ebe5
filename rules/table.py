"""Names on the table and the little geometry the rules need.

The table frame (see DESIGN.md): millimetres, origin at the centre of the playing surface
(cushion nose to cushion nose), +x toward the foot cushion, +y toward the left long cushion as
seen from the head end. The full table model is `calibration.TableSpec`; the rules only rely on
the `TableGeometry` protocol below, which it satisfies, so `rules` imports nothing heavier.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

Point = tuple[float, float]
"""A point in the table frame, (x, y) in millimetres."""


class PocketId(StrEnum):
    """The six pockets, named from the head end."""

    HEAD_LEFT = "head-left"
    HEAD_RIGHT = "head-right"
    SIDE_LEFT = "side-left"
    SIDE_RIGHT = "side-right"
    FOOT_LEFT = "foot-left"
    FOOT_RIGHT = "foot-right"

    @property
    def is_corner(self) -> bool:
        """True for the four corner pockets."""
        return not self.is_side

    @property
    def is_side(self) -> bool:
        """True for the two side (middle) pockets."""
        return self in (PocketId.SIDE_LEFT, PocketId.SIDE_RIGHT)


class CushionId(StrEnum):
    """The six cushion segments between pockets."""

    HEAD = "head"
    FOOT = "foot"
    LEFT_HEAD = "left-head"
    LEFT_FOOT = "left-foot"
    RIGHT_HEAD = "right-head"
    RIGHT_FOOT = "right-foot"

    @property
    def is_long(self) -> bool:
        """True for the four segments of the long (side) cushions."""
        return self not in (CushionId.HEAD, CushionId.FOOT)

    @property
    def rail(self) -> str:
        """The rail the segment is on: ``head``, ``foot``, ``left`` or ``right``."""
        return self.value.split("-")[0]


class RackShape(StrEnum):
    """Rack footprints: the 15-ball triangle (8-ball, 14.1) and the 9-ball diamond."""

    TRIANGLE = "triangle"
    DIAMOND = "diamond"


class TableGeometry(Protocol):
    """What the rules need to know about a table, in table millimetres.

    `calibration.TableSpec` implements it; tests may pass any object with these members.
    """

    @property
    def length(self) -> float:
        """Playing-surface length, head cushion nose to foot cushion nose."""
        ...

    @property
    def width(self) -> float:
        """Playing-surface width, cushion nose to cushion nose."""
        ...

    @property
    def ball_diameter(self) -> float:
        """Diameter of the balls in play."""
        ...

    @property
    def head_string_x(self) -> float:
        """x of the head string (rule 3.16)."""
        ...

    @property
    def foot_spot(self) -> Point:
        """The foot spot, where the apex ball and spotted balls go (rules 3.2, 3.32)."""
        ...

    def rack_slots(self, shape: RackShape) -> tuple[Point, ...]:
        """Ball centres of a tight rack, apex on the foot spot, rows toward the foot cushion,
        each row from +y to -y (rules 3.2, 4.3, 5.2, 6.4)."""
        ...

    def on_playing_surface(self, p: Point) -> bool:
        """True when ``p`` is on or inside the cushion nose lines."""
        ...

    def in_kitchen(self, p: Point) -> bool:
        """True when ``p`` is strictly behind the head string on the playing surface (3.16)."""
        ...

    def distance_to_cushion(self, p: Point, cushion: CushionId | None = None) -> float:
        """Distance from ``p`` to a cushion nose segment (the nearest when ``cushion`` is None)."""
        ...

    def pocket_at(self, p: Point) -> PocketId | None:
        """The pocket whose opening holds ``p`` (past its mouth line, between the jaws), or None
        (rule 3.33: balls jammed in a pocket's opening)."""
        ...
