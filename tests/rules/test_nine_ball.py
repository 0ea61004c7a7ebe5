"""9-ball (WPA 5.x): golden cases on hand-made shots, played through the log."""

from __future__ import annotations

import dataclasses

import pytest

from rules.balls import NINE_BALL_SET, BallId
from rules.errors import RecordError
from rules.games import game_for
from rules.inputs import (
    Decision,
    Interference,
    InterferenceOutcome,
    OperatorFoul,
    Override,
    PushOut,
    ShotInputs,
    TimeOut,
    WarningGiven,
)
from rules.log import GameLog, Timeline, replay, start_log
from rules.ruling import AlertKind, BallInHand, Choice, FoulKind
from rules.shot import Frozen, Layout
from rules.state import GameOptions, Phase
from rules.table import CushionId, PocketId
from tests.factories import (
    TABLE_9FT,
    ShotBuilder,
    break_shot,
    miss,
    placement,
    rack_layout,
    shot_at,
)

NINE = game_for("9-ball", TABLE_9FT)
ANN, BOB = 0, 1
FOOT_SPOT = TABLE_9FT.foot_spot


def play(*items, options: GameOptions | None = None) -> Timeline:
    log = start_log("9-ball", ("Ann", "Bob"), options)
    for t, item in enumerate(items):
        log = log.record(item, float(t))
    return replay(log, TABLE_9FT)


DRY_BREAK = break_shot(index=0)  # legal: four balls to cushions, nothing pocketed
MADE_BREAK = break_shot(index=0, pocket=(("2", PocketId.FOOT_LEFT),))


# Break -----------------------------------------------------------------------------------------


def test_legal_break_that_pockets_a_ball_keeps_the_breaker_rule_5_4() -> None:
    t = play(MADE_BREAK)
    ruling = t.rulings[0]
    assert ruling.legal and ruling.next_player == ANN and ruling.credited == (BallId.TWO,)
    assert t.state.phase is Phase.AFTER_BREAK and BallId.TWO not in t.state.on_table


def test_legal_break_driving_four_balls_to_cushions_rule_5_4() -> None:
    t = play(DRY_BREAK)
    assert t.rulings[0].legal and t.state.shooter == BOB
    assert t.state.ball_in_hand is BallInHand.NONE and t.state.phase is Phase.AFTER_BREAK


def test_break_with_three_balls_to_cushions_is_a_foul_rule_5_4() -> None:
    t = play(break_shot(to_cushion=("2", "3", "4")))
    ruling = t.rulings[0]
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.BAD_BREAK
    assert ruling.foul.rule == "5.4"
    assert t.state.shooter == BOB and t.state.ball_in_hand is BallInHand.ANYWHERE


def test_break_must_hit_the_one_first_rule_5_4() -> None:
    t = play(break_shot(first="3", pocket=(("5", PocketId.SIDE_LEFT),)))
    foul = t.rulings[0].foul
    assert foul is not None and foul.kind is FoulKind.WRONG_BALL_FIRST and foul.rule == "5.4"
    assert t.state.ball_in_hand is BallInHand.ANYWHERE


def test_break_scratch_gives_ball_in_hand_anywhere_rule_5_4() -> None:
    t = play(break_shot(pocket=(("2", PocketId.FOOT_LEFT),), scratch=PocketId.HEAD_RIGHT))
    ruling = t.rulings[0]
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.SCRATCH
    assert t.state.shooter == BOB and t.state.ball_in_hand is BallInHand.ANYWHERE
    assert BallId.TWO not in t.state.on_table  # pocketed on a foul: stays down (5.7)


def test_object_ball_off_the_table_on_the_break_is_not_spotted_rule_5_4() -> None:
    t = play(break_shot(off_table=("5",)))
    ruling = t.rulings[0]
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.OBJECT_BALL_OFF_TABLE
    assert ruling.spots == () and BallId.FIVE not in t.state.on_table
    assert t.state.ball_in_hand is BallInHand.ANYWHERE


def test_nine_off_the_table_on_the_break_is_spotted_rule_5_4() -> None:
    scattered = Layout.of({BallId.CUE: (-500.0, 0.0), BallId.ONE: (200.0, 300.0)})
    t = play(break_shot(off_table=("9",), at_rest=scattered))
    ruling = t.rulings[0]
    assert [(s.ball, s.position) for s in ruling.spots] == [(BallId.NINE, FOOT_SPOT)]
    assert BallId.NINE in t.state.on_table


def test_nine_on_a_legal_break_wins_rule_5_14() -> None:
    t = play(break_shot(pocket=(("9", PocketId.FOOT_RIGHT),)))
    assert t.rulings[0].game_over and t.state.winner == ANN and t.state.over


def test_nine_on_a_break_scratch_is_spotted_rule_5_7() -> None:
    t = play(break_shot(pocket=(("9", PocketId.FOOT_RIGHT),), scratch=PocketId.SIDE_LEFT))
    assert t.state.winner is None and BallId.NINE in t.state.on_table
    assert [s.ball for s in t.rulings[0].spots] == [BallId.NINE]


def test_breaking_from_outside_the_kitchen_is_a_foul_rule_3_8() -> None:
    outside = placement(TABLE_9FT.head_string_x + 200.0)
    t = play(break_shot(placement=outside))
    assert t.rulings[0].foul is not None
    assert t.rulings[0].foul.kind is FoulKind.OUTSIDE_KITCHEN


# Lowest ball first, cushions, fouls ----------------------------------------------------------


def test_lowest_numbered_ball_must_be_hit_first_rule_5_1() -> None:
    t = play(DRY_BREAK, shot_at("1", index=1, pocket=PocketId.FOOT_LEFT))
    assert t.rulings[1].legal and t.state.shooter == BOB and t.state.lowest_ball is BallId.TWO


def test_hitting_a_higher_ball_first_is_a_foul_rule_5_8() -> None:
    t = play(DRY_BREAK, shot_at("4", index=1, pocket=PocketId.FOOT_LEFT))
    foul = t.rulings[1].foul
    assert foul is not None and foul.kind is FoulKind.WRONG_BALL_FIRST and foul.rule == "5.8"
    assert t.state.shooter == ANN and t.state.ball_in_hand is BallInHand.ANYWHERE
    assert BallId.FOUR not in t.state.on_table  # stays down (5.7)
    assert t.rulings[1].credited == ()


def test_no_ball_to_a_cushion_is_a_foul_rule_5_9() -> None:
    t = play(DRY_BREAK, shot_at("1", index=1, cushion=False))
    foul = t.rulings[1].foul
    assert foul is not None and foul.kind is FoulKind.NO_CUSHION and foul.rule == "5.9"


def test_foul_spots_the_nine_and_gives_ball_in_hand_anywhere_rule_5_7() -> None:
    t = play(
        DRY_BREAK,
        shot_at("1", index=1, also=(("9", PocketId.SIDE_LEFT),), scratch=PocketId.FOOT_LEFT),
    )
    ruling = t.rulings[1]
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.SCRATCH
    assert [(s.ball, s.position) for s in ruling.spots] == [(BallId.NINE, FOOT_SPOT)]
    assert BallId.NINE in t.state.on_table and t.state.winner is None
    assert t.state.shooter == ANN and t.state.ball_in_hand is BallInHand.ANYWHERE


def test_several_fouls_in_one_shot_count_as_one_rule_5_7() -> None:
    shot = shot_at("4", index=1, cushion=False, scratch=PocketId.FOOT_LEFT)
    t = play(DRY_BREAK, shot)
    ruling = t.rulings[1]
    assert len(ruling.fouls) >= 2
    assert t.state.fouls_in_a_row == (0, 1)


def test_nine_spotted_behind_a_ball_on_the_foot_spot_rule_3_32() -> None:
    rest = Layout.of({BallId.THREE: FOOT_SPOT, BallId.CUE: (0.0, 0.0)})
    shot = shot_at(
        "1", index=1, also=(("9", PocketId.SIDE_LEFT),), scratch=PocketId.FOOT_LEFT, at_rest=rest
    )
    (spot,) = play(DRY_BREAK, shot).rulings[1].spots
    assert spot.position == pytest.approx((FOOT_SPOT[0] + TABLE_9FT.ball_diameter, 0.0))


def test_ball_in_hand_frozen_to_an_object_ball_is_flagged_rule_5_10() -> None:
    foul = shot_at("4", index=1)
    frozen = shot_at(
        "1",
        index=2,
        placement=placement(300.0),
        frozen=(Frozen(BallId.CUE, 0.0, other=BallId.ONE),),
        pocket=PocketId.FOOT_LEFT,
    )
    t = play(DRY_BREAK, foul, frozen)
    assert [r.rule for r in t.rulings[2].reviews] == ["5.10"]


def test_object_ball_off_the_table_stays_off_and_play_goes_on_rule_5_11() -> None:
    shot = (
        ShotBuilder(index=1).strike().hit("1").off_table("1").cushion("cue", CushionId.FOOT).build()
    )
    t = play(DRY_BREAK, shot)
    ruling = t.rulings[1]
    assert ruling.foul is not None and ruling.foul.rule == "5.11"
    assert ruling.spots == () and BallId.ONE not in t.state.on_table
    assert t.state.lowest_ball is BallId.TWO


# Push-out ---------------------------------------------------------------------------------------


def test_push_out_needs_no_contact_and_the_opponent_chooses_rule_5_6() -> None:
    push = ShotBuilder(index=1).strike().build()  # touches nothing at all
    t = play(DRY_BREAK, PushOut(), push)
    ruling = t.rulings[1]
    assert ruling.legal and ruling.push_out
    assert ruling.choices == (Choice.SHOOT, Choice.HAND_BACK) and ruling.chooser == ANN
    assert t.state.choices and t.state.ball_in_hand is BallInHand.NONE


def test_push_out_handed_back_rule_5_6() -> None:
    t = play(
        DRY_BREAK, PushOut(), ShotBuilder(index=1).strike().build(), Decision(Choice.HAND_BACK)
    )
    assert t.state.shooter == BOB and t.state.choices == ()
    t = play(DRY_BREAK, PushOut(), ShotBuilder(index=1).strike().build(), Decision(Choice.SHOOT))
    assert t.state.shooter == ANN


def test_breaker_who_pocketed_may_push_out_rule_5_5() -> None:
    t = play(MADE_BREAK, PushOut(), shot_at("5", index=1))
    assert t.rulings[1].push_out and t.rulings[1].legal and t.rulings[1].chooser == BOB


def test_push_out_pockets_stay_down_but_the_nine_is_spotted_rule_5_6() -> None:
    push = shot_at("4", index=1, pocket=PocketId.FOOT_LEFT, also=(("9", PocketId.SIDE_LEFT),))
    t = play(DRY_BREAK, PushOut(), push)
    ruling = t.rulings[1]
    assert ruling.legal and ruling.credited == () and t.state.winner is None
    assert [s.ball for s in ruling.spots] == [BallId.NINE]
    assert BallId.FOUR not in t.state.on_table and BallId.NINE in t.state.on_table


def test_push_out_with_a_scratch_is_a_foul_rule_5_6() -> None:
    push = ShotBuilder(index=1).strike().pocket("cue", PocketId.HEAD_LEFT).build()
    t = play(DRY_BREAK, PushOut(), push)
    assert t.rulings[1].foul is not None and t.rulings[1].foul.kind is FoulKind.SCRATCH
    assert t.state.choices == () and t.state.ball_in_hand is BallInHand.ANYWHERE


def test_no_push_out_after_a_break_scratch_rule_5_6() -> None:
    scratch_break = break_shot(scratch=PocketId.HEAD_LEFT)
    t = play(scratch_break, PushOut(), ShotBuilder(index=1).strike().build())
    ruling = t.rulings[1]
    assert not ruling.push_out and ruling.foul is not None
    assert any("5.6" in n for n in ruling.notes)


def test_push_out_later_in_the_rack_is_an_ordinary_shot_rule_5_6() -> None:
    t = play(DRY_BREAK, shot_at("1", index=1), PushOut(), ShotBuilder(index=2).strike().build())
    assert not t.rulings[2].push_out and t.rulings[2].foul is not None


def test_shooting_after_a_push_out_accepts_the_position_rule_5_6() -> None:
    t = play(DRY_BREAK, PushOut(), ShotBuilder(index=1).strike().build(), shot_at("1", index=2))
    assert t.rulings[2].shooter == ANN and any("shoot" in n for n in t.notes)


# Three fouls ------------------------------------------------------------------------------------


def _fouls(n: int, start: int = 1):
    """Bob fouls n times in a row; Ann answers each with a legal miss of the pocket."""
    items = []
    index = start
    for _ in range(n):
        items.append(shot_at("4", index=index))  # Bob: wrong ball first
        items.append(shot_at("1", index=index + 1))  # Ann: legal, nothing pocketed
        index += 2
    return items[:-1], index - 1


def test_second_consecutive_foul_brings_the_warning_rule_2_16() -> None:
    items, _ = _fouls(2)
    t = play(DRY_BREAK, *items)
    last = t.rulings[-1]
    assert [w.kind for w in last.warnings] == [AlertKind.SECOND_CONSECUTIVE_FOUL]
    assert last.warnings[0].player == BOB and t.state.warned == (False, True)


def test_three_consecutive_fouls_lose_the_rack_rule_5_13() -> None:
    items, _ = _fouls(3)
    t = play(DRY_BREAK, *items)
    last = t.rulings[-1]
    assert last.game_over and last.winner == ANN
    assert last.foul is not None and last.foul.rule == "5.13"
    assert t.state.over and t.state.winner == ANN


def test_unwarned_third_foul_is_an_ordinary_foul_rule_5_13() -> None:
    items, _ = _fouls(3)
    t = play(DRY_BREAK, *items, options=GameOptions(auto_warn=False))
    assert not t.state.over and t.state.fouls_in_a_row == (0, 2)
    assert any("2.16" in n for n in t.rulings[-1].notes)


def test_third_foul_after_a_referees_warning_loses_rule_5_13() -> None:
    items, _ = _fouls(3)
    with_warning = [*items[:3], WarningGiven(BOB), *items[3:]]
    t = play(DRY_BREAK, *with_warning, options=GameOptions(auto_warn=False))
    assert t.state.winner == ANN


def test_a_legal_shot_clears_the_foul_count_rule_5_13() -> None:
    items, next_index = _fouls(2)
    answer = shot_at("1", index=next_index)  # Ann's legal miss
    bob_legal = shot_at("1", index=next_index + 1)
    ann_legal = shot_at("1", index=next_index + 2)
    bob_foul = shot_at("4", index=next_index + 3)
    t = play(DRY_BREAK, *items, answer, bob_legal, ann_legal, bob_foul)
    assert not t.state.over and t.state.fouls_in_a_row == (0, 1)


def test_fouls_between_shots_count_toward_three_rule_5_13() -> None:
    items, _ = _fouls(2)
    t = play(DRY_BREAK, *items[:-1], OperatorFoul(FoulKind.INTERFERENCE, BOB))
    # Bob fouled by interfering while Ann was at the table: Ann keeps the table, in hand.
    assert t.rulings[-1].foul is not None and t.rulings[-1].foul.rule == "3.41"
    assert t.state.shooter == ANN and t.state.ball_in_hand is BallInHand.ANYWHERE
    assert t.state.fouls_in_a_row == (0, 2)


# The 9 ------------------------------------------------------------------------------------------


def test_nine_on_a_combination_wins_rule_5_14() -> None:
    combo = (
        ShotBuilder(index=1)
        .strike()
        .hit("1")
        .hit("9", a="1")
        .pocket("9", PocketId.FOOT_RIGHT)
        .build()
    )
    t = play(DRY_BREAK, combo)
    assert t.state.winner == BOB and t.rulings[1].game_over


def test_nine_pocketed_on_a_wrong_ball_first_is_spotted_rule_5_14() -> None:
    shot = shot_at("9", index=1, pocket=PocketId.FOOT_RIGHT)
    t = play(DRY_BREAK, shot)
    assert t.state.winner is None and BallId.NINE in t.state.on_table


# Operator inputs and corrections ---------------------------------------------------------------


def test_operator_foul_on_a_shot_is_applied_rule_3_13() -> None:
    made = shot_at("1", index=1, pocket=PocketId.FOOT_LEFT)
    t = play(
        DRY_BREAK, made, OperatorFoul(FoulKind.FOOT_ON_FLOOR, BOB, shot=1, note="no foot down")
    )
    ruling = t.rulings[1]
    assert ruling.foul is not None and ruling.foul.rule == "3.13"
    assert t.state.shooter == ANN and t.state.ball_in_hand is BallInHand.ANYWHERE


def test_tip_only_foul_entered_by_the_referee_rule_3_3() -> None:
    t = play(DRY_BREAK, shot_at("1", index=1), OperatorFoul(FoulKind.TIP_ONLY, BOB, shot=1))
    assert t.rulings[1].foul is not None and t.rulings[1].foul.rule == "3.3"


def test_override_replaces_the_fouls_with_a_reason_rule_2_14() -> None:
    wrong = shot_at("4", index=1, pocket=PocketId.FOOT_LEFT)
    fixed = Override(1, "replay shows the 1 was hit first", fouls=())
    t = play(DRY_BREAK, wrong, fixed)
    assert t.rulings[1].legal and t.state.shooter == BOB
    assert any("replay shows" in n for n in t.rulings[1].notes)


def test_override_with_a_corrected_record_re_derives_the_ruling() -> None:
    seen = shot_at("4", index=1, pocket=PocketId.FOOT_LEFT)
    true = shot_at("1", index=1, pocket=PocketId.FOOT_LEFT)
    t = play(DRY_BREAK, seen, Override(1, "ball identity swapped", record=true))
    assert t.rulings[1].legal and BallId.ONE not in t.state.on_table


def test_interference_voids_the_shot_to_be_replayed_rule_2_18() -> None:
    spoiled = shot_at("4", index=1)
    t = play(DRY_BREAK, spoiled, Interference(InterferenceOutcome.REPLAY_SHOT, shot=1))
    assert len(t.rulings) == 1 and t.state.shooter == BOB and t.state.fouls_in_a_row == (0, 0)


def test_interference_that_cannot_be_restored_replays_the_rack_rule_3_35() -> None:
    t = play(MADE_BREAK, Interference(InterferenceOutcome.REPLAY_RACK))
    assert t.state.phase is Phase.BREAK and t.state.on_table == NINE_BALL_SET
    assert t.state.shooter == ANN


def test_a_shot_after_the_rack_is_over_is_refused() -> None:
    won = break_shot(pocket=(("9", PocketId.FOOT_RIGHT),))
    with pytest.raises(RecordError, match=r"log entry 1: shot 1: the 9-ball game is already over"):
        play(won, shot_at("1", index=1))


def test_a_choice_not_on_offer_is_refused() -> None:
    with pytest.raises(RecordError, match="log entry 1: hand-back is not a pending choice"):
        play(DRY_BREAK, Decision(Choice.HAND_BACK))


def test_an_amendment_of_a_shot_not_in_the_log_is_refused() -> None:
    with pytest.raises(RecordError, match="amends shot 7"):
        play(DRY_BREAK, OperatorFoul(FoulKind.TIP_ONLY, ANN, shot=7))


def test_unknown_game_name_is_a_config_error() -> None:
    from rules.errors import ConfigError

    with pytest.raises(
        ConfigError, match=r"unknown game 'snooker'; known games: 14\.1, 8-ball, 9-ball"
    ):
        game_for("snooker", TABLE_9FT)


def test_judge_is_pure_and_repeatable() -> None:
    state = NINE.start(("Ann", "Bob"), GameOptions())
    shot = break_shot()
    first = NINE.judge(state, shot, ShotInputs())
    assert NINE.judge(state, shot, ShotInputs()) == first
    assert state == NINE.start(("Ann", "Bob"), GameOptions())


# A whole rack -----------------------------------------------------------------------------------


def test_a_whole_rack_from_break_to_winner_through_the_log() -> None:
    items = [
        break_shot(index=0, pocket=(("3", PocketId.FOOT_LEFT),)),  # Ann breaks and makes the 3
        shot_at("1", index=1, pocket=PocketId.SIDE_LEFT),  # Ann: 1 in
        shot_at("2", index=2),  # Ann misses: Bob
        shot_at("5", index=3),  # Bob fouls (the 2 is lowest): Ann in hand
        shot_at("2", index=4, pocket=PocketId.FOOT_RIGHT, placement=placement(500.0)),
        shot_at("4", index=5, pocket=PocketId.HEAD_LEFT),
        shot_at("5", index=6, pocket=PocketId.SIDE_RIGHT),
        miss(index=7),  # Ann misses everything: foul, Bob in hand
        shot_at("6", index=8, pocket=PocketId.FOOT_LEFT, placement=placement(100.0)),
        shot_at("7", index=9, pocket=PocketId.FOOT_RIGHT),
        shot_at("8", index=10, pocket=PocketId.HEAD_RIGHT),
        shot_at("9", index=11, pocket=PocketId.SIDE_LEFT),  # Bob wins
    ]
    t = play(*items)
    assert [r.next_player for r in t.rulings] == [0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert [r.legal for r in t.rulings].count(False) == 2
    assert t.state.over and t.state.winner == BOB and t.state.on_table == ()
    assert t.state.shots == 12
    # The log reads back from JSON and replays to the same state.
    from rules.codec import dumps, loads

    log = start_log("9-ball", ("Ann", "Bob"))
    for i, item in enumerate(items):
        log = log.record(item, float(i))
    again = loads(GameLog, dumps(log))
    assert replay(again, TABLE_9FT) == t


# More of the general rules, as 9-ball plays them ------------------------------------------------


def test_a_shot_still_rolling_is_not_judged_rule_3_15() -> None:
    rolling = ShotBuilder(index=0).strike().hit("1").build(end_time=None)
    rolling = dataclasses.replace(rolling, end_time=None)
    with pytest.raises(RecordError, match=r"shot 0 is not complete.*3\.15"):
        play(rolling)


def test_cue_ball_stopped_on_its_way_to_the_rack_is_a_foul_rule_3_9() -> None:
    b = ShotBuilder(index=0, at_strike=rack_layout()).strike().crossed_head_string()
    stopped = b.disturbed("cue").build(placement=placement(-800.0, 100.0))
    t = play(stopped)
    foul = t.rulings[0].foul
    assert foul is not None and foul.kind is FoulKind.BREAK_CUE_BALL_INTERFERED
    assert foul.rule == "3.9" and t.state.ball_in_hand is BallInHand.ANYWHERE  # 5.4 exception


def test_non_shooter_interfering_during_a_shot_fouls_himself_rule_3_41() -> None:
    made = shot_at("1", index=1, pocket=PocketId.FOOT_LEFT)
    t = play(DRY_BREAK, made, OperatorFoul(FoulKind.INTERFERENCE, ANN, shot=1))
    shot_ruling, foul_ruling = t.rulings[1:]
    assert shot_ruling.legal and shot_ruling.next_player == BOB
    assert foul_ruling.foul is not None and foul_ruling.shooter == ANN
    assert t.state.shooter == BOB and t.state.ball_in_hand is BallInHand.ANYWHERE
    assert t.state.fouls_in_a_row == (1, 0)


def test_shot_clock_expiry_is_a_foul_rule_1_11() -> None:
    t = play(DRY_BREAK, OperatorFoul(FoulKind.SLOW_PLAY, BOB, note="shot clock expired"))
    ruling = t.rulings[-1]
    assert ruling.foul is not None and ruling.foul.rule == "1.11"
    assert t.state.shooter == ANN and t.state.ball_in_hand is BallInHand.ANYWHERE


def test_time_out_is_recorded_without_changing_the_rack_rule_1_13() -> None:
    before = play(DRY_BREAK)
    after = play(DRY_BREAK, TimeOut(BOB))
    assert after.state == before.state and after.rulings == before.rulings


def test_a_shot_index_used_twice_is_refused() -> None:
    with pytest.raises(RecordError, match="shot index 0 is used twice"):
        play(DRY_BREAK, shot_at("1", index=0))


def test_a_log_names_two_players() -> None:
    with pytest.raises(ValueError, match="two players"):
        GameLog("9-ball", ("Ann", "Bob", "Cy"))


def test_a_ball_that_bounces_back_out_of_a_pocket_is_not_pocketed_rule_3_11() -> None:
    rattled = (
        ShotBuilder(index=1)
        .strike()
        .hit("1")
        .pocket("1", PocketId.FOOT_LEFT)
        .rebound("1", PocketId.FOOT_LEFT)
        .cushion("1", CushionId.FOOT)
        .build()
    )
    t = play(DRY_BREAK, rattled)
    assert t.rulings[1].legal and t.rulings[1].pocketed == ()
    assert BallId.ONE in t.state.on_table and t.state.shooter == ANN  # the inning ends


def test_balls_pocketed_on_a_foul_do_not_count_rule_3_17() -> None:
    t = play(
        DRY_BREAK, shot_at("1", index=1, pocket=PocketId.FOOT_LEFT, scratch=PocketId.SIDE_LEFT)
    )
    ruling = t.rulings[1]
    assert ruling.pocketed == (BallId.ONE,) and ruling.credited == ()
    assert t.state.shooter == ANN  # the foul ends Bob's inning


def test_a_ball_on_the_head_string_is_judged_by_its_base_rules_3_12_3_16() -> None:
    # Its centre is 1 mm past the line: it is not in the kitchen although half of it is.
    hs = TABLE_9FT.head_string_x
    start = Layout.of({BallId.ONE: (hs + 1.0, 200.0)})
    shot = (
        ShotBuilder(index=0, at_strike=start)
        .strike()
        .hit("1")
        .cushion("1", CushionId.LEFT_FOOT)
        .cushion("2", CushionId.FOOT)
        .cushion("3", CushionId.FOOT)
        .cushion("4", CushionId.FOOT)
        .crossed_head_string()
        .build(placement=placement(hs - 300.0))
    )
    t = play(shot)
    assert t.rulings[0].legal


def test_cue_ball_touching_a_ball_in_a_full_pocket_is_entered_as_a_scratch_rule_3_20() -> None:
    t = play(DRY_BREAK, shot_at("1", index=1), OperatorFoul(FoulKind.SCRATCH, BOB, shot=1))
    assert t.rulings[1].foul is not None and t.rulings[1].foul.rule == "3.20"
