"""What the scoreboard shows: one frozen `ScoreboardState`, built by a pure function.

The live loop builds a state after every change (a ruling, an operator input, a clock tick, a
sensor or camera status change) with `scoreboard_state` and publishes it on the `Hub`; the web
page only renders it. Nothing here reads a clock or a device.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.balls import BallGroup, BallId
from rules.inputs import CallShot, PushOut, Safety
from rules.log import GameLog, Timeline, active_entries
from rules.match import Match, MatchUnit
from rules.ruling import BallInHand, Choice, Ruling
from rules.shot import Shot
from rules.shot_clock import ClockReading

POINTS_GAME = "14.1"
"""The game scored in points (6.1) rather than racks."""

LOG_TAIL = 8
"""How many recent log entries the console lists (to pick one to undo)."""


@dataclass(frozen=True, slots=True)
class LastCall:
    """The referee's newest call, as one line with its rule.

    Attributes:
        headline: What was called (``"Foul: scratch"``, ``"Legal shot"``).
        rule: The WPA rule number it rests on (empty when the ruling names none).
        reason: One line a player understands.
        legal: No foul was applied.
        shooter: The player who shot.
        shot_index: The shot judged; None for a foul between shots.
    """

    headline: str
    rule: str
    reason: str
    legal: bool
    shooter: str
    shot_index: int | None


@dataclass(frozen=True, slots=True)
class Notice:
    """A warning to give (2.16, 2.21) or a reason to review (2.14), with its rule."""

    rule: str
    text: str


@dataclass(frozen=True, slots=True)
class LogLine:
    """One log entry as the console lists it (so the operator can undo it by ``seq``)."""

    seq: int
    time: float
    text: str
    cancelled: bool


@dataclass(frozen=True, slots=True)
class ScoreboardState:
    """Everything the scoreboard and the console show at one moment.

    Attributes:
        game: The game (``"9-ball"``).
        players: The two players.
        score: Racks won in the current set, or points in 14.1 (per player).
        unit: What ``score`` counts (``"racks"`` or ``"points"``).
        race_to: Racks (or points) needed; None without a match.
        sets: Sets won per player; None for a match without sets.
        rack: The number of the rack being played, from 1.
        shooter: The player at the table (index).
        breaker: Who broke this rack (index).
        ball_in_hand: Where the shooter may place the cue ball.
        on_table: Object balls in play.
        groups: 8-ball groups per player, once decided (4.10).
        declared: What is declared for the next shot (``"9 in foot-left"``, ``"safety"``...).
        last_call: The newest call, None before the first.
        warnings: Warnings to give now (2.16, 2.21).
        reviews: Reasons a human should confirm the last call (2.14).
        fouls_in_a_row: Consecutive fouls per player (5.13, 6.12).
        choices: Options open to ``chooser`` before play goes on.
        chooser: Who chooses (index), None when nobody has to.
        game_over: The rack (game) has ended.
        winner: Who won the rack, if anyone.
        match_winner: Who won the match, if it is over.
        clock: The shot clock; None when no shot clock is used.
        extensions_used: Per player: the shot-clock extension is taken this rack (1.11).
        sensors: Pocket-sensor status in a few words (``"ok"``, ``"down: vision only"``).
        camera: Camera status in a few words.
        log: The newest log entries, oldest first.
        next_breaker: Who breaks the next rack (index; 3.36), once the rack is over and the
            match goes on: the console's "rack ready" starts it. None otherwise.
        time_out: The player in a time-out (1.13), None when none is under way.
        time_out_left_s: Seconds left of that time-out (0 once its five minutes are over,
            1.13); None without one or without the time.
    """

    game: str
    players: tuple[str, str]
    score: tuple[int, int]
    unit: str
    race_to: int | None
    sets: tuple[int, int] | None
    rack: int
    shooter: int
    breaker: int
    ball_in_hand: BallInHand
    on_table: tuple[BallId, ...]
    groups: tuple[BallGroup, ...]
    declared: str
    last_call: LastCall | None
    warnings: tuple[Notice, ...]
    reviews: tuple[Notice, ...]
    fouls_in_a_row: tuple[int, int]
    choices: tuple[Choice, ...]
    chooser: int | None
    game_over: bool
    winner: str | None
    match_winner: str | None
    clock: ClockReading | None
    extensions_used: tuple[bool, bool]
    sensors: str
    camera: str
    log: tuple[LogLine, ...]
    next_breaker: int | None = None
    time_out: str | None = None
    time_out_left_s: float | None = None


def scoreboard_state(
    timeline: Timeline,
    log: GameLog | None = None,
    match: Match | None = None,
    clock: ClockReading | None = None,
    sensors: str = "ok",
    camera: str = "ok",
    now: float | None = None,
) -> ScoreboardState:
    """The scoreboard for the game ``timeline`` (the referee's fold of ``log``) in ``match``.

    Args:
        timeline: The referee's timeline (`rules.referee.Referee.timeline`).
        log: The game's log, for the declarations of the next shot and the console's list of
            entries; None shows neither.
        match: The match the game belongs to (the same two players, in any order); None takes
            the timeline's own (a log that holds a match), and without one shows the game alone
            (score 0-0, rack 1).
        clock: The shot clock now; None when no shot clock is used.
        sensors: Pocket-sensor status in a few words.
        camera: Camera status in a few words.
        now: Session time now, for what is left of a time-out; None leaves it out.

    Raises:
        ValueError: the match is between other players than the game.
    """
    state = timeline.state
    players = (state.players[0], state.players[1])
    match = match if match is not None else timeline.match
    last = timeline.rulings[-1] if timeline.rulings else None
    # A rack won is in the match at once (rules.log): its number and points are counted there.
    counted = state.over and state.winner is not None
    running = (0, 0) if counted else state.scores
    score, unit, race_to, sets, rack = _match_score(match, players, running)
    if counted and match is not None and match.racks:
        rack -= 1
    next_breaker = None
    if counted and match is not None and not match.is_over:
        next_breaker = players.index(match.next_breaker)
    time_out, time_out_left_s = None, None
    if match is not None and match.running_time_out is not None:
        time_out = match.running_time_out.player
        time_out_left_s = None if now is None else match.time_out_remaining(now)
    if match is None and state.game == POINTS_GAME:
        # 14.1 alone: the game's own points toward its target (6.1).
        score, unit, race_to = (
            (state.scores[0], state.scores[1]),
            MatchUnit.POINTS.value,
            (state.options.target_points),
        )
    winner = None if state.winner is None else players[state.winner]
    return ScoreboardState(
        game=state.game,
        players=players,
        score=score,
        unit=unit,
        race_to=race_to,
        sets=sets,
        rack=rack,
        shooter=state.shooter,
        breaker=state.breaker,
        ball_in_hand=state.ball_in_hand,
        on_table=state.on_table,
        groups=state.groups,
        declared=_declared(log) if log is not None else "",
        last_call=None if last is None else last_call(last, players),
        warnings=() if last is None else tuple(Notice(w.rule, w.text) for w in last.warnings),
        reviews=() if last is None else tuple(Notice(r.rule, r.reason) for r in last.reviews),
        fouls_in_a_row=(state.fouls_in_a_row[0], state.fouls_in_a_row[1]),
        choices=state.choices,
        chooser=state.chooser,
        game_over=state.over,
        winner=winner,
        match_winner=None if match is None else match.winner,
        clock=clock,
        extensions_used=(state.extensions_used[0], state.extensions_used[1]),
        sensors=sensors,
        camera=camera,
        log=_log_tail(log) if log is not None else (),
        next_breaker=next_breaker,
        time_out=time_out,
        time_out_left_s=time_out_left_s,
    )


def last_call(ruling: Ruling, players: tuple[str, str]) -> LastCall:
    """A ruling as one line: the applied foul (3.30) with its rule and reason, else the
    ruling's first note (``"5.4: legal break"``) split into rule and text."""
    shooter = players[ruling.shooter]
    if ruling.foul is not None:
        foul = ruling.foul
        headline = f"Foul: {foul.kind.value.replace('-', ' ')}"
        return LastCall(headline, foul.rule, foul.reason, False, shooter, ruling.shot_index)
    # The first note says what the shot was; when it ended the game the last one says how.
    note = (ruling.notes[-1] if ruling.game_over else ruling.notes[0]) if ruling.notes else ""
    rule, _, text = note.partition(": ")
    if not text or not rule[:1].isdigit():
        rule, text = "", note
    if ruling.game_over and ruling.winner is not None:
        headline = f"{players[ruling.winner]} wins the rack"
    elif ruling.push_out:
        headline = "Push-out"
    elif ruling.safety:
        headline = "Safety"
    else:
        headline = "Legal shot"
    return LastCall(headline, rule, text or "no foul", True, shooter, ruling.shot_index)


def _match_score(
    match: Match | None, players: tuple[str, str], points: tuple[int, ...]
) -> tuple[tuple[int, int], str, int | None, tuple[int, int] | None, int]:
    """Score, unit, race, sets and rack number, in the game's player order. In 14.1 the score
    is the match's points of earlier games plus the running score of the game (6.1)."""
    if match is None:
        return (0, 0), MatchUnit.RACKS.value, None, None, 1
    if set(players) != set(match.players):
        raise ValueError(f"the game's players {players} are not the match's {match.players}")
    a, b = players
    config = match.config
    sets = None if config.sets_to is None else (match.sets_won(a), match.sets_won(b))
    rack = len(match.racks) + 1
    if config.unit is MatchUnit.POINTS:
        score = (match.points_of(a) + points[0], match.points_of(b) + points[1])
        return score, config.unit.value, config.race_to, None, rack
    return (match.racks_won(a), match.racks_won(b)), config.unit.value, config.race_to, sets, rack


def _declared(log: GameLog) -> str:
    """What is declared for the next shot: the active declarations after the last shot."""
    said: list[str] = []
    for entry in active_entries(log.entries):
        item = entry.item
        if isinstance(item, Shot):
            said = []
        elif isinstance(item, CallShot):
            said = [s for s in said if " in " not in s] + [f"{item.ball} in {item.pocket}"]
        elif isinstance(item, Safety | PushOut) and item.kind.value not in said:
            said.append(item.kind.value)
    return ", ".join(said)


def _log_tail(log: GameLog) -> tuple[LogLine, ...]:
    active = {e.seq for e in active_entries(log.entries)}
    return tuple(
        LogLine(e.seq, e.time, _describe(e.item), e.seq not in active)
        for e in log.entries[-LOG_TAIL:]
    )


def _describe(item: object) -> str:
    if isinstance(item, Shot):
        return f"shot {item.index}"
    fields = getattr(item, "__dataclass_fields__", {})
    details = ", ".join(
        f"{name}={getattr(item, name)}"
        for name in fields
        if name not in ("kind", "record", "fouls") and getattr(item, name) not in (None, "")
    )
    kind = getattr(item, "kind", type(item).__name__)
    return f"{kind} ({details})" if details else str(kind)
