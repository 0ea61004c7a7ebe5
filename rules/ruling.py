"""What the referee says about a shot: the `Ruling` and its parts.

A ruling is data, never an exception (DESIGN.md): every foul and every decision names the WPA rule
it comes from (rule numbers of ``wpa-rules-1999-ru.txt``). One ruling says whether the shot was
legal, the one foul applied (rule 3.30: at most one foul per inning, the most severe penalty),
who shoots next and from where, which balls go back on the table and where, score changes,
the warnings the referee must give (rule 2.16, 2.21), the options of the incoming player, the end
of the game, and whether a human should look at it (uncertain evidence).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.balls import BallGroup, BallId
from rules.table import Point


class FoulKind(StrEnum):
    """The kinds of foul, each with the WPA rule it usually comes from (see `Foul.rule`)."""

    NO_CONTACT = "no-contact"
    """The cue ball touched no object ball (3.18)."""
    WRONG_BALL_FIRST = "wrong-ball-first"
    """The cue ball first touched a ball it may not hit first (3.18, 5.8, 4.11, 4.9, 4.15)."""
    NO_CUSHION = "no-cushion"
    """Nothing pocketed and no ball to a cushion after the contact (3.19, 5.9, 4.11)."""
    SCRATCH = "scratch"
    """The cue ball is pocketed (3.20)."""
    CUE_BALL_OFF_TABLE = "cue-ball-off-table"
    """The cue ball left the table (3.28)."""
    OBJECT_BALL_OFF_TABLE = "object-ball-off-table"
    """An object ball left the table (3.28, 5.11, 4.17)."""
    BALLS_MOVING = "balls-moving"
    """Struck while a ball was still moving or spinning (3.14)."""
    TOUCHED_BALL = "touched-ball"
    """A ball was moved by something other than the cue tip or the balls (3.21, 3.25)."""
    PLACEMENT_TOUCH = "placement-touch"
    """An object ball was touched while placing the cue ball in hand (3.22)."""
    FROZEN_BALL = "frozen-ball"
    """After contact with a frozen ball, nothing reached a cushion as 3.38 requires."""
    OUTSIDE_KITCHEN = "outside-kitchen"
    """Shot with ball in hand from outside the kitchen (3.10, 2.21)."""
    KITCHEN_BALL_FIRST = "kitchen-ball-first"
    """With ball in hand behind the head string, hit a ball in the kitchen first (3.10, 3.39)."""
    CUE_BALL_STAYED_IN_KITCHEN = "cue-ball-stayed-in-kitchen"
    """With ball in hand behind the head string, the cue ball never crossed it (3.10, 3.39)."""
    DOUBLE_HIT = "double-hit"
    """The cue touched the cue ball twice, or stayed on it through the contact (3.23, 2.20)."""
    PUSH_SHOT = "push-shot"
    """The cue tip stayed on the cue ball longer than a stroke (3.24); entered on review."""
    BAD_BREAK = "bad-break"
    """The break did not meet the game's legal-break requirements (4.5, 5.4)."""
    BREAK_CUE_BALL_INTERFERED = "break-cue-ball-interfered"
    """The cue ball was stopped or deflected on the break before reaching the rack (3.9)."""
    TIP_ONLY = "tip-only"
    """The cue ball was struck with something other than the cue tip (3.3); operator."""
    FOOT_ON_FLOOR = "foot-on-floor"
    """No foot on the floor at the strike (3.13); operator."""
    INTENTIONAL = "intentional"
    """The cue ball was deliberately struck with something other than the tip (3.29); operator."""
    CUE_BALL_IN_HAND = "cue-ball-in-hand"
    """A forward stroke of the cue against the cue ball while placing it (3.40); operator."""
    INTERFERENCE = "interference"
    """The non-shooting player distracted or interfered (3.41); operator."""
    DELIBERATE = "deliberate"
    """Catching or touching a moving ball (14.1, 6.7.5: -16); operator."""
    SLOW_PLAY = "slow-play"
    """The shot clock expired (1.11, 2.25)."""
    EIGHT_BALL_FIRST = "eight-ball-first"
    """The 8 was the first ball contacted while it was not the legal object ball (4.9, 4.15)."""
    LOSS_OF_GAME = "loss-of-game"
    """A foul that loses the game by itself (4.20, 5.13)."""

    @property
    def rule(self) -> str:
        """The WPA rule number that defines this foul in the general rules."""
        return _RULE[self]

    @property
    def severity(self) -> int:
        """Default rank of the penalty for rule 3.30 (higher is more severe).

        Games may rank differently (14.1 punishes a scratch more than a bad hit); this is the
        general order: loss of game, deliberate foul, fouls that put the cue ball in hand
        behind the head string in 14.1 (scratch, off table), then every other foul.
        """
        return _SEVERITY.get(self, 1)

    @property
    def operator_only(self) -> bool:
        """True for fouls no camera sees, which the operator enters."""
        return self in _OPERATOR_ONLY


_RULE = {
    FoulKind.NO_CONTACT: "3.18",
    FoulKind.WRONG_BALL_FIRST: "3.18",
    FoulKind.NO_CUSHION: "3.19",
    FoulKind.SCRATCH: "3.20",
    FoulKind.CUE_BALL_OFF_TABLE: "3.28",
    FoulKind.OBJECT_BALL_OFF_TABLE: "3.28",
    FoulKind.BALLS_MOVING: "3.14",
    FoulKind.TOUCHED_BALL: "3.21",
    FoulKind.PLACEMENT_TOUCH: "3.22",
    FoulKind.FROZEN_BALL: "3.38",
    FoulKind.OUTSIDE_KITCHEN: "3.10",
    FoulKind.KITCHEN_BALL_FIRST: "3.39",
    FoulKind.CUE_BALL_STAYED_IN_KITCHEN: "3.10",
    FoulKind.DOUBLE_HIT: "3.23",
    FoulKind.PUSH_SHOT: "3.24",
    FoulKind.BAD_BREAK: "5.4",
    FoulKind.BREAK_CUE_BALL_INTERFERED: "3.9",
    FoulKind.TIP_ONLY: "3.3",
    FoulKind.FOOT_ON_FLOOR: "3.13",
    FoulKind.INTENTIONAL: "3.29",
    FoulKind.CUE_BALL_IN_HAND: "3.40",
    FoulKind.INTERFERENCE: "3.41",
    FoulKind.DELIBERATE: "6.7.5",
    FoulKind.SLOW_PLAY: "1.11",
    FoulKind.EIGHT_BALL_FIRST: "4.15",
    FoulKind.LOSS_OF_GAME: "4.20",
}

_SEVERITY = {
    FoulKind.LOSS_OF_GAME: 4,
    FoulKind.DELIBERATE: 3,
    FoulKind.SCRATCH: 2,
    FoulKind.CUE_BALL_OFF_TABLE: 2,
}

_OPERATOR_ONLY = frozenset(
    {
        FoulKind.TIP_ONLY,
        FoulKind.FOOT_ON_FLOOR,
        FoulKind.INTENTIONAL,
        FoulKind.CUE_BALL_IN_HAND,
        FoulKind.INTERFERENCE,
        FoulKind.DELIBERATE,
        FoulKind.PUSH_SHOT,
    }
)


@dataclass(frozen=True, slots=True)
class Foul:
    """One foul: what, under which rule, why, and on which ball if any.

    Attributes:
        kind: What kind of foul.
        rule: The WPA rule number, e.g. ``"3.20"`` or ``"5.8"``.
        reason: One line a player understands, with the measured evidence where there is some.
        ball: The ball concerned (the wrong first ball, the ball off the table), if any.
    """

    kind: FoulKind
    rule: str
    reason: str
    ball: BallId | None = None

    @classmethod
    def of(cls, kind: FoulKind, reason: str, ball: BallId | None = None, rule: str = "") -> Foul:
        """A foul with its kind's rule number unless another is named."""
        return cls(kind, rule or kind.rule, reason, ball)


def most_severe(fouls: tuple[Foul, ...], rank: dict[FoulKind, int] | None = None) -> Foul | None:
    """The one foul applied in an inning (rule 3.30): the most severe, the first among equals.

    Args:
        fouls: Every foul seen, in the order they were found.
        rank: A game's own ranking (missing kinds fall back to `FoulKind.severity`).
    """
    if not fouls:
        return None
    rank = rank or {}
    best = max(
        range(len(fouls)), key=lambda i: (rank.get(fouls[i].kind, fouls[i].kind.severity), -i)
    )
    return fouls[best]


class BallInHand(StrEnum):
    """Where the incoming player may put the cue ball."""

    NONE = "none"
    """Play the cue ball where it lies."""
    ANYWHERE = "anywhere"
    """Anywhere on the playing surface (5.7, 5.10, 4.14)."""
    KITCHEN = "kitchen"
    """Strictly behind the head string (3.8, 3.10, 3.16): the break, 4.6, 6.10."""


class Choice(StrEnum):
    """Options the incoming (or named) player chooses between."""

    ACCEPT_TABLE = "accept-table"
    """Play the table as it lies (4.5, 4.7, 6.6, 6.12)."""
    SHOOT = "shoot"
    """After a push-out: shoot from the position (5.6)."""
    HAND_BACK = "hand-back"
    """After a push-out: make the player who pushed out shoot again (5.6)."""
    RERACK_AND_BREAK = "rerack-and-break"
    """Re-rack and break oneself (4.5)."""
    RERACK_OPPONENT_BREAKS = "rerack-opponent-breaks"
    """Re-rack and have the offender break again (4.5, 6.6, 6.7.5, 6.12)."""
    RERACK = "rerack"
    """Re-rack with the same breaker (4.8)."""
    SPOT_EIGHT = "spot-eight"
    """Spot the 8 and play on (4.8)."""
    BALL_IN_HAND_KITCHEN = "ball-in-hand-kitchen"
    """Take the cue ball in hand behind the head string (4.7)."""


class AlertKind(StrEnum):
    """Warnings the referee must give (rule 2.16) and other things to announce."""

    SECOND_CONSECUTIVE_FOUL = "second-consecutive-foul"
    """The player is on two fouls: a third loses the rack (2.16, 5.13, 6.12)."""
    FROZEN_BALL = "frozen-ball"
    """An object ball is frozen to a cushion (2.16, 3.38)."""
    HEAD_STRING = "head-string"
    """The cue ball in hand is on or just past the head string (2.21, 3.10)."""
    FROZEN_TO_OBJECT_BALL = "frozen-to-object-ball"
    """Ball in hand placed frozen to an object ball (5.10)."""


@dataclass(frozen=True, slots=True)
class Alert:
    """A warning to give or a fact to announce, with its rule.

    Attributes:
        kind: What to announce.
        rule: The WPA rule that requires it.
        text: What to say.
        player: Who is warned, when it concerns one player.
        ball: The ball concerned, if any.
    """

    kind: AlertKind
    rule: str
    text: str
    player: int | None = None
    ball: BallId | None = None


@dataclass(frozen=True, slots=True)
class Review:
    """A reason for a human to look at a ruling before play goes on (rule 2.14).

    Attributes:
        rule: The rule in question.
        reason: What is uncertain, with the measurement.
    """

    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class Spot:
    """A ball to put on the table at a point (spotting 3.32, restoring 2.17, 3.21)."""

    ball: BallId
    position: Point


@dataclass(frozen=True, slots=True)
class ScoreChange:
    """Points won or lost by one player (14.1: 6.5, 6.6, 6.11, 6.12)."""

    player: int
    points: int
    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class Ruling:
    """The referee's decision on one shot (or on a foul between shots).

    Attributes:
        shot_index: The shot judged; None for a foul entered between shots.
        shooter: The player who shot (index into the game's players).
        fouls: Every foul seen, in the order found.
        foul: The one foul applied (rule 3.30); None when the shot was legal.
        next_player: Who is at the table next.
        ball_in_hand: Where the next player may place the cue ball.
        pocketed: Object balls that went down on this shot and stay down (before spotting).
        off_table: Object balls that left the table on this shot (3.28).
        credited: Balls legally pocketed for the shooter.
        spots: Balls to put back on the table, and where (3.32).
        restores: Balls to put back where they were before the shot (3.21, second 3.21).
        score: Points won or lost.
        warnings: Warnings to give before the next shot (2.16, 2.21).
        choices: Options of ``chooser`` before play goes on; empty when none.
        chooser: Who chooses between ``choices``.
        game_over: The game (rack) has ended.
        winner: Who won it; None while going on, or when it ends without a winner (re-rack).
        reviews: Why a human should look at this ruling; empty when the evidence is clear.
        notes: The decisions taken, each with its rule number, for the record.
        push_out: The shot was a push-out (5.6).
        safety: The shot was a declared safety (4.12, 6.7.4).
        groups: 8-ball: the players' groups, when this shot decided them (4.10).
        cushion_safety: 14.1: the ball near a cushion this legal safety drove into its nearest
            cushion (6.7.2); None otherwise.
    """

    shot_index: int | None
    shooter: int
    fouls: tuple[Foul, ...]
    foul: Foul | None
    next_player: int
    ball_in_hand: BallInHand = BallInHand.NONE
    pocketed: tuple[BallId, ...] = ()
    off_table: tuple[BallId, ...] = ()
    credited: tuple[BallId, ...] = ()
    spots: tuple[Spot, ...] = ()
    restores: tuple[Spot, ...] = ()
    score: tuple[ScoreChange, ...] = ()
    warnings: tuple[Alert, ...] = ()
    choices: tuple[Choice, ...] = ()
    chooser: int | None = None
    game_over: bool = False
    winner: int | None = None
    reviews: tuple[Review, ...] = ()
    notes: tuple[str, ...] = ()
    push_out: bool = False
    safety: bool = False
    groups: tuple[BallGroup, ...] = ()
    cushion_safety: BallId | None = None

    def __post_init__(self) -> None:
        if self.foul is not None and self.foul not in self.fouls:
            raise ValueError("the applied foul must be one of the fouls seen")
        if self.fouls and self.foul is None:
            raise ValueError("fouls were seen but none applied (rule 3.30 applies one)")
        if self.winner is not None and not self.game_over:
            raise ValueError("a winner ends the game")
        if self.choices and self.chooser is None:
            raise ValueError("choices need a player to choose")

    @property
    def legal(self) -> bool:
        """True when no foul was applied."""
        return self.foul is None

    @property
    def needs_review(self) -> bool:
        """True when the evidence is uncertain and a human should confirm the ruling."""
        return bool(self.reviews)
