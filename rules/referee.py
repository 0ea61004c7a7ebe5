"""The live referee: one game's log, folded again after every entry.

The monitor feeds it Shot records from tracking and inputs from the operator console, each
stamped with the session time; it answers with the timeline (the state now and every ruling).
The log is the only thing kept, so an undo or a late correction re-derives everything and the
record says why (see `rules.log`). A plain append folds one entry onto the current state (about
a millisecond, ``bench/referee_replay.py``); only a correction of the past folds the whole log.
"""

from __future__ import annotations

from rules.balls import BallId
from rules.errors import RecordError
from rules.games import game_for
from rules.inputs import Undo
from rules.log import GameLog, LogItem, Timeline, amends_the_past, fold_entry, fold_log, start_log
from rules.match import Match, MatchConfig
from rules.ruling import Ruling
from rules.state import GameOptions, GameState
from rules.table import TableGeometry


class Referee:
    """One game's log and its fold.

    Example::

        referee = Referee.new("9-ball", ("Ann", "Bob"), table=TableSpec.standard("9ft"))
        referee.record(shot, time=shot.strike_time)
        referee.state.shooter, referee.last_ruling
    """

    def __init__(self, log: GameLog, table: TableGeometry) -> None:
        self._game = game_for(log.game, table)  # fails early on an unknown game
        self._table = table
        self._log = log
        self._fold = fold_log(log, table)

    @classmethod
    def new(
        cls,
        game: str,
        players: tuple[str, str],
        table: TableGeometry,
        options: GameOptions | None = None,
        match: MatchConfig | None = None,
    ) -> Referee:
        """A referee for a new game, or for a match of ``game`` when ``match`` is given (then
        ``options.breaker`` is who breaks the first rack, 3.7)."""
        return cls(start_log(game, players, options, match), table)

    @property
    def log(self) -> GameLog:
        """Everything recorded so far."""
        return self._log

    @property
    def timeline(self) -> Timeline:
        """The fold of the log: state, rulings, notes."""
        return self._fold.timeline

    @property
    def balls(self) -> tuple[BallId, ...]:
        """The cue ball and the game's object balls: the only balls its table holds."""
        return (BallId.CUE, *self._game.racked)

    @property
    def state(self) -> GameState:
        """The game state now."""
        return self._fold.state

    @property
    def match(self) -> Match | None:
        """The match now (racks or points, who breaks next); None for a single game."""
        return self._fold.match

    @property
    def last_ruling(self) -> Ruling | None:
        """The newest ruling, None before the first shot."""
        return self._fold.rulings[-1] if self._fold.rulings else None

    def record(self, item: LogItem, time: float) -> Timeline:
        """Append a shot or an input and re-derive the timeline.

        A plain append is folded onto the current state; an entry that amends the past (undo,
        override, a foul or interference naming a shot) folds the whole log again.

        Raises:
            RecordError: the entry cannot be played here (a shot after the game ended, a choice
                not on offer...); nothing is recorded then, and the log is unchanged.
        """
        try:
            log = self._log.record(item, time)
        except ValueError as exc:
            raise RecordError(f"log entry {len(self._log.entries)}: {exc}") from exc
        if amends_the_past(item):
            fold = fold_log(log, self._table)
        else:
            fold = fold_entry(self._game, self._fold, log.entries[-1])
        self._log, self._fold = log, fold
        return fold.timeline

    def undo(self, seq: int, reason: str, time: float) -> Timeline:
        """Cancel entry ``seq`` (with a reason for the record) and re-derive the timeline.

        Raises:
            RecordError: no entry ``seq``, no reason, or the log cannot be played without it.
        """
        if not 0 <= seq < len(self._log.entries):
            last = len(self._log.entries) - 1
            raise RecordError(f"undo of entry {seq}: the log has entries 0 to {last}")
        try:
            item = Undo(seq, reason)
        except ValueError as exc:
            raise RecordError(f"undo of entry {seq}: {exc}") from exc
        return self.record(item, time)
