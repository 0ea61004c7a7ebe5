from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.balls import BallId
from rules.rack import (
    TRIANGLE_BACK_CORNERS,
    RackCheckConfig,
    RackProblemKind,
    check_rack,
)
from rules.shot import Layout
from rules.table import RackShape
from tests.factories import TABLE_9FT, rack_layout

EIGHT_BALL = ("1", "9", "2", "10", "8", "3", "11", "4", "12", "5", "6", "13", "7", "14", "15")
STRAIGHT = ("2", "3", "4", "6", "7", "8", "9", "10", "11", "12", "1", "13", "14", "15", "5")
KIND = RackProblemKind


def triangle(order: tuple[str, ...], **kw) -> Layout:
    return rack_layout(shape=RackShape.TRIANGLE, order=order, **kw)


def moved(layout: Layout, dx: float = 0.0, dy: float = 0.0, only: str | None = None) -> Layout:
    return Layout.of(
        {
            b: (p[0] + dx, p[1] + dy) if only in (None, b.value) and b.is_object_ball else p
            for b, p in layout.positions
        }
    )


def swapped(order: tuple[str, ...], a: str, b: str) -> tuple[str, ...]:
    return tuple(b if x == a else a if x == b else x for x in order)


def kinds(check) -> list[tuple[RackProblemKind, str]]:
    return [(p.kind, p.rule) for p in check.problems]


def test_a_correct_8_ball_rack_passes_rule_4_3() -> None:
    check = check_rack(triangle(EIGHT_BALL), "8-ball", TABLE_9FT)
    assert check.ok, check.problems
    assert check.ball_in(4) is BallId.EIGHT
    assert len(check.slots) == 15


def test_the_8_belongs_in_the_centre_rule_4_3() -> None:
    check = check_rack(triangle(swapped(EIGHT_BALL, "8", "3")), "8-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.WRONG_PLACE, "4.3")]
    assert check.problems[0].balls == (BallId.EIGHT,)


def test_the_back_corners_hold_one_stripe_and_one_solid_rule_4_3() -> None:
    both_solid = swapped(EIGHT_BALL, "15", "7")
    check = check_rack(triangle(both_solid), "8-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.CORNERS, "4.3")]
    assert set(check.problems[0].balls) == {BallId.SIX, BallId.SEVEN}
    mirrored = tuple(EIGHT_BALL[:10]) + tuple(reversed(EIGHT_BALL[10:]))
    assert check_rack(triangle(mirrored), "8-ball", TABLE_9FT).ok


def test_a_correct_9_ball_diamond_passes_rule_5_2() -> None:
    check = check_rack(rack_layout(), "9-ball", TABLE_9FT)
    assert check.ok, check.problems
    assert (check.ball_in(0), check.ball_in(4)) == (BallId.ONE, BallId.NINE)


def test_the_1_on_the_foot_spot_and_the_9_in_the_centre_rule_5_2() -> None:
    order = ("9", "2", "3", "4", "1", "5", "6", "7", "8")
    check = check_rack(rack_layout(order=order), "9-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.WRONG_PLACE, "5.2"), (KIND.WRONG_PLACE, "5.2")]
    assert {p.balls for p in check.problems} == {(BallId.ONE,), (BallId.NINE,)}


def test_14_1_has_the_1_in_the_racker_right_corner_and_the_5_in_the_left_rule_6_4() -> None:
    check = check_rack(triangle(STRAIGHT), "14.1", TABLE_9FT)
    assert check.ok, check.problems
    right, left = TRIANGLE_BACK_CORNERS
    slots = TABLE_9FT.rack_slots(RackShape.TRIANGLE)
    assert slots[right][1] > 0 > slots[left][1], "racker at the foot end: his right is +y"
    assert check.ball_in(right) is BallId.ONE
    wrong = check_rack(triangle(swapped(STRAIGHT, "1", "5")), "14.1", TABLE_9FT)
    assert kinds(wrong) == [(KIND.WRONG_PLACE, "6.4")] * 2


def test_a_rack_off_the_foot_spot_is_reported_once_rule_3_2() -> None:
    check = check_rack(moved(triangle(EIGHT_BALL), dx=20.0, dy=-6.0), "8-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.OFF_SPOT, "4.3")]
    assert check.problems[0].size_mm == pytest.approx(20.9, abs=0.1)
    assert check.offset_mm == pytest.approx((20.0, -6.0))
    within = check_rack(moved(triangle(EIGHT_BALL), dx=3.0), "8-ball", TABLE_9FT)
    assert within.ok


def test_a_rack_a_whole_row_off_the_spot_is_still_fitted_rule_5_2() -> None:
    row = TABLE_9FT.ball_diameter * 3**0.5 / 2
    check = check_rack(moved(rack_layout(), dx=row), "9-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.OFF_SPOT, "5.2")]


def test_missing_and_extra_balls_are_named_rule_5_2() -> None:
    layout = rack_layout()
    short = Layout(tuple((b, p) for b, p in layout.positions if b is not BallId.SEVEN))
    check = check_rack(short, "9-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.MISSING_BALL, "5.2")]
    assert check.problems[0].balls == (BallId.SEVEN,)
    extra = Layout.of({**dict(layout.positions), BallId.TEN: (TABLE_9FT.length / 2 - 100, 0.0)})
    check = check_rack(extra, "9-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.EXTRA_BALL, "5.2"), (KIND.OUT_OF_SLOT, "5.2")]


def test_a_ball_out_of_its_slot_is_reported_with_the_distance_rule_4_3() -> None:
    check = check_rack(moved(triangle(EIGHT_BALL), dx=40.0, only="13"), "8-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.OUT_OF_SLOT, "4.3")]
    assert check.problems[0].balls == (BallId.THIRTEEN,)
    assert check.problems[0].size_mm == pytest.approx(40.0, abs=0.5)


def _loose(order: tuple[str, ...], spacing_mm: float) -> Layout:
    """A triangle whose balls stand ``spacing_mm`` apart beyond touching."""
    fx, fy = TABLE_9FT.foot_spot
    scale = 1 + spacing_mm / TABLE_9FT.ball_diameter
    return Layout.of(
        {
            BallId(b): (fx + (x - fx) * scale, fy + (y - fy) * scale)
            for b, (x, y) in zip(order, TABLE_9FT.rack_slots(RackShape.TRIANGLE), strict=True)
        }
    )


def test_balls_that_do_not_touch_are_gaps_rule_1_16_5() -> None:
    check = check_rack(_loose(EIGHT_BALL, 3.0), "8-ball", TABLE_9FT)
    gaps = check.of_kind(KIND.GAP)
    assert len(gaps) == len(check.problems) == 30, "every neighbour pair of a triangle"
    assert all(g.rule == "1.16.5" and g.size_mm == pytest.approx(3.0) for g in gaps)
    assert check_rack(_loose(EIGHT_BALL, 1.0), "8-ball", TABLE_9FT).ok
    strict = RackCheckConfig(gap_tolerance_mm=0.5)
    assert not check_rack(_loose(EIGHT_BALL, 1.0), "8-ball", TABLE_9FT, strict).ok


def test_one_loose_ball_makes_gaps_with_its_neighbours_only_rule_1_16_5() -> None:
    check = check_rack(moved(triangle(STRAIGHT), dx=5.0, only="1"), "14.1", TABLE_9FT)
    assert {p.kind for p in check.problems} == {KIND.GAP}
    assert all(BallId.ONE in p.balls for p in check.problems)


def test_a_14_1_rerack_leaves_the_apex_empty_rule_6_7_3() -> None:
    positions = dict(triangle(STRAIGHT).positions)
    positions[BallId.TWO] = (-500.0, 300.0)  # the apex ball is the break ball, elsewhere
    check = check_rack(Layout.of(positions), "14.1", TABLE_9FT, apex_empty=True)
    assert check.ok, check.problems
    assert check.ball_in(0) is None
    full = check_rack(triangle(STRAIGHT), "14.1", TABLE_9FT, apex_empty=True)
    assert kinds(full) == [(KIND.EXTRA_BALL, "6.7.3"), (KIND.APEX_NOT_EMPTY, "6.7.3")]


def test_unknown_games_and_misused_options_are_refused_rule_6_7_3() -> None:
    with pytest.raises(ValueError, match="no rack check for the game 'snooker'"):
        check_rack(rack_layout(), "snooker", TABLE_9FT)
    with pytest.raises(ValueError, match=r"only a 14\.1 re-rack"):
        check_rack(rack_layout(), "9-ball", TABLE_9FT, apex_empty=True)


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.floats(0.0, 0.5))
def test_any_legal_9_ball_order_with_small_noise_passes_rule_5_2(
    rng: random.Random, noise: float
) -> None:
    middle = ["2", "3", "4", "5", "6", "7", "8"]
    rng.shuffle(middle)
    order = ("1", *middle[:3], "9", *middle[3:])
    layout = rack_layout(order=order)
    jittered = Layout.of(
        {
            b: (p[0] + rng.uniform(-noise, noise), p[1] + rng.uniform(-noise, noise))
            for b, p in layout.positions
        }
    )
    assert check_rack(jittered, "9-ball", TABLE_9FT).ok


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(EIGHT_BALL), st.floats(20.0, 200.0), st.floats(0, 6.28))
def test_a_ball_knocked_out_of_the_rack_is_always_reported_rule_4_3(
    ball: str, distance: float, angle: float
) -> None:
    layout = moved(
        triangle(EIGHT_BALL), distance * math.cos(angle), distance * math.sin(angle), ball
    )
    check = check_rack(layout, "8-ball", TABLE_9FT)
    assert not check.ok
    assert any(BallId(ball) in p.balls for p in check.problems)
    assert not check.of_kind(KIND.OFF_SPOT), "one stray ball does not move the fitted rack"


def test_an_empty_table_is_all_missing_balls_rule_4_3() -> None:
    check = check_rack(Layout(), "8-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.MISSING_BALL, "4.3")]
    assert len(check.problems[0].balls) == 15


def test_the_8_ball_corner_with_the_8_in_it_is_wrong_twice_rule_4_3() -> None:
    check = check_rack(triangle(swapped(EIGHT_BALL, "8", "6")), "8-ball", TABLE_9FT)
    assert kinds(check) == [(KIND.WRONG_PLACE, "4.3"), (KIND.CORNERS, "4.3")]
