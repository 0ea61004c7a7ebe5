"""The match: a race to a number of racks (or of points in 14.1), who breaks each rack, and
time-outs (rules 3.7, 3.36, 4.4, 5.3, 6.1, 1.13).

`Match` is an immutable value: `Match.start` after the lag, then `record_rack` (or
`record_points` in 14.1) returns the next state; `next_breaker`, `is_over` and `winner` read it.

Break order: the lag winner (3.6) breaks the first rack or hands the break to the opponent
(3.7, 4.4, 5.3). Later racks: the winner of a rack breaks the next (3.36), unless the
tournament chose in advance (3.36 a-c, 4.4 a-b, 5.3 a-b): the players alternate, the loser
breaks, or the player behind in racks breaks. When the "player behind" option meets a tied
score the option says nothing and the 3.36 default (the winner) applies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from rules.errors import RailbirdError

TIME_OUT_LIMIT_S = 300.0
"""Rule 1.13: a time-out lasts five minutes at most."""


class MatchError(RailbirdError):
    """A match was asked something its state does not allow (a rack after the match is over,
    an unknown player, a time-out not due), with what and why in the message."""


class BreakOrder(StrEnum):
    """Who breaks the racks after the first (rules 3.36, 4.4, 5.3)."""

    WINNER = "winner"
    """The winner of a rack breaks the next (3.36; the default of 4.4 and 5.3)."""
    ALTERNATE = "alternate"
    """The players break in turn (3.36 a, 4.4 a, 5.3 a)."""
    LOSER = "loser"
    """The loser of a rack breaks the next (3.36 b, 4.4 b, 5.3 b)."""
    BEHIND = "behind"
    """The player behind in racks breaks (3.36 c)."""

    @property
    def rule(self) -> str:
        """The rule that sets this order."""
        return {"winner": "3.36", "alternate": "3.36(a)", "loser": "3.36(b)"}.get(
            self.value, "3.36(c)"
        )


class MatchUnit(StrEnum):
    """What the race counts."""

    RACKS = "racks"
    POINTS = "points"
    """14.1: points, to 150 or an agreed number (6.1)."""


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """How a match is played.

    Attributes:
        race_to: Racks to win a set (or the match, without sets); points in 14.1.
        unit: Racks, or points for 14.1 continuous.
        break_order: Who breaks after the first rack (3.36, 4.4, 5.3).
        sets_to: Sets to win the match; None for a match without sets.
        time_outs: Time-outs per player per match, 0 when not allowed (1.13: one).
        time_out_limit_s: Longest time-out (1.13: five minutes).
    """

    race_to: int = 7
    unit: MatchUnit = MatchUnit.RACKS
    break_order: BreakOrder = BreakOrder.WINNER
    sets_to: int | None = None
    time_outs: int = 1
    time_out_limit_s: float = TIME_OUT_LIMIT_S

    def __post_init__(self) -> None:
        if self.race_to < 1:
            raise ValueError(f"match: race_to must be 1 or more, not {self.race_to}")
        if self.sets_to is not None and self.sets_to < 1:
            raise ValueError(f"match: sets_to must be 1 or more, not {self.sets_to}")
        if self.sets_to is not None and self.unit is MatchUnit.POINTS:
            raise ValueError("match: a 14.1 match to points is not played in sets")
        if self.time_outs < 0 or self.time_out_limit_s <= 0:
            raise ValueError("match: time-outs and their limit cannot be negative")


@dataclass(frozen=True, slots=True)
class RackRecord:
    """One rack played in the match.

    Attributes:
        set_index: The set it belonged to, from 0.
        breaker: Who broke.
        winner: Who won; None for a rack replayed with the same breaker (3.35, 4.21).
    """

    set_index: int
    breaker: str
    winner: str | None


@dataclass(frozen=True, slots=True)
class TimeOutTaken:
    """One time-out (rule 1.13).

    Attributes:
        player: Who took it.
        started_at: Session time it began.
        ended_at: Session time play resumed; None while it lasts.
        deciding_set: Taken in the deciding set, where each player has one more (1.13).
    """

    player: str
    started_at: float
    ended_at: float | None = None
    deciding_set: bool = False

    def __post_init__(self) -> None:
        if self.ended_at is not None and self.ended_at < self.started_at:
            raise ValueError(f"time-out of {self.player!r} ends before it starts")


@dataclass(frozen=True, slots=True)
class Match:
    """A match between two players, as an immutable value.

    Attributes:
        config: How it is played.
        players: The two players.
        breaker: Who breaks the next rack (or the rack under way).
        racks: Every rack played, in order.
        sets: The winner of each finished set, in order.
        points: Points of each player, in ``players`` order (14.1; may be negative, 6.13).
        rack_in_progress: A rack is being played (time-outs only between racks, 1.13).
        time_outs: Every time-out taken, in order.
    """

    config: MatchConfig
    players: tuple[str, str]
    breaker: str
    racks: tuple[RackRecord, ...] = ()
    sets: tuple[str, ...] = ()
    points: tuple[int, int] = (0, 0)
    rack_in_progress: bool = False
    time_outs: tuple[TimeOutTaken, ...] = ()

    def __post_init__(self) -> None:
        a, b = self.players
        if a == b:
            raise ValueError(f"a match is between two players, not {a!r} twice")
        if self.breaker not in self.players:
            raise ValueError(f"the breaker {self.breaker!r} does not play in this match")

    @classmethod
    def start(
        cls,
        config: MatchConfig,
        players: tuple[str, str],
        lag_winner: str,
        lag_winner_breaks: bool = True,
    ) -> Match:
        """A new match after the lag: its winner breaks the first rack or gives the break to
        the opponent (rules 3.7, 4.4, 5.3).

        Raises:
            MatchError: the players are one person, or the lag winner is not one of them.
        """
        try:
            match = cls(config, players, lag_winner)
        except ValueError as exc:
            raise MatchError(f"cannot start the match: {exc}") from None
        return match if lag_winner_breaks else replace(match, breaker=match.opponent(lag_winner))

    # Score -------------------------------------------------------------------------------------

    def racks_won(self, player: str, set_index: int | None = None) -> int:
        """Racks ``player`` won in a set (the current one by default)."""
        index = len(self.sets) if set_index is None else set_index
        return sum(1 for r in self.racks if r.set_index == index and r.winner == player)

    def sets_won(self, player: str) -> int:
        """Sets ``player`` won."""
        return self.sets.count(player)

    def points_of(self, player: str) -> int:
        """Points of ``player`` (14.1)."""
        return self.points[self._seat(player)]

    @property
    def deciding_set(self) -> bool:
        """Each player needs one more set: the set under way decides the match (1.13)."""
        needed = self.config.sets_to
        return needed is not None and all(self.sets_won(p) == needed - 1 for p in self.players)

    @property
    def winner(self) -> str | None:
        """The player who won the match, or None while it goes on."""
        config = self.config
        for player in self.players:
            if config.unit is MatchUnit.POINTS:
                won = self.points_of(player) >= config.race_to
            elif config.sets_to is not None:
                won = self.sets_won(player) >= config.sets_to
            else:
                won = self.racks_won(player, 0) >= config.race_to
            if won:
                return player
        return None

    @property
    def is_over(self) -> bool:
        """The match has a winner."""
        return self.winner is not None

    @property
    def next_breaker(self) -> str:
        """Who breaks the next rack (rules 3.7, 3.36, 4.4, 5.3)."""
        return self.breaker

    def opponent(self, player: str) -> str:
        """The other player."""
        return self.players[1 - self._seat(player)]

    # Racks and points --------------------------------------------------------------------------

    def begin_rack(self) -> Match:
        """The next rack is under way (its break is about to be played).

        Raises:
            MatchError: the match is over or a rack or time-out is under way.
        """
        self._check_playing("begin a rack")
        if self.rack_in_progress:
            raise MatchError("a rack is already under way")
        if self.running_time_out is not None:
            raise MatchError("a time-out is under way: end it before the rack begins")
        return replace(self, rack_in_progress=True)

    def record_rack(self, winner: str) -> Match:
        """``winner`` won the rack: the score, the set and the next breaker follow.

        Raises:
            MatchError: the match is over, is played to points, or ``winner`` does not play.
        """
        self._check_playing("record a rack")
        if self.running_time_out is not None:
            raise MatchError("a time-out is under way: no rack can have been played")
        if self.config.unit is MatchUnit.POINTS:
            raise MatchError("a 14.1 match counts points: use record_points")
        self._seat(winner)
        record = RackRecord(len(self.sets), self.breaker, winner)
        played = replace(self, racks=(*self.racks, record), rack_in_progress=False)
        if played.racks_won(winner) >= self.config.race_to and self.config.sets_to is not None:
            played = replace(played, sets=(*played.sets, winner))
        return replace(played, breaker=played._breaker_after(record))

    def replay_rack(self) -> Match:
        """The rack is replayed with the same breaker (3.35 interference, 4.21 stalemate).

        Raises:
            MatchError: the match is over.
        """
        self._check_playing("replay a rack")
        record = RackRecord(len(self.sets), self.breaker, None)
        return replace(self, racks=(*self.racks, record), rack_in_progress=False)

    def record_points(self, player: str, points: int) -> Match:
        """Add ``points`` (negative for penalties, 6.13) to ``player``'s score in 14.1 (6.1).

        Raises:
            MatchError: the match is over, is played to racks, or ``player`` does not play.
        """
        self._check_playing("record points")
        if self.config.unit is not MatchUnit.POINTS:
            raise MatchError("this match counts racks: use record_rack")
        seat = self._seat(player)
        scores = list(self.points)
        scores[seat] += points
        return replace(self, points=(scores[0], scores[1]))

    def record_game(self, winner: str, points: tuple[int, int]) -> Match:
        """A 14.1 game ended, ``winner`` reaching its target: both players' points of the game
        (in ``players`` order, negative allowed, 6.13) go to the match at once (6.1), and the
        break of a next game follows the break order (in points for "player behind").

        Raises:
            MatchError: the match is over, is played to racks, or ``winner`` does not play.
        """
        self._check_playing("record a game")
        if self.config.unit is not MatchUnit.POINTS:
            raise MatchError("this match counts racks: use record_rack")
        self._seat(winner)
        record = RackRecord(len(self.sets), self.breaker, winner)
        scores = (self.points[0] + points[0], self.points[1] + points[1])
        played = replace(self, racks=(*self.racks, record), points=scores, rack_in_progress=False)
        return replace(played, breaker=played._breaker_after(record))

    # Time-outs ---------------------------------------------------------------------------------

    @property
    def running_time_out(self) -> TimeOutTaken | None:
        """The time-out under way, if any."""
        last = self.time_outs[-1] if self.time_outs else None
        return last if last is not None and last.ended_at is None else None

    def time_outs_left(self, player: str) -> int:
        """Time-outs ``player`` may still take now (1.13: one per match, and one in the
        deciding set whatever was taken before)."""
        deciding = self.deciding_set
        taken = sum(1 for x in self.time_outs if x.player == player and x.deciding_set == deciding)
        return max(0, self.config.time_outs - taken)

    def take_time_out(self, player: str, t: float) -> Match:
        """``player`` takes a time-out at session time ``t`` (rule 1.13): only at his turn at
        the table between racks or sets.

        Raises:
            MatchError: time-outs are not allowed or none is left, a rack or another time-out is
                under way, the match is over, or it is not ``player``'s turn to break.
        """
        self._check_playing("take a time-out")
        self._seat(player)
        if self.rack_in_progress:
            raise MatchError(f"{player!r} cannot take a time-out during a rack (1.13)")
        if self.running_time_out is not None:
            raise MatchError("a time-out is already under way")
        if player != self.breaker:
            raise MatchError(f"{player!r} may take a time-out only at his turn at the table")
        if self.time_outs_left(player) == 0:
            raise MatchError(f"{player!r} has no time-out left (1.13)")
        time_out = TimeOutTaken(player, t, deciding_set=self.deciding_set)
        return replace(self, time_outs=(*self.time_outs, time_out))

    def end_time_out(self, t: float) -> Match:
        """Play resumes at session time ``t``.

        Raises:
            MatchError: no time-out is under way, or ``t`` is before it began.
        """
        running = self.running_time_out
        if running is None:
            raise MatchError("no time-out is under way")
        if t < running.started_at:
            raise MatchError(f"a time-out cannot end at {t} s, before it began")
        return replace(self, time_outs=(*self.time_outs[:-1], replace(running, ended_at=t)))

    def time_out_remaining(self, t: float) -> float | None:
        """Seconds left of the time-out under way at ``t`` (0 once over the limit), or None."""
        running = self.running_time_out
        if running is None:
            return None
        return max(0.0, self.config.time_out_limit_s - (t - running.started_at))

    # Internals ---------------------------------------------------------------------------------

    def _seat(self, player: str) -> int:
        if player not in self.players:
            raise MatchError(f"{player!r} does not play in this match ({', '.join(self.players)})")
        return self.players.index(player)

    def _check_playing(self, what: str) -> None:
        if self.is_over:
            raise MatchError(f"cannot {what}: the match is over, {self.winner!r} won")

    def _breaker_after(self, record: RackRecord) -> str:
        winner = record.winner or record.breaker
        order = self.config.break_order
        if order is BreakOrder.ALTERNATE:
            return self.opponent(record.breaker)
        if order is BreakOrder.LOSER:
            return self.opponent(winner)
        if order is BreakOrder.BEHIND:
            if self.config.unit is MatchUnit.POINTS:
                a, b = self.points
            else:
                a, b = (self.racks_won(p) for p in self.players)
            if a != b:
                return self.players[0] if a < b else self.players[1]
        return winner
