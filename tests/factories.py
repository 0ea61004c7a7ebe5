"""Factories for hand-made shots and layouts, shared by every test package."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from calibration.table import RackShape, TableSpec
from rules.balls import BallId
from rules.events import EventKind, EvidenceSource, ShotEvent
from rules.lag import LagEvidence
from rules.shot import Layout, Placement, Shot
from rules.shot_clock import ShotClock, ShotClockConfig
from rules.table import CushionId, PocketId, Point

TABLE_9FT = TableSpec.standard("9ft")

DEFAULT_CONTACT_UNCERTAINTY_S = 0.004
"""Half a 120 fps frame interval: a typical contact-time uncertainty."""


@dataclass
class ShotBuilder:
    """Builds a `Shot` event by event, with times that default to a steady march.

    Example::

        shot = (ShotBuilder().strike().hit("1").cushion("1", CushionId.FOOT)
                .pocket("1", PocketId.FOOT_LEFT).build())
    """

    index: int = 0
    at_strike: Layout = field(default_factory=Layout)
    events: list[ShotEvent] = field(default_factory=list)
    clock: float = 0.0
    step: float = 0.1

    def _next_time(self, t: float | None) -> float:
        self.clock = self.clock + self.step if t is None else t
        return self.clock

    def add(self, kind: EventKind, *balls: str, t: float | None = None, **kw: Any) -> ShotBuilder:
        """Append any event; ``t`` defaults to one step after the previous event."""
        ids = tuple(BallId(b) for b in balls)
        self.events.append(ShotEvent(kind, self._next_time(t), ids, **kw))
        return self

    def strike(self, t: float | None = 0.0) -> ShotBuilder:
        """The cue tip strikes the cue ball."""
        return self.add(EventKind.CUE_STRIKE, "cue", t=t)

    def hit(
        self,
        b: str,
        a: str = "cue",
        t: float | None = None,
        uncertainty: float = DEFAULT_CONTACT_UNCERTAINTY_S,
    ) -> ShotBuilder:
        """Ball ``a`` (the cue ball by default) touches ball ``b``."""
        return self.add(EventKind.BALL_BALL, a, b, t=t, time_uncertainty=uncertainty)

    def cushion(self, ball: str, cushion: CushionId, t: float | None = None) -> ShotBuilder:
        """``ball`` touches a cushion."""
        return self.add(EventKind.BALL_CUSHION, ball, t=t, cushion=cushion)

    def pocket(
        self,
        ball: str,
        pocket: PocketId,
        t: float | None = None,
        source: EvidenceSource = EvidenceSource.FUSED,
    ) -> ShotBuilder:
        """``ball`` drops into ``pocket`` and stays."""
        return self.add(EventKind.POCKETED, ball, t=t, pocket=pocket, source=source)

    def rebound(self, ball: str, pocket: PocketId, t: float | None = None) -> ShotBuilder:
        """``ball`` comes back out of ``pocket``."""
        return self.add(EventKind.POCKET_REBOUND, ball, t=t, pocket=pocket)

    def off_table(self, ball: str, t: float | None = None) -> ShotBuilder:
        """``ball`` leaves the table."""
        return self.add(EventKind.LEFT_TABLE, ball, t=t)

    def disturbed(self, ball: str, t: float | None = None) -> ShotBuilder:
        """``ball`` starts moving with no ball contact."""
        return self.add(EventKind.BALL_DISTURBED, ball, t=t)

    def settled(self, ball: str, pocket: PocketId, t: float | None = None) -> ShotBuilder:
        """``ball`` drops on its own from a pocket lip after resting 5 s or more."""
        return self.add(EventKind.SETTLED_INTO_POCKET, ball, t=t, pocket=pocket)

    def crossed_head_string(self, t: float | None = None) -> ShotBuilder:
        """The cue ball crosses the head string out of the kitchen."""
        return self.add(EventKind.CROSSED_HEAD_STRING, "cue", t=t)

    def build(self, end_time: float | None = None, **evidence: Any) -> Shot:
        """The shot, ending (all at rest) one step after the last event unless told."""
        strike = next((e.time for e in self.events if e.kind is EventKind.CUE_STRIKE), 0.0)
        end = self.clock + self.step if end_time is None else end_time
        events = [*self.events, ShotEvent(EventKind.ALL_AT_REST, end)]
        at_rest = evidence.pop("at_rest", self.at_strike)
        return Shot(self.index, strike, end, self.at_strike, at_rest, tuple(events), **evidence)


def rack_layout(
    table: TableSpec = TABLE_9FT,
    shape: RackShape = RackShape.DIAMOND,
    order: tuple[str, ...] = ("1", "2", "3", "4", "9", "5", "6", "7", "8"),
    cue: Point | None = (-800.0, 100.0),
) -> Layout:
    """Balls in rack slots (in the given order) plus the cue ball in the kitchen."""
    slots = table.rack_slots(shape)
    positions: dict[BallId, Point] = {BallId(b): slots[i] for i, b in enumerate(order)}
    if cue is not None:
        positions[BallId.CUE] = cue
    return Layout.of(positions)


EIGHT_BALL_ORDER = ("1", "9", "2", "10", "8", "3", "11", "4", "12", "5", "13", "6", "14", "7", "15")
"""A legal 8-ball rack (4.3): the 8 in the centre, a stripe and a solid in the back corners."""


def eight_ball_rack(table: TableSpec = TABLE_9FT) -> Layout:
    """A racked 8-ball triangle (4.3) plus the cue ball in the kitchen."""
    return rack_layout(table, RackShape.TRIANGLE, EIGHT_BALL_ORDER)


def random_layout(rng: random.Random, balls: tuple[BallId, ...], table: TableSpec = TABLE_9FT):
    """Balls at random non-overlapping spots on the playing surface (seeded)."""
    placed: dict[BallId, Point] = {}
    margin = table.ball_diameter
    for ball in balls:
        while True:
            p = (
                rng.uniform(-table.length / 2 + margin, table.length / 2 - margin),
                rng.uniform(-table.width / 2 + margin, table.width / 2 - margin),
            )
            clear = all(
                (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 > table.ball_diameter**2
                for q in placed.values()
            )
            if clear:
                placed[ball] = p
                break
    return Layout.of(placed)


def running_clock(t: float = 0.0, shooter: str = "A", **settings: Any) -> ShotClock:
    """A shot clock counting ``shooter``'s shot from ``t`` (previous shot complete at ``t``)."""
    return ShotClock.create(ShotClockConfig(**settings)).shot_complete(t, shooter)


def lag_evidence(
    player: str = "A",
    side: int = 1,
    distance_mm: float | None = 100.0,
    table: TableSpec = TABLE_9FT,
    **facts: Any,
) -> LagEvidence:
    """A clean lag ball of ``player``, struck from behind the head string on ``side`` (+1 left
    of the head spot, -1 right), one foot-cushion contact, resting ``distance_mm`` from the head
    cushion nose (None: not on the table); ``facts`` override any `LagEvidence` field."""
    y = side * table.width / 4
    rest_x = None if distance_mm is None else -table.length / 2 + table.ball_diameter / 2
    final = None if rest_x is None or distance_mm is None else (rest_x + distance_mm, y)
    fields: dict[str, Any] = {"start": (table.head_string_x - 150.0, y), "final": final}
    fields.update(facts)
    return LagEvidence(player, **fields)


# Referee scenarios ---------------------------------------------------------------------------

BREAK_CUSHIONS = (CushionId.FOOT, CushionId.LEFT_FOOT, CushionId.RIGHT_FOOT, CushionId.LEFT_HEAD)


def placement(
    x: float,
    y: float = 0.0,
    table: TableSpec = TABLE_9FT,
    touched: tuple[str, ...] = (),
) -> Placement:
    """The cue ball placed by hand at (x, y), with the kitchen facts worked out from ``table``."""
    return Placement(
        (x, y),
        table.in_kitchen((x, y)),
        x - table.head_string_x,
        tuple(BallId(b) for b in touched),
    )


def break_shot(
    index: int = 0,
    first: str = "1",
    pocket: tuple[tuple[str, PocketId], ...] = (),
    to_cushion: tuple[str, ...] = ("2", "3", "4", "5"),
    scratch: PocketId | None = None,
    off_table: tuple[str, ...] = (),
    at_rest: Layout | None = None,
    rack: Layout | None = None,
    **evidence: Any,
) -> Shot:
    """An opening break from the kitchen: the cue ball hits ``first``, balls go to cushions and
    pockets, the cue ball crosses the head string on its way to the rack (a 9-ball rack unless
    another ``rack`` is given)."""
    start = rack or rack_layout()
    b = ShotBuilder(index=index, at_strike=start).strike().crossed_head_string()
    b.hit(first)
    for i, ball in enumerate(to_cushion):
        b.cushion(ball, BREAK_CUSHIONS[i % len(BREAK_CUSHIONS)])
    for ball, p in pocket:
        b.pocket(ball, p)
    for ball in off_table:
        b.off_table(ball)
    if scratch is not None:
        b.pocket("cue", scratch)
    evidence.setdefault("placement", placement(-800.0, 100.0))
    if at_rest is not None:
        evidence["at_rest"] = at_rest
    return b.build(**evidence)


def shot_at(
    ball: str,
    index: int = 1,
    pocket: PocketId | None = None,
    cushion: bool = True,
    also: tuple[tuple[str, PocketId], ...] = (),
    scratch: PocketId | None = None,
    at_strike: Layout | None = None,
    at_rest: Layout | None = None,
    **evidence: Any,
) -> Shot:
    """A shot whose cue ball first hits ``ball``; it drops into ``pocket`` (else touches a
    cushion when ``cushion``), ``also`` balls drop too, and the cue ball may scratch."""
    b = ShotBuilder(index=index, at_strike=at_strike or Layout()).strike().hit(ball)
    if pocket is not None:
        b.pocket(ball, pocket)
    elif cushion:
        b.cushion(ball, CushionId.FOOT)
    for other, p in also:
        b.pocket(other, p)
    if scratch is not None:
        b.pocket("cue", scratch)
    if at_rest is not None:
        evidence["at_rest"] = at_rest
    return b.build(**evidence)


def miss(index: int = 1, **evidence: Any) -> Shot:
    """A shot whose cue ball touches nothing but a cushion."""
    return ShotBuilder(index=index).strike().cushion("cue", CushionId.HEAD).build(**evidence)
