"""Invariants of the referee over random 9-ball racks played through the log."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.balls import NINE_BALL_SET, OBJECT_BALLS, BallId
from rules.games import game_for
from rules.inputs import CallShot, Decision, OperatorFoul, PushOut, Safety, ShotInputs, Undo
from rules.log import GameLog, replay, start_log
from rules.referee import Referee
from rules.ruling import FoulKind
from rules.shot import Layout, Shot
from rules.state import GameOptions, GameState, Phase
from rules.table import CushionId, PocketId
from tests.factories import TABLE_9FT, ShotBuilder, break_shot, eight_ball_rack

POCKETS = list(PocketId)
CUSHIONS = list(CushionId)

plans = st.fixed_dictionaries(
    {
        "first": st.integers(0, 8),
        "lowest": st.booleans(),
        "pockets": st.lists(st.integers(0, 8), max_size=2, unique=True),
        "scratch": st.booleans(),
        "cushion": st.booleans(),
        "push": st.booleans(),
        "choice": st.integers(0, 2),
    }
)


def _shot(state: GameState, plan: dict, index: int) -> Shot:
    balls = state.on_table
    first = balls[0] if plan["lowest"] else balls[plan["first"] % len(balls)]
    b = ShotBuilder(index=index, clock=float(index)).strike(t=float(index)).hit(first)
    if plan["cushion"]:
        b.cushion(first, CUSHIONS[plan["first"] % len(CUSHIONS)])
    for i, rank in enumerate(plan["pockets"]):
        b.pocket(balls[rank % len(balls)], POCKETS[(rank + i) % len(POCKETS)])
    if plan["scratch"]:
        b.pocket("cue", PocketId.HEAD_LEFT)
    return b.build()


OPENINGS = {
    "9-ball": break_shot(index=0, pocket=(("2", PocketId.FOOT_LEFT),)),
    "8-ball": break_shot(index=0, pocket=(("2", PocketId.FOOT_LEFT),), rack=eight_ball_rack()),
}


@st.composite
def racks(draw) -> GameLog:
    """A random 9-ball or 8-ball rack (possibly unfinished) as a log."""
    name = draw(st.sampled_from(sorted(OPENINGS)))
    game = game_for(name, TABLE_9FT)
    log = start_log(name, ("Ann", "Bob"))
    opening = OPENINGS[name]
    log = log.record(opening, 0.0)
    state = game.start(("Ann", "Bob"), log.options)
    state = game.advance(state, game.judge(state, opening, ShotInputs()))
    for index in range(1, draw(st.integers(1, 14))):
        if state.over:
            break
        plan = draw(plans)
        if state.choices:
            choice = state.choices[plan["choice"] % len(state.choices)]
            log = log.record(Decision(choice), float(index) - 0.5)
            state = game.choose(state, choice)
            if state.phase is Phase.BREAK:
                break  # re-racked: the rack this log describes has ended
        if plan["push"]:
            log = log.record(PushOut(), float(index) - 0.2)
        shot = _shot(state, plan, index)
        log = log.record(shot, float(index))
        state = game.advance(state, game.judge(state, shot, ShotInputs(push_out=plan["push"])))
    return log


@settings(max_examples=25, deadline=None)
@given(racks())
def test_a_shot_with_the_cue_ball_pocketed_is_never_legal_rule_3_20(log: GameLog) -> None:
    timeline = replay(log, TABLE_9FT)
    shots = {e.item.index: e.item for e in log.entries if isinstance(e.item, Shot)}
    for ruling in timeline.rulings:
        shot = shots[ruling.shot_index]
        if BallId.CUE in shot.pocketed:
            assert not ruling.legal


@settings(max_examples=25, deadline=None)
@given(racks())
def test_exactly_one_player_is_at_the_table_and_fouls_credit_nothing_rule_3_17(
    log: GameLog,
) -> None:
    timeline = replay(log, TABLE_9FT)
    state = timeline.state
    assert state.shooter in (0, 1)
    full = NINE_BALL_SET if log.game == "9-ball" else OBJECT_BALLS
    assert set(state.on_table) <= set(full)
    for ruling in timeline.rulings:
        assert ruling.next_player in (0, 1)
        assert set(ruling.credited) <= set(ruling.pocketed)
        if ruling.foul is not None:  # 3.17: nothing pocketed on a foul counts
            assert ruling.credited == () and ruling.winner != ruling.shooter
        assert ruling.chooser is None or ruling.chooser != ruling.shooter
        if ruling.winner is not None:
            assert ruling is timeline.rulings[-1]
    if state.over:
        assert state.winner in (0, 1)


@settings(max_examples=25, deadline=None)
@given(racks())
def test_state_is_the_fold_of_the_log(log: GameLog) -> None:
    whole = replay(log, TABLE_9FT)
    assert replay(log, TABLE_9FT) == whole  # deterministic
    # The generator folded the same entries step by step through the game's pure functions.
    game = game_for(log.game, TABLE_9FT)
    state = game.start(("Ann", "Bob"), log.options)
    pending = ShotInputs()
    for entry in log.entries:
        item = entry.item
        if isinstance(item, PushOut):
            pending = ShotInputs(push_out=True)
        elif isinstance(item, Decision):
            state = game.choose(state, item.choice)
        else:
            state = game.advance(state, game.judge(state, item, pending))
            pending = ShotInputs()
    assert state == whole.state
    # And a log cut anywhere replays to a prefix of the same rulings.
    cut = GameLog(log.game, log.players, log.options, log.entries[: len(log.entries) // 2])
    part = replay(cut, TABLE_9FT)
    assert part.rulings == whole.rulings[: len(part.rulings)]


@settings(max_examples=25, deadline=None)
@given(racks(), st.data())
def test_undo_then_redo_gives_the_same_state(log: GameLog, data) -> None:
    before = replay(log, TABLE_9FT)
    target = data.draw(st.integers(0, len(log.entries) - 1))
    undone = log.undo(target, "operator: wrong entry", time=99.0)
    try:
        replay(undone, TABLE_9FT)
    except Exception as exc:  # undoing an entry can leave a log that cannot be played
        assert type(exc).__name__ == "RecordError"
    redone = undone.record(Undo(undone.last_seq, "operator: put it back"), time=100.0)
    after = replay(redone, TABLE_9FT)
    assert after.state == before.state and after.rulings == before.rulings


def test_undo_of_the_last_shot_restores_the_state_before_it() -> None:
    log = start_log("9-ball", ("Ann", "Bob"))
    log = log.record(break_shot(index=0), 0.0)
    before = replay(log, TABLE_9FT)
    log = log.record(ShotBuilder(index=1).strike().hit("4").build(), 1.0)
    assert replay(log, TABLE_9FT).state != before.state
    undone = replay(log.undo(1, "tracking split one shot in two", 2.0), TABLE_9FT)
    assert undone.state == before.state
    assert any("cancelled" in n for n in undone.notes)


def test_undo_must_name_an_earlier_entry() -> None:
    log = start_log("9-ball", ("Ann", "Bob"))
    with pytest.raises(ValueError, match="undoes entry 0, not an earlier one"):
        log.undo(0, "nothing to undo", 0.0)


@settings(max_examples=25, deadline=None)
@given(racks())
def test_the_live_referee_folding_one_entry_at_a_time_matches_a_full_replay(log: GameLog) -> None:
    live = Referee.new(log.game, ("Ann", "Bob"), TABLE_9FT, log.options)
    for entry in log.entries:
        live.record(entry.item, entry.time)
    assert live.log == log
    assert live.timeline == replay(log, TABLE_9FT)


# 14.1 continuous ---------------------------------------------------------------------------

straight_plans = st.fixed_dictionaries(
    {
        # Mostly balls made, so that games reach the 14th ball and the target.
        "kind": st.sampled_from(
            ["pot"] * 8
            + ["pot-extra"] * 4
            + ["uncalled", "safe", "foul", "scratch", "safety", "deliberate"]
        ),
        "rank": st.integers(0, 14),
        "legal_break": st.booleans(),
        "choice": st.integers(0, 1),
    }
)


def _straight_rest(state: GameState, potted: tuple[BallId, ...], rank: int) -> Layout:
    left = [b for b in state.on_table if b not in potted]
    where = {b: (-200.0 + 60.0 * i, -450.0) for i, b in enumerate(left)}
    where[BallId.CUE] = (-300.0 + 40.0 * (rank % 3), 350.0)
    return Layout.of(where)


def _straight_shot(state: GameState, plan: dict, index: int) -> tuple[list, Shot]:
    """The inputs before a shot and the shot, for one random plan."""
    balls = state.on_table
    kind = plan["kind"]
    b = ShotBuilder(index=index, clock=float(index)).strike(t=float(index))
    if state.phase is Phase.BREAK:
        b.crossed_head_string().hit(balls[0])
        for i in range(2 if plan["legal_break"] else 1):
            b.cushion(balls[i + 1], CUSHIONS[i])
        b.cushion("cue", CushionId.FOOT)
        if kind == "scratch":
            b.pocket("cue", PocketId.HEAD_LEFT)
        return [], b.build(at_rest=_straight_rest(state, (), plan["rank"]))
    ball = balls[plan["rank"] % len(balls)]
    if kind == "foul":
        return [], b.cushion("cue", CushionId.HEAD).build()
    b.hit(ball)
    potted: tuple[BallId, ...] = ()
    if kind in ("pot", "pot-extra", "uncalled", "scratch", "safety", "deliberate"):
        b.pocket(ball, PocketId.FOOT_LEFT)
        potted = (ball,)
    else:
        b.cushion(ball, CushionId.FOOT)
    if kind == "pot-extra" and len(balls) > 1:
        extra = balls[(plan["rank"] + 1) % len(balls)]
        b.pocket(extra, PocketId.SIDE_LEFT)
        potted += (extra,)
    if kind == "scratch":
        b.pocket("cue", PocketId.HEAD_RIGHT)
    before: list = []
    if kind == "uncalled":
        before.append(CallShot(ball, PocketId.FOOT_RIGHT))
    elif kind != "safe":
        before.append(CallShot(ball, PocketId.FOOT_LEFT))
    if kind == "safety":
        before.append(Safety())
    return before, b.build(at_rest=_straight_rest(state, potted, plan["rank"]))


@st.composite
def straight_games(draw) -> Referee:
    """A random 14.1 game (possibly unfinished) played through the live referee."""
    options = GameOptions(breaker=draw(st.integers(0, 1)), target_points=draw(st.integers(5, 25)))
    referee = Referee.new("14.1", ("Ann", "Bob"), TABLE_9FT, options)
    for index in range(draw(st.integers(1, 30))):
        state = referee.state
        if state.over:
            break
        plan = draw(straight_plans)
        t = float(index)
        if state.choices:
            choice = state.choices[plan["choice"] % len(state.choices)]
            referee.record(Decision(choice), t - 0.5)
            state = referee.state
        before, shot = _straight_shot(state, plan, index)
        for item in before:
            referee.record(item, t - 0.2)
        referee.record(shot, t)
        if plan["kind"] == "deliberate" and not referee.state.over:
            referee.record(OperatorFoul(FoulKind.DELIBERATE, state.shooter, shot=index), t + 0.1)
    return referee


@settings(max_examples=15, deadline=None)
@given(straight_games())
def test_a_14_1_score_is_the_credited_balls_minus_the_penalties_rule_6_13(
    referee: Referee,
) -> None:
    timeline = referee.timeline
    for player in (0, 1):
        credited = sum(len(r.credited) for r in timeline.rulings if r.shooter == player)
        gains = sum(
            c.points
            for r in timeline.rulings
            for c in r.score
            if c.player == player and c.points > 0
        )
        penalties = sum(
            c.points
            for r in timeline.rulings
            for c in r.score
            if c.player == player and c.points < 0
        )
        assert gains == credited
        assert timeline.state.scores[player] == credited + penalties


@settings(max_examples=15, deadline=None)
@given(straight_games())
def test_in_14_1_exactly_one_player_is_at_the_table_and_fouls_credit_nothing_rule_6_11(
    referee: Referee,
) -> None:
    timeline = referee.timeline
    state = timeline.state
    assert state.shooter in (0, 1)
    assert state.over or len(state.on_table) >= 2  # the 14th ball always brings a re-rack
    for ruling in timeline.rulings:
        assert ruling.next_player in (0, 1)
        assert set(ruling.credited) <= set(ruling.pocketed)
        if ruling.foul is not None:
            assert ruling.credited == () and ruling.next_player != ruling.shooter
            assert all(c.points < 0 for c in ruling.score)
        if ruling.winner is not None:
            assert ruling.winner == ruling.shooter and ruling is timeline.rulings[-1]
    if state.over:
        assert state.scores[state.winner] >= state.options.target_points
    assert replay(referee.log, TABLE_9FT) == timeline
