"""Shot events: what happened on the table, in order, with times and confidences.

Tracking produces them; the rules read them through `Shot` and the composable filters below
(`select(events, of_kind(...), involving(...), after(e))`), in the spirit of pooltool's event
filters but over immutable values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from rules.balls import BallId
from rules.table import CushionId, PocketId


class EventKind(StrEnum):
    """The kinds of thing that can happen in a shot."""

    CUE_STRIKE = "cue-strike"
    """The cue tip struck the cue ball (shot start). Never a ball-ball contact."""
    BALL_BALL = "ball-ball"
    """Two balls touched; ``balls`` is (a, b), the cue ball first when it is one of them."""
    BALL_CUSHION = "ball-cushion"
    """A ball touched a cushion segment."""
    POCKETED = "pocketed"
    """A ball went into a pocket and stayed (rule 3.11)."""
    POCKET_REBOUND = "pocket-rebound"
    """A ball entered a pocket's mouth and came back out: not pocketed (rule 3.11)."""
    LEFT_TABLE = "left-table"
    """A ball left the playing surface other than into a pocket (rule 3.28)."""
    BALL_DISTURBED = "ball-disturbed"
    """A ball began to move with no ball contact: touched by hand, cue or clothing (3.21)."""
    BALL_AT_REST = "ball-at-rest"
    """One ball stopped moving and spinning."""
    ALL_AT_REST = "all-at-rest"
    """Every ball stopped: the shot is complete (rule 3.15)."""
    SETTLED_INTO_POCKET = "settled-into-pocket"
    """A ball resting on a pocket lip dropped on its own after 5 s or more (second 3.21)."""
    CROSSED_HEAD_STRING = "crossed-head-string"
    """The cue ball, in hand behind the head string, crossed it out of the kitchen (3.10, 3.39)."""


class EvidenceSource(StrEnum):
    """Which instrument saw an event."""

    VISION = "vision"
    SENSOR = "sensor"
    FUSED = "fused"
    OPERATOR = "operator"


_BALL_COUNT = {
    EventKind.BALL_BALL: 2,
    EventKind.ALL_AT_REST: 0,
}


@dataclass(frozen=True, slots=True)
class ShotEvent:
    """One thing that happened, at one time on the session clock.

    Attributes:
        kind: What happened.
        time: Session time in seconds, interpolated inside the frame interval where possible.
        balls: The balls involved: two for a ball-ball contact, none for all-at-rest, else one.
        cushion: The cushion segment touched (ball-cushion), or crossed (left-table), if known.
        pocket: The pocket entered (pocketed, pocket-rebound, settled-into-pocket).
        confidence: Probability, 0-1, that the event happened as stated.
        time_uncertainty: Half-width in seconds of the interval the event surely lies in.
        source: Which instrument saw it.
    """

    kind: EventKind
    time: float
    balls: tuple[BallId, ...] = ()
    cushion: CushionId | None = None
    pocket: PocketId | None = None
    confidence: float = 1.0
    time_uncertainty: float = 0.0
    source: EvidenceSource = EvidenceSource.VISION

    def __post_init__(self) -> None:
        expected = _BALL_COUNT.get(self.kind, 1)
        if len(self.balls) != expected:
            raise ValueError(f"a {self.kind} event names {expected} ball(s), got {self.balls}")
        if len(set(self.balls)) != len(self.balls):
            raise ValueError(f"a ball cannot touch itself: {self.balls}")
        if self.kind is EventKind.BALL_CUSHION and self.cushion is None:
            raise ValueError("a ball-cushion event needs its cushion")
        needs_pocket = (
            EventKind.POCKETED,
            EventKind.POCKET_REBOUND,
            EventKind.SETTLED_INTO_POCKET,
        )
        if self.kind in needs_pocket and self.pocket is None:
            raise ValueError(f"a {self.kind} event needs its pocket")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be within 0-1, got {self.confidence}")
        if self.time_uncertainty < 0:
            raise ValueError(f"time_uncertainty must be >= 0, got {self.time_uncertainty}")

    @property
    def ball(self) -> BallId:
        """The single ball of a one-ball event."""
        if len(self.balls) != 1:
            raise ValueError(f"a {self.kind} event has {len(self.balls)} balls, not one")
        return self.balls[0]

    def other(self, ball: BallId) -> BallId:
        """In a ball-ball contact, the ball that ``ball`` touched."""
        if self.kind is not EventKind.BALL_BALL or ball not in self.balls:
            raise ValueError(f"{ball} is not in ball-ball contact {self.balls}")
        return self.balls[1] if self.balls[0] == ball else self.balls[0]


EventFilter = Callable[[ShotEvent], bool]
"""A predicate over events; `select` keeps the events that pass all of them."""


def select(events: Iterable[ShotEvent], *filters: EventFilter) -> tuple[ShotEvent, ...]:
    """The events, in their order, that pass every filter."""
    return tuple(e for e in events if all(f(e) for f in filters))


def of_kind(*kinds: EventKind) -> EventFilter:
    """Keep events of any of these kinds."""
    wanted = frozenset(kinds)
    return lambda e: e.kind in wanted


def involving(*balls: BallId) -> EventFilter:
    """Keep events in which any of these balls takes part."""
    wanted = frozenset(balls)
    return lambda e: not wanted.isdisjoint(e.balls)


def between(start: float, end: float) -> EventFilter:
    """Keep events with ``start <= time <= end``."""
    return lambda e: start <= e.time <= end


def after(event: ShotEvent) -> EventFilter:
    """Keep events strictly later than ``event`` (same time counts as not after)."""
    return lambda e: e.time > event.time


def not_before(event: ShotEvent) -> EventFilter:
    """Keep events at ``event``'s time or later."""
    return lambda e: e.time >= event.time


def on_cushion(*cushions: CushionId) -> EventFilter:
    """Keep events at any of these cushions."""
    wanted = frozenset(cushions)
    return lambda e: e.cushion in wanted


def in_pocket(*pockets: PocketId) -> EventFilter:
    """Keep events at any of these pockets."""
    wanted = frozenset(pockets)
    return lambda e: e.pocket in wanted


def at_least(confidence: float) -> EventFilter:
    """Keep events at or above a confidence."""
    return lambda e: e.confidence >= confidence
