from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.balls import BallId
from rules.rack import check_rack
from rules.rerack import (
    DEFAULT_TRIANGLE_FRAME_MM,
    BallGoes,
    CueBallLies,
    FifteenthBallLies,
    kitchen_spot,
    plan_rerack,
)
from rules.shot import Layout
from rules.table import RackShape
from tests.factories import TABLE_9FT

T = TABLE_9FT
FOOT_SPOT = T.foot_spot
HEAD_SPOT = (T.head_string_x, 0.0)
CENTRE_SPOT = (0.0, 0.0)
IN_RACK = (FOOT_SPOT[0] + 100.0, 20.0)
IN_KITCHEN = (T.head_string_x - 250.0, 300.0)
ELSEWHERE = (-100.0, 350.0)
F, C, G = FifteenthBallLies, CueBallLies, BallGoes

FIFTEENTH_AT = {F.IN_RACK: IN_RACK, F.IN_KITCHEN: IN_KITCHEN, F.ELSEWHERE: ELSEWHERE}
FIFTEENTH_AT[F.ON_HEAD_SPOT] = (HEAD_SPOT[0] + 20.0, -15.0)
CUE_AT = {C.IN_RACK: (FOOT_SPOT[0] + 30.0, -60.0), C.ELSEWHERE: (200.0, -300.0)}
CUE_AT[C.ON_HEAD_SPOT] = (HEAD_SPOT[0] - 10.0, 30.0)


def after_14th(fifteenth: FifteenthBallLies, cue: CueBallLies, ball: str = "7") -> Layout:
    positions = {BallId.CUE: CUE_AT[cue]}
    if fifteenth is not F.POCKETED:
        positions[BallId(ball)] = FIFTEENTH_AT[fifteenth]
    return Layout.of(positions)


# The table of 6.7.6 as read from the text: (15th ball, cue ball) -> (15th goes, cue goes).
TABLE_6_7_6 = {
    (F.IN_RACK, C.IN_RACK): (G.FOOT_SPOT, G.IN_HAND_KITCHEN),
    (F.IN_RACK, C.ELSEWHERE): (G.HEAD_SPOT, G.STAYS),
    (F.IN_RACK, C.ON_HEAD_SPOT): (G.CENTRE_SPOT, G.STAYS),
    (F.POCKETED, C.IN_RACK): (G.FOOT_SPOT, G.IN_HAND_KITCHEN),
    (F.POCKETED, C.ELSEWHERE): (G.FOOT_SPOT, G.STAYS),
    (F.POCKETED, C.ON_HEAD_SPOT): (G.FOOT_SPOT, G.STAYS),
    (F.IN_KITCHEN, C.IN_RACK): (G.STAYS, G.HEAD_SPOT),
    (F.IN_KITCHEN, C.ELSEWHERE): (G.STAYS, G.STAYS),
    (F.IN_KITCHEN, C.ON_HEAD_SPOT): (G.STAYS, G.STAYS),
    (F.ELSEWHERE, C.IN_RACK): (G.STAYS, G.IN_HAND_KITCHEN),
    (F.ELSEWHERE, C.ELSEWHERE): (G.STAYS, G.STAYS),
    (F.ELSEWHERE, C.ON_HEAD_SPOT): (G.STAYS, G.STAYS),
    (F.ON_HEAD_SPOT, C.IN_RACK): (G.STAYS, G.CENTRE_SPOT),
    (F.ON_HEAD_SPOT, C.ELSEWHERE): (G.STAYS, G.STAYS),
    (F.ON_HEAD_SPOT, C.ON_HEAD_SPOT): (G.STAYS, G.STAYS),
}
SPOTS = {G.FOOT_SPOT: FOOT_SPOT, G.HEAD_SPOT: HEAD_SPOT, G.CENTRE_SPOT: CENTRE_SPOT}


@pytest.mark.parametrize(("case", "expected"), TABLE_6_7_6.items(), ids=lambda v: "-".join(v))
def test_every_cell_of_the_table_rule_6_7_6(
    case: tuple[FifteenthBallLies, CueBallLies], expected: tuple[BallGoes, BallGoes]
) -> None:
    fifteenth, cue = case
    plan = plan_rerack(after_14th(fifteenth, cue), T)
    assert (plan.fifteenth_lies, plan.cue_lies) == case
    assert (plan.fifteenth_goes, plan.cue_goes) == expected
    ball_goes, cue_goes = expected
    if fifteenth is not F.POCKETED:
        assert plan.fifteenth_to == SPOTS.get(ball_goes, FIFTEENTH_AT[fifteenth])
    assert plan.cue_to == (None if plan.cue_ball_in_hand else SPOTS.get(cue_goes, CUE_AT[cue]))
    assert plan.rule == ("6.7.3" if expected == (G.STAYS, G.STAYS) else "6.7.6")


def test_the_14_are_racked_with_the_apex_left_empty_rule_6_7_3() -> None:
    plan = plan_rerack(after_14th(F.ELSEWHERE, C.ELSEWHERE, ball="11"), T)
    assert plan.fifteenth is BallId.ELEVEN
    assert len(plan.racked) == 14 and BallId.ELEVEN not in plan.racked
    slots = T.rack_slots(RackShape.TRIANGLE)
    assert plan.rack_slots == slots[1:]
    assert FOOT_SPOT not in plan.rack_slots
    assert (plan.fifteenth_to, plan.cue_to) == (ELSEWHERE, CUE_AT[C.ELSEWHERE])


def test_both_pocketed_the_15th_goes_to_the_foot_spot_rule_6_7_6() -> None:
    plan = plan_rerack(after_14th(F.POCKETED, C.ELSEWHERE), T, fifteenth=BallId.THREE)
    assert (plan.fifteenth, plan.fifteenth_to) == (BallId.THREE, FOOT_SPOT)
    assert BallId.THREE not in plan.racked and len(plan.racked) == 14
    assert plan_rerack(after_14th(F.POCKETED, C.ELSEWHERE), T).fifteenth is BallId.FIFTEEN


def test_a_ball_in_the_triangles_way_is_in_the_rack_area_rule_6_7_6() -> None:
    back_corner = T.rack_slots(RackShape.TRIANGLE)[14]
    reach = T.ball_diameter + DEFAULT_TRIANGLE_FRAME_MM
    just_in = (back_corner[0], back_corner[1] - reach + 1.0)
    just_out = (back_corner[0], back_corner[1] - reach - 1.0)
    cue = {BallId.CUE: CUE_AT[C.ELSEWHERE]}
    assert plan_rerack(Layout.of({**cue, BallId.TWO: just_in}), T).fifteenth_lies is F.IN_RACK
    assert plan_rerack(Layout.of({**cue, BallId.TWO: just_out}), T).fifteenth_lies is F.ELSEWHERE
    thin = plan_rerack(Layout.of({**cue, BallId.TWO: just_in}), T, triangle_frame_mm=0.0)
    assert thin.fifteenth_lies is F.ELSEWHERE


def test_a_ball_on_the_head_string_is_not_in_the_kitchen_rule_6_7_6() -> None:
    on_string = (T.head_string_x, 400.0)
    layout = Layout.of({BallId.CUE: CUE_AT[C.IN_RACK], BallId.NINE: on_string})
    plan = plan_rerack(layout, T)
    assert (plan.fifteenth_lies, plan.cue_goes) == (F.ELSEWHERE, G.IN_HAND_KITCHEN)


def test_impossible_positions_are_refused_rule_6_7_3() -> None:
    with pytest.raises(ValueError, match="cue ball must be on the table"):
        plan_rerack(Layout.of({BallId.NINE: ELSEWHERE}), T)
    with pytest.raises(ValueError, match="one object ball on the table, not 2, 9"):
        plan_rerack(
            Layout.of({BallId.CUE: IN_KITCHEN, BallId.NINE: ELSEWHERE, BallId.TWO: IN_RACK}), T
        )


@given(
    st.tuples(st.floats(-1200, 1200), st.floats(-600, 600)),
    st.tuples(st.floats(-1200, 1200), st.floats(-600, 600)),
)
def test_after_the_plan_nothing_is_in_the_way_of_the_rack_rule_6_7_6(fifteenth, cue) -> None:
    plan = plan_rerack(Layout.of({BallId.CUE: cue, BallId.SIX: fifteenth}), T)
    if plan.cue_to is not None:
        assert plan_rerack(Layout.of({BallId.CUE: plan.cue_to}), T).cue_lies is not C.IN_RACK
    if plan.fifteenth_goes is not G.FOOT_SPOT:
        again = plan_rerack(
            Layout.of({BallId.CUE: (0.0, -500.0), BallId.SIX: plan.fifteenth_to}), T
        )
        assert again.fifteenth_lies is not F.IN_RACK
    if plan.cue_to is not None:
        apart = (
            (plan.cue_to[0] - plan.fifteenth_to[0]) ** 2
            + (plan.cue_to[1] - plan.fifteenth_to[1]) ** 2
        ) ** 0.5
        moved = (plan.fifteenth_goes, plan.cue_goes) != (G.STAYS, G.STAYS)
        assert not moved or apart >= T.ball_diameter


def test_all_balls_in_the_kitchen_the_nearest_to_the_head_string_may_be_spotted_rule_6_7_7() -> (
    None
):
    layout = Layout.of(
        {
            BallId.FOUR: (T.head_string_x - 80.0, 200.0),
            BallId.TEN: (T.head_string_x - 300.0, -100.0),
            BallId.CUE: (500.0, 0.0),
        }
    )
    option = kitchen_spot(layout, T)
    assert option is not None
    assert (option.candidates, option.to, option.rule) == ((BallId.FOUR,), FOOT_SPOT, "6.7.7")


def test_balls_equally_near_the_head_string_are_the_players_pick_rule_6_7_7() -> None:
    x = T.head_string_x - 120.0
    layout = Layout.of({BallId.TWELVE: (x, 200.0), BallId.THREE: (x - 0.4, -200.0)})
    option = kitchen_spot(layout, T)
    assert option is not None and option.candidates == (BallId.THREE, BallId.TWELVE)


def test_no_option_unless_every_object_ball_is_in_the_kitchen_rule_6_7_7() -> None:
    inside = (T.head_string_x - 100.0, 0.0)
    assert kitchen_spot(Layout.of({BallId.ONE: inside, BallId.TWO: (0.0, 0.0)}), T) is None
    on_string = (T.head_string_x, 100.0)
    assert kitchen_spot(Layout.of({BallId.ONE: inside, BallId.TWO: on_string}), T) is None
    assert kitchen_spot(Layout.of({BallId.CUE: inside}), T) is None


def test_the_15th_ball_is_never_the_cue_ball_rule_6_7_3() -> None:
    with pytest.raises(ValueError, match="not the cue ball"):
        plan_rerack(after_14th(F.POCKETED, C.ELSEWHERE), T, fifteenth=BallId.CUE)


def test_a_rerack_made_as_planned_passes_the_rack_check_rule_6_7_3() -> None:
    plan = plan_rerack(after_14th(F.IN_RACK, C.ELSEWHERE, ball="4"), T)
    positions = dict(zip(plan.racked, plan.rack_slots, strict=True))
    positions[plan.fifteenth] = plan.fifteenth_to
    positions[BallId.CUE] = plan.cue_to or IN_KITCHEN
    check = check_rack(Layout.of(positions), "14.1", T, apex_empty=True)
    assert check.ok, check.problems
    assert plan.fifteenth_to == HEAD_SPOT
