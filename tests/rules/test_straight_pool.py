"""14.1 continuous (WPA 6.1-6.13): golden cases on hand-made Shot records."""

from __future__ import annotations

import pytest

from rules.balls import OBJECT_BALLS, BallId
from rules.errors import RecordError
from rules.games import game_for
from rules.games.straight_pool import StraightPool
from rules.inputs import CallShot, Decision, OperatorFoul, ShotInputs
from rules.log import replay
from rules.rack import check_rack
from rules.referee import Referee
from rules.ruling import AlertKind, BallInHand, Choice, Foul, FoulKind, Ruling
from rules.shot import Layout, NearCushion, Shot
from rules.state import GameOptions, GameState, Phase
from rules.table import CushionId, PocketId, RackShape
from tests.factories import (
    BREAK_CUSHIONS,
    TABLE_9FT,
    ShotBuilder,
    miss,
    placement,
    rack_layout,
    shot_at,
)

T = TABLE_9FT
GAME = StraightPool(T)
PLAYERS = ("Ann", "Bob")
ANN, BOB = 0, 1
STRAIGHT_ORDER = ("9", "2", "3", "4", "6", "7", "8", "10", "11", "12", "1", "13", "14", "15", "5")
"""A legal 14.1 rack (6.4): the 1 and the 5 in the back corners; the 9 at the apex."""

FL, FR, SL, HL = PocketId.FOOT_LEFT, PocketId.FOOT_RIGHT, PocketId.SIDE_LEFT, PocketId.HEAD_LEFT


def straight_rack() -> Layout:
    return rack_layout(T, RackShape.TRIANGLE, STRAIGHT_ORDER)


def begin(breaker: int = ANN, target: int = 150, **options: object) -> GameState:
    return GAME.start(PLAYERS, GameOptions(breaker=breaker, target_points=target, **options))


def play(state: GameState, shot: Shot, **inputs: object) -> tuple[Ruling, GameState]:
    ruling = GAME.judge(state, shot, ShotInputs(**inputs))
    return ruling, GAME.advance(state, ruling)


def call(ball: str, pocket: PocketId) -> CallShot:
    return CallShot(BallId(ball), pocket)


def opening_break(
    index: int = 0,
    to_cushion: tuple[str, ...] = ("2", "3"),
    cue_cushion: bool = True,
    pocket: tuple[tuple[str, PocketId], ...] = (),
    scratch: PocketId | None = None,
    hit: bool = True,
) -> Shot:
    """A 14.1 opening break from the kitchen into a full rack."""
    b = ShotBuilder(index=index, at_strike=straight_rack()).strike().crossed_head_string()
    if hit:
        b.hit("9")
    for i, ball in enumerate(to_cushion):
        b.cushion(ball, BREAK_CUSHIONS[i % len(BREAK_CUSHIONS)])
    if cue_cushion:
        b.cushion("cue", CushionId.FOOT)
    for ball, p in pocket:
        b.pocket(ball, p)
    if scratch is not None:
        b.pocket("cue", scratch)
    return b.build(placement=placement(-800.0, 100.0))


def after_break(breaker: int = ANN, **options: object) -> GameState:
    """The other player at the table after a legal safe break."""
    ruling, state = play(begin(breaker, **options), opening_break())
    assert ruling.legal and state.shooter == 1 - breaker
    return state


def pot(ball: str, pocket: PocketId, index: int, **kw: object) -> Shot:
    return shot_at(ball, index=index, pocket=pocket, **kw)


def safe(ball: str, index: int) -> Shot:
    """A legal shot that pockets nothing: the ball is driven to the foot cushion."""
    return shot_at(ball, index=index, cushion=True)


def points(ruling: Ruling, player: int) -> int:
    return sum(c.points for c in ruling.score if c.player == player)


# 6.1, 6.5, 6.7.1: called ball and pocket, points -------------------------------------------------


def test_the_game_is_registered_as_14_1_and_racks_all_fifteen_rule_6_3() -> None:
    state = game_for("14.1", T).start(PLAYERS, GameOptions())
    assert state.on_table == OBJECT_BALLS
    assert state.phase is Phase.BREAK and state.ball_in_hand is BallInHand.KITCHEN
    assert state.options.target_points == 150


def test_a_called_ball_in_the_called_pocket_scores_one_and_the_shooter_stays_rule_6_1() -> None:
    state = after_break()
    ruling, after = play(state, pot("3", FL, 1), call=call("3", FL))
    assert ruling.legal and ruling.credited == (BallId.THREE,)
    assert points(ruling, BOB) == 1 and after.scores == (0, 1)
    assert after.shooter == BOB and BallId.THREE not in after.on_table


def test_every_extra_ball_on_a_legal_shot_scores_a_point_rule_6_7_1() -> None:
    state = after_break()
    shot = pot("3", FL, 1, also=(("8", SL), ("11", HL)))
    ruling, after = play(state, shot, call=call("3", FL))
    assert set(ruling.credited) == {BallId.THREE, BallId.EIGHT, BallId.ELEVEN}
    assert after.scores == (0, 3) and len(after.on_table) == 12


def test_a_ball_not_called_is_spotted_without_penalty_and_the_inning_ends_rule_6_8() -> None:
    state = after_break()
    ruling, after = play(state, pot("3", FL, 1), call=call("3", FR))
    assert ruling.legal and ruling.credited == () and ruling.score == ()
    assert [s.ball for s in ruling.spots] == [BallId.THREE]
    assert ruling.spots[0].position == T.foot_spot
    assert after.shooter == ANN and BallId.THREE in after.on_table and after.scores == (0, 0)


def test_a_called_ball_missed_while_another_drops_spots_the_other_rule_6_8() -> None:
    state = after_break()
    shot = ShotBuilder(index=1).strike().hit("3").cushion("3", CushionId.FOOT).pocket("7", FL)
    ruling, after = play(state, shot.build(), call=call("3", FR))
    assert ruling.legal and [s.ball for s in ruling.spots] == [BallId.SEVEN]
    assert after.shooter == ANN and after.scores == (0, 0)


def test_with_no_call_entered_the_first_ball_pocketed_is_taken_as_called_rule_6_1() -> None:
    ruling, after = play(after_break(), pot("3", FL, 1))
    assert ruling.credited == (BallId.THREE,) and after.scores == (0, 1)
    assert any(n.startswith("6.1: no call entered") for n in ruling.notes)


def test_any_object_ball_may_be_hit_first_rule_6_7_1() -> None:
    ruling, _ = play(after_break(), pot("15", FL, 1), call=call("15", FL))
    assert ruling.legal


def test_reaching_the_target_ends_the_game_with_the_shooter_winning_rule_6_1() -> None:
    state = after_break(target=3).replace(scores=(0, 2))
    ruling, after = play(state, pot("3", FL, 1, also=(("4", FR),)), call=call("3", FL))
    assert ruling.game_over and ruling.winner == BOB
    assert after.over and after.winner == BOB and after.scores == (0, 4)
    with pytest.raises(RecordError, match="already over"):
        GAME.judge(after, pot("5", FL, 2), ShotInputs())


# 6.6: the opening break ------------------------------------------------------------------------


def test_a_safe_break_with_two_balls_and_the_cue_ball_to_cushions_is_legal_rule_6_6() -> None:
    ruling, state = play(begin(), opening_break())
    assert ruling.legal and ruling.score == ()
    assert state.shooter == BOB and state.phase is Phase.PLAY
    assert state.ball_in_hand is BallInHand.NONE


def test_a_break_that_makes_its_called_ball_scores_and_continues_rule_6_6() -> None:
    shot = opening_break(to_cushion=(), cue_cushion=False, pocket=(("1", FL),))
    ruling, state = play(begin(), shot, call=call("1", FL))
    assert ruling.legal and ruling.credited == (BallId.ONE,)
    assert state.shooter == ANN and state.scores == (1, 0)


def test_a_ball_pocketed_on_a_safe_break_without_a_call_is_spotted_rule_6_6() -> None:
    ruling, state = play(begin(), opening_break(pocket=(("1", FL),)))
    assert ruling.legal and ruling.credited == ()
    assert [s.ball for s in ruling.spots] == [BallId.ONE] and state.shooter == BOB


@pytest.mark.parametrize(
    ("shot", "why"),
    [
        (opening_break(to_cushion=("2",)), "only 1 object ball"),
        (opening_break(cue_cushion=False), "the cue ball reached no cushion"),
        (opening_break(to_cushion=(), cue_cushion=False, hit=False), "touched no object ball"),
    ],
    ids=["one-ball", "no-cue-cushion", "no-contact"],
)
def test_a_break_violation_costs_two_and_the_other_player_chooses_rule_6_6(
    shot: Shot, why: str
) -> None:
    ruling, state = play(begin(), shot)
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.BAD_BREAK
    assert ruling.foul.rule == "6.6" and why in ruling.foul.reason
    assert points(ruling, ANN) == -2 and state.scores == (-2, 0)
    assert ruling.choices == (Choice.ACCEPT_TABLE, Choice.RERACK_OPPONENT_BREAKS)
    assert ruling.chooser == BOB and state.chooser == BOB


def test_a_called_ball_missed_on_the_break_is_a_violation_unless_two_reach_cushions_rule_6_6() -> (
    None
):
    shot = opening_break(to_cushion=("2",), pocket=(("4", FR),))
    ruling, _ = play(begin(), shot, call=call("1", FL))
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.BAD_BREAK
    assert [s.ball for s in ruling.spots] == [BallId.FOUR]


def test_each_repeated_break_violation_costs_two_more_rule_6_6() -> None:
    state = begin()
    for n in range(1, 4):
        ruling, state = play(state, opening_break(index=n, to_cushion=("2",)))
        assert points(ruling, ANN) == -2
        state = GAME.choose(state, Choice.RERACK_OPPONENT_BREAKS)
        assert state.phase is Phase.BREAK and state.shooter == ANN
        assert state.on_table == OBJECT_BALLS and state.ball_in_hand is BallInHand.KITCHEN
    assert state.scores == (-6, 0)
    ruling, state = play(state, opening_break(index=9))
    assert ruling.legal and state.shooter == BOB and state.scores == (-6, 0)


def test_break_violations_never_count_toward_three_fouls_rule_6_6() -> None:
    state = begin()
    for n in range(3):
        ruling, state = play(state, opening_break(index=n, to_cushion=()))
        assert not any(w.kind is AlertKind.SECOND_CONSECUTIVE_FOUL for w in ruling.warnings)
        assert state.fouls_in_a_row == (0, 0)
        state = GAME.choose(state, Choice.RERACK_OPPONENT_BREAKS)
    assert state.scores == (-6, 0)


def test_accepting_a_break_violation_plays_the_table_as_it_lies_rule_6_6() -> None:
    _, state = play(begin(), opening_break(to_cushion=("2",)))
    state = GAME.choose(state, Choice.ACCEPT_TABLE)
    assert state.shooter == BOB and state.phase is Phase.PLAY and not state.choices
    assert state.ball_in_hand is BallInHand.NONE


def test_a_scratch_on_a_legal_break_costs_one_and_counts_as_a_foul_rule_6_6() -> None:
    ruling, state = play(begin(), opening_break(scratch=FR))
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.SCRATCH
    assert points(ruling, ANN) == -1 and ruling.choices == ()
    assert state.fouls_in_a_row == (1, 0)
    assert state.shooter == BOB and state.ball_in_hand is BallInHand.KITCHEN


def test_a_scratch_on_a_break_violation_costs_the_two_of_the_violation_rule_6_6() -> None:
    ruling, state = play(begin(), opening_break(to_cushion=("2",), scratch=FR))
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.BAD_BREAK
    assert points(ruling, ANN) == -2 and state.fouls_in_a_row == (0, 0)
    assert GAME.choose(state, Choice.ACCEPT_TABLE).ball_in_hand is BallInHand.KITCHEN


# 6.10, 6.11, 6.13: fouls ----------------------------------------------------------------------


def test_a_foul_costs_one_and_the_cue_ball_is_played_where_it_lies_rule_6_11() -> None:
    ruling, state = play(after_break(), miss(1))
    assert ruling.foul is not None and ruling.foul.rule == "6.7.2"
    assert points(ruling, BOB) == -1 and state.scores == (0, -1)
    assert state.shooter == ANN and state.ball_in_hand is BallInHand.NONE


@pytest.mark.parametrize("how", ["scratch", "off-table"])
def test_after_a_scratch_or_the_cue_ball_off_the_table_ball_in_hand_behind_the_line_rule_6_10(
    how: str,
) -> None:
    b = ShotBuilder(index=1).strike().hit("3").cushion("3", CushionId.FOOT)
    b = b.pocket("cue", FL) if how == "scratch" else b.off_table("cue")
    ruling, state = play(after_break(), b.build())
    assert points(ruling, BOB) == -1
    assert state.shooter == ANN and state.ball_in_hand is BallInHand.KITCHEN


def test_a_ball_pocketed_on_a_foul_is_spotted_and_the_penalty_taken_off_rule_6_13() -> None:
    state = after_break().replace(scores=(0, 5))
    ruling, after = play(state, pot("3", FL, 1, scratch=FR), call=call("3", FL))
    assert ruling.credited == () and [s.ball for s in ruling.spots] == [BallId.THREE]
    assert BallId.THREE in after.on_table and after.scores == (0, 4)


def test_scores_may_go_negative_rule_6_13() -> None:
    _, state = play(after_break(), miss(1))
    assert state.scores == (0, -1)


def test_a_ball_driven_off_the_table_is_a_foul_and_is_spotted_rule_6_9() -> None:
    shot = ShotBuilder(index=1).strike().hit("3").cushion("3", CushionId.FOOT).off_table("7")
    ruling, state = play(after_break(), shot.build())
    assert ruling.foul is not None and ruling.foul.rule == "6.9"
    assert [s.ball for s in ruling.spots] == [BallId.SEVEN] and BallId.SEVEN in state.on_table
    assert points(ruling, BOB) == -1


def test_a_declared_safety_ends_the_inning_and_its_pocketed_balls_are_spotted_rule_6_7_4() -> None:
    ruling, state = play(after_break(), pot("3", FL, 1), safety=True)
    assert ruling.legal and ruling.safety and ruling.credited == ()
    assert [s.ball for s in ruling.spots] == [BallId.THREE]
    assert state.shooter == ANN and state.scores == (0, 0)


def test_a_safety_must_still_be_a_legal_shot_rule_6_7_4() -> None:
    shot = ShotBuilder(index=1).strike().hit("3").build()
    ruling, state = play(after_break(), shot, safety=True)
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.NO_CUSHION
    assert state.scores == (0, -1)


# 6.7.5: deliberate fouls --------------------------------------------------------------------------


def test_a_deliberate_foul_costs_sixteen_and_offers_the_rerack_rule_6_7_5() -> None:
    deliberate = Foul.of(FoulKind.DELIBERATE, "caught the 3 on its way to the pocket")
    ruling, state = play(after_break(), safe("3", 1), fouls=(deliberate,))
    assert ruling.foul is deliberate and points(ruling, BOB) == -16
    assert ruling.choices == (Choice.ACCEPT_TABLE, Choice.RERACK_OPPONENT_BREAKS)
    assert state.chooser == ANN and state.ball_in_hand is BallInHand.KITCHEN
    accepted = GAME.choose(state, Choice.ACCEPT_TABLE)
    assert accepted.shooter == ANN and accepted.ball_in_hand is BallInHand.KITCHEN
    reracked = GAME.choose(state, Choice.RERACK_OPPONENT_BREAKS)
    assert reracked.phase is Phase.BREAK and reracked.shooter == BOB and reracked.breaker == BOB
    assert reracked.on_table == OBJECT_BALLS and reracked.scores == (0, -16)


def test_a_deliberate_foul_entered_between_shots_costs_sixteen_rule_6_7_5() -> None:
    state = after_break()
    ruling = GAME.foul_between_shots(state, Foul.of(FoulKind.DELIBERATE, "touched"), BOB)
    after = GAME.advance(state, ruling)
    assert after.scores == (0, -16) and after.shooter == ANN and after.chooser == ANN


def test_a_deliberate_foul_outranks_a_scratch_in_one_inning_rule_3_30() -> None:
    deliberate = Foul.of(FoulKind.DELIBERATE, "stopped the cue ball")
    b = ShotBuilder(index=1).strike().hit("3").cushion("3", CushionId.FOOT).pocket("cue", FL)
    ruling, state = play(after_break(), b.build(), fouls=(deliberate,))
    assert ruling.foul is deliberate and state.scores == (0, -16)


# 6.12, 2.16: three consecutive fouls ------------------------------------------------------


def _three_fouls(auto_warn: bool = True) -> list[tuple[Ruling, GameState]]:
    """Bob fouls in three turns in a row, Ann playing legal misses between."""
    state = after_break(auto_warn=auto_warn)
    out = []
    for n in range(3):
        ruling, state = play(state, miss(10 * n + 1))
        out.append((ruling, state))
        if not state.choices:
            _, state = play(state, safe("3", 10 * n + 2))
    return out


def test_the_second_consecutive_foul_brings_the_warning_rule_2_16() -> None:
    (first, _), (second, after), _ = _three_fouls()
    assert not any(w.kind is AlertKind.SECOND_CONSECUTIVE_FOUL for w in first.warnings)
    warning = [w for w in second.warnings if w.kind is AlertKind.SECOND_CONSECUTIVE_FOUL]
    assert warning and warning[0].player == BOB and "6.12" in warning[0].text
    assert after.warned == (False, True) and after.fouls_in_a_row == (0, 2)


def test_three_consecutive_fouls_cost_eighteen_in_all_and_offer_the_rerack_rule_6_12() -> None:
    results = _three_fouls()
    assert [points(r, BOB) for r, _ in results] == [-1, -1, -16]
    third, state = results[2]
    assert state.scores == (0, -18)
    assert {c.rule for c in third.score} == {"6.11", "6.12"}
    assert third.choices == (Choice.ACCEPT_TABLE, Choice.RERACK_OPPONENT_BREAKS)
    assert third.ball_in_hand is BallInHand.KITCHEN
    assert state.fouls_in_a_row == (0, 0) and state.warned == (False, False)  # count ends
    reracked = GAME.choose(state, Choice.RERACK_OPPONENT_BREAKS)
    assert reracked.phase is Phase.BREAK and reracked.shooter == BOB
    assert reracked.on_table == OBJECT_BALLS and reracked.scores == (0, -18)
    ruling, _ = play(reracked, opening_break(index=50, to_cushion=("2",)))
    assert points(ruling, BOB) == -2  # opening-break rules apply to the re-break


def test_an_unwarned_third_foul_is_an_ordinary_foul_rule_2_16() -> None:
    results = _three_fouls(auto_warn=False)
    assert [points(r, BOB) for r, _ in results] == [-1, -1, -1]
    assert any("2.16" in n for n in results[2][0].notes)


def test_a_legal_shot_between_fouls_clears_the_count_rule_6_12() -> None:
    state = after_break()
    _, state = play(state, miss(1))
    _, state = play(state, safe("3", 2))
    _, state = play(state, safe("4", 3))  # Bob's legal shot clears his foul
    assert state.fouls_in_a_row == (0, 0)


def test_the_worked_example_of_innings_six_to_nine_rule_6_12() -> None:
    """6.12: he ends inning six with a foul, fouls in inning seven (two in a row), then in
    inning eight pockets a ball legally and scratches on the second shot: not three fouls; he
    starts inning nine on one foul."""
    state = after_break(breaker=BOB).replace(scores=(20, 20))  # Ann at the table
    ruling, state = play(state, miss(60))  # inning six ends with a foul
    assert state.fouls_in_a_row == (1, 0)
    _, state = play(state, safe("3", 61))  # Bob
    ruling, state = play(state, miss(70))  # inning seven: a foul, two in a row
    assert state.fouls_in_a_row == (2, 0) and state.warned == (True, False)
    _, state = play(state, safe("3", 71))  # Bob
    ruling, state = play(state, pot("4", FL, 80), call=call("4", FL))  # inning eight
    assert ruling.legal and state.fouls_in_a_row == (0, 0) and state.warned == (False, False)
    b = ShotBuilder(index=81).strike().hit("5").cushion("5", CushionId.FOOT).pocket("cue", SL)
    ruling, state = play(state, b.build())
    assert points(ruling, ANN) == -1 and ruling.choices == ()  # not a third foul
    _, state = play(state, safe("3", 82))  # Bob
    assert state.shooter == ANN and state.fouls_in_a_row == (1, 0)  # before inning nine
    assert state.scores == (20 - 1 - 1 + 1 - 1, 20)


# 6.7.2: balls near a cushion ---------------------------------------------------------------------

NEAR = NearCushion(BallId.THREE, CushionId.LEFT_FOOT, 20.0)


def cushion_safety(index: int, cue_cushion: bool = False) -> Shot:
    """A safety on the 3, which lies near the left-foot cushion, driving it into that cushion."""
    b = ShotBuilder(index=index).strike().hit("3").cushion("3", CushionId.LEFT_FOOT)
    if cue_cushion:
        b.cushion("cue", CushionId.HEAD)
    return b.build(near_cushion=(NEAR,))


def _two_cushion_safeties() -> tuple[list[Ruling], GameState]:
    state = after_break(breaker=BOB)  # Ann at the table
    rulings = []
    for n in range(2):
        ruling, state = play(state, cushion_safety(10 + 2 * n))
        rulings.append(ruling)
        _, state = play(state, safe("9", 11 + 2 * n))  # Bob
    return rulings, state


def test_two_safeties_into_the_nearest_cushion_are_allowed_then_it_counts_frozen_rule_6_7_2() -> (
    None
):
    rulings, state = _two_cushion_safeties()
    assert all(r.legal and r.cushion_safety is BallId.THREE for r in rulings)
    assert not any(w.rule == "6.7.2" for w in rulings[0].warnings)
    assert any(w.rule == "6.7.2" and w.ball is BallId.THREE for w in rulings[1].warnings)
    assert state.cushion_safety_ball[ANN] is BallId.THREE and state.cushion_safeties[ANN] == 2
    ruling, after = play(state, cushion_safety(20))
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.FROZEN_BALL
    assert ruling.foul.rule == "6.7.2" and after.scores == (-1, 0)


def test_the_third_shot_meeting_the_frozen_ball_rule_is_legal_rule_6_7_2() -> None:
    _, state = _two_cushion_safeties()
    ruling, after = play(state, cushion_safety(20, cue_cushion=True))
    assert ruling.legal and after.cushion_safeties[ANN] == 0


def test_another_shot_between_ends_the_count_of_cushion_safeties_rule_6_7_2() -> None:
    state = after_break(breaker=BOB)
    _, state = play(state, cushion_safety(10))
    _, state = play(state, safe("9", 11))
    _, state = play(state, safe("9", 12))  # Ann plays another ball
    _, state = play(state, safe("9", 13))
    _, state = play(state, cushion_safety(14))
    assert state.cushion_safeties[ANN] == 1


def test_a_foul_right_before_a_cushion_safety_makes_the_ball_frozen_at_once_rule_6_7_2() -> None:
    state = after_break(breaker=BOB)
    _, state = play(state, miss(10))  # Ann fouls
    _, state = play(state, safe("9", 11))
    ruling, state = play(state, cushion_safety(12))
    assert any(w.rule == "6.7.2" for w in ruling.warnings)
    _, state = play(state, safe("9", 13))
    ruling, _ = play(state, cushion_safety(14))
    assert ruling.foul is not None and ruling.foul.rule == "6.7.2"


def test_on_two_fouls_a_near_ball_counts_frozen_at_once_rule_6_7_2() -> None:
    state = after_break(breaker=BOB)
    for n in range(2):
        _, state = play(state, miss(10 + 2 * n))
        _, state = play(state, safe("9", 11 + 2 * n))
    ruling, state = play(state, cushion_safety(20))
    assert ruling.foul is not None and ruling.foul.rule == "6.7.2"
    assert points(ruling, ANN) == -16  # the third foul in a row (6.12): -18 over the three
    assert state.scores == (-18, 0)
    # The note of 6.7.2: all 15 are racked and the offender breaks; Bob has no other option.
    assert ruling.choices == (Choice.RERACK_OPPONENT_BREAKS,) and ruling.chooser == BOB
    reracked = GAME.choose(state, Choice.RERACK_OPPONENT_BREAKS)
    assert reracked.phase is Phase.BREAK and reracked.shooter == ANN
    assert reracked.on_table == OBJECT_BALLS


# 6.7.3, 6.7.6: the 14th ball -------------------------------------------------------------------

CUE_ELSEWHERE = (-300.0, 350.0)
BALL_ELSEWHERE = (200.0, -450.0)


def two_left(on_table: tuple[str, str] = ("7", "12"), scores=(30, 40)) -> GameState:
    balls = tuple(BallId(b) for b in on_table)
    return after_break().replace(on_table=balls, scores=scores)


def test_the_14th_ball_has_the_14_racked_with_the_apex_empty_rule_6_7_3() -> None:
    state = two_left()
    rest = Layout.of({BallId.CUE: CUE_ELSEWHERE, BallId.TWELVE: BALL_ELSEWHERE})
    ruling, after = play(state, pot("7", FL, 5, at_rest=rest), call=call("7", FL))
    assert ruling.legal and after.scores == (30, 41)
    assert after.shooter == BOB and after.ball_in_hand is BallInHand.NONE
    assert after.on_table == OBJECT_BALLS
    racked = {s.ball: s.position for s in ruling.spots}
    assert BallId.TWELVE not in racked and BallId.CUE not in racked and len(racked) == 14
    assert check_rack(Layout.of(racked), "14.1", T, apex_empty=True).ok
    assert any(n.startswith("6.7.3") for n in ruling.notes)


def test_the_15th_ball_in_the_rack_area_goes_to_the_head_spot_rule_6_7_6() -> None:
    in_rack = T.rack_slots(RackShape.TRIANGLE)[4]
    rest = Layout.of({BallId.CUE: CUE_ELSEWHERE, BallId.TWELVE: in_rack})
    ruling, after = play(two_left(), pot("7", FL, 5, at_rest=rest), call=call("7", FL))
    spots = {s.ball: s.position for s in ruling.spots}
    assert spots[BallId.TWELVE] == (T.head_string_x, 0.0)
    assert after.ball_in_hand is BallInHand.NONE and any("6.7.6" in n for n in ruling.notes)


def test_the_cue_ball_in_the_rack_area_is_in_hand_behind_the_line_rule_6_7_6() -> None:
    in_rack = T.rack_slots(RackShape.TRIANGLE)[7]
    rest = Layout.of({BallId.CUE: in_rack, BallId.TWELVE: BALL_ELSEWHERE})
    ruling, after = play(two_left(), pot("7", FL, 5, at_rest=rest), call=call("7", FL))
    assert BallId.TWELVE not in {s.ball for s in ruling.spots}
    assert after.shooter == BOB and after.ball_in_hand is BallInHand.KITCHEN


def test_the_15th_ball_pocketed_with_the_14th_scores_and_goes_to_the_foot_spot_rule_6_7_3() -> None:
    rest = Layout.of({BallId.CUE: CUE_ELSEWHERE})
    shot = pot("7", FL, 5, also=(("12", FR),), at_rest=rest)
    ruling, after = play(two_left(), shot, call=call("7", FL))
    assert set(ruling.credited) == {BallId.SEVEN, BallId.TWELVE} and after.scores == (30, 42)
    spots = {s.ball: s.position for s in ruling.spots}
    assert spots[BallId.TWELVE] == T.foot_spot and len(spots) == 15
    assert after.on_table == OBJECT_BALLS and after.shooter == BOB


def test_the_shooter_then_plays_on_and_must_pocket_a_called_ball_rule_6_7_3() -> None:
    rest = Layout.of({BallId.CUE: CUE_ELSEWHERE, BallId.TWELVE: BALL_ELSEWHERE})
    _, state = play(two_left(), pot("7", FL, 5, at_rest=rest), call=call("7", FL))
    b = ShotBuilder(index=6).strike().hit("12").pocket("12", SL).hit("12", "3")
    ruling, after = play(state, b.build(), call=call("12", SL))
    assert ruling.legal and after.scores == (30, 42) and after.shooter == BOB
    b = ShotBuilder(index=7).strike().hit("4").cushion("4", CushionId.FOOT)
    ruling, after = play(after, b.build())
    assert ruling.legal and after.shooter == ANN  # a miss ends the inning as ever


def test_an_unseen_cue_ball_at_the_rerack_is_put_up_for_review_rule_6_7_6() -> None:
    rest = Layout.of({BallId.TWELVE: BALL_ELSEWHERE})
    ruling, after = play(two_left(), pot("7", FL, 5, at_rest=rest), call=call("7", FL))
    assert ruling.needs_review and after.ball_in_hand is BallInHand.KITCHEN


def test_no_rerack_when_the_14th_ball_is_pocketed_on_a_foul_rule_6_13() -> None:
    rest = Layout.of({BallId.CUE: CUE_ELSEWHERE, BallId.TWELVE: BALL_ELSEWHERE})
    ruling, after = play(two_left(), pot("7", FL, 5, scratch=FR, at_rest=rest))
    assert after.on_table == (BallId.SEVEN, BallId.TWELVE) and len(ruling.spots) == 1


# 6.7.7 ---------------------------------------------------------------------------------------


def test_after_a_scratch_with_every_ball_in_the_kitchen_the_nearest_may_be_spotted_rule_6_7_7() -> (
    None
):
    hx = T.head_string_x
    rest = Layout.of({BallId.TWO: (hx - 100.0, 200.0), BallId.NINE: (hx - 40.0, -100.0)})
    state = after_break().replace(on_table=(BallId.TWO, BallId.NINE, BallId.ELEVEN))
    b = ShotBuilder(index=1).strike().hit("11").pocket("11", HL).pocket("cue", FL)
    ruling, after = play(state, b.build(at_rest=rest))
    assert after.ball_in_hand is BallInHand.KITCHEN
    # The 11 is spotted on the foot spot, out of the kitchen: no option then.
    assert not any(n.startswith("6.7.7") for n in ruling.notes)
    state = after_break().replace(on_table=(BallId.TWO, BallId.NINE))
    b = ShotBuilder(index=2).strike().hit("2").cushion("2", CushionId.HEAD).pocket("cue", FL)
    ruling, _ = play(state, b.build(at_rest=rest))
    assert any(n.startswith("6.7.7") and "the 9 is spotted" in n for n in ruling.notes)


# Whole games through the referee's log ------------------------------------------------------------


def _rest(state: GameState, potted: tuple[BallId, ...]) -> Layout:
    """Balls at rest after a shot: the cue ball and what is left, all out of the rack's way."""
    left = [b for b in state.on_table if b not in potted]
    where = {b: (-200.0 + 60.0 * i, -450.0) for i, b in enumerate(left)}
    where[BallId.CUE] = CUE_ELSEWHERE
    return Layout.of(where)


def _run(referee: Referee, index: int, t: float, count: int) -> tuple[int, float]:
    """The shooter pockets ``count`` balls, each called, the lowest into the foot-left pocket."""
    for _ in range(count):
        state = referee.state
        ball = state.on_table[0]
        referee.record(CallShot(ball, FL), t)
        shot = pot(ball, FL, index, at_rest=_rest(state, (ball,)))
        referee.record(shot, t + 0.5)
        index, t = index + 1, t + 1.0
    return index, t


def test_the_worked_example_150_to_minus_2_through_reracks_rule_6_13() -> None:
    """6.13: a player may win 150 to -2, his opponent having made nothing but two fouls."""
    referee = Referee.new("14.1", PLAYERS, T, GameOptions(breaker=ANN, target_points=150))
    referee.record(opening_break(index=0), 0.0)  # Ann: a safe break
    referee.record(miss(1), 1.0)  # Bob fouls: -1
    referee.record(safe("3", 2), 2.0)  # Ann plays safe
    referee.record(miss(3), 3.0)  # Bob fouls again: -2, warned
    assert referee.state.scores == (0, -2) and referee.state.warned == (False, True)
    _run(referee, 4, 4.0, 150)
    state, rulings = referee.state, referee.timeline.rulings
    assert state.over and state.winner == ANN and state.scores == (150, -2)
    reracks = [r for r in rulings if any(n.startswith("6.7.3") for n in r.notes)]
    assert len(reracks) == 10  # after balls 14, 28, ... 140
    assert all(not r.needs_review for r in rulings)
    with pytest.raises(RecordError, match="already over"):
        referee.record(miss(999), 999.0)


def test_a_whole_game_with_a_rerack_a_deliberate_foul_and_three_fouls_rule_6_12() -> None:
    referee = Referee.new("14.1", PLAYERS, T, GameOptions(breaker=BOB, target_points=20))
    referee.record(opening_break(index=0, to_cushion=("2",)), 0.0)  # Bob: violation, -2
    referee.record(Decision(Choice.RERACK_OPPONENT_BREAKS), 0.5)
    referee.record(opening_break(index=1), 1.0)  # Bob breaks again, legally
    index, t = _run(referee, 2, 2.0, 5)  # Ann runs 5
    referee.record(safe("9", index), t)  # and misses
    index, t = index + 1, t + 1.0
    deliberate = OperatorFoul(FoulKind.DELIBERATE, BOB, shot=index, note="stopped the 9")
    referee.record(safe("9", index), t)
    referee.record(deliberate, t + 0.2)  # Bob: -16
    referee.record(Decision(Choice.ACCEPT_TABLE), t + 0.5)
    assert referee.state.scores == (5, -18) and referee.state.ball_in_hand is BallInHand.KITCHEN
    index, t = _run(referee, index + 1, t + 1.0, 9)  # Ann's 14th ball: the re-rack
    assert referee.state.scores == (14, -18) and len(referee.state.on_table) == 15
    assert referee.state.shooter == ANN
    referee.record(miss(index), t)  # Ann fouls: 13
    # Bob's deliberate foul was his first in a row: two more are the second and the third.
    referee.record(miss(index + 1), t + 1)
    assert referee.state.warned == (False, True)
    referee.record(safe("9", index + 2), t + 2)
    referee.record(miss(index + 3), t + 3)
    assert referee.state.scores == (13, -18 - 1 - 16)
    assert referee.state.chooser == ANN
    referee.record(Decision(Choice.ACCEPT_TABLE), t + 10)
    _run(referee, index + 20, t + 11, 7)
    state = referee.state
    assert state.over and state.winner == ANN and state.scores == (20, -35)
    # The same log replayed from scratch gives the same game (the state is the fold).
    assert replay(referee.log, T) == referee.timeline


def test_a_rack_replayed_after_interference_keeps_the_points_rule_6_1() -> None:
    from rules.inputs import Interference, InterferenceOutcome

    referee = Referee.new("14.1", PLAYERS, T)
    referee.record(opening_break(index=0), 0.0)
    referee.record(miss(1), 1.0)  # Bob: -1
    referee.record(Interference(InterferenceOutcome.REPLAY_RACK, note="a child moved the rack"), 2)
    state = referee.state
    assert state.phase is Phase.BREAK and state.on_table == OBJECT_BALLS
    assert state.scores == (0, -1) and state.shooter == ANN


def test_a_ball_spotted_after_a_foul_is_not_frozen_to_the_cue_ball_lying_there_rule_3_32() -> None:
    cue_on_spot = (T.foot_spot[0], 0.0)
    rest = Layout.of({BallId.CUE: cue_on_spot})
    shot = ShotBuilder(index=1).strike().hit("3").pocket("3", FL).disturbed("9")  # 3.21 foul
    ruling, state = play(after_break(), shot.build(at_rest=rest), call=call("3", FL))
    assert ruling.foul is not None and state.ball_in_hand is BallInHand.NONE
    (spot,) = ruling.spots
    assert abs(spot.position[0] - cue_on_spot[0]) > T.ball_diameter  # clear of the cue ball


def test_a_deliberate_third_foul_costs_sixteen_once_and_ends_the_count_rule_3_30() -> None:
    state = after_break()
    for n in range(2):
        _, state = play(state, miss(10 + 2 * n))
        _, state = play(state, safe("3", 11 + 2 * n))
    deliberate = Foul.of(FoulKind.DELIBERATE, "caught the cue ball")
    ruling, state = play(state, safe("3", 20), fouls=(deliberate,))
    assert points(ruling, BOB) == -16 and state.scores == (0, -18)
    assert state.fouls_in_a_row == (0, 0)


def test_the_non_shooting_player_fouling_during_a_shot_loses_a_point_rule_3_41() -> None:
    referee = Referee.new("14.1", PLAYERS, T)
    referee.record(opening_break(index=0), 0.0)
    referee.record(CallShot(BallId.THREE, FL), 0.5)
    referee.record(pot("3", FL, 1), 1.0)  # Bob scores
    referee.record(OperatorFoul(FoulKind.INTERFERENCE, ANN, shot=1, note="Ann jostled"), 1.5)
    state = referee.state
    assert state.scores == (-1, 1) and state.shooter == BOB


def test_with_ball_in_hand_behind_the_line_a_kitchen_ball_may_not_be_hit_first_rule_3_10() -> None:
    b = ShotBuilder(index=1).strike().hit("3").cushion("3", CushionId.FOOT).pocket("cue", FL)
    _, state = play(after_break(), b.build())  # Bob scratches: Ann in hand in the kitchen
    kitchen_ball = Layout.of({BallId.FOUR: (T.head_string_x - 200.0, 0.0)})
    shot = ShotBuilder(index=2, at_strike=kitchen_ball).strike().hit("4")
    shot.cushion("4", CushionId.HEAD)
    ruling, after = play(state, shot.build(placement=placement(-900.0, 100.0)))
    assert ruling.foul is not None and ruling.foul.kind is FoulKind.KITCHEN_BALL_FIRST
    assert after.scores == (-1, -1)
