"""14.1 continuous: the re-rack after the 14th ball (rules 6.7.3, 6.7.6) and the kitchen
spotting option (rule 6.7.7).

6.7.3: when the 14th ball of a rack is pocketed, play stops, the 15th ball (the break ball)
stays where it is and the 14 pocketed balls are racked with the apex spot (the foot spot) left
empty. 6.7.6: when the 15th ball or the cue ball interferes with the triangle lowered straight
down onto the rack area, the text's table says where they go. Read from the text, its rows are
where the 15th ball lies and its columns where the cue ball lies ("elsewhere" includes the kitchen):

==================  =====================  ============================  =====================
15th ball lies      cue ball in the rack   cue ball elsewhere            cue ball on head spot
==================  =====================  ============================  =====================
in the rack         15th: foot spot,       15th: head spot,              15th: centre spot,
                    cue: in hand, kitchen  cue: stays                    cue: stays
pocketed            15th: foot spot,       15th: foot spot,              15th: foot spot,
                    cue: in hand, kitchen  cue: stays                    cue: stays
in the kitchen,     15th: stays,           (no interference)             (no interference)
not on head spot    cue: head spot
elsewhere           15th: stays,           (no interference)             (no interference)
                    cue: in hand, kitchen
on the head spot    15th: stays,           (no interference)             (no interference)
                    cue: centre spot
==================  =====================  ============================  =====================

"On the head spot" means (the text's footnote) in the way of a ball spotted on the head spot.
In this translation the foot spot is "задняя отметка", the head spot "передняя отметка", the
kitchen "дом".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from rules.balls import OBJECT_BALLS, BallId
from rules.shot import Layout
from rules.table import Point, RackShape, TableGeometry

DEFAULT_TRIANGLE_FRAME_MM = 15.0
"""Wall thickness of the triangle beyond the outer balls: a ball closer than a ball radius plus
this to the rack's outer edge is in the way of the triangle (rule 6.7.6)."""

_TIE_MM = 1.0
"""Distances from the head string closer than this are equal for rule 6.7.7."""


class FifteenthBallLies(StrEnum):
    """Where the 15th (break) ball is when the 14th is pocketed: the rows of 6.7.6."""

    IN_RACK = "in-rack"
    POCKETED = "pocketed"
    IN_KITCHEN = "in-kitchen"
    """In the kitchen but not in the way of the head spot."""
    ELSEWHERE = "elsewhere"
    """Neither in the kitchen nor in the rack area nor on the head spot."""
    ON_HEAD_SPOT = "on-head-spot"


class CueBallLies(StrEnum):
    """Where the cue ball is when the 14th ball is pocketed: the columns of 6.7.6."""

    IN_RACK = "in-rack"
    ELSEWHERE = "elsewhere"
    """Neither in the rack area nor on the head spot."""
    ON_HEAD_SPOT = "on-head-spot"


class BallGoes(StrEnum):
    """What happens to the 15th ball or the cue ball (6.7.6)."""

    STAYS = "stays"
    FOOT_SPOT = "foot-spot"
    HEAD_SPOT = "head-spot"
    CENTRE_SPOT = "centre-spot"
    IN_HAND_KITCHEN = "in-hand-kitchen"
    """Cue ball in hand behind the head string."""


_F, _C, _G = FifteenthBallLies, CueBallLies, BallGoes
_TABLE: dict[tuple[FifteenthBallLies, CueBallLies], tuple[BallGoes, BallGoes]] = {
    (_F.IN_RACK, _C.IN_RACK): (_G.FOOT_SPOT, _G.IN_HAND_KITCHEN),
    (_F.IN_RACK, _C.ELSEWHERE): (_G.HEAD_SPOT, _G.STAYS),
    (_F.IN_RACK, _C.ON_HEAD_SPOT): (_G.CENTRE_SPOT, _G.STAYS),
    (_F.POCKETED, _C.IN_RACK): (_G.FOOT_SPOT, _G.IN_HAND_KITCHEN),
    (_F.POCKETED, _C.ELSEWHERE): (_G.FOOT_SPOT, _G.STAYS),
    (_F.POCKETED, _C.ON_HEAD_SPOT): (_G.FOOT_SPOT, _G.STAYS),
    (_F.IN_KITCHEN, _C.IN_RACK): (_G.STAYS, _G.HEAD_SPOT),
    (_F.ELSEWHERE, _C.IN_RACK): (_G.STAYS, _G.IN_HAND_KITCHEN),
    (_F.ON_HEAD_SPOT, _C.IN_RACK): (_G.STAYS, _G.CENTRE_SPOT),
}
"""The cells of 6.7.6 where something moves; every other cell: both balls stay."""


@dataclass(frozen=True, slots=True)
class RerackPlan:
    """Where every ball goes for the next 14.1 rack (rules 6.7.3, 6.7.6).

    Attributes:
        racked: The balls to rack (the pocketed ones but the 15th), in number order.
        rack_slots: The 14 rack positions, apex excluded (any ball in any of them).
        fifteenth: The 15th (break) ball.
        fifteenth_lies: Where it was (6.7.6 row).
        fifteenth_goes: What happens to it.
        fifteenth_to: Where it is to be.
        cue_lies: Where the cue ball was (6.7.6 column).
        cue_goes: What happens to it.
        cue_to: Where it is to be; None for ball in hand behind the head string.
    """

    racked: tuple[BallId, ...]
    rack_slots: tuple[Point, ...]
    fifteenth: BallId
    fifteenth_lies: FifteenthBallLies
    fifteenth_goes: BallGoes
    fifteenth_to: Point
    cue_lies: CueBallLies
    cue_goes: BallGoes
    cue_to: Point | None

    @property
    def rule(self) -> str:
        """6.7.6 when the 15th ball or the cue ball is moved, else 6.7.3."""
        moved = (self.fifteenth_goes, self.cue_goes) != (BallGoes.STAYS, BallGoes.STAYS)
        return "6.7.6" if moved else "6.7.3"

    @property
    def cue_ball_in_hand(self) -> bool:
        """The shooter takes the cue ball in hand behind the head string."""
        return self.cue_goes is BallGoes.IN_HAND_KITCHEN


@dataclass(frozen=True, slots=True)
class KitchenSpot:
    """Rule 6.7.7: with the cue ball in hand in the kitchen and every object ball in the kitchen,
    the ball nearest the head string may be spotted on the foot spot if the shooter asks.

    Attributes:
        candidates: The balls nearest the head string; with several at an equal distance the
            shooter picks one.
        to: Where the chosen ball goes (the foot spot).
    """

    candidates: tuple[BallId, ...]
    to: Point

    @property
    def rule(self) -> str:
        """The rule giving the option."""
        return "6.7.7"


def plan_rerack(
    layout: Layout,
    table: TableGeometry,
    *,
    fifteenth: BallId | None = None,
    triangle_frame_mm: float = DEFAULT_TRIANGLE_FRAME_MM,
) -> RerackPlan:
    """Plan the 14.1 re-rack after the 14th ball is pocketed (rules 6.7.3, 6.7.6).

    Args:
        layout: The balls at rest after the shot: the cue ball and the 15th ball, or the cue
            ball alone when the 15th was pocketed with the 14th.
        table: The table.
        fifteenth: Which ball is the 15th when both were pocketed (any may be; the highest
            numbered by default). Ignored when a ball is left on the table.
        triangle_frame_mm: Thickness of the triangle's walls (how near a ball may be to the
            outer balls without being in the triangle's way).

    Raises:
        ValueError: the cue ball is not on the table, more than one object ball is, or
            ``fifteenth`` is the cue ball.
    """
    if fifteenth is BallId.CUE:
        raise ValueError("the 15th ball of 14.1 is an object ball, not the cue ball")
    cue = layout.get(BallId.CUE)
    if cue is None:
        raise ValueError("a 14.1 re-rack follows a legal shot: the cue ball must be on the table")
    on_table = [b for b in layout if b.is_object_ball]
    if len(on_table) > 1:
        names = ", ".join(on_table)
        raise ValueError(f"a 14.1 re-rack leaves one object ball on the table, not {names}")
    reach = table.ball_diameter + triangle_frame_mm
    slots = table.rack_slots(RackShape.TRIANGLE)
    corners = (slots[0], slots[10], slots[14])
    head_spot = (table.head_string_x, 0.0)

    def in_rack(p: Point) -> bool:
        return _distance_to_triangle(p, corners) < reach

    def on_head_spot(p: Point) -> bool:
        return math.dist(p, head_spot) < table.ball_diameter

    if on_table:
        ball = on_table[0]
        p = layout[ball]
        if in_rack(p):
            lies = FifteenthBallLies.IN_RACK
        elif on_head_spot(p):
            lies = FifteenthBallLies.ON_HEAD_SPOT
        elif table.in_kitchen(p):
            lies = FifteenthBallLies.IN_KITCHEN
        else:
            lies = FifteenthBallLies.ELSEWHERE
    else:
        ball = fifteenth or OBJECT_BALLS[-1]
        p = table.foot_spot
        lies = FifteenthBallLies.POCKETED
    if in_rack(cue):
        cue_lies = CueBallLies.IN_RACK
    elif on_head_spot(cue):
        cue_lies = CueBallLies.ON_HEAD_SPOT
    else:
        cue_lies = CueBallLies.ELSEWHERE
    ball_goes, cue_goes = _TABLE.get((lies, cue_lies), (BallGoes.STAYS, BallGoes.STAYS))
    spots = {
        BallGoes.FOOT_SPOT: table.foot_spot,
        BallGoes.HEAD_SPOT: head_spot,
        BallGoes.CENTRE_SPOT: (0.0, 0.0),
    }
    return RerackPlan(
        racked=tuple(b for b in OBJECT_BALLS if b != ball),
        rack_slots=slots[1:],
        fifteenth=ball,
        fifteenth_lies=lies,
        fifteenth_goes=ball_goes,
        fifteenth_to=spots.get(ball_goes, p),
        cue_lies=cue_lies,
        cue_goes=cue_goes,
        cue_to=None if cue_goes is BallGoes.IN_HAND_KITCHEN else spots.get(cue_goes, cue),
    )


def kitchen_spot(layout: Layout, table: TableGeometry) -> KitchenSpot | None:
    """The 6.7.7 option, for a shooter with the cue ball in hand behind the head string.

    Args:
        layout: The balls at rest; the cue ball (in hand) is ignored.
        table: The table.

    Returns:
        The balls that may be spotted on the foot spot, or None when some object ball is not
        in the kitchen (its base on or past the head string, 3.10/3.16) or none is on the table.
    """
    balls = {b: layout[b] for b in layout if b.is_object_ball}
    if not balls or not all(table.in_kitchen(p) for p in balls.values()):
        return None
    gap = {b: table.head_string_x - p[0] for b, p in balls.items()}
    nearest = min(gap.values())
    candidates = tuple(b for b in OBJECT_BALLS if b in gap and gap[b] - nearest < _TIE_MM)
    return KitchenSpot(candidates, table.foot_spot)


def _distance_to_triangle(p: Point, corners: tuple[Point, Point, Point]) -> float:
    """Distance from ``p`` to a filled triangle (0 inside)."""
    a, b, c = corners
    signs = [_cross(u, v, p) for u, v in ((a, b), (b, c), (c, a))]
    if all(s >= 0 for s in signs) or all(s <= 0 for s in signs):
        return 0.0
    return min(_distance_to_segment(p, u, v) for u, v in ((a, b), (b, c), (c, a)))


def _cross(u: Point, v: Point, p: Point) -> float:
    return (v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0])


def _distance_to_segment(p: Point, u: Point, v: Point) -> float:
    dx, dy = v[0] - u[0], v[1] - u[1]
    length2 = dx * dx + dy * dy
    t = (
        0.0
        if length2 == 0
        else max(0.0, min(1.0, ((p[0] - u[0]) * dx + (p[1] - u[1]) * dy) / length2))
    )
    return math.dist(p, (u[0] + t * dx, u[1] + t * dy))
