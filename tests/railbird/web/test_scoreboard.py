"""ScoreboardState: what the scoreboard shows, built from the referee's timeline and the match."""

from __future__ import annotations

import pytest

from railbird.web.scoreboard import LOG_TAIL, Notice, scoreboard_state
from rules.balls import BallId
from rules.codec import from_jsonable, to_jsonable
from rules.inputs import CallShot, PushOut, RackReady, Safety, TimeOut
from rules.log import Timeline
from rules.match import BreakOrder, Match, MatchConfig, MatchUnit
from rules.referee import Referee
from rules.ruling import BallInHand, Choice, Review, Ruling
from rules.shot_clock import ClockPhase, ClockReading
from rules.state import GameOptions
from rules.table import PocketId
from tests.factories import TABLE_9FT, ShotBuilder, break_shot, miss, shot_at
from tests.rules.test_straight_pool import opening_break


def _referee() -> Referee:
    return Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT)


def test_before_the_break_the_breaker_has_ball_in_hand_in_the_kitchen_rule_3_8() -> None:
    board = scoreboard_state(_referee().timeline)
    assert board.players == ("Ann", "Bob")
    assert (board.score, board.rack, board.race_to, board.sets) == ((0, 0), 1, None, None)
    assert board.shooter == board.breaker == 0
    assert board.ball_in_hand is BallInHand.KITCHEN
    assert board.last_call is None and board.warnings == () and board.reviews == ()
    assert board.clock is None and board.log == () and board.declared == ""
    assert board.on_table == tuple(BallId(str(n)) for n in range(1, 10))


def test_a_scratch_shows_the_foul_with_rule_3_20_and_ball_in_hand_rule_5_7() -> None:
    ref = _referee()
    ref.record(break_shot(index=0, pocket=(("2", PocketId.FOOT_LEFT),)), 0.0)
    ref.record(shot_at("1", index=1, scratch=PocketId.FOOT_LEFT), 1.0)
    board = scoreboard_state(ref.timeline, ref.log)
    call = board.last_call
    assert call is not None
    assert (call.headline, call.rule, call.legal) == ("Foul: scratch", "3.20", False)
    assert "foot-left" in call.reason and call.shooter == "Ann" and call.shot_index == 1
    assert board.shooter == 1 and board.ball_in_hand is BallInHand.ANYWHERE
    assert BallId.TWO not in board.on_table
    assert board.fouls_in_a_row == (1, 0)


def test_a_legal_break_shows_its_rule_5_4() -> None:
    ref = _referee()
    ref.record(break_shot(index=0), 0.0)
    call = scoreboard_state(ref.timeline).last_call
    assert call is not None
    assert (call.headline, call.rule, call.reason, call.legal) == (
        "Legal shot",
        "5.4",
        "legal break",
        True,
    )


def test_the_two_foul_warning_is_shown_with_rule_2_16() -> None:
    ref = _referee()
    ref.record(break_shot(index=0, pocket=(("2", PocketId.FOOT_LEFT),)), 0.0)
    ref.record(miss(index=1), 1.0)  # Ann's first foul
    ref.record(shot_at("1", index=2, pocket=PocketId.SIDE_LEFT), 2.0)  # Bob pots the 1
    ref.record(miss(index=3), 3.0)  # Bob fouls: Ann has ball in hand
    ref.record(miss(index=4), 4.0)  # Ann's second foul in a row
    board = scoreboard_state(ref.timeline)
    assert board.fouls_in_a_row[0] == 2
    assert [w.rule for w in board.warnings] == ["2.16"]
    assert "Ann" in board.warnings[0].text


def test_the_winning_nine_shows_the_winner_rule_5_14() -> None:
    ref = _referee()
    ref.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 0.0)
    board = scoreboard_state(ref.timeline)
    call = board.last_call
    assert call is not None and call.headline == "Ann wins the rack" and call.rule == "5.14"
    assert board.game_over and board.winner == "Ann"


def test_a_push_out_offers_the_incoming_player_his_options_rule_5_6() -> None:
    ref = _referee()
    ref.record(break_shot(index=0), 0.0)
    ref.record(PushOut(), 1.0)
    ref.record(ShotBuilder(index=1).strike().build(), 2.0)
    board = scoreboard_state(ref.timeline)
    assert board.last_call is not None and board.last_call.headline == "Push-out"
    assert board.choices == (Choice.SHOOT, Choice.HAND_BACK) and board.chooser == 0


def test_declarations_for_the_next_shot_are_shown_until_the_shot_rule_3_4() -> None:
    ref = _referee()
    ref.record(break_shot(index=0), 0.0)
    ref.record(CallShot(BallId.ONE, PocketId.SIDE_LEFT), 1.0)
    ref.record(CallShot(BallId.NINE, PocketId.FOOT_LEFT), 1.5)  # a second call replaces the first
    ref.record(Safety(), 2.0)
    assert scoreboard_state(ref.timeline, ref.log).declared == "9 in foot-left, safety"
    ref.undo(3, "misheard", 2.5)
    assert scoreboard_state(ref.timeline, ref.log).declared == "9 in foot-left"
    ref.record(shot_at("1", index=1), 3.0)
    assert scoreboard_state(ref.timeline, ref.log).declared == ""


def test_the_console_log_lists_the_newest_entries_and_marks_undone_ones() -> None:
    ref = _referee()
    ref.record(break_shot(index=0), 0.0)
    for i in range(LOG_TAIL + 2):
        ref.record(Safety(), 1.0 + i)
    ref.undo(LOG_TAIL, "entered twice", 20.0)
    lines = scoreboard_state(ref.timeline, ref.log).log
    assert len(lines) == LOG_TAIL
    assert lines[-1].seq == len(ref.log.entries) - 1 and lines[-1].text.startswith("undo")
    assert [line.seq for line in lines if line.cancelled] == [LOG_TAIL]
    assert "reason=entered twice" in lines[-1].text


def test_the_match_gives_the_rack_score_race_and_rack_number_rule_3_36() -> None:
    match = Match.start(MatchConfig(race_to=5, sets_to=2), ("Ann", "Bob"), "Ann")
    for winner in ("Ann", "Bob", "Ann"):
        match = match.begin_rack().record_rack(winner)
    board = scoreboard_state(_referee().timeline, match=match)
    assert (board.score, board.race_to, board.unit, board.sets, board.rack) == (
        (2, 1),
        5,
        "racks",
        (0, 0),
        4,
    )
    assert board.match_winner is None


def test_a_points_match_adds_the_running_score_rule_6_1() -> None:
    config = MatchConfig(race_to=100, unit=MatchUnit.POINTS)
    match = Match.start(config, ("Ann", "Bob"), "Ann").record_points("Bob", 14)
    board = scoreboard_state(_referee().timeline, match=match)
    assert (board.score, board.unit, board.race_to) == ((0, 14), "points", 100)


def test_reviews_are_listed_with_their_rule_2_14() -> None:
    ref = _referee()
    ruling = Ruling(
        shot_index=0,
        shooter=0,
        fouls=(),
        foul=None,
        next_player=0,
        reviews=(Review("3.18", "first contact 3 ms apart: 1 or 3"),),
        notes=("5.4: legal break",),
    )
    board = scoreboard_state(Timeline(ref.state, (ruling,)))
    assert board.reviews == (Notice("3.18", "first contact 3 ms apart: 1 or 3"),)


def test_clock_and_device_status_pass_through_and_the_state_round_trips_as_json() -> None:
    ref = _referee()
    ref.record(break_shot(index=0, pocket=(("2", PocketId.FOOT_LEFT),)), 0.0)
    ref.record(CallShot(BallId.ONE, PocketId.SIDE_LEFT), 1.0)
    reading = ClockReading(ClockPhase.WARNING, 9.5, 35.0)
    match = Match.start(MatchConfig(race_to=7), ("Ann", "Bob"), "Ann")
    board = scoreboard_state(ref.timeline, ref.log, match, reading, "down: vision only", "ok")
    assert board.clock == reading and board.sensors == "down: vision only"
    assert from_jsonable(type(board), to_jsonable(board)) == board


def test_a_match_between_other_players_is_refused() -> None:
    match = Match.start(MatchConfig(), ("Cy", "Di"), "Cy")
    with pytest.raises(ValueError, match="players"):
        scoreboard_state(_referee().timeline, match=match)


def test_the_score_follows_the_game_players_when_the_match_lists_them_the_other_way() -> None:
    match = Match.start(MatchConfig(race_to=3), ("Bob", "Ann"), "Bob").begin_rack()
    board = scoreboard_state(_referee().timeline, match=match.record_rack("Bob"))
    assert board.players == ("Ann", "Bob") and board.score == (0, 1)


def test_a_14_1_game_alone_shows_its_points_toward_the_target_rule_6_1() -> None:
    from rules.state import GameOptions

    ref = Referee.new("14.1", ("Ann", "Bob"), TABLE_9FT, GameOptions(target_points=50))
    ref.record(miss(0), 0.0)  # a break violation: -2 (6.6)
    board = scoreboard_state(ref.timeline, ref.log)
    assert (board.score, board.unit, board.race_to) == ((-2, 0), "points", 50)
    assert board.choices


def _match_referee(race_to: int = 2, order: BreakOrder = BreakOrder.LOSER) -> Referee:
    config = MatchConfig(race_to=race_to, break_order=order)
    return Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT, match=config)


def test_a_log_that_holds_a_match_shows_racks_won_and_who_breaks_next_rule_3_36() -> None:
    ref = _match_referee()
    ref.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 1.0)
    board = scoreboard_state(ref.timeline, ref.log)
    assert (board.score, board.race_to, board.unit, board.rack) == ((1, 0), 2, "racks", 1)
    assert board.game_over and board.winner == "Ann" and board.match_winner is None
    assert board.next_breaker == 1  # the loser breaks (3.36 b)
    ref.record(RackReady(), 2.0)
    board = scoreboard_state(ref.timeline, ref.log)
    assert (board.score, board.rack, board.breaker, board.shooter) == ((1, 0), 2, 1, 1)
    assert not board.game_over and board.next_breaker is None
    assert board.log[-1].text.startswith("rack-ready")


def test_the_match_over_shows_its_winner_and_no_next_rack_rule_3_36() -> None:
    ref = _match_referee(race_to=1)
    ref.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 1.0)
    board = scoreboard_state(ref.timeline, ref.log)
    assert board.match_winner == "Ann" and board.next_breaker is None and board.score == (1, 0)


def test_a_time_out_between_racks_is_shown_rule_1_13() -> None:
    ref = _match_referee(order=BreakOrder.WINNER)
    ref.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 1.0)
    ref.record(TimeOut(0), 2.0)
    board = scoreboard_state(ref.timeline)
    assert board.time_out == "Ann" and board.time_out_left_s is None
    assert scoreboard_state(ref.timeline, now=62.0).time_out_left_s == 240.0
    assert scoreboard_state(ref.timeline, now=400.0).time_out_left_s == 0.0


def test_a_finished_14_1_game_is_counted_once_rule_6_1() -> None:
    config = MatchConfig(race_to=10, unit=MatchUnit.POINTS)
    options = GameOptions(target_points=2)
    ref = Referee.new("14.1", ("Ann", "Bob"), TABLE_9FT, options, config)
    ref.record(opening_break(index=0), 0.0)
    board = scoreboard_state(ref.timeline)
    for n, ball in enumerate(("3", "4"), start=1):
        ref.record(CallShot(BallId(ball), PocketId.FOOT_LEFT), float(n))
        ref.record(shot_at(ball, index=n, pocket=PocketId.FOOT_LEFT), n + 0.5)
        board = scoreboard_state(ref.timeline)
        assert board.score == (0, n)
    assert board.game_over and board.next_breaker == 1 and board.unit == "points"
