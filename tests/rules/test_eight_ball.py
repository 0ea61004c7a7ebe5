"""8-ball (WPA 4.x): golden cases on hand-made shots, played through the log."""

from __future__ import annotations

import pytest

from rules.balls import OBJECT_BALLS, BallGroup, BallId
from rules.games import game_for
from rules.inputs import CallShot, Decision, OperatorFoul, Safety, ShotInputs, Stalemate
from rules.log import Timeline, replay, start_log
from rules.ruling import BallInHand, Choice, FoulKind
from rules.shot import Layout
from rules.state import GameOptions, GameState, Phase
from rules.table import CushionId, PocketId
from tests.factories import (
    TABLE_9FT,
    ShotBuilder,
    break_shot,
    eight_ball_rack,
    miss,
    placement,
    shot_at,
)

EIGHT_BALL = game_for("8-ball", TABLE_9FT)
ANN, BOB = 0, 1
EIGHT = BallId.EIGHT
SOLIDS, STRIPES = BallGroup.SOLIDS, BallGroup.STRIPES
FOOT_SPOT = TABLE_9FT.foot_spot
SCATTERED = Layout.of({BallId.CUE: (-300.0, 0.0), BallId.ONE: (300.0, 400.0)})


def play(*items, options: GameOptions | None = None) -> Timeline:
    log = start_log("8-ball", ("Ann", "Bob"), options)
    for t, item in enumerate(items):
        log = log.record(item, float(t))
    return replay(log, TABLE_9FT)


def brk(**kw):
    kw.setdefault("rack", eight_ball_rack())
    kw.setdefault("at_rest", SCATTERED)
    return break_shot(**kw)


DRY_BREAK = brk()  # legal: four balls to cushions, nothing pocketed: Bob to shoot, table open


def table(on_table: tuple[str, ...], shooter: int = ANN, groups=(SOLIDS, STRIPES)) -> GameState:
    """A rack in play: Ann solids, Bob stripes unless told, these balls left."""
    balls = tuple(sorted((BallId(b) for b in on_table), key=lambda b: b.number))
    start = EIGHT_BALL.start(("Ann", "Bob"), GameOptions())
    return start.replace(
        phase=Phase.PLAY,
        on_table=balls,
        shooter=shooter,
        groups=groups,
        ball_in_hand=BallInHand.NONE,
    )


def judge(state: GameState, shot, **inputs):
    return EIGHT_BALL.judge(state, shot, ShotInputs(**inputs))


# Break -----------------------------------------------------------------------------------------


def test_breaker_continues_after_pocketing_a_ball_table_still_open_rule_4_2() -> None:
    t = play(brk(pocket=(("3", PocketId.FOOT_LEFT), ("11", PocketId.SIDE_LEFT))))
    assert t.rulings[0].legal and t.state.shooter == ANN
    assert t.state.groups == () and t.state.phase is Phase.PLAY  # 4.10: the break sets no group


def test_illegal_break_offers_the_incoming_player_three_options_rule_4_5() -> None:
    weak = brk(to_cushion=("2", "3"))
    t = play(weak)
    ruling = t.rulings[0]
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.BAD_BREAK
    assert ruling.foul.rule == "4.5" and ruling.chooser == BOB
    assert ruling.choices == (
        Choice.ACCEPT_TABLE,
        Choice.RERACK_AND_BREAK,
        Choice.RERACK_OPPONENT_BREAKS,
    )
    accepted = play(weak, Decision(Choice.ACCEPT_TABLE)).state
    assert accepted.shooter == BOB and accepted.ball_in_hand is BallInHand.NONE
    rebreak = play(weak, Decision(Choice.RERACK_AND_BREAK)).state
    assert rebreak.phase is Phase.BREAK and rebreak.breaker == BOB and rebreak.shooter == BOB
    again = play(weak, Decision(Choice.RERACK_OPPONENT_BREAKS)).state
    assert again.phase is Phase.BREAK and again.breaker == ANN
    assert again.on_table == OBJECT_BALLS


def test_scratch_on_a_legal_break_rule_4_6() -> None:
    t = play(brk(pocket=(("3", PocketId.FOOT_LEFT),), scratch=PocketId.SIDE_RIGHT))
    ruling = t.rulings[0]
    assert ruling.foul is not None and ruling.foul.rule == "4.6"
    assert BallId.THREE not in t.state.on_table and t.state.groups == ()
    assert t.state.shooter == BOB and t.state.ball_in_hand is BallInHand.KITCHEN


def test_after_a_break_scratch_a_kitchen_ball_needs_the_cue_ball_to_cross_first_rule_4_6() -> None:
    hs = TABLE_9FT.head_string_x
    start = Layout.of({BallId.TWO: (hs - 150.0, 300.0), BallId.NINE: (200.0, 0.0)})
    direct = (
        ShotBuilder(index=1, at_strike=start)
        .strike()
        .hit("2")
        .cushion("2", CushionId.LEFT_HEAD)
        .crossed_head_string()
        .build(placement=placement(hs - 400.0))
    )
    t = play(brk(scratch=PocketId.SIDE_RIGHT), direct)
    foul = t.rulings[1].foul
    assert foul is not None and foul.kind is FoulKind.KITCHEN_BALL_FIRST and foul.rule == "3.39"


def test_object_ball_off_the_table_on_the_break_rule_4_7() -> None:
    t = play(brk(off_table=("12",)))
    ruling = t.rulings[0]
    assert ruling.foul is not None and ruling.foul.rule == "4.7"
    assert ruling.choices == (Choice.ACCEPT_TABLE, Choice.BALL_IN_HAND_KITCHEN)
    assert ruling.spots == () and BallId.TWELVE not in t.state.on_table
    kitchen = play(brk(off_table=("12",)), Decision(Choice.BALL_IN_HAND_KITCHEN)).state
    assert kitchen.shooter == BOB and kitchen.ball_in_hand is BallInHand.KITCHEN


def test_eight_on_the_break_breaker_spots_it_or_reracks_rule_4_8() -> None:
    eight_in = brk(pocket=(("8", PocketId.FOOT_LEFT),))
    t = play(eight_in)
    ruling = t.rulings[0]
    assert ruling.legal and not ruling.game_over
    assert ruling.chooser == ANN and ruling.choices == (Choice.SPOT_EIGHT, Choice.RERACK)
    assert [(s.ball, s.position) for s in ruling.spots] == [(EIGHT, FOOT_SPOT)]
    spotted = play(eight_in, Decision(Choice.SPOT_EIGHT)).state
    assert EIGHT in spotted.on_table and spotted.shooter == ANN
    rerack = play(eight_in, Decision(Choice.RERACK)).state
    assert rerack.phase is Phase.BREAK and rerack.breaker == ANN


def test_eight_on_the_break_with_a_scratch_rule_4_8() -> None:
    t = play(brk(pocket=(("8", PocketId.FOOT_LEFT),), scratch=PocketId.HEAD_LEFT))
    ruling = t.rulings[0]
    assert ruling.chooser == BOB and ruling.choices == (Choice.SPOT_EIGHT, Choice.RERACK)
    assert ruling.ball_in_hand is BallInHand.KITCHEN and not ruling.game_over


def test_eight_on_the_break_wins_in_the_variant_rule_4_8() -> None:
    t = play(
        brk(pocket=(("8", PocketId.FOOT_LEFT),)), options=GameOptions(eight_on_break_wins=True)
    )
    assert t.state.winner == ANN


def test_eight_off_the_table_on_the_break_loses_rule_4_20() -> None:
    t = play(brk(off_table=("8",)))
    assert t.state.winner == BOB and t.rulings[0].foul.kind is FoulKind.LOSS_OF_GAME


# Open table, groups, calls ---------------------------------------------------------------------


def test_open_table_any_ball_may_be_hit_first_rule_4_9() -> None:
    t = play(DRY_BREAK, shot_at("12", index=1, pocket=PocketId.FOOT_LEFT))
    assert t.rulings[1].legal and t.state.shooter == BOB


def test_open_table_hitting_the_eight_first_is_a_foul_rule_4_9() -> None:
    t = play(DRY_BREAK, shot_at("8", index=1))
    foul = t.rulings[1].foul
    assert foul is not None and foul.kind is FoulKind.EIGHT_BALL_FIRST and foul.rule == "4.9"
    assert t.state.groups == () and t.state.ball_in_hand is BallInHand.ANYWHERE


def test_groups_are_set_by_a_legally_pocketed_ball_after_the_break_rule_4_10() -> None:
    t = play(DRY_BREAK, shot_at("12", index=1, pocket=PocketId.FOOT_LEFT))
    assert t.state.groups == (SOLIDS, STRIPES)  # Bob pocketed a stripe
    assert t.rulings[1].groups == (SOLIDS, STRIPES) and t.state.shooter == BOB


def test_a_called_ball_sets_the_group_not_the_first_to_drop_rule_4_10() -> None:
    combo = (
        ShotBuilder(index=1)
        .strike()
        .hit("2")
        .hit("10", a="2")
        .pocket("2", PocketId.SIDE_LEFT)
        .pocket("10", PocketId.FOOT_LEFT)
        .build()
    )
    t = play(DRY_BREAK, CallShot(BallId.TEN, PocketId.FOOT_LEFT), combo)
    assert t.state.groups == (SOLIDS, STRIPES) and t.rulings[1].credited == (BallId.TEN,)


def test_a_called_bank_that_misses_its_pocket_ends_the_inning_rule_4_2() -> None:
    bank = shot_at("3", index=1, pocket=PocketId.SIDE_RIGHT)
    t = play(DRY_BREAK, CallShot(BallId.THREE, PocketId.FOOT_LEFT), bank)
    ruling = t.rulings[1]
    assert ruling.legal and ruling.credited == () and t.state.shooter == ANN
    assert BallId.THREE not in t.state.on_table  # 4.16: stays down
    assert t.state.groups == ()


def test_own_group_must_be_hit_first_rule_4_11() -> None:
    ruling = judge(table(("2", "5", "8", "10", "12")), shot_at("10", pocket=PocketId.FOOT_LEFT))
    assert ruling.foul is not None and ruling.foul.rule == "4.11"
    assert ruling.ball_in_hand is BallInHand.ANYWHERE and ruling.next_player == BOB


def test_pocketing_only_the_opponents_ball_ends_the_inning_rule_4_16() -> None:
    shot = shot_at("2", also=(("10", PocketId.SIDE_LEFT),))
    ruling = judge(table(("2", "5", "8", "10", "12")), shot)
    assert ruling.legal and ruling.next_player == BOB and ruling.pocketed == (BallId.TEN,)


def test_declared_safety_pocketed_ball_stays_down_inning_ends_rule_4_12() -> None:
    state = table(("2", "5", "8", "10", "12"))
    ruling = judge(state, shot_at("2", pocket=PocketId.FOOT_LEFT), safety=True)
    assert ruling.legal and ruling.safety and ruling.next_player == BOB
    after = EIGHT_BALL.advance(state, ruling)
    assert BallId.TWO not in after.on_table
    # Through the log: the Safety input applies to the next shot only.
    t = play(DRY_BREAK, Safety(), shot_at("12", index=1, pocket=PocketId.FOOT_LEFT))
    assert t.rulings[1].safety and t.state.shooter == ANN and t.state.groups == ()


def test_foul_gives_ball_in_hand_anywhere_rule_4_14() -> None:
    ruling = judge(table(("2", "8", "12")), shot_at("2", scratch=PocketId.FOOT_LEFT))
    assert ruling.foul is not None and ruling.ball_in_hand is BallInHand.ANYWHERE


def test_eight_may_not_be_the_first_ball_of_a_combination_rule_4_15() -> None:
    combo = ShotBuilder().strike().hit("8").hit("2", a="8").pocket("2", PocketId.FOOT_LEFT).build()
    ruling = judge(table(("2", "8", "12")), combo)
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.EIGHT_BALL_FIRST
    assert ruling.foul.rule == "4.15" and not ruling.game_over


def test_object_ball_off_the_table_is_not_spotted_rule_4_17() -> None:
    shot = ShotBuilder().strike().hit("2").off_table("2").cushion("cue", CushionId.FOOT).build()
    ruling = judge(table(("2", "8", "12")), shot)
    assert ruling.foul is not None and ruling.foul.rule == "4.17" and ruling.spots == ()


# The 8 ----------------------------------------------------------------------------------------


def test_legally_pocketing_the_eight_wins_rule_4_1() -> None:
    state = table(("8", "12"))
    ruling = judge(
        state, shot_at("8", pocket=PocketId.FOOT_LEFT), call=CallShot(EIGHT, PocketId.FOOT_LEFT)
    )
    assert ruling.game_over and ruling.winner == ANN and ruling.reviews == ()


def test_scratch_while_on_the_eight_is_not_a_loss_rule_4_19() -> None:
    ruling = judge(table(("8", "12")), shot_at("8", scratch=PocketId.SIDE_LEFT))
    assert ruling.foul is not None and not ruling.game_over
    assert ruling.next_player == BOB and ruling.ball_in_hand is BallInHand.ANYWHERE


@pytest.mark.parametrize(
    ("on_table", "shot", "call", "why"),
    [
        (  # 4.20.1: foul while pocketing the 8
            ("8", "12"),
            shot_at("8", pocket=PocketId.FOOT_LEFT, scratch=PocketId.SIDE_LEFT),
            None,
            "foul",
        ),
        (  # 4.20.2: the 8 with the last ball of the group
            ("2", "8", "12"),
            shot_at("2", pocket=PocketId.FOOT_LEFT, also=(("8", PocketId.FOOT_RIGHT),)),
            None,
            "last ball of the group",
        ),
        (  # 4.20.3: the 8 off the table
            ("2", "8", "12"),
            ShotBuilder().strike().hit("2").hit("8", a="2").off_table("8").build(),
            None,
            "left the table",
        ),
        (  # 4.20.4: the 8 in an uncalled pocket
            ("8", "12"),
            shot_at("8", pocket=PocketId.SIDE_LEFT),
            CallShot(EIGHT, PocketId.FOOT_LEFT),
            "not the called one",
        ),
        (  # 4.20.5: the 8 when it is not the legal object ball
            ("2", "5", "8", "12"),
            shot_at("2", also=(("8", PocketId.FOOT_RIGHT),)),
            None,
            "not the legal object ball",
        ),
    ],
    ids=["foul", "with-last-ball", "off-table", "uncalled-pocket", "not-legal-object"],
)
def test_every_loss_of_game_rule_4_20(on_table, shot, call, why) -> None:
    ruling = judge(table(on_table), shot, call=call)
    assert ruling.game_over and ruling.winner == BOB
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.LOSS_OF_GAME
    assert ruling.foul.rule == "4.20" and why in ruling.foul.reason


def test_eight_with_no_call_recorded_wins_but_goes_to_review_rule_4_2() -> None:
    ruling = judge(table(("8", "12")), shot_at("8", pocket=PocketId.FOOT_LEFT))
    assert ruling.winner == ANN and [r.rule for r in ruling.reviews] == ["4.2"]


# Stalemate, three fouls, a whole rack -----------------------------------------------------------


def test_three_consecutive_fouls_do_not_lose_in_eight_ball_rule_4_21() -> None:
    items = [
        DRY_BREAK,
        shot_at("8", index=1),  # Bob fouls
        shot_at("3", index=2),  # Ann: legal miss
        shot_at("8", index=3),  # Bob fouls
        shot_at("3", index=4),
        shot_at("8", index=5),  # Bob's third
    ]
    t = play(*items)
    assert not t.state.over and t.state.fouls_in_a_row[BOB] == 3
    assert all(not r.warnings for r in t.rulings)


def test_stalemate_reracks_with_the_same_breaker_rule_4_21() -> None:
    t = play(DRY_BREAK, shot_at("3", index=1), Stalemate("both agree"))
    assert t.state.phase is Phase.BREAK and t.state.breaker == ANN
    assert t.state.on_table == OBJECT_BALLS
    assert any("stalemate" in n for n in t.notes)


def test_a_whole_eight_ball_rack_through_the_log() -> None:
    items = [
        brk(pocket=(("3", PocketId.FOOT_LEFT),)),  # Ann breaks, makes the 3, table open
        shot_at("1", index=1, pocket=PocketId.SIDE_LEFT),  # Ann takes solids
        shot_at("2", index=2, pocket=PocketId.FOOT_RIGHT),
        shot_at("4", index=3),  # Ann misses: Bob
        shot_at("9", index=4, pocket=PocketId.HEAD_LEFT),
        shot_at("10", index=5, pocket=PocketId.HEAD_RIGHT),
        miss(index=6),  # Bob fouls: Ann in hand
        shot_at("4", index=7, pocket=PocketId.FOOT_LEFT, placement=placement(0.0)),
        shot_at("5", index=8, pocket=PocketId.FOOT_RIGHT),
        shot_at("6", index=9, pocket=PocketId.SIDE_RIGHT),
        shot_at("7", index=10, pocket=PocketId.HEAD_LEFT),
        CallShot(EIGHT, PocketId.FOOT_LEFT),
        shot_at("8", index=11, pocket=PocketId.FOOT_LEFT),  # Ann wins
    ]
    t = play(*items)
    assert t.state.groups == (SOLIDS, STRIPES)
    assert [r.next_player for r in t.rulings] == [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    assert t.state.over and t.state.winner == ANN
    assert set(t.state.on_table) == {BallId(str(n)) for n in range(11, 16)}


def test_shooting_after_an_illegal_break_accepts_the_table_rule_4_5() -> None:
    t = play(brk(to_cushion=("2",)), shot_at("3", index=1, pocket=PocketId.FOOT_LEFT))
    assert t.rulings[1].shooter == BOB and t.rulings[1].legal
    assert any("accept-table assumed" in n for n in t.notes)


def test_foul_between_shots_gives_ball_in_hand_rule_4_14() -> None:
    t = play(DRY_BREAK, OperatorFoul(FoulKind.CUE_BALL_IN_HAND, BOB))
    assert t.rulings[-1].foul is not None and t.rulings[-1].foul.rule == "3.40"
    assert t.state.shooter == ANN and t.state.ball_in_hand is BallInHand.ANYWHERE
