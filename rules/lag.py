"""The lag for the break (rule 3.6).

Both players shoot at once from behind the head string, one each side of the head spot, to the
foot cushion and back. The ball that comes to rest nearest the head cushion wins, unless it
loses the lag automatically (3.6 a-g, the letters of the text's list in order). If both balls
lose, or the referee cannot tell which is nearer, the lag is replayed.

Each ball's run becomes a `LagEvidence` (`LagEvidence.from_shot` reads it off the Shot record
of the lag); `judge_lag` decides. Distances are the
ball's base (3.12) to the head cushion nose line, in table millimetres.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.balls import BallId
from rules.shot import Shot
from rules.table import CushionId, Point, TableGeometry

DEFAULT_TOO_CLOSE_MM = 2.0
"""Difference in distance to the head cushion below which the lag is too close to judge:
about twice the position error of a ball at rest in the vision pipeline."""


class LagLoss(StrEnum):
    """Why a ball loses the lag automatically (rule 3.6, items a-g in the text's order)."""

    CROSSED_INTO_OTHER_HALF = "crossed-into-other-half"
    """(a) The ball crossed into the opponent's half of the table (over the long string)."""
    NO_FOOT_CUSHION = "no-foot-cushion"
    """(b) The ball did not touch the foot cushion."""
    POCKETED = "pocketed"
    """(c) The ball fell into a pocket."""
    OFF_TABLE = "off-table"
    """(d) The ball left the table."""
    LONG_CUSHION = "long-cushion"
    """(e) The ball touched a long cushion."""
    IN_CORNER_JAWS = "in-corner-jaws"
    """(f) The ball came to rest in a corner pocket's jaws past the nose of the head cushion."""
    FOOT_CUSHION_TWICE = "foot-cushion-twice"
    """(g) The ball touched the foot cushion more than once."""

    @property
    def rule(self) -> str:
        """The rule and item, e.g. ``3.6(a)``."""
        return f"3.6({'abcdefg'[list(LagLoss).index(self)]})"

    @property
    def reason(self) -> str:
        """One line for the operator."""
        return _REASONS[self]


_REASONS = {
    LagLoss.CROSSED_INTO_OTHER_HALF: "the ball crossed into the opponent's half",
    LagLoss.NO_FOOT_CUSHION: "the ball did not touch the foot cushion",
    LagLoss.POCKETED: "the ball was pocketed",
    LagLoss.OFF_TABLE: "the ball left the table",
    LagLoss.LONG_CUSHION: "the ball touched a long cushion",
    LagLoss.IN_CORNER_JAWS: "the ball rests in the corner pocket jaws past the head cushion nose",
    LagLoss.FOOT_CUSHION_TWICE: "the ball touched the foot cushion more than once",
}


class RelagReason(StrEnum):
    """Why the lag is replayed (rule 3.6)."""

    BOTH_LOST = "both-lost"
    """Both balls lost automatically."""
    TOO_CLOSE = "too-close"
    """The balls rest too nearly the same distance from the head cushion to tell."""
    IMPROPER_START = "improper-start"
    """A ball did not start behind the head string, or both started on one side of the head
    spot: the procedure of 3.6 was not followed."""


@dataclass(frozen=True, slots=True)
class LagEvidence:
    """What tracking saw of one player's lag ball (rule 3.6).

    Attributes:
        player: Who shot it.
        start: Where the ball was struck from (its base, 3.12).
        crossed_into_other_half: The ball's base crossed the long string into the other
            player's half (3.6 a); a rest position across it counts too.
        foot_cushion_contacts: Times it touched the foot cushion (3.6 b, g).
        touched_long_cushion: It touched a long cushion (3.6 e).
        pocketed: It fell into a pocket (3.6 c).
        off_table: It left the table (3.6 d).
        final: Where it came to rest; None when pocketed or off the table.
        in_corner_jaws: Vision saw it rest in a corner pocket's jaws past the head cushion nose
            (3.6 f); a rest position behind the head cushion nose line counts too.
    """

    player: str
    start: Point
    crossed_into_other_half: bool = False
    foot_cushion_contacts: int = 1
    touched_long_cushion: bool = False
    pocketed: bool = False
    off_table: bool = False
    final: Point | None = None
    in_corner_jaws: bool = False

    def __post_init__(self) -> None:
        if self.foot_cushion_contacts < 0:
            raise ValueError(f"lag of {self.player!r}: negative foot cushion contacts")
        gone = self.pocketed or self.off_table
        if gone == (self.final is not None):
            raise ValueError(
                f"lag of {self.player!r}: a ball has a final position exactly when it is "
                "neither pocketed nor off the table"
            )

    @classmethod
    def from_shot(
        cls,
        shot: Shot,
        ball: BallId,
        player: str,
        *,
        crossed_into_other_half: bool = False,
        in_corner_jaws: bool = False,
    ) -> LagEvidence:
        """One player's lag ball read off the Shot record of the lag (both balls in one shot).

        Crossing the long string is a fact of the path, which a Shot record does not keep:
        tracking passes it (a rest position across the string is caught anyway).

        Raises:
            ValueError: ``ball`` was not on the table at the strike, or it is missing at rest
                without having been pocketed or having left the table.
        """
        start = shot.at_strike.get(ball)
        if start is None:
            raise ValueError(f"lag of {player!r}: ball {ball} was not on the table at the strike")
        cushions = [e.cushion for e in shot.cushion_contacts(ball)]
        pocketed = shot.pocket_of(ball) is not None
        off_table = ball in shot.left_table
        return cls(
            player,
            start,
            crossed_into_other_half=crossed_into_other_half,
            foot_cushion_contacts=cushions.count(CushionId.FOOT),
            touched_long_cushion=any(c is not None and c.is_long for c in cushions),
            pocketed=pocketed,
            off_table=off_table and not pocketed,
            final=None if pocketed or off_table else shot.at_rest.get(ball),
            in_corner_jaws=in_corner_jaws,
        )

    def losses(self, table: TableGeometry) -> tuple[LagLoss, ...]:
        """Every reason this ball loses the lag (rule 3.6 a-g), in the text's order."""
        past_head_nose = self.final is not None and self.final[0] < -table.length / 2
        rests_across = self.final is not None and self.final[1] * self.start[1] < 0
        found = {
            LagLoss.CROSSED_INTO_OTHER_HALF: self.crossed_into_other_half or rests_across,
            LagLoss.NO_FOOT_CUSHION: self.foot_cushion_contacts == 0,
            LagLoss.POCKETED: self.pocketed,
            LagLoss.OFF_TABLE: self.off_table,
            LagLoss.LONG_CUSHION: self.touched_long_cushion,
            LagLoss.IN_CORNER_JAWS: self.in_corner_jaws or past_head_nose,
            LagLoss.FOOT_CUSHION_TWICE: self.foot_cushion_contacts > 1,
        }
        return tuple(loss for loss, lost in found.items() if lost)

    def distance_to_head_cushion(self, table: TableGeometry) -> float | None:
        """Gap from the ball to the head cushion nose line, mm (None when not on the table)."""
        if self.final is None:
            return None
        return self.final[0] + table.length / 2 - table.ball_diameter / 2


@dataclass(frozen=True, slots=True)
class LagFault:
    """One reason one player lost the lag (rule 3.6)."""

    player: str
    loss: LagLoss

    @property
    def rule(self) -> str:
        """The rule and item, e.g. ``3.6(e)``."""
        return self.loss.rule


@dataclass(frozen=True, slots=True)
class LagResult:
    """The outcome of a lag (rule 3.6): a winner and a loser, or a re-lag.

    Attributes:
        winner: Who won (chooses who breaks, 3.7); None for a re-lag.
        loser: Who lost; None for a re-lag.
        faults: Every automatic loss found, per player (3.6 a-g).
        relag: Why the lag is replayed; None when there is a winner.
        distances_mm: Each ball's gap to the head cushion nose, when it rests on the table.
        margin_mm: How much nearer the winner's ball is, when decided by distance.
    """

    winner: str | None
    loser: str | None
    faults: tuple[LagFault, ...] = ()
    relag: RelagReason | None = None
    distances_mm: tuple[tuple[str, float], ...] = ()
    margin_mm: float | None = None

    def __post_init__(self) -> None:
        decided = self.winner is not None and self.loser is not None
        if decided == (self.relag is not None) or (self.winner is None) != (self.loser is None):
            raise ValueError("a lag has a winner and a loser, or a re-lag reason, not both")

    @property
    def rule(self) -> str:
        """The rule deciding it."""
        return "3.6"


def judge_lag(
    first: LagEvidence,
    second: LagEvidence,
    table: TableGeometry,
    too_close_mm: float = DEFAULT_TOO_CLOSE_MM,
) -> LagResult:
    """Decide a lag (rule 3.6).

    A ball that loses automatically (3.6 a-g) loses; if only one does, the other wins wherever
    it lies. Otherwise the ball nearer the head cushion wins; both losing, or distances within
    ``too_close_mm`` of each other, is a re-lag. Balls not started from behind the head string
    on either side of the head spot make the lag improper: re-lag.

    Args:
        first: One player's ball.
        second: The other player's ball.
        table: The table played on.
        too_close_mm: Distances closer than this are too close to judge.

    Raises:
        ValueError: both balls belong to one player.
    """
    if first.player == second.player:
        raise ValueError(f"a lag is between two players, not {first.player!r} twice")
    distances = tuple(
        (lag.player, d)
        for lag in (first, second)
        if (d := lag.distance_to_head_cushion(table)) is not None
    )
    if not _proper_start(first, second, table):
        return LagResult(None, None, relag=RelagReason.IMPROPER_START, distances_mm=distances)
    faults = tuple(
        LagFault(lag.player, loss) for lag in (first, second) for loss in lag.losses(table)
    )
    lost = {f.player for f in faults}
    if len(lost) == 2:
        return LagResult(None, None, faults, RelagReason.BOTH_LOST, distances)
    if len(lost) == 1:
        loser = lost.pop()
        winner = second.player if loser == first.player else first.player
        return LagResult(winner, loser, faults, distances_mm=distances)
    (p1, d1), (p2, d2) = distances
    if abs(d1 - d2) <= too_close_mm:
        return LagResult(None, None, relag=RelagReason.TOO_CLOSE, distances_mm=distances)
    winner, loser = (p1, p2) if d1 < d2 else (p2, p1)
    return LagResult(winner, loser, distances_mm=distances, margin_mm=abs(d1 - d2))


def _proper_start(first: LagEvidence, second: LagEvidence, table: TableGeometry) -> bool:
    in_kitchen = table.in_kitchen(first.start) and table.in_kitchen(second.start)
    return in_kitchen and first.start[1] * second.start[1] < 0
