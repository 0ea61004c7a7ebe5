"""The game's log, and the game state as its fold.

Everything that happens in a game enters one append-only log: the Shot records tracking makes
and every operator input (`rules.inputs`). The state is never kept anywhere else: `replay` folds
the log through the game's pure ``judge`` / ``advance`` / ``choose``, so an undo, an override or
an operator's foul entered late re-derives every ruling after it, and the record keeps each
correction with its reason. Replaying the same log always gives the same state.

How entries apply:

- a declaration (`CallShot`, `Safety`, `PushOut`) applies to the next shot in the log;
- an `OperatorFoul` or `Override` naming a shot, and an `Interference` that voids a shot
  (``REPLAY_SHOT``), amend that shot wherever they stand after it in the log;
- an `Undo` cancels the entry it names (undoing an undo restores the entry);
- a shot taken while a choice is pending means the player took the first option (accept the
  table, or shoot after a push-out); the timeline notes it.

A log may hold a whole match (`GameLog.match`): the match is folded from the same entries, so
an undo or a resume restores it too. A game that ends is recorded in the match at once (a rack
won, 3.36; a 14.1 game's points, 6.1); a `RackReady` then begins the next game, broken by the
player the break order names; a `TimeOut` between racks is taken and checked (1.13) and ends
when the next break is struck; a replayed rack (4.21, 3.35) counts as played with no winner.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import NamedTuple

from rules.errors import RecordError
from rules.games import game_for
from rules.games.base import Game
from rules.inputs import (
    CallShot,
    Decision,
    Extension,
    Interference,
    InterferenceOutcome,
    OperatorFoul,
    OperatorInput,
    Override,
    PushOut,
    RackReady,
    Safety,
    ShotInputs,
    Stalemate,
    TimeOut,
    Undo,
    WarningGiven,
)
from rules.match import Match, MatchConfig, MatchError, MatchUnit
from rules.ruling import Foul, Ruling
from rules.shot import Shot
from rules.state import GameOptions, GameState, per_player
from rules.table import TableGeometry

POINTS_GAME = "14.1"
"""The game scored in points, whose match may be a race to points (6.1)."""

LogItem = Shot | OperatorInput
"""What a log entry holds: a shot or an operator input."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry.

    Attributes:
        seq: Its position in the log, from 0 (undo names entries by it).
        time: Session time it arrived (the shot's strike, or when the input was entered).
        item: The shot or the input.
    """

    seq: int
    time: float
    item: LogItem


@dataclass(frozen=True, slots=True)
class GameLog:
    """The append-only record of one game, or of a match's games: what game, who, with which
    options (the first rack's breaker among them), the match's settings, and the entries.

    Appending returns a new log; nothing is removed (an undo is itself an entry).
    """

    game: str
    players: tuple[str, ...]
    options: GameOptions = field(default_factory=GameOptions)
    entries: tuple[Entry, ...] = ()
    match: MatchConfig | None = None
    """The match the games belong to; None for a single game (no `RackReady`, no race)."""

    def __post_init__(self) -> None:
        if len(self.players) != 2:
            raise ValueError(f"a game has two players (or teams), got {list(self.players)}")
        for i, entry in enumerate(self.entries):
            if entry.seq != i:
                raise ValueError(f"log entry {i} carries seq {entry.seq}")
            if isinstance(entry.item, Undo) and not 0 <= entry.item.target < i:
                raise ValueError(
                    f"log entry {i} undoes entry {entry.item.target}, not an earlier one"
                )

    def record(self, item: LogItem, time: float) -> GameLog:
        """The log with ``item`` appended at session time ``time``."""
        entry = Entry(len(self.entries), float(time), item)
        return dataclasses.replace(self, entries=(*self.entries, entry))

    def undo(self, seq: int, reason: str, time: float) -> GameLog:
        """The log with an undo of entry ``seq`` appended."""
        return self.record(Undo(seq, reason), time)

    @property
    def last_seq(self) -> int | None:
        """The seq of the newest entry, None for an empty log."""
        return self.entries[-1].seq if self.entries else None


@dataclass(frozen=True, slots=True)
class Timeline:
    """The fold of a log: the state now, and every ruling on the way.

    Attributes:
        state: The game state after the whole log (the rack under way, or the one just ended).
        rulings: The rulings, in order (shots and fouls between shots).
        notes: Entries that were cancelled, voided or taken as implied, for the record.
        match: The match after the whole log; None for a single game.
    """

    state: GameState
    rulings: tuple[Ruling, ...] = ()
    notes: tuple[str, ...] = ()
    match: Match | None = None


def active_entries(entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    """The entries no active undo cancels (an undone undo cancels nothing)."""
    cancelled: set[int] = set()
    active = []
    for entry in reversed(entries):
        if entry.seq in cancelled:
            continue
        active.append(entry)
        if isinstance(entry.item, Undo):
            cancelled.add(entry.item.target)
    return tuple(reversed(active))


class _Amendments(NamedTuple):
    fouls: dict[int, list[tuple[int, Foul]]]
    overrides: dict[int, Override]
    voided: set[int]


def _amendments(entries: tuple[Entry, ...]) -> _Amendments:
    """Operator fouls, overrides and voiding interference, by the shot they amend."""
    seen: set[int] = set()
    found = _Amendments({}, {}, set())
    for entry in entries:
        item = entry.item
        if isinstance(item, Shot):
            seen.add(item.index)
            continue
        shot = getattr(item, "shot", None)
        if not isinstance(item, OperatorFoul | Override | Interference) or shot is None:
            continue
        if shot not in seen:
            raise RecordError(f"log entry {entry.seq}: amends shot {shot}, not yet in the log")
        if isinstance(item, OperatorFoul):
            found.fouls.setdefault(shot, []).append((item.player, item.as_foul()))
        elif isinstance(item, Override):
            found.overrides[shot] = item
        elif item.outcome is InterferenceOutcome.REPLAY_SHOT:
            found.voided.add(shot)
    return found


class Fold(NamedTuple):
    """Where a fold of the log stands after some entries (see `replay`, `fold_entry`).

    Attributes:
        state: The game state so far.
        pending: Declarations waiting for the next shot.
        rulings: The rulings so far.
        notes: Notes for the record so far.
        shots: Shot indices seen (each may appear once).
        amend: The amendments of the whole log, by the shot they amend.
        match: The match so far; None for a single game.
    """

    state: GameState
    pending: ShotInputs
    rulings: tuple[Ruling, ...]
    notes: tuple[str, ...]
    shots: frozenset[int]
    amend: _Amendments
    match: Match | None = None

    @property
    def timeline(self) -> Timeline:
        """The fold as a timeline."""
        return Timeline(self.state, self.rulings, self.notes, self.match)


def amends_the_past(item: LogItem) -> bool:
    """True for entries that change how earlier entries play: undo, override, and fouls or
    interference naming a shot. After one of them the whole log must be folded again."""
    if isinstance(item, Undo | Override):
        return True
    return isinstance(item, OperatorFoul | Interference) and item.shot is not None


def fold_log(log: GameLog, table: TableGeometry) -> Fold:
    """Fold the whole of ``log``; `replay` is this as a `Timeline`.

    Raises:
        RecordError: the log cannot be played; the message names the entry.
    """
    game = game_for(log.game, table)
    entries = active_entries(log.entries)
    cancelled = len(log.entries) - len(entries)
    notes = (f"{cancelled} entr(y/ies) cancelled by undo",) if cancelled else ()
    players = (log.players[0], log.players[1])
    state = game.start(players, log.options)
    match = start_match(log)
    fold = Fold(state, ShotInputs(), (), notes, frozenset(), _amendments(entries), match)
    for entry in entries:
        fold = fold_entry(game, fold, entry)
    return fold


def fold_entry(game: Game, fold: Fold, entry: Entry) -> Fold:
    """One more entry folded in (one that does not amend the past: see `amends_the_past`).

    Raises:
        RecordError: the entry cannot be played from here; the message names it.
    """
    shots = fold.shots
    if isinstance(entry.item, Shot):
        if entry.item.index in shots:
            raise RecordError(f"log entry {entry.seq}: shot index {entry.item.index} is used twice")
        shots = shots | {entry.item.index}
    notes = list(fold.notes)
    try:
        if isinstance(entry.item, RackReady):
            state, pending, made = _next_rack(game, fold.state, fold.match), ShotInputs(), ()
            notes.append(f"entry {entry.seq}: rack {_rack_number(fold.match)} racked")
        else:
            state, pending, made = _apply(game, fold.state, entry, fold.pending, fold.amend, notes)
        match = _match_after(fold.match, fold.state, state, entry)
    except (RecordError, ValueError) as exc:
        raise RecordError(f"log entry {entry.seq}: {exc}") from exc
    except MatchError as exc:
        raise RecordError(f"log entry {entry.seq}: {exc}") from exc
    return Fold(state, pending, fold.rulings + made, tuple(notes), shots, fold.amend, match)


def start_match(log: GameLog) -> Match | None:
    """The match of ``log`` before any entry: the first rack's breaker (``options.breaker``,
    the lag's outcome, 3.6-3.7) breaks; None for a single game.

    Raises:
        RecordError: the match cannot start (two players of one name).
    """
    if log.match is None:
        return None
    if log.match.unit is MatchUnit.POINTS and log.game != POINTS_GAME:
        raise RecordError(f"the log's match counts points, which only {POINTS_GAME} scores (6.1)")
    players = (log.players[0], log.players[1])
    try:
        return Match.start(log.match, players, players[log.options.breaker])
    except MatchError as exc:
        raise RecordError(f"the log's match: {exc}") from exc


def _rack_number(match: Match | None) -> int:
    return 1 + (len(match.racks) if match is not None else 0)


def _next_rack(game: Game, state: GameState, match: Match | None) -> GameState:
    """A new game of the match, broken by the player its break order names (3.36)."""
    if match is None:
        raise RecordError("a new rack needs a match: this log holds a single game")
    if match.is_over:
        raise RecordError(f"the match is over: {match.winner} won")
    if not state.over:
        raise RecordError("the rack under way is not over: a new one cannot be racked yet")
    breaker = match.players.index(match.next_breaker)
    players = (state.players[0], state.players[1])
    return game.start(players, dataclasses.replace(state.options, breaker=breaker))


def _match_after(
    match: Match | None, before: GameState, after: GameState, entry: Entry
) -> Match | None:
    """The match once ``entry`` moved the game from ``before`` to ``after``."""
    if match is None:
        return None
    item = entry.item
    if isinstance(item, TimeOut):
        return match.take_time_out(match.players[item.player], entry.time)
    if isinstance(item, Shot) and not match.rack_in_progress and not before.over:
        if match.running_time_out is not None:
            match = match.end_time_out(entry.time)  # play resumed (1.13)
        match = match.begin_rack()
    if isinstance(item, Stalemate) or (
        isinstance(item, Interference) and item.outcome is InterferenceOutcome.REPLAY_RACK
    ):
        if before.over:
            raise RecordError("the rack is over, nothing to replay: rack ready starts the next")
        return match.replay_rack()
    if before.over or not after.over or after.winner is None:
        return match
    winner = match.players[after.winner]
    if match.config.unit is MatchUnit.POINTS:
        return match.record_game(winner, (after.scores[0], after.scores[1]))
    return match.record_rack(winner)


def replay(log: GameLog, table: TableGeometry) -> Timeline:
    """Fold ``log`` into the game state and its rulings.

    Raises:
        RecordError: the log cannot be played (a shot after the game ended, a choice not on
            offer, an amendment of a shot not in the log); the message names the entry.
    """
    return fold_log(log, table).timeline


def _apply(
    game: Game,
    state: GameState,
    entry: Entry,
    pending: ShotInputs,
    amend: _Amendments,
    notes: list[str],
) -> tuple[GameState, ShotInputs, tuple[Ruling, ...]]:
    item = entry.item
    if isinstance(item, Shot):
        if item.index in amend.voided:
            notes.append(f"shot {item.index} voided by interference (2.18): to be replayed")
            return state, pending, ()
        if state.choices:
            choice = state.choices[0]
            notes.append(f"shot {item.index} taken: {choice} assumed")
            state = game.choose(state, choice)
        override = amend.overrides.get(item.index)
        shot = override.record if override is not None and override.record is not None else item
        entered = amend.fouls.get(item.index, [])
        by_shooter = tuple(f for player, f in entered if player == state.shooter)
        by_other = [f for player, f in entered if player != state.shooter]
        inputs = dataclasses.replace(pending, fouls=by_shooter, override=override)
        ruling = game.judge(state, shot, inputs)
        state = game.advance(state, ruling)
        if by_other and not state.over:
            # 3.41: the non-shooting player fouled during the shot; his foul follows the ruling.
            other = game.foul_between_shots(state, by_other[0], 1 - ruling.shooter)
            notes.append(f"shot {item.index}: foul by the non-shooting player ({by_other[0].rule})")
            return game.advance(state, other), ShotInputs(), (ruling, other)
        return state, ShotInputs(), (ruling,)
    if isinstance(item, CallShot):
        return state, dataclasses.replace(pending, call=item), ()
    if isinstance(item, Safety):
        return state, dataclasses.replace(pending, safety=True), ()
    if isinstance(item, PushOut):
        return state, dataclasses.replace(pending, push_out=True), ()
    if isinstance(item, Decision):
        return game.choose(state, item.choice), pending, ()
    if isinstance(item, OperatorFoul) and item.shot is None:
        ruling = game.foul_between_shots(state, item.as_foul(), item.player)
        return game.advance(state, ruling), pending, (ruling,)
    if isinstance(item, WarningGiven):
        return state.replace(warned=per_player(state.warned, item.player, True)), pending, ()
    if isinstance(item, Stalemate) or (
        isinstance(item, Interference) and item.outcome is InterferenceOutcome.REPLAY_RACK
    ):
        why = "stalemate (4.21)" if isinstance(item, Stalemate) else "interference (2.18, 3.35)"
        notes.append(f"entry {entry.seq}: rack replayed after {why}, the same player breaking")
        options = dataclasses.replace(state.options, breaker=state.breaker)
        fresh = game.start(state.players, options)  # type: ignore[arg-type]
        # 14.1 keeps its points through a replayed rack (6.1); the rack games have none.
        return fresh.replace(scores=state.scores), ShotInputs(), ()
    if isinstance(item, Extension):
        if state.extensions_used[item.player]:
            notes.append(f"entry {entry.seq}: player {item.player} already used the extension")
            return state, pending, ()
        used = per_player(state.extensions_used, item.player, True)
        return state.replace(extensions_used=used), pending, ()
    if isinstance(item, TimeOut | Undo | Override | OperatorFoul | Interference):
        return state, pending, ()  # amendments and records, applied elsewhere
    raise RecordError(f"cannot apply a {type(item).__name__}")


def start_log(
    game: str,
    players: tuple[str, str],
    options: GameOptions | None = None,
    match: MatchConfig | None = None,
) -> GameLog:
    """An empty log for a new game, or for a match of ``game`` when ``match`` is given (the
    name is checked when it is replayed)."""
    return GameLog(game, tuple(players), options or GameOptions(), match=match)
