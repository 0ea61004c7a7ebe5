"""The state of one game (one rack of 8-ball or 9-ball, one game of 14.1): an immutable value.

Games (`rules.games`) build it with ``start``, and every shot or input makes a new one with
``advance`` / ``choose``; nothing is mutated. It is the fold of the game's log (`rules.log`).
Fields that only one game uses say so; the others leave them at their defaults.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from rules.balls import BallGroup, BallId
from rules.ruling import BallInHand, Choice

BALL_ORDER: dict[BallId, int] = {b: b.number for b in BallId}
"""Each ball's number, looked up (sorting by it is on every state change)."""

CONFIDENCE_FOR_REVIEW = 0.8
"""Events less sure than this put the ruling up for review (rule 2.14)."""


class Phase(StrEnum):
    """Where the game is."""

    BREAK = "break"
    """The next shot is the opening break (3.7, 3.8)."""
    AFTER_BREAK = "after-break"
    """The next shot is the one right after a legal break (9-ball push-out, 5.5, 5.6)."""
    PLAY = "play"
    """Ordinary play."""
    OVER = "over"
    """The game has ended."""


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Settings of one game, agreed before it starts.

    Attributes:
        breaker: Who breaks (index into the players; 3.7, 3.36).
        auto_warn: The monitor gives the mandatory warnings itself (2.16). When False, a human
            referee gives them and enters each one (`rules.inputs.WarningGiven`); a third foul
            without the warning then counts as an ordinary foul.
        review_confidence: Events below this confidence put a ruling up for review.
        eight_on_break_wins: 8-ball variant: the 8 pocketed on a legal break wins (instead of
            the breaker choosing to re-rack or spot it, 4.8).
        target_points: 14.1: points to win (6.1).
    """

    breaker: int = 0
    auto_warn: bool = True
    review_confidence: float = CONFIDENCE_FOR_REVIEW
    eight_on_break_wins: bool = False
    target_points: int = 150

    def __post_init__(self) -> None:
        if self.breaker not in (0, 1):
            raise ValueError(f"the breaker is player 0 or 1, not {self.breaker}")
        if not 0.0 <= self.review_confidence <= 1.0:
            raise ValueError(f"review_confidence must be within 0-1, got {self.review_confidence}")
        if self.target_points <= 0:
            raise ValueError(f"target_points must be positive, got {self.target_points}")


@dataclass(frozen=True, slots=True)
class GameState:
    """One game between two players (or two teams), between two shots.

    Attributes:
        game: The game's registry name (``"9-ball"``, ``"8-ball"``, ``"14.1"``).
        players: The players' names; they are referred to by index (0, 1) everywhere else.
        options: The game's settings.
        phase: Where the game is.
        shooter: The player at the table.
        breaker: Who broke (or will break) this rack.
        on_table: Object balls in play, in number order.
        ball_in_hand: Where the shooter may place the cue ball for the next shot.
        fouls_in_a_row: Each player's consecutive fouls (5.13, 6.12).
        warned: Each player has been warned of being on two fouls (2.16).
        scores: Points (14.1); zero in the rack games.
        choices: Options pending before the next shot (see `Choice`); empty when none.
        chooser: Who chooses between ``choices``.
        groups: 8-ball: each player's group once the table is no longer open (4.10).
        winner: Who won; set when the game is over.
        shots: Shots judged in this game.
        innings: Innings begun in this game (3.37).
        extensions_used: Each player has taken the shot-clock extension this rack (1.11).
        cushion_safety_ball: 14.1: the ball near a cushion each player last played a safety on
            into that cushion (6.7.2); None when his last shot was no such safety.
        cushion_safeties: 14.1: how many such safeties in a row on that ball (6.7.2: after two,
            the ball counts as frozen for him, 3.38).
    """

    game: str
    players: tuple[str, ...]
    options: GameOptions
    phase: Phase
    shooter: int
    breaker: int
    on_table: tuple[BallId, ...]
    ball_in_hand: BallInHand = BallInHand.KITCHEN
    fouls_in_a_row: tuple[int, ...] = (0, 0)
    warned: tuple[bool, ...] = (False, False)
    scores: tuple[int, ...] = (0, 0)
    choices: tuple[Choice, ...] = ()
    chooser: int | None = None
    groups: tuple[BallGroup, ...] = ()
    winner: int | None = None
    shots: int = 0
    innings: int = 1
    extensions_used: tuple[bool, ...] = (False, False)
    cushion_safety_ball: tuple[BallId | None, ...] = (None, None)
    cushion_safeties: tuple[int, ...] = (0, 0)

    def __post_init__(self) -> None:
        if len(self.players) != 2:
            raise ValueError(f"a game has two players (or teams), got {self.players}")
        if self.shooter not in (0, 1) or self.breaker not in (0, 1):
            raise ValueError("exactly one of the two players is at the table")
        per_player = (
            "fouls_in_a_row",
            "warned",
            "scores",
            "extensions_used",
            "cushion_safety_ball",
            "cushion_safeties",
        )
        for name in per_player:
            if len(getattr(self, name)) != 2:
                raise ValueError(f"{name} needs one value per player")
        if self.groups and len(self.groups) != 2:
            raise ValueError("groups are assigned to both players at once (4.10)")
        order = [BALL_ORDER[b] for b in self.on_table]
        if order != sorted(order):
            raise ValueError("on_table is kept in number order")
        if BallId.CUE in self.on_table:
            raise ValueError("on_table lists object balls only")
        if self.winner is not None and self.phase is not Phase.OVER:
            raise ValueError("a winner means the game is over")

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is Phase.OVER

    @property
    def opponent(self) -> int:
        """The player not at the table."""
        return 1 - self.shooter

    @property
    def lowest_ball(self) -> BallId | None:
        """The lowest-numbered object ball on the table (5.1), None when none is left."""
        return self.on_table[0] if self.on_table else None

    def replace(self, **changes: object) -> GameState:
        """A copy with some fields changed (states are never mutated)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def per_player(values: tuple, player: int, value: object) -> tuple:
    """``values`` with ``player``'s entry replaced by ``value``."""
    return tuple(value if i == player else v for i, v in enumerate(values))
