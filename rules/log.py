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
    Safety,
    ShotInputs,
    Stalemate,
    TimeOut,
    Undo,
    WarningGiven,
)
from rules.ruling import Foul, Ruling
from rules.shot import Shot
from rules.state import GameOptions, GameState, per_player
from rules.table import TableGeometry

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
    """The append-only record of one game: what game, who, with which options, and the entries.

    Appending returns a new log; nothing is removed (an undo is itself an entry).
    """

    game: str
    players: tuple[str, ...]
    options: GameOptions = field(default_factory=GameOptions)
    entries: tuple[Entry, ...] = ()

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
        state: The game state after the whole log.
        rulings: The rulings, in order (shots and fouls between shots).
        notes: Entries that were cancelled, voided or taken as implied, for the record.
    """

    state: GameState
    rulings: tuple[Ruling, ...] = ()
    notes: tuple[str, ...] = ()


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
    """

    state: GameState
    pending: ShotInputs
    rulings: tuple[Ruling, ...]
    notes: tuple[str, ...]
    shots: frozenset[int]
    amend: _Amendments

    @property
    def timeline(self) -> Timeline:
        """The fold as a timeline."""
        return Timeline(self.state, self.rulings, self.notes)


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
    state = game.start((log.players[0], log.players[1]), log.options)
    fold = Fold(state, ShotInputs(), (), notes, frozenset(), _amendments(entries))
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
        state, pending, made = _apply(game, fold.state, entry, fold.pending, fold.amend, notes)
    except (RecordError, ValueError) as exc:
        raise RecordError(f"log entry {entry.seq}: {exc}") from exc
    return Fold(state, pending, fold.rulings + made, tuple(notes), shots, fold.amend)


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


def start_log(game: str, players: tuple[str, str], options: GameOptions | None = None) -> GameLog:
    """An empty log for a new game (the name is checked when it is replayed)."""
    return GameLog(game, tuple(players), options or GameOptions())
