"""The general rules (WPA 3.x, 2.x) on hand-made shots, one golden case per rule."""

from __future__ import annotations

from rules.balls import BallId
from rules.events import EventKind
from rules.general import ShotContext, judge_general
from rules.ruling import AlertKind, BallInHand, Foul, FoulKind, most_severe
from rules.shot import DoubleHitEvidence, Frozen, JumpEvidence, Layout, PushEvidence
from rules.table import CushionId, PocketId
from tests.factories import TABLE_9FT, ShotBuilder, placement, shot_at

ANY_ONE = ShotContext(legal_first=(BallId.ONE,))


def kinds(shot, ctx=ANY_ONE) -> list[FoulKind]:
    return [f.kind for f in judge_general(shot, ctx, TABLE_9FT).fouls]


def test_a_clean_shot_has_no_foul_rule_3_19() -> None:
    assert kinds(shot_at("1")) == []
    assert kinds(shot_at("1", pocket=PocketId.FOOT_LEFT, cushion=False)) == []


def test_cue_ball_to_a_cushion_after_contact_is_enough_rule_3_19() -> None:
    shot = ShotBuilder().strike().hit("1").cushion("cue", CushionId.LEFT_HEAD).build()
    assert kinds(shot) == []


def test_no_pocket_and_no_cushion_after_contact_is_a_foul_rule_3_19() -> None:
    # The cue ball reached a cushion only before the contact: that does not count.
    shot = ShotBuilder().strike().cushion("cue", CushionId.HEAD).hit("1").build()
    assert kinds(shot) == [FoulKind.NO_CUSHION]


def test_missing_every_ball_is_a_foul_rule_3_18() -> None:
    shot = ShotBuilder().strike().cushion("cue", CushionId.FOOT).build()
    assert kinds(shot) == [FoulKind.NO_CONTACT]


def test_hitting_a_ball_that_may_not_be_hit_first_is_a_foul_rule_3_18() -> None:
    found = judge_general(shot_at("3"), ANY_ONE, TABLE_9FT)
    assert [f.kind for f in found.fouls] == [FoulKind.WRONG_BALL_FIRST]
    assert found.fouls[0].ball is BallId.THREE and found.fouls[0].rule == "3.18"


def test_split_hit_is_decided_for_the_shooter_rules_2_10_1_16_4() -> None:
    shot = (
        ShotBuilder()
        .strike()
        .hit("3", t=0.500, uncertainty=0.004)
        .hit("1", t=0.502)
        .cushion("3", CushionId.FOOT)
        .build()
    )
    assert shot.first_contact is not None and shot.first_contact.ball is BallId.THREE
    found = judge_general(shot, ANY_ONE, TABLE_9FT)
    assert found.fouls == ()
    assert found.reviews == ()  # a split hit is not uncertain: 2.10 decides it
    assert any("2.10" in n for n in found.notes)


def test_scratch_is_a_foul_rule_3_20() -> None:
    assert FoulKind.SCRATCH in kinds(shot_at("1", scratch=PocketId.SIDE_RIGHT))


def test_ball_off_the_table_is_a_foul_rule_3_28() -> None:
    shot = ShotBuilder().strike().hit("1").off_table("1").cushion("cue", CushionId.FOOT).build()
    found = judge_general(shot, ANY_ONE, TABLE_9FT)
    assert [f.kind for f in found.fouls] == [FoulKind.OBJECT_BALL_OFF_TABLE]
    assert found.fouls[0].ball is BallId.ONE
    cue_off = ShotBuilder().strike().hit("1").off_table("cue").cushion("1", CushionId.FOOT).build()
    assert kinds(cue_off) == [FoulKind.CUE_BALL_OFF_TABLE]


def test_striking_while_a_ball_moves_is_a_foul_rule_3_14() -> None:
    shot = shot_at("1", moving_at_strike=(BallId.SIX,))
    assert kinds(shot) == [FoulKind.BALLS_MOVING]


def test_a_ball_moved_by_hand_or_cue_is_a_foul_rule_3_21() -> None:
    start = Layout.of({BallId.FIVE: (100.0, 50.0)})
    shot = ShotBuilder(at_strike=start).disturbed("5", t=-0.2).strike().hit("1")
    built = shot.cushion("1", CushionId.FOOT).build()
    found = judge_general(built, ANY_ONE, TABLE_9FT)
    assert [f.kind for f in found.fouls] == [FoulKind.TOUCHED_BALL]
    # 3.21: the disturbed object ball goes back where it was.
    assert [(s.ball, s.position) for s in found.restores] == [(BallId.FIVE, (100.0, 50.0))]


def test_dropped_chalk_moving_a_ball_is_a_foul_rule_3_25() -> None:
    # Chalk or a bridge knocking a ball shows as a ball moving with no ball contact.
    shot = ShotBuilder().strike().hit("1").cushion("1", CushionId.FOOT).disturbed("7").build()
    assert kinds(shot) == [FoulKind.TOUCHED_BALL]


def test_touching_a_ball_while_placing_the_cue_ball_is_a_foul_rule_3_22() -> None:
    shot = shot_at("1", placement=placement(200.0, 0.0, touched=("4",)))
    assert kinds(shot) == [FoulKind.PLACEMENT_TOUCH]


def test_frozen_ball_needs_a_new_cushion_after_contact_rule_3_38() -> None:
    frozen = (Frozen(BallId.ONE, 0.0, cushion=CushionId.FOOT),)
    # The 1 only goes back into the cushion it was frozen to: a foul.
    same = ShotBuilder().strike().hit("1").cushion("1", CushionId.FOOT).build(frozen=frozen)
    assert kinds(same) == [FoulKind.FROZEN_BALL]
    # The cue ball reaching a cushion after the contact satisfies 3.38 (b).
    cue = ShotBuilder().strike().hit("1").cushion("cue", CushionId.RIGHT_FOOT).build(frozen=frozen)
    assert kinds(cue) == []
    # The frozen ball reaching a different cushion satisfies 3.38 (c).
    other = ShotBuilder().strike().hit("1").cushion("1", CushionId.LEFT_FOOT).build(frozen=frozen)
    assert kinds(other) == []


def test_cue_ball_frozen_to_the_object_ball_rule_3_38() -> None:
    frozen = (Frozen(BallId.CUE, 0.0, other=BallId.ONE),)
    nothing = ShotBuilder().strike().hit("1").build(frozen=frozen)
    assert FoulKind.FROZEN_BALL in kinds(nothing)
    pocketed = ShotBuilder().strike().hit("1").pocket("1", PocketId.FOOT_LEFT).build(frozen=frozen)
    assert kinds(pocketed) == []


def test_balls_at_rest_against_a_cushion_are_announced_rule_2_16() -> None:
    edge_y = TABLE_9FT.width / 2 - TABLE_9FT.ball_diameter / 2
    rest = Layout.of({BallId.FOUR: (300.0, edge_y - 0.5), BallId.FIVE: (0.0, 0.0)})
    found = judge_general(shot_at("1", at_rest=rest), ANY_ONE, TABLE_9FT)
    frozen = [w for w in found.warnings if w.kind is AlertKind.FROZEN_BALL]
    assert [w.ball for w in frozen] == [BallId.FOUR] and frozen[0].rule == "2.16"


KITCHEN = ShotContext(legal_first=(BallId.ONE,), ball_in_hand=BallInHand.KITCHEN)


def _from_kitchen(x: float, first_at: tuple[float, float], cross_first: bool):
    b = ShotBuilder(at_strike=Layout.of({BallId.ONE: first_at})).strike()
    if cross_first:
        b.crossed_head_string()
    b.hit("1").cushion("1", CushionId.HEAD)
    if not cross_first:
        b.crossed_head_string()
    return b.build(placement=placement(x, 0.0))


def test_cue_ball_in_hand_must_be_behind_the_head_string_rule_3_10() -> None:
    far = TABLE_9FT.head_string_x + 100.0
    assert kinds(_from_kitchen(far, (300.0, 0.0), True), KITCHEN) == [FoulKind.OUTSIDE_KITCHEN]
    inside = TABLE_9FT.head_string_x - 100.0
    assert kinds(_from_kitchen(inside, (300.0, 0.0), True), KITCHEN) == []


def test_cue_ball_on_the_head_string_is_warned_not_called_rule_2_21() -> None:
    on_line = TABLE_9FT.head_string_x + 10.0
    found = judge_general(_from_kitchen(on_line, (300.0, 0.0), True), KITCHEN, TABLE_9FT)
    assert found.fouls == ()
    assert [w.kind for w in found.warnings] == [AlertKind.HEAD_STRING]
    assert [r.rule for r in found.reviews] == ["2.21"]


def test_ball_in_the_kitchen_hit_before_crossing_is_a_foul_rule_3_39() -> None:
    behind = (TABLE_9FT.head_string_x - 200.0, 300.0)
    x = TABLE_9FT.head_string_x - 400.0
    assert kinds(_from_kitchen(x, behind, False), KITCHEN) == [FoulKind.KITCHEN_BALL_FIRST]
    # Out of the kitchen first, then back to hit it: legal (3.10).
    assert kinds(_from_kitchen(x, behind, True), KITCHEN) == []


def test_a_foot_cushion_before_the_contact_proves_the_crossing_rule_3_10() -> None:
    behind = (TABLE_9FT.head_string_x - 200.0, 300.0)
    shot = (
        ShotBuilder(at_strike=Layout.of({BallId.ONE: behind}))
        .strike()
        .cushion("cue", CushionId.FOOT)  # no crossing event from tracking, but it went out
        .hit("1")
        .cushion("1", CushionId.HEAD)
        .build(placement=placement(TABLE_9FT.head_string_x - 400.0))
    )
    assert kinds(shot, KITCHEN) == []


def test_ball_on_the_head_string_may_be_hit_before_crossing_rule_3_39() -> None:
    on_line = (TABLE_9FT.head_string_x, 200.0)
    x = TABLE_9FT.head_string_x - 400.0
    assert kinds(_from_kitchen(x, on_line, False), KITCHEN) == []


def test_cue_ball_that_never_leaves_the_kitchen_is_a_foul_rule_3_10() -> None:
    x = TABLE_9FT.head_string_x - 400.0
    rest = Layout.of({BallId.CUE: (x - 100.0, 0.0)})
    shot = (
        ShotBuilder()
        .strike()
        .cushion("cue", CushionId.HEAD)
        .build(placement=placement(x), at_rest=rest)
    )
    fouls = kinds(shot, KITCHEN)
    assert FoulKind.CUE_BALL_STAYED_IN_KITCHEN in fouls


def _double_hit(gap: float, travel: float, confidence: float = 1.0):
    ev = DoubleHitEvidence(BallId.ONE, gap, travel, confidence)
    return shot_at("1", double_hit=ev)


def test_double_hit_with_a_small_gap_and_long_follow_is_a_foul_rule_2_20() -> None:
    found = judge_general(_double_hit(5.0, 60.0), ANY_ONE, TABLE_9FT)
    assert [f.kind for f in found.fouls] == [FoulKind.DOUBLE_HIT]
    assert found.fouls[0].rule == "3.23" and "5.0 mm" in found.fouls[0].reason


def test_short_follow_or_wide_gap_is_no_double_hit_rule_3_23() -> None:
    assert kinds(_double_hit(5.0, 10.0)) == []
    assert kinds(_double_hit(60.0, 80.0)) == []


def test_double_hit_near_the_threshold_goes_to_review_rule_2_20() -> None:
    for gap, travel, conf in ((21.0, 60.0, 1.0), (5.0, 30.0, 1.0), (5.0, 60.0, 0.5)):
        found = judge_general(_double_hit(gap, travel, conf), ANY_ONE, TABLE_9FT)
        assert found.fouls == (), (gap, travel, conf)
        assert [r.rule for r in found.reviews] == ["2.20"]


def test_push_evidence_is_flagged_for_review_rule_3_24() -> None:
    found = judge_general(shot_at("1", push=PushEvidence(0.02, 0.9)), ANY_ONE, TABLE_9FT)
    assert found.fouls == () and [r.rule for r in found.reviews] == ["3.24"]
    clean = judge_general(shot_at("1", push=PushEvidence(0.001)), ANY_ONE, TABLE_9FT)
    assert clean.reviews == ()


def test_jump_shot_is_flagged_not_a_foul_rules_3_26_3_27() -> None:
    jump = JumpEvidence(True, 1.3, (BallId.FIVE,))
    found = judge_general(shot_at("1", jump=jump), ANY_ONE, TABLE_9FT)
    assert found.fouls == () and [r.rule for r in found.reviews] == ["3.26"]


def test_ball_settling_into_a_pocket_is_restored_without_foul_rule_3_21_second_3_31() -> None:
    start = Layout.of({BallId.SIX: (1240.0, 620.0)})
    shot = (
        ShotBuilder(at_strike=start)
        .strike()
        .hit("1")
        .cushion("1", CushionId.FOOT)
        .settled("6", PocketId.FOOT_LEFT)
        .build()
    )
    found = judge_general(shot, ANY_ONE, TABLE_9FT)
    assert found.fouls == ()
    assert [(s.ball, s.position) for s in found.restores] == [(BallId.SIX, (1240.0, 620.0))]
    assert BallId.SIX not in shot.pocketed


def test_low_confidence_event_puts_the_ruling_up_for_review_rule_2_14() -> None:
    shot = (
        ShotBuilder()
        .strike()
        .hit("1")
        .add(
            EventKind.POCKETED,
            "1",
            pocket=PocketId.FOOT_LEFT,
            confidence=0.4,
        )
        .build()
    )
    found = judge_general(shot, ANY_ONE, TABLE_9FT)
    assert [r.rule for r in found.reviews] == ["2.14"] and "0.40" in found.reviews[0].reason


def test_push_out_needs_no_contact_or_cushion_rule_5_6() -> None:
    ctx = ShotContext(legal_first=(BallId.ONE,), require_contact=False, require_cushion=False)
    shot = ShotBuilder().strike().build()
    assert kinds(shot, ctx) == []


def test_one_foul_per_inning_the_most_severe_rule_3_30() -> None:
    bad_hit = Foul.of(FoulKind.WRONG_BALL_FIRST, "wrong ball")
    scratch = Foul.of(FoulKind.SCRATCH, "scratch")
    loss = Foul.of(FoulKind.LOSS_OF_GAME, "third foul", rule="5.13")
    assert most_severe((bad_hit, scratch)) is scratch
    assert most_severe((bad_hit, loss, scratch)) is loss
    assert most_severe((bad_hit, Foul.of(FoulKind.NO_CUSHION, "x"))) is bad_hit
    assert most_severe(()) is None
    assert most_severe((scratch, bad_hit), {FoulKind.WRONG_BALL_FIRST: 9}) is bad_hit


def _in_opening(pocket: PocketId, depth: float, lateral: float) -> tuple[float, float]:
    """A point ``depth`` mm past ``pocket``'s mouth line and ``lateral`` mm across it."""
    spec = TABLE_9FT.pocket(pocket)
    (cx, cy), (ax, ay) = spec.mouth_centre, spec.axis
    where = (cx + ax * depth - ay * lateral, cy + ay * depth + ax * lateral)
    assert TABLE_9FT.pocket_at(where) is pocket
    return where


def test_two_balls_jammed_in_a_pocket_opening_are_flagged_for_the_referee_rule_3_33() -> None:
    r = TABLE_9FT.ball_diameter / 2
    rest = Layout.of(
        {
            BallId.THREE: _in_opening(PocketId.FOOT_LEFT, 5.0, -r),
            BallId.SEVEN: _in_opening(PocketId.FOOT_LEFT, 5.0, r),
            BallId.CUE: (0.0, 0.0),
        }
    )
    found = judge_general(shot_at("3", at_rest=rest), ANY_ONE, TABLE_9FT)
    jammed = [v for v in found.reviews if v.rule == "3.33"]
    assert jammed and "3, 7" in jammed[0].reason and "foot-left" in jammed[0].reason


def test_one_ball_on_a_pocket_lip_or_balls_in_two_pockets_are_not_jammed_rule_3_33() -> None:
    one = Layout.of({BallId.THREE: _in_opening(PocketId.FOOT_LEFT, 5.0, 0.0)})
    two = Layout.of(
        {
            BallId.THREE: _in_opening(PocketId.FOOT_LEFT, 5.0, 0.0),
            BallId.SEVEN: _in_opening(PocketId.HEAD_RIGHT, 5.0, 0.0),
        }
    )
    for rest in (one, two):
        found = judge_general(shot_at("3", at_rest=rest), ANY_ONE, TABLE_9FT)
        assert not [v for v in found.reviews if v.rule == "3.33"]


def test_a_jam_resolved_by_the_referee_plays_on_as_if_nothing_had_jammed_rule_3_33() -> None:
    from rules.inputs import Override
    from rules.referee import Referee
    from tests.factories import break_shot

    r = TABLE_9FT.ball_diameter / 2
    referee = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT)
    referee.record(break_shot(index=0, pocket=(("2", PocketId.FOOT_RIGHT),)), 0.0)
    jam = {
        BallId.ONE: _in_opening(PocketId.FOOT_LEFT, 5.0, -r),
        BallId.FOUR: _in_opening(PocketId.FOOT_LEFT, 5.0, r),
        BallId.CUE: (0.0, 0.0),
    }
    referee.record(shot_at("1", index=1, cushion=False, at_rest=Layout.of(jam)), 1.0)
    assert referee.last_ruling is not None and referee.last_ruling.needs_review
    # The referee drops them: the 1 would fall, the 4 would stay on the table.
    dropped = shot_at(
        "1",
        index=1,
        pocket=PocketId.FOOT_LEFT,
        at_rest=Layout.of({BallId.FOUR: (1100.0, 500.0), BallId.CUE: (0.0, 0.0)}),
    )
    referee.record(Override(1, "3.33: jammed balls dropped by the referee", record=dropped), 2.0)
    ruling = referee.last_ruling
    assert ruling is not None and ruling.legal and not ruling.needs_review
    assert ruling.pocketed == (BallId.ONE,) and referee.state.shooter == 0
