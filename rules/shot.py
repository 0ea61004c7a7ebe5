"""The Shot record: everything the referee needs to judge one shot.

Tracking assembles a `Shot` from its events and measurements; the rules judge it with short
predicates over its properties. Facts that follow from the events (first contact, pocketed balls,
cushion contacts) are derived, never stored twice; measurements that events cannot carry (frozen
balls, double-hit gap, jump and push evidence, cue-ball placement) are evidence fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from rules.balls import BallId
from rules.events import EventKind, ShotEvent, after, involving, not_before, of_kind, select
from rules.table import CushionId, PocketId, Point


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each ball on the table is: ball id to centre (its base, rule 3.12), in mm.

    Balls not on the table are absent. Immutable and ordered by ball number.
    """

    positions: tuple[tuple[BallId, Point], ...] = ()

    def __post_init__(self) -> None:
        balls = [b for b, _ in self.positions]
        if len(set(balls)) != len(balls):
            raise ValueError(f"a ball can be in one place only: {balls}")
        ordered = tuple(sorted(self.positions, key=lambda bp: bp[0].number))
        object.__setattr__(self, "positions", ordered)

    @classmethod
    def of(cls, positions: Mapping[BallId, Point]) -> Layout:
        """A layout from a mapping of ball to (x, y)."""
        return cls(tuple((BallId(b), (float(p[0]), float(p[1]))) for b, p in positions.items()))

    def __getitem__(self, ball: BallId) -> Point:
        for b, p in self.positions:
            if b == ball:
                return p
        raise KeyError(ball)

    def get(self, ball: BallId) -> Point | None:
        """The ball's position, or None when it is not on the table."""
        try:
            return self[ball]
        except KeyError:
            return None

    def __contains__(self, ball: object) -> bool:
        return any(b == ball for b, _ in self.positions)

    def __iter__(self) -> Iterator[BallId]:
        return (b for b, _ in self.positions)

    def __len__(self) -> int:
        return len(self.positions)

    @property
    def balls(self) -> tuple[BallId, ...]:
        """The balls on the table, in number order."""
        return tuple(b for b, _ in self.positions)


@dataclass(frozen=True, slots=True)
class FirstContact:
    """The first object ball the cue ball touched (rules 3.18, 5.1, 4.11).

    Attributes:
        ball: The ball judged first.
        time: When the cue ball touched it.
        candidates: Every object ball the cue ball touched within the timing uncertainty of the
            first contact, first one first. More than one is a split hit: too close to call, and
            rules 2.10 / 1.16.4 decide it for the shooter.
    """

    ball: BallId
    time: float
    candidates: tuple[BallId, ...]

    @property
    def is_split(self) -> bool:
        """True when two or more balls were hit too close together to separate."""
        return len(self.candidates) > 1


@dataclass(frozen=True, slots=True)
class Frozen:
    """A ball frozen (touching) at the strike: to a cushion, or the cue ball to a ball (3.38).

    Exactly one of ``cushion`` and ``other`` is set.

    Attributes:
        ball: The frozen ball.
        gap_mm: Measured gap (0 when touching; small positive values are within measurement).
        cushion: The cushion it is frozen to.
        other: The ball it is frozen to (for the cue ball, the object ball).
    """

    ball: BallId
    gap_mm: float
    cushion: CushionId | None = None
    other: BallId | None = None

    def __post_init__(self) -> None:
        if (self.cushion is None) == (self.other is None):
            raise ValueError("a frozen ball is frozen to one cushion or one ball")


@dataclass(frozen=True, slots=True)
class NearCushion:
    """An object ball within one ball width of a cushion but not frozen (rule 6.7.2)."""

    ball: BallId
    cushion: CushionId
    gap_mm: float


@dataclass(frozen=True, slots=True)
class DoubleHitEvidence:
    """Measurements behind a double-hit call (rules 2.20, 3.23).

    Attributes:
        object_ball: The ball the cue ball was close to at the strike.
        gap_at_strike_mm: Cue ball to object ball gap (surface to surface) at the strike.
        travel_after_contact_mm: How far the cue ball moved on toward the object ball's original
            position after the contact (rule 2.20 compares it with half a ball width).
        confidence: How far the measurement can be trusted, 0-1.
    """

    object_ball: BallId
    gap_at_strike_mm: float
    travel_after_contact_mm: float
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class PushEvidence:
    """Measurements behind a push-shot flag (rule 3.24).

    Attributes:
        acceleration_s: How long the cue ball kept accelerating; a clean strike is an impulse
            of about a millisecond.
        confidence: How far the measurement can be trusted, 0-1.
    """

    acceleration_s: float
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class JumpEvidence:
    """Signs that the cue ball left the cloth (rules 3.26, 3.27).

    Attributes:
        airborne: The cue ball was judged to have left the cloth.
        radius_growth: Largest apparent radius over the radius at rest (1.0 when flat).
        passed_over: Balls the cue ball passed over without touching.
        confidence: How far the judgement can be trusted, 0-1.
    """

    airborne: bool
    radius_growth: float = 1.0
    passed_over: tuple[BallId, ...] = ()
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Placement:
    """The cue ball as placed by hand before the shot (rules 3.10, 3.16, 3.22, 2.21).

    Attributes:
        position: Where the cue ball was when the player let it go.
        in_kitchen: Strictly behind the head string (the line itself is not in the kitchen).
        head_string_margin_mm: Cue-ball centre x minus head string x: negative behind the line,
            0 on it, positive past it.
        touched: Object balls the cue ball or the hand touched while placing it.
    """

    position: Point
    in_kitchen: bool
    head_string_margin_mm: float
    touched: tuple[BallId, ...] = ()


@dataclass(frozen=True, slots=True)
class Shot:
    """One shot, from the cue strike to all balls at rest, with its evidence.

    Attributes:
        index: Shot number in the session, from 0.
        strike_time: Session time of the cue strike.
        end_time: Session time all balls came to rest (rule 3.15); None while still moving.
        at_strike: Ball positions at the strike.
        at_rest: Ball positions when all came to rest (pocketed and off-table balls absent).
        events: What happened, in time order, the cue strike first.
        moving_at_strike: Balls moving or spinning when the cue ball was struck (rule 3.14).
        frozen: Frozen balls at the strike (rule 3.38).
        near_cushion: Object balls within a ball width of a cushion at the strike (6.7.2).
        double_hit: Double-hit measurements when the cue ball was close to a ball (2.20).
        push: Push-shot measurements (3.24), when measured.
        jump: Jump measurements (3.26, 3.27), when measured.
        placement: The cue ball's placement when the shot began with ball in hand.
    """

    index: int
    strike_time: float
    end_time: float | None
    at_strike: Layout
    at_rest: Layout
    events: tuple[ShotEvent, ...] = ()
    moving_at_strike: tuple[BallId, ...] = ()
    frozen: tuple[Frozen, ...] = ()
    near_cushion: tuple[NearCushion, ...] = ()
    double_hit: DoubleHitEvidence | None = None
    push: PushEvidence | None = None
    jump: JumpEvidence | None = None
    placement: Placement | None = None

    def __post_init__(self) -> None:
        times = [e.time for e in self.events]
        if times != sorted(times):
            raise ValueError(f"shot {self.index}: events are not in time order")
        if self.end_time is not None and self.end_time < self.strike_time:
            raise ValueError(f"shot {self.index}: ends before its strike")

    @property
    def is_complete(self) -> bool:
        """True once every ball is at rest (rule 3.15)."""
        return self.end_time is not None

    @property
    def strike(self) -> ShotEvent | None:
        """The cue-strike event, if tracking saw one."""
        strikes = select(self.events, of_kind(EventKind.CUE_STRIKE))
        return strikes[0] if strikes else None

    @property
    def cue_ball_contacts(self) -> tuple[ShotEvent, ...]:
        """Ball-ball contacts of the cue ball from the strike on (the strike itself is no
        ball-ball contact, so it never counts). A ball frozen to the cue ball is touched at the
        strike's own instant (3.38): that contact counts."""
        contacts = select(self.events, of_kind(EventKind.BALL_BALL), involving(BallId.CUE))
        strike = self.strike
        return select(contacts, not_before(strike)) if strike else contacts

    @property
    def first_contact(self) -> FirstContact | None:
        """The first object ball the cue ball touched, with split-hit candidates; None on a miss."""
        contacts = self.cue_ball_contacts
        if not contacts:
            return None
        first = contacts[0]
        candidates: list[BallId] = []
        for contact in contacts:
            window = max(first.time_uncertainty, contact.time_uncertainty)
            ball = contact.other(BallId.CUE)
            if contact.time - first.time <= window and ball not in candidates:
                candidates.append(ball)
        return FirstContact(first.other(BallId.CUE), first.time, tuple(candidates))

    @property
    def pocketed(self) -> tuple[BallId, ...]:
        """Balls that went into a pocket and stayed (3.11), in the order they dropped."""
        return tuple(self._pocket_of)

    def pocket_of(self, ball: BallId) -> PocketId | None:
        """The pocket ``ball`` stayed in, or None."""
        return self._pocket_of.get(ball)

    @property
    def _pocket_of(self) -> dict[BallId, PocketId]:
        pocket_events = select(self.events, of_kind(EventKind.POCKETED, EventKind.POCKET_REBOUND))
        stayed: dict[BallId, PocketId] = {}
        for e in pocket_events:
            if e.kind is EventKind.POCKETED and e.pocket is not None:
                stayed[e.ball] = e.pocket
            else:
                stayed.pop(e.ball, None)
        return stayed

    @property
    def left_table(self) -> tuple[BallId, ...]:
        """Balls that left the table (rule 3.28), in order."""
        return tuple(e.ball for e in select(self.events, of_kind(EventKind.LEFT_TABLE)))

    @property
    def disturbed(self) -> tuple[BallId, ...]:
        """Balls that began to move with no ball contact (rules 3.21, 3.22, 3.25)."""
        return tuple(e.ball for e in select(self.events, of_kind(EventKind.BALL_DISTURBED)))

    @property
    def settled_into_pocket(self) -> tuple[BallId, ...]:
        """Balls that dropped on their own after resting 5 s or more (second rule 3.21)."""
        events = select(self.events, of_kind(EventKind.SETTLED_INTO_POCKET))
        return tuple(e.ball for e in events)

    @property
    def crossed_head_string_at(self) -> float | None:
        """When the cue ball first crossed the head string out of the kitchen (3.10, 3.39)."""
        events = select(self.events, of_kind(EventKind.CROSSED_HEAD_STRING), involving(BallId.CUE))
        return events[0].time if events else None

    def cushion_contacts(
        self, ball: BallId | None = None, since: ShotEvent | None = None
    ) -> tuple[ShotEvent, ...]:
        """Ball-cushion contacts, optionally of one ball and strictly after one event."""
        filters = [of_kind(EventKind.BALL_CUSHION)]
        if ball is not None:
            filters.append(involving(ball))
        if since is not None:
            filters.append(after(since))
        return select(self.events, *filters)

    @property
    def balls_to_cushion_after_first_contact(self) -> tuple[BallId, ...]:
        """Distinct balls that touched a cushion after the first contact (rule 3.19)."""
        first = self.cue_ball_contacts[:1]
        contacts = self.cushion_contacts(since=first[0]) if first else ()
        return tuple(dict.fromkeys(e.ball for e in contacts))
