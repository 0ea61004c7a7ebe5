"""What every game offers, and the bookkeeping they share.

A game is a small object bound to a table (spotting needs its geometry) with pure methods:
``start(players, options) -> GameState``, ``judge(state, shot, inputs) -> Ruling``,
``advance(state, ruling) -> GameState``, ``choose(state, choice) -> GameState`` and
``foul_between_shots(state, foul, player) -> Ruling``. Nothing is mutated; fouls are data.
"""

from __future__ import annotations

from typing import Protocol

from rules.balls import BallId
from rules.errors import RecordError
from rules.inputs import ShotInputs
from rules.ruling import Alert, AlertKind, BallInHand, Choice, Foul, FoulKind, Ruling, Spot
from rules.shot import Shot
from rules.spotting import spot_balls
from rules.state import BALL_ORDER, GameOptions, GameState, Phase, per_player
from rules.table import Point, TableGeometry


class Game(Protocol):
    """One game's rules (8-ball, 9-ball, 14.1), bound to a table."""

    name: str
    table: TableGeometry
    racked: tuple[BallId, ...]
    """The object balls the game is played with (4.3, 5.2, 6.4): no other ball is on its table."""

    def start(self, players: tuple[str, str], options: GameOptions) -> GameState:
        """The state before the opening break."""
        ...

    def judge(self, state: GameState, shot: Shot, inputs: ShotInputs) -> Ruling:
        """The ruling on ``shot`` played from ``state``."""
        ...

    def advance(self, state: GameState, ruling: Ruling) -> GameState:
        """The state after ``ruling``."""
        ...

    def choose(self, state: GameState, choice: Choice) -> GameState:
        """The state after the pending choice is answered."""
        ...

    def foul_between_shots(self, state: GameState, foul: Foul, player: int) -> Ruling:
        """The ruling on a foul entered between shots (3.41, 5.13)."""
        ...


class RackGame:
    """What the rack games share: bound to a table, and a start with the breaker in hand in
    the kitchen (3.8) and the game's balls racked (4.3, 5.2).

    Subclasses set ``name`` and ``racked``.
    """

    name: str
    racked: tuple[BallId, ...]

    def __init__(self, table: TableGeometry) -> None:
        self.table = table

    def start(self, players: tuple[str, str], options: GameOptions) -> GameState:
        """The rack before the break: the balls racked, the breaker in hand in the kitchen."""
        return GameState(
            game=self.name,
            players=tuple(players),
            options=options,
            phase=Phase.BREAK,
            shooter=options.breaker,
            breaker=options.breaker,
            on_table=self.racked,
            ball_in_hand=BallInHand.KITCHEN,
        )


def check_can_judge(state: GameState, shot: Shot) -> None:
    """Refuse a shot the game cannot take: still moving (3.15), after the game's end, or while
    a choice is pending."""
    if not shot.is_complete:
        raise RecordError(f"shot {shot.index} is not complete: balls are still moving (3.15)")
    if state.over:
        raise RecordError(f"shot {shot.index}: the {state.game} game is already over")
    if state.choices:
        pending = ", ".join(state.choices)
        raise RecordError(f"shot {shot.index}: player {state.chooser} must first choose: {pending}")


def check_choice(state: GameState, choice: Choice) -> int:
    """The chooser, after checking ``choice`` is one of the pending options."""
    if choice not in state.choices or state.chooser is None:
        offered = ", ".join(state.choices) or "nothing"
        raise RecordError(f"{choice} is not a pending choice (offered: {offered})")
    return state.chooser


def second_foul_warning(player: int, name: str) -> Alert:
    """Rule 2.16: the warning that a third consecutive foul loses the rack."""
    return Alert(
        AlertKind.SECOND_CONSECUTIVE_FOUL,
        "2.16",
        f"{name} is on two fouls: a third consecutive foul loses the rack",
        player=player,
    )


def apply_common(state: GameState, ruling: Ruling) -> GameState:
    """The bookkeeping every game does after a ruling.

    Balls pocketed or off the table leave ``on_table`` and spotted ones come back (3.32); the
    next player takes the table with the ball in hand the ruling gives; choices become pending;
    scores move; the game ends with the ruling's winner. A new inning starts when the player at
    the table changes (3.37).
    """
    gone = set(ruling.pocketed) | set(ruling.off_table)
    back = {s.ball for s in ruling.spots}
    on_table = tuple(sorted((set(state.on_table) - gone) | back, key=BALL_ORDER.__getitem__))
    scores = list(state.scores)
    for change in ruling.score:
        scores[change.player] += change.points
    return state.replace(
        on_table=tuple(b for b in on_table if b is not BallId.CUE),
        shooter=ruling.next_player,
        ball_in_hand=ruling.ball_in_hand,
        choices=ruling.choices,
        chooser=ruling.chooser,
        scores=tuple(scores),
        winner=ruling.winner,
        phase=Phase.OVER if ruling.game_over else state.phase,
        shots=state.shots + (ruling.shot_index is not None),
        innings=state.innings + (ruling.next_player != state.shooter),
    )


def count_fouls(state: GameState, ruling: Ruling, fouler: int) -> GameState:
    """Consecutive fouls and the 2.16 warning after ``ruling`` (5.13; 6.12 counts alike).

    A foul adds one to the fouler's count; a legal shot clears the shooter's count and warning.
    A third foul with no warning given counts as an ordinary foul: the player is taken to have
    had one foul before it (2.16), so he is on two again and now gets the warning.
    """
    counts, warned = state.fouls_in_a_row, state.warned
    if ruling.foul is None:
        counts = per_player(counts, ruling.shooter, 0)
        warned = per_player(warned, ruling.shooter, False)
    else:
        prior = counts[fouler]
        if prior >= 2 and not warned[fouler]:
            prior = 1
        counts = per_player(counts, fouler, prior + 1)
        if counts[fouler] >= 2 and state.options.auto_warn:
            warned = per_player(warned, fouler, True)
    return state.replace(fouls_in_a_row=counts, warned=warned)


def spot_after(
    shot: Shot,
    balls: tuple[BallId, ...],
    restores: tuple[Spot, ...],
    cue_in_hand: bool,
    table: TableGeometry,
) -> tuple[Spot, ...]:
    """Rule 3.32 after ``shot``: where ``balls`` go among the balls at rest (and the restored
    ones). With ball in hand the referee has picked up the cue ball (2.9): it does not block."""
    gone = set(shot.pocketed) | set(shot.left_table)
    layout: list[tuple[BallId, Point]] = [
        (b, p)
        for b, p in shot.at_rest.positions
        if b not in gone and not (cue_in_hand and b is BallId.CUE)
    ]
    layout += [(s.ball, s.position) for s in restores]
    return spot_balls(balls, layout, table)


def renumbered(fouls: tuple[Foul, ...], rules: dict[FoulKind, str]) -> tuple[Foul, ...]:
    """The general fouls under the game's own rule numbers that restate them."""
    return tuple(Foul(f.kind, rules.get(f.kind, f.rule), f.reason, f.ball) for f in fouls)
