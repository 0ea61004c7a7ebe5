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
    fouls: dict[int, list[Foul]]
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
            found.fouls.setdefault(shot, []).append(item.as_foul())
        elif isinstance(item, Override):
            found.overrides[shot] = item
        elif item.outcome is InterferenceOutcome.REPLAY_SHOT:
            found.voided.add(shot)
    return found


def replay(log: GameLog, table: TableGeometry) -> Timeline:
    """Fold ``log`` into the game state and its rulings.

    Raises:
        RecordError: the log cannot be played (a shot after the game ended, a choice not on
            offer, an amendment of a shot not in the log); the message names the entry.
    """
    game = game_for(log.game, table)
    players = (log.players[0], log.players[1]) if len(log.players) == 2 else log.players
    state = game.start(players, log.options)  # type: ignore[arg-type]
    entries = active_entries(log.entries)
    cancelled = len(log.entries) - len(entries)
    notes: list[str] = [f"{cancelled} entr(y/ies) cancelled by undo"] if cancelled else []
    amend = _amendments(entries)
    rulings: list[Ruling] = []
    pending = ShotInputs()
    for entry in entries:
        try:
            state, pending, ruling = _apply(game, state, entry, pending, amend, notes)
        except RecordError as exc:
            raise RecordError(f"log entry {entry.seq}: {exc}") from exc
        except ValueError as exc:
            raise RecordError(f"log entry {entry.seq}: {exc}") from exc
        if ruling is not None:
            rulings.append(ruling)
    return Timeline(state, tuple(rulings), tuple(notes))


def _apply(
    game: Game,
    state: GameState,
    entry: Entry,
    pending: ShotInputs,
    amend: _Amendments,
    notes: list[str],
) -> tuple[GameState, ShotInputs, Ruling | None]:
    item = entry.item
    if isinstance(item, Shot):
        if item.index in amend.voided:
            notes.append(f"shot {item.index} voided by interference (2.18): to be replayed")
            return state, pending, None
        if state.choices:
            choice = state.choices[0]
            notes.append(f"shot {item.index} taken: {choice} assumed")
            state = game.choose(state, choice)
        override = amend.overrides.get(item.index)
        shot = override.record if override is not None and override.record is not None else item
        inputs = dataclasses.replace(
            pending, fouls=tuple(amend.fouls.get(item.index, ())), override=override
        )
        ruling = game.judge(state, shot, inputs)
        return game.advance(state, ruling), ShotInputs(), ruling
    if isinstance(item, CallShot):
        return state, dataclasses.replace(pending, call=item), None
    if isinstance(item, Safety):
        return state, dataclasses.replace(pending, safety=True), None
    if isinstance(item, PushOut):
        return state, dataclasses.replace(pending, push_out=True), None
    if isinstance(item, Decision):
        return game.choose(state, item.choice), pending, None
    if isinstance(item, OperatorFoul) and item.shot is None:
        ruling = game.foul_between_shots(state, item.as_foul(), item.player)
        return game.advance(state, ruling), pending, ruling
    if isinstance(item, WarningGiven):
        return state.replace(warned=per_player(state.warned, item.player, True)), pending, None
    if isinstance(item, Stalemate) or (
        isinstance(item, Interference) and item.outcome is InterferenceOutcome.REPLAY_RACK
    ):
        why = "stalemate (4.21)" if isinstance(item, Stalemate) else "interference (2.18, 3.35)"
        notes.append(f"entry {entry.seq}: rack replayed after {why}, the same player breaking")
        options = dataclasses.replace(state.options, breaker=state.breaker)
        return game.start(state.players, options), ShotInputs(), None  # type: ignore[arg-type]
    if isinstance(item, Extension):
        if state.extensions_used[item.player]:
            notes.append(f"entry {entry.seq}: player {item.player} already used the extension")
            return state, pending, None
        used = per_player(state.extensions_used, item.player, True)
        return state.replace(extensions_used=used), pending, None
    if isinstance(item, TimeOut | Undo | Override | OperatorFoul | Interference):
        return state, pending, None  # amendments and records, applied elsewhere
    raise RecordError(f"cannot apply a {type(item).__name__}")


def start_log(game: str, players: tuple[str, str], options: GameOptions | None = None) -> GameLog:
    """An empty log for a new game (the name is checked when it is replayed)."""
    return GameLog(game, tuple(players), options or GameOptions())
