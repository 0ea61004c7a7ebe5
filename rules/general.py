"""The general rules of pocket billiards (WPA 3.x, with the referee rules 2.x) as predicates.

Each check reads a `Shot` and returns data: the fouls it finds, the warnings to give, and the
reasons to put the ruling up for review. Games (`rules.games`) run `judge_general` and add their
own checks; none of this raises for a foul (fouls are data).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.balls import BALL_DIAMETER_MM, BallId
from rules.events import EventKind, involving, of_kind, select
from rules.ruling import Alert, AlertKind, BallInHand, Foul, FoulKind, Review, Spot
from rules.shot import Shot
from rules.state import CONFIDENCE_FOR_REVIEW
from rules.table import CushionId, TableGeometry

CHALK_WIDTH_MM = 22.0
"""Width of a cube of chalk (7/8 in): under this cue-ball-to-object-ball gap rule 2.20 applies."""

DOUBLE_HIT_TRAVEL_MM = BALL_DIAMETER_MM / 2
"""Rule 2.20: the cue ball moving on more than half a ball width after contact is a foul."""

DOUBLE_HIT_GAP_MARGIN_MM = 3.0
"""A gap this close to the chalk width is too close to call automatically."""

DOUBLE_HIT_TRAVEL_MARGIN_MM = 5.0
"""A travel this close to half a ball width is too close to call automatically."""

PUSH_ACCELERATION_S = 0.005
"""A clean stroke accelerates the cue ball for about a millisecond; longer is push evidence."""

_QUIET_EVENTS = frozenset({EventKind.BALL_AT_REST, EventKind.ALL_AT_REST, EventKind.CUE_STRIKE})


@dataclass(frozen=True, slots=True)
class ShotContext:
    """What the general rules need to know about the shot beyond the Shot record.

    Attributes:
        legal_first: Balls the cue ball may contact first (3.18); empty means any object ball.
        ball_in_hand: Where the shooter was allowed to place the cue ball (3.10, 5.10).
        require_contact: The cue ball must contact a legal ball first (False on a push-out, 5.6).
        require_cushion: Rule 3.19's pocket-or-cushion requirement applies (False on a push-out,
            5.6, and on a break, whose own requirement the game judges: 4.5, 5.4).
        review_confidence: Events below this confidence put the ruling up for review.
        is_break: The shot is an opening break (3.9).
    """

    legal_first: tuple[BallId, ...] = ()
    ball_in_hand: BallInHand = BallInHand.NONE
    require_contact: bool = True
    require_cushion: bool = True
    review_confidence: float = CONFIDENCE_FOR_REVIEW
    is_break: bool = False


@dataclass(frozen=True, slots=True)
class Findings:
    """What the general rules found in one shot.

    Attributes:
        fouls: Fouls, in the order of the checks.
        warnings: Warnings to give (2.16 frozen ball, 2.21 head string, 5.10).
        reviews: Reasons for a human to look (uncertain evidence).
        restores: Balls to put back where they were (3.21 disturbed, second 3.21 settled).
        notes: Decisions taken in the shooter's favour, with their rules.
    """

    fouls: tuple[Foul, ...] = ()
    warnings: tuple[Alert, ...] = ()
    reviews: tuple[Review, ...] = ()
    restores: tuple[Spot, ...] = ()
    notes: tuple[str, ...] = ()


def moving_at_strike(shot: Shot) -> Foul | None:
    """Rule 3.14: striking while any ball moves (a ball spinning in place counts) is a foul."""
    if not shot.moving_at_strike:
        return None
    balls = ", ".join(shot.moving_at_strike)
    return Foul.of(FoulKind.BALLS_MOVING, f"struck while ball(s) {balls} were still moving")


def touched_balls(shot: Shot, is_break: bool = False) -> Foul | None:
    """Rules 3.21, 3.25: a ball moved by anything but the cue tip or another ball is a foul.

    On the break, a cue ball stopped or deflected after crossing the head string and before
    reaching the rack is rule 3.9's foul.
    """
    if not shot.disturbed:
        return None
    crossed = shot.crossed_head_string_at
    if is_break and BallId.CUE in shot.disturbed and crossed is not None:
        touch = select(shot.events, of_kind(EventKind.BALL_DISTURBED), involving(BallId.CUE))[0]
        first = shot.first_contact
        if touch.time > crossed and (first is None or touch.time < first.time):
            return Foul.of(
                FoulKind.BREAK_CUE_BALL_INTERFERED,
                "the cue ball was stopped or deflected on its way to the rack",
                ball=BallId.CUE,
            )
    balls = ", ".join(shot.disturbed)
    return Foul.of(
        FoulKind.TOUCHED_BALL,
        f"ball(s) {balls} moved without being hit by a ball",
        ball=shot.disturbed[0],
    )


def placement_touch(shot: Shot) -> Foul | None:
    """Rule 3.22: touching an object ball while placing the cue ball in hand is a foul."""
    if shot.placement is None or not shot.placement.touched:
        return None
    balls = ", ".join(shot.placement.touched)
    return Foul.of(
        FoulKind.PLACEMENT_TOUCH,
        f"ball(s) {balls} touched while placing the cue ball",
        ball=shot.placement.touched[0],
    )


def scratch(shot: Shot) -> Foul | None:
    """Rule 3.20: the cue ball pocketed is a foul."""
    if BallId.CUE not in shot.pocketed:
        return None
    pocket = shot.pocket_of(BallId.CUE)
    return Foul.of(FoulKind.SCRATCH, f"the cue ball went into the {pocket} pocket")


def off_table(shot: Shot) -> tuple[Foul, ...]:
    """Rule 3.28: a ball that leaves the table is a foul (the cue ball first)."""
    fouls = []
    gone = shot.left_table
    if BallId.CUE in gone:
        fouls.append(Foul.of(FoulKind.CUE_BALL_OFF_TABLE, "the cue ball left the table"))
    for ball in gone:
        if ball is not BallId.CUE:
            fouls.append(
                Foul.of(FoulKind.OBJECT_BALL_OFF_TABLE, f"the {ball} left the table", ball=ball)
            )
    return tuple(fouls)


def first_contact(shot: Shot, legal_first: tuple[BallId, ...]) -> tuple[Foul | None, str | None]:
    """Rule 3.18: the cue ball must first contact a ball it may hit first.

    A split hit (two balls within the timing uncertainty) is decided for the shooter (2.10,
    1.16.4): it is legal when any of the candidates is a legal first ball.

    Returns:
        The foul (or None) and a note when a split hit was decided for the shooter.
    """
    contact = shot.first_contact
    if contact is None:
        return Foul.of(FoulKind.NO_CONTACT, "the cue ball touched no object ball"), None
    if not legal_first or contact.ball in legal_first:
        return None, None
    legal = [b for b in contact.candidates if b in legal_first]
    if legal and contact.is_split:
        hit = ", ".join(contact.candidates)
        return None, f"2.10: split hit on {hit} too close to call, decided for the shooter"
    wanted = " or ".join(legal_first)
    return (
        Foul.of(
            FoulKind.WRONG_BALL_FIRST,
            f"the cue ball hit the {contact.ball} first, not the {wanted}",
            ball=contact.ball,
        ),
        None,
    )


def pocket_or_cushion(shot: Shot) -> Foul | None:
    """Rule 3.19: after the contact a numbered ball is pocketed, or a ball touches a cushion."""
    if shot.first_contact is None:
        return None  # 3.18 already applies
    if any(b.is_object_ball for b in shot.pocketed):
        return None
    if shot.balls_to_cushion_after_first_contact:
        return None
    return Foul.of(
        FoulKind.NO_CUSHION, "no ball was pocketed and no ball reached a cushion after the contact"
    )


def frozen_ball(shot: Shot) -> Foul | None:
    """Rule 3.38: after first contact with a frozen ball, something must reach a cushion.

    Applies when the first ball contacted is frozen to a cushion or to the cue ball. Then a
    numbered ball is pocketed, or the cue ball touches a cushion, or the frozen ball touches a
    cushion it was not frozen to, or another ball touches a cushion it was not touching.
    Frozen balls in the Shot record are taken as announced (the monitor announces them, 2.16).
    """
    contact = shot.first_contact
    if contact is None:
        return None
    ball = contact.ball
    frozen_to: dict[BallId, set[str]] = {}
    for f in shot.frozen:
        if f.cushion is not None:
            frozen_to.setdefault(f.ball, set()).add(f.cushion)
    to_cue = any(
        (f.ball is BallId.CUE and f.other is ball) or (f.ball is ball and f.other is BallId.CUE)
        for f in shot.frozen
    )
    if ball not in frozen_to and not to_cue:
        return None
    if any(b.is_object_ball for b in shot.pocketed):
        return None
    first = shot.cue_ball_contacts[0]
    for e in shot.cushion_contacts(since=first):
        if e.ball is BallId.CUE or e.cushion not in frozen_to.get(e.ball, set()):
            return None
    return Foul.of(
        FoulKind.FROZEN_BALL,
        f"the {ball} was frozen and no ball reached a new cushion after the contact",
        ball=ball,
    )


def kitchen(shot: Shot, table: TableGeometry) -> tuple[Foul | None, tuple[Alert, ...], str | None]:
    """Rules 3.10, 3.16, 3.39, 2.21: ball in hand behind the head string.

    - The cue ball must be placed strictly behind the head string (the line is not in the
      kitchen). Placed on it or within half a ball width past it, the referee must warn first
      (2.21): the monitor gives the warning and puts the shot up for review, since only a shot
      taken after a warning is a foul. Further out it is a foul without warning.
    - An object ball whose base is behind the head string may not be hit first unless the cue
      ball crosses the head string first (3.10, 3.39).
    - The cue ball must cross the head string (3.10) unless it first contacts a ball on or
      just past the line (3.39).

    Returns:
        The foul (or None), the 2.21 warning if any, and a review reason if any.
    """
    alerts: tuple[Alert, ...] = ()
    review = None
    placement = shot.placement
    if placement is not None and not placement.in_kitchen:
        margin = placement.head_string_margin_mm
        if margin > BALL_DIAMETER_MM / 2:
            return (
                Foul.of(
                    FoulKind.OUTSIDE_KITCHEN,
                    f"the cue ball was shot from {margin:.0f} mm past the head string",
                    rule="3.10",
                ),
                (),
                None,
            )
        alerts = (
            Alert(
                AlertKind.HEAD_STRING,
                "2.21",
                "the cue ball is on or just past the head string: place it behind the line",
            ),
        )
        review = f"2.21: shot from {margin:.0f} mm past the head string; a foul only if warned"
    contact = shot.first_contact
    crossed = left_kitchen_at(shot)
    if contact is not None:
        where = shot.at_strike.get(contact.ball)
        in_kitchen = where is not None and where[0] < table.head_string_x
        if in_kitchen and (crossed is None or crossed > contact.time):
            foul = Foul.of(
                FoulKind.KITCHEN_BALL_FIRST,
                f"the {contact.ball} is behind the head string and was hit before the cue ball "
                "crossed it",
                ball=contact.ball,
            )
            return foul, alerts, review
        if not in_kitchen:
            return None, alerts, review  # 3.39: a ball on or past the line may be hit first
    rest = shot.at_rest.get(BallId.CUE)
    stayed = rest is not None and rest[0] < table.head_string_x
    if crossed is None and stayed:
        return (
            Foul.of(
                FoulKind.CUE_BALL_STAYED_IN_KITCHEN, "the cue ball never crossed the head string"
            ),
            alerts,
            review,
        )
    return None, alerts, review


_FOOT_HALF_CUSHIONS = frozenset({CushionId.FOOT, CushionId.LEFT_FOOT, CushionId.RIGHT_FOOT})


def left_kitchen_at(shot: Shot) -> float | None:
    """When the cue ball in hand left the kitchen (3.10): the crossing event tracking reports, or
    failing that its first touch of a cushion wholly beyond the head string (foot half)."""
    times = []
    if shot.crossed_head_string_at is not None:
        times.append(shot.crossed_head_string_at)
    beyond = [e.time for e in shot.cushion_contacts(BallId.CUE) if e.cushion in _FOOT_HALF_CUSHIONS]
    if beyond:
        times.append(beyond[0])
    return min(times) if times else None


def double_hit(shot: Shot, review_confidence: float) -> tuple[Foul | None, str | None]:
    """Rules 2.20, 3.23: a double hit, judged from the gap and the cue ball's travel.

    With the cue ball closer than a chalk width to the object ball, it is a foul when the cue
    ball moves on more than half a ball width toward it after the contact. The evidence stays in
    the Shot record for review; measurements near either threshold, or unsure ones, are not
    called automatically but put up for review.
    """
    ev = shot.double_hit
    if ev is None:
        return None, None
    gap, travel = ev.gap_at_strike_mm, ev.travel_after_contact_mm
    near_gap = abs(gap - CHALK_WIDTH_MM) <= DOUBLE_HIT_GAP_MARGIN_MM
    near_travel = abs(travel - DOUBLE_HIT_TRAVEL_MM) <= DOUBLE_HIT_TRAVEL_MARGIN_MM
    measured = (
        f"gap {gap:.1f} mm (chalk width {CHALK_WIDTH_MM:.0f} mm), cue ball moved on "
        f"{travel:.1f} mm (half a ball {DOUBLE_HIT_TRAVEL_MM:.1f} mm)"
    )
    foul_by_measure = gap < CHALK_WIDTH_MM and travel > DOUBLE_HIT_TRAVEL_MM
    could_be_foul = gap < CHALK_WIDTH_MM + DOUBLE_HIT_GAP_MARGIN_MM and (
        travel > DOUBLE_HIT_TRAVEL_MM - DOUBLE_HIT_TRAVEL_MARGIN_MM
    )
    if not could_be_foul:
        return None, None
    if near_gap or near_travel or ev.confidence < review_confidence:
        return (
            None,
            f"2.20: possible double hit on the {ev.object_ball}, too close to call: {measured}",
        )
    if foul_by_measure:
        foul = Foul.of(FoulKind.DOUBLE_HIT, f"double hit: {measured}", ball=ev.object_ball)
        return foul, None
    return None, None


def push_review(shot: Shot) -> str | None:
    """Rule 3.24: a push shot is flagged for review with its evidence, never called alone."""
    ev = shot.push
    if ev is None or ev.acceleration_s <= PUSH_ACCELERATION_S:
        return None
    return (
        f"3.24: possible push shot: the cue ball accelerated for {ev.acceleration_s * 1000:.0f} ms "
        f"(confidence {ev.confidence:.2f})"
    )


def jump_review(shot: Shot) -> str | None:
    """Rules 3.26, 3.27: a jump shot is flagged (a scoop is a foul, a legal jump is not)."""
    ev = shot.jump
    if ev is None or not ev.airborne:
        return None
    over = f", passing over {', '.join(ev.passed_over)}" if ev.passed_over else ""
    return f"3.26: the cue ball left the cloth{over}: check it was not scooped"


def uncertain_events(shot: Shot, review_confidence: float) -> tuple[str, ...]:
    """Rule 2.14: events the instruments were unsure of put the ruling up for review."""
    reasons = []
    for e in shot.events:
        if e.kind in _QUIET_EVENTS or e.confidence >= review_confidence:
            continue
        what = f"{e.kind} {'-'.join(e.balls)}"
        reasons.append(f"2.14: {what} at {e.time:.2f} s seen with confidence {e.confidence:.2f}")
    return tuple(reasons)


def restores(shot: Shot, fouled: bool) -> tuple[Spot, ...]:
    """Balls to put back where they were before the shot.

    - Second rule 3.21 (3.31 in the coverage spec): a ball that dropped into a pocket on its own
      after resting 5 s or more goes back, with no foul.
    - Rule 3.21: object balls disturbed in a foul go back as near as possible to where they were.
    """
    balls = list(shot.settled_into_pocket)
    if fouled:
        balls += [b for b in shot.disturbed if b.is_object_ball and b not in balls]
    spots = []
    for ball in balls:
        where = shot.at_strike.get(ball)
        if where is not None:
            spots.append(Spot(ball, where))
    return tuple(spots)


FROZEN_TOLERANCE_MM = 1.5
"""A ball at rest this close to a cushion nose is announced as frozen (2.16), for confirmation."""


def frozen_alerts(shot: Shot, table: TableGeometry) -> tuple[Alert, ...]:
    """Rule 2.16: announce object balls that came to rest frozen to a cushion.

    The referee must tell the players before the next shot, or the ball does not count as
    frozen (3.38); the monitor announces every ball at rest within `FROZEN_TOLERANCE_MM`.
    """
    radius = table.ball_diameter / 2
    alerts = []
    for ball in shot.at_rest:
        if not ball.is_object_ball:
            continue
        gap = table.distance_to_cushion(shot.at_rest[ball]) - radius
        if gap <= FROZEN_TOLERANCE_MM:
            alerts.append(
                Alert(
                    AlertKind.FROZEN_BALL, "2.16", f"the {ball} is frozen to a cushion", ball=ball
                )
            )
    return tuple(alerts)


def jammed_in_pocket(shot: Shot, table: TableGeometry) -> str | None:
    """Rule 3.33: two or more balls at rest jammed in one pocket's opening, not pocketed.

    Only the referee decides it: he drops each ball straight down in his mind; those that would
    fall are pocketed, the others are not, and play goes on by the game's rules as if nothing
    had jammed. The monitor flags it for review; the referee enters the corrected Shot record
    (`rules.inputs.Override` with ``record``).
    """
    gone = set(shot.pocketed) | set(shot.left_table)
    in_opening: dict[str, list[BallId]] = {}
    for ball, p in shot.at_rest.positions:
        pocket = None if ball in gone else table.pocket_at(p)
        if pocket is not None:
            in_opening.setdefault(pocket, []).append(ball)
    for pocket, balls in in_opening.items():
        if len(balls) >= 2:
            return (
                f"3.33: the {', '.join(balls)} are jammed in the {pocket} pocket's opening: drop "
                "each straight down; those that would fall are pocketed (enter the corrected shot)"
            )
    return None


def judge_general(shot: Shot, ctx: ShotContext, table: TableGeometry) -> Findings:
    """Every general rule that applies to ``shot`` (3.14-3.39, 2.20, 2.21; 3.33 flagged).

    The order of the fouls is the order of the checks; rule 3.30 (one foul per inning, the most
    severe) is the game's to apply. A push-out (5.6) and a break skip the requirements their
    game replaces (``ctx.require_contact``, ``ctx.require_cushion``).
    """
    fouls: list[Foul] = []
    notes: list[str] = []
    reviews: list[Review] = []
    warnings: list[Alert] = list(frozen_alerts(shot, table))

    def add(foul: Foul | None) -> None:
        if foul is not None:
            fouls.append(foul)

    add(moving_at_strike(shot))
    add(placement_touch(shot))
    add(touched_balls(shot, ctx.is_break))
    if ctx.ball_in_hand is BallInHand.KITCHEN:
        foul, alerts, review = kitchen(shot, table)
        add(foul)
        warnings.extend(alerts)
        if review:
            reviews.append(Review("2.21", review))
    add(scratch(shot))
    fouls.extend(off_table(shot))
    if ctx.require_contact:
        foul, note = first_contact(shot, ctx.legal_first)
        add(foul)
        if note:
            notes.append(note)
    if ctx.require_cushion:
        add(pocket_or_cushion(shot))
    if ctx.require_contact:
        add(frozen_ball(shot))
    foul, review = double_hit(shot, ctx.review_confidence)
    add(foul)
    if review:
        reviews.append(Review("2.20", review))
    checks = (
        ("3.24", push_review(shot)),
        ("3.26", jump_review(shot)),
        ("3.33", jammed_in_pocket(shot, table)),
    )
    for rule, reason in checks:
        if reason:
            reviews.append(Review(rule, reason))
    reviews.extend(Review("2.14", r) for r in uncertain_events(shot, ctx.review_confidence))
    if shot.settled_into_pocket:
        notes.append("second 3.21: ball(s) that settled into a pocket go back, no foul")
    return Findings(
        fouls=tuple(fouls),
        warnings=tuple(warnings),
        reviews=tuple(reviews),
        restores=restores(shot, fouled=bool(fouls)),
        notes=tuple(notes),
    )
