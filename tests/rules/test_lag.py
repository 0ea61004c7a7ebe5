from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.balls import BallId
from rules.events import EventKind
from rules.lag import LagEvidence, LagFault, LagLoss, RelagReason, judge_lag
from rules.shot import Layout
from rules.table import CushionId, PocketId
from tests.factories import TABLE_9FT, ShotBuilder, lag_evidence

HALF_LENGTH = TABLE_9FT.length / 2


def test_the_ball_nearest_the_head_cushion_wins_rule_3_6() -> None:
    result = judge_lag(lag_evidence("A", 1, 120.0), lag_evidence("B", -1, 45.5), TABLE_9FT)
    assert (result.winner, result.loser, result.relag) == ("B", "A", None)
    assert result.margin_mm == pytest.approx(74.5)
    assert dict(result.distances_mm) == pytest.approx({"A": 120.0, "B": 45.5})
    assert result.rule == "3.6"


def test_a_ball_frozen_to_the_head_cushion_beats_any_other_rule_3_6() -> None:
    result = judge_lag(lag_evidence("A", 1, 0.0), lag_evidence("B", -1, 3.0), TABLE_9FT)
    assert result.winner == "A"


@pytest.mark.parametrize(
    ("facts", "loss", "item"),
    [
        ({"crossed_into_other_half": True}, LagLoss.CROSSED_INTO_OTHER_HALF, "3.6(a)"),
        ({"foot_cushion_contacts": 0}, LagLoss.NO_FOOT_CUSHION, "3.6(b)"),
        ({"pocketed": True, "final": None}, LagLoss.POCKETED, "3.6(c)"),
        ({"off_table": True, "final": None}, LagLoss.OFF_TABLE, "3.6(d)"),
        ({"touched_long_cushion": True}, LagLoss.LONG_CUSHION, "3.6(e)"),
        ({"in_corner_jaws": True}, LagLoss.IN_CORNER_JAWS, "3.6(f)"),
        ({"foot_cushion_contacts": 2}, LagLoss.FOOT_CUSHION_TWICE, "3.6(g)"),
    ],
)
def test_each_automatic_loss_loses_even_the_nearer_ball_rule_3_6(
    facts: dict, loss: LagLoss, item: str
) -> None:
    faulty = lag_evidence("A", 1, 5.0, **facts)
    result = judge_lag(faulty, lag_evidence("B", -1, 900.0), TABLE_9FT)
    assert (result.winner, result.loser) == ("B", "A")
    assert result.faults == (LagFault("A", loss),)
    assert result.faults[0].rule == item
    assert loss.reason


def test_resting_across_the_long_string_is_crossing_into_the_other_half_rule_3_6_a() -> None:
    across = lag_evidence("A", 1, 50.0, final=(-HALF_LENGTH + 80.0, -40.0))
    assert across.losses(TABLE_9FT) == (LagLoss.CROSSED_INTO_OTHER_HALF,)


def test_resting_behind_the_head_cushion_nose_is_in_the_corner_jaws_rule_3_6_f() -> None:
    in_jaws = lag_evidence("A", 1, final=(-HALF_LENGTH - 10.0, TABLE_9FT.width / 2 - 20.0))
    result = judge_lag(in_jaws, lag_evidence("B", -1, 300.0), TABLE_9FT)
    assert result.winner == "B"
    assert [f.rule for f in result.faults] == ["3.6(f)"]


def test_every_loss_is_listed_in_the_order_of_the_text_rule_3_6() -> None:
    bad = lag_evidence("A", foot_cushion_contacts=2, touched_long_cushion=True)
    assert [loss.rule for loss in bad.losses(TABLE_9FT)] == ["3.6(e)", "3.6(g)"]


def test_both_losing_is_a_relag_rule_3_6() -> None:
    result = judge_lag(
        lag_evidence("A", 1, None, pocketed=True),
        lag_evidence("B", -1, 30.0, touched_long_cushion=True),
        TABLE_9FT,
    )
    assert (result.winner, result.loser, result.relag) == (None, None, RelagReason.BOTH_LOST)
    assert {f.player for f in result.faults} == {"A", "B"}


def test_too_close_to_judge_is_a_relag_with_a_tolerance_setting_rule_3_6() -> None:
    a, b = lag_evidence("A", 1, 40.0), lag_evidence("B", -1, 41.5)
    assert judge_lag(a, b, TABLE_9FT).relag is RelagReason.TOO_CLOSE
    assert judge_lag(a, b, TABLE_9FT, too_close_mm=1.0).winner == "A"


def test_balls_not_started_from_behind_the_head_string_each_side_are_relagged_rule_3_6() -> None:
    over_the_line = lag_evidence("A", 1, 20.0, start=(TABLE_9FT.head_string_x + 5.0, 300.0))
    result = judge_lag(over_the_line, lag_evidence("B", -1, 80.0), TABLE_9FT)
    assert result.relag is RelagReason.IMPROPER_START
    same_side = judge_lag(lag_evidence("A", 1), lag_evidence("B", 1, 70.0), TABLE_9FT)
    assert same_side.relag is RelagReason.IMPROPER_START


def test_inconsistent_evidence_is_refused_rule_3_6() -> None:
    with pytest.raises(ValueError, match="final position exactly when"):
        LagEvidence("A", (-900.0, 300.0), pocketed=True, final=(-1000.0, 300.0))
    with pytest.raises(ValueError, match="final position exactly when"):
        LagEvidence("A", (-900.0, 300.0))
    with pytest.raises(ValueError, match="negative foot cushion"):
        lag_evidence(foot_cushion_contacts=-1)
    with pytest.raises(ValueError, match="two players"):
        judge_lag(lag_evidence("A"), lag_evidence("A", -1), TABLE_9FT)


distances = st.floats(min_value=0.0, max_value=TABLE_9FT.length / 2)


@given(distances, distances)
def test_the_lag_is_symmetric_in_its_players_rule_3_6(d1: float, d2: float) -> None:
    a, b = lag_evidence("A", 1, d1), lag_evidence("B", -1, d2)
    one, other = judge_lag(a, b, TABLE_9FT), judge_lag(b, a, TABLE_9FT)
    assert (one.winner, one.loser, one.relag) == (other.winner, other.loser, other.relag)
    if one.winner is not None:
        assert dict(one.distances_mm)[one.winner] < dict(one.distances_mm)[one.loser]


def test_lag_evidence_is_read_off_the_shot_record_of_the_lag_rule_3_6() -> None:
    half = TABLE_9FT.length / 2
    a_start, b_start = (-900.0, 300.0), (-900.0, -300.0)
    builder = ShotBuilder(at_strike=Layout.of({BallId.CUE: a_start, BallId.ONE: b_start}))
    builder.strike().add(EventKind.CUE_STRIKE, "1", t=0.0)
    builder.cushion("cue", CushionId.FOOT).cushion("1", CushionId.FOOT)
    builder.cushion("1", CushionId.RIGHT_HEAD).cushion("cue", CushionId.HEAD)
    at_rest = Layout.of({BallId.CUE: (-half + 60.0, 280.0), BallId.ONE: (-half + 30.0, -290.0)})
    shot = builder.build(at_rest=at_rest)
    ann = LagEvidence.from_shot(shot, BallId.CUE, "Ann")
    bob = LagEvidence.from_shot(shot, BallId.ONE, "Bob")
    assert (ann.foot_cushion_contacts, ann.touched_long_cushion) == (1, False)
    assert (bob.foot_cushion_contacts, bob.touched_long_cushion) == (1, True)
    result = judge_lag(ann, bob, TABLE_9FT)
    assert (result.winner, result.faults) == ("Ann", (LagFault("Bob", LagLoss.LONG_CUSHION),))


def test_a_pocketed_lag_ball_is_read_as_pocketed_rule_3_6_c() -> None:
    builder = ShotBuilder(at_strike=Layout.of({BallId.CUE: (-900.0, 300.0)}))
    shot = builder.strike().cushion("cue", CushionId.FOOT).pocket("cue", PocketId.HEAD_LEFT)
    evidence = LagEvidence.from_shot(shot.build(at_rest=Layout()), BallId.CUE, "Ann")
    assert evidence.losses(TABLE_9FT) == (LagLoss.POCKETED,)
    with pytest.raises(ValueError, match="ball 2 was not on the table"):
        LagEvidence.from_shot(shot.build(), BallId.TWO, "Ann")
