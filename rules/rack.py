"""Rack checks: is this rack correct for the game, and if not, what is wrong (rules 3.2, 4.3,
5.2, 6.4, 6.7.3, 1.16.5).

Given the balls at rest (a `Layout`) and the game, `check_rack` fits the rack to the slots of a
tight rack on the foot spot (`TableGeometry.rack_slots`), then lists every problem with its rule:
balls missing or extra, the rack off the foot spot, balls out of their slots, the wrong ball in
a fixed place, and gaps between neighbouring balls. By rule 2.7 only the referee decides whether
a rack is fit to play; this check tells him what the camera sees.

14.1 (6.4): "the 1 in the racker's right corner, the 5 in the left". The racker stands behind
the foot rail facing the head end; his right hand is then toward +y (the left long cushion as
seen from the head end), so the 1 goes in the +y back corner (the first slot of the back row)
and the 5 in the -y back corner (the last slot).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from enum import StrEnum

from rules.balls import NINE_BALL_SET, OBJECT_BALLS, BallGroup, BallId
from rules.shot import Layout
from rules.table import Point, RackShape, TableGeometry

APEX_SLOT = 0
CENTRE_SLOT = 4
"""The middle of the third row: the centre of both the triangle and the diamond."""
TRIANGLE_BACK_CORNERS = (10, 14)
"""The back row's ends: +y first (the racker's right), then -y."""


class RackGame(StrEnum):
    """The games whose racks can be checked."""

    EIGHT_BALL = "8-ball"
    NINE_BALL = "9-ball"
    STRAIGHT_POOL = "14.1"

    @property
    def shape(self) -> RackShape:
        """Triangle for 8-ball and 14.1, diamond for 9-ball."""
        return RackShape.DIAMOND if self is RackGame.NINE_BALL else RackShape.TRIANGLE

    @property
    def balls(self) -> tuple[BallId, ...]:
        """The object balls racked."""
        return NINE_BALL_SET if self is RackGame.NINE_BALL else OBJECT_BALLS

    @property
    def rule(self) -> str:
        """The game's racking rule."""
        return {"8-ball": "4.3", "9-ball": "5.2", "14.1": "6.4"}[self.value]


class RackProblemKind(StrEnum):
    """What can be wrong with a rack."""

    MISSING_BALL = "missing-ball"
    """A ball of the game is not in the rack."""
    EXTRA_BALL = "extra-ball"
    """A ball that is not part of the game's rack is in it."""
    OFF_SPOT = "off-spot"
    """The rack is not on the foot spot (its apex slot is off the spot)."""
    OUT_OF_SLOT = "out-of-slot"
    """A ball is not in a rack position."""
    WRONG_PLACE = "wrong-place"
    """A ball with a fixed place (the 8, the 1, the 9, the 5) is elsewhere."""
    CORNERS = "corners"
    """8-ball: the back corners do not hold one stripe and one solid."""
    APEX_NOT_EMPTY = "apex-not-empty"
    """14.1 re-rack: the apex must stay empty for the break ball."""
    GAP = "gap"
    """Two neighbouring balls do not touch."""


@dataclass(frozen=True, slots=True)
class RackProblem:
    """One thing wrong with a rack.

    Attributes:
        kind: What is wrong.
        rule: The rule it breaks.
        balls: The balls concerned.
        detail: One line for the referee.
        size_mm: How far off (distance off the spot or slot, or the gap), when measured.
    """

    kind: RackProblemKind
    rule: str
    balls: tuple[BallId, ...]
    detail: str
    size_mm: float | None = None


@dataclass(frozen=True, slots=True)
class RackCheckConfig:
    """Tolerances of the rack check, in mm.

    Attributes:
        spot_tolerance_mm: How far the rack may sit off the foot spot.
        slot_tolerance_mm: How far a ball may sit from its position in the fitted rack.
        gap_tolerance_mm: Largest gap between neighbours still taken as touching; above the
            ball-position error of vision, which would otherwise call gaps that are not there.
    """

    spot_tolerance_mm: float = 5.0
    slot_tolerance_mm: float = 14.0
    gap_tolerance_mm: float = 1.5

    def __post_init__(self) -> None:
        for name in ("spot_tolerance_mm", "slot_tolerance_mm", "gap_tolerance_mm"):
            if getattr(self, name) < 0:
                raise ValueError(f"rack check: {name} cannot be negative")


@dataclass(frozen=True, slots=True)
class RackCheck:
    """The verdict on a rack.

    Attributes:
        game: The game checked for.
        problems: Everything wrong, each with its rule; empty for a correct rack.
        offset_mm: How far the fitted rack sits from its place on the foot spot, (dx, dy).
        slots: Which ball is in which slot (index into `TableGeometry.rack_slots`).
    """

    game: RackGame
    problems: tuple[RackProblem, ...]
    offset_mm: Point = (0.0, 0.0)
    slots: tuple[tuple[int, BallId], ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    def of_kind(self, kind: RackProblemKind) -> tuple[RackProblem, ...]:
        """The problems of one kind."""
        return tuple(p for p in self.problems if p.kind is kind)

    def ball_in(self, slot: int) -> BallId | None:
        """The ball in a slot, or None when the slot is empty."""
        return dict(self.slots).get(slot)


def check_rack(
    layout: Layout,
    game: RackGame | str,
    table: TableGeometry,
    config: RackCheckConfig | None = None,
    *,
    apex_empty: bool = False,
) -> RackCheck:
    """Check a rack (rules 3.2, 4.3, 5.2, 6.4; 6.7.3 with ``apex_empty``; gaps 1.16.5).

    Args:
        layout: The balls at rest; the cue ball is ignored.
        game: ``"8-ball"``, ``"9-ball"`` or ``"14.1"``.
        table: The table.
        config: Tolerances; the defaults when None.
        apex_empty: A 14.1 re-rack of 14 balls with the apex spot left empty (6.7.3); object
            balls more than a ball width from every slot (the break ball) are left out.

    Raises:
        ValueError: an unknown game, or ``apex_empty`` for a game other than 14.1.
    """
    game = _game(game)
    config = config or RackCheckConfig()
    if apex_empty and game is not RackGame.STRAIGHT_POOL:
        raise ValueError(f"only a 14.1 re-rack leaves the apex empty, not a {game} rack")
    slots = table.rack_slots(game.shape)
    d = table.ball_diameter
    balls = {b: layout[b] for b in layout if b.is_object_ball}
    if apex_empty:
        balls = {b: p for b, p in balls.items() if min(_dist(p, s) for s in slots) <= d}
    problems = _count_problems(balls, game, apex_empty)
    offset = _fit_offset(balls, slots, config.slot_tolerance_mm)
    placed = tuple((x + offset[0], y + offset[1]) for x, y in slots)
    rule = "6.7.3" if apex_empty else game.rule
    off_spot = math.hypot(*offset)
    if off_spot > config.spot_tolerance_mm:
        problems.append(
            RackProblem(
                RackProblemKind.OFF_SPOT,
                rule,
                (),
                f"the rack sits {off_spot:.0f} mm off the foot spot",
                off_spot,
            )
        )
    assignment, strays = _assign(balls, placed, config.slot_tolerance_mm)
    for ball, miss in strays:
        problems.append(
            RackProblem(
                RackProblemKind.OUT_OF_SLOT,
                rule,
                (ball,),
                f"ball {ball} is {miss:.0f} mm from a rack position",
                miss,
            )
        )
    if apex_empty:
        problems += _apex_empty_problems(assignment)
    else:
        problems += _place_problems(game, assignment, balls)
    problems += _gaps(assignment, balls, slots, d, config.gap_tolerance_mm)
    return RackCheck(game, tuple(problems), offset, tuple(sorted(assignment.items())))


def _game(game: RackGame | str) -> RackGame:
    try:
        return RackGame(game)
    except ValueError:
        known = ", ".join(g.value for g in RackGame)
        raise ValueError(f"no rack check for the game {game!r}; known: {known}") from None


def _dist(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _count_problems(
    balls: dict[BallId, Point], game: RackGame, apex_empty: bool
) -> list[RackProblem]:
    if apex_empty:
        count = len(balls)
        if count == 14:
            return []
        kind = RackProblemKind.MISSING_BALL if count < 14 else RackProblemKind.EXTRA_BALL
        detail = f"a 14.1 re-rack holds 14 balls, this one {count}"
        return [RackProblem(kind, "6.7.3", tuple(sorted(balls, key=lambda b: b.number)), detail)]
    missing = [b for b in game.balls if b not in balls]
    extra = [b for b in balls if b not in game.balls]
    found = []
    if missing:
        names = ", ".join(missing)
        found.append(
            RackProblem(
                RackProblemKind.MISSING_BALL, game.rule, tuple(missing), f"missing: {names}"
            )
        )
    if extra:
        names = ", ".join(extra)
        found.append(
            RackProblem(
                RackProblemKind.EXTRA_BALL, game.rule, tuple(extra), f"not in a {game}: {names}"
            )
        )
    return found


def _fit_offset(balls: dict[BallId, Point], slots: tuple[Point, ...], tol: float) -> Point:
    """Translation of the rack that puts the most balls in slots (ties: the smallest shift),
    then measured by the apex ball, or with the apex empty by the median displacement of the
    balls it places (robust to a stray ball)."""
    if not balls:
        return (0.0, 0.0)
    # A shifted rack has some ball in its apex slot, or in the next one when the apex is empty.
    candidates = [(0.0, 0.0)] + [
        (p[0] - s[0], p[1] - s[1]) for p in balls.values() for s in slots[:2]
    ]

    def placed_by(offset: Point) -> list[Point]:
        moves = []
        for p in balls.values():
            dx, dy = min(
                ((p[0] - s[0] - offset[0], p[1] - s[1] - offset[1]) for s in slots),
                key=lambda v: math.hypot(*v),
            )
            if math.hypot(dx, dy) <= tol:
                moves.append((dx, dy))
        return moves

    best = max(candidates, key=lambda o: (len(placed_by(o)), -math.hypot(*o)))
    apex = (slots[0][0] + best[0], slots[0][1] + best[1])
    on_apex = [p for p in balls.values() if _dist(p, apex) <= tol]
    if on_apex:
        # The rules place the apex ball on the foot spot: measure the rack by it.
        p = min(on_apex, key=lambda q: _dist(q, apex))
        return (p[0] - slots[0][0], p[1] - slots[0][1])
    moves = placed_by(best)
    if not moves:
        return (0.0, 0.0)
    return (
        best[0] + statistics.median(m[0] for m in moves),
        best[1] + statistics.median(m[1] for m in moves),
    )


def _assign(
    balls: dict[BallId, Point], placed: tuple[Point, ...], tol: float
) -> tuple[dict[int, BallId], list[tuple[BallId, float]]]:
    """Balls to slots, nearest pairs first; balls left over or too far are strays."""
    pairs = sorted(
        (_dist(p, s), b.number, b, k) for b, p in balls.items() for k, s in enumerate(placed)
    )
    assignment: dict[int, BallId] = {}
    taken: set[BallId] = set()
    for distance, _, ball, slot in pairs:
        if distance > tol or ball in taken or slot in assignment:
            continue
        assignment[slot] = ball
        taken.add(ball)
    strays = [
        (b, min(_dist(p, s) for s in placed))
        for b, p in sorted(balls.items(), key=lambda bp: bp[0].number)
        if b not in taken
    ]
    return assignment, strays


def _place_problems(
    game: RackGame, assignment: dict[int, BallId], balls: dict[BallId, Point]
) -> list[RackProblem]:
    fixed: dict[int, tuple[BallId, str]] = {
        RackGame.EIGHT_BALL: {CENTRE_SLOT: (BallId.EIGHT, "in the centre of the rack")},
        RackGame.NINE_BALL: {
            APEX_SLOT: (BallId.ONE, "at the apex, on the foot spot"),
            CENTRE_SLOT: (BallId.NINE, "in the centre of the diamond"),
        },
        RackGame.STRAIGHT_POOL: {
            TRIANGLE_BACK_CORNERS[0]: (BallId.ONE, "in the racker's right back corner (+y)"),
            TRIANGLE_BACK_CORNERS[1]: (BallId.FIVE, "in the racker's left back corner (-y)"),
        },
    }[game]
    found = []
    for slot, (ball, where) in fixed.items():
        if ball in balls and assignment.get(slot) != ball:
            found.append(
                RackProblem(
                    RackProblemKind.WRONG_PLACE,
                    game.rule,
                    (ball,),
                    f"the {ball} belongs {where}",
                )
            )
    if game is RackGame.EIGHT_BALL:
        # An empty corner is already explained by a missing or stray ball.
        corners = tuple(b for k in TRIANGLE_BACK_CORNERS if (b := assignment.get(k)) is not None)
        groups = {b.group for b in corners}
        if len(corners) == 2 and groups != {BallGroup.SOLIDS, BallGroup.STRIPES}:
            found.append(
                RackProblem(
                    RackProblemKind.CORNERS,
                    game.rule,
                    corners,
                    "the back corners need one stripe and one solid",
                )
            )
    return found


def _apex_empty_problems(assignment: dict[int, BallId]) -> list[RackProblem]:
    ball = assignment.get(APEX_SLOT)
    if ball is None:
        return []
    detail = f"the apex spot stays empty for the break ball; the {ball} is on it"
    return [RackProblem(RackProblemKind.APEX_NOT_EMPTY, "6.7.3", (ball,), detail)]


def _gaps(
    assignment: dict[int, BallId],
    balls: dict[BallId, Point],
    slots: tuple[Point, ...],
    d: float,
    tol: float,
) -> list[RackProblem]:
    found = []
    for i, j in _neighbours(slots, d):
        a, b = assignment.get(i), assignment.get(j)
        if a is None or b is None:
            continue
        gap = _dist(balls[a], balls[b]) - d
        if gap > tol:
            found.append(
                RackProblem(
                    RackProblemKind.GAP,
                    "1.16.5",
                    (a, b) if a.number < b.number else (b, a),
                    f"balls {a} and {b} do not touch: {gap:.1f} mm apart",
                    gap,
                )
            )
    return found


def _neighbours(slots: tuple[Point, ...], d: float) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i in range(len(slots))
        for j in range(i + 1, len(slots))
        if _dist(slots[i], slots[j]) < d * 1.01
    ]
