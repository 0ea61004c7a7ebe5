"""Spotting on the long string (rule 3.32), in table millimetres."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.table import TableSpec
from rules.balls import OBJECT_BALLS, BallId
from rules.spotting import CUE_BALL_CLEARANCE_MM, spot_balls
from tests.factories import TABLE_9FT, random_layout

D = TABLE_9FT.ball_diameter
FX, FY = TABLE_9FT.foot_spot
FOOT_LIMIT = TABLE_9FT.length / 2 - D / 2


def _where(spots) -> dict[BallId, tuple[float, float]]:
    return {s.ball: s.position for s in spots}


def test_one_ball_goes_on_the_foot_spot_rule_3_32() -> None:
    spots = spot_balls((BallId.NINE,), (), TABLE_9FT)
    assert _where(spots) == {BallId.NINE: (FX, FY)}


def test_several_balls_go_in_number_order_toward_the_foot_cushion_rule_3_32() -> None:
    spots = spot_balls((BallId.SEVEN, BallId.TWO, BallId.FIVE), (), TABLE_9FT)
    assert [s.ball for s in spots] == [BallId.TWO, BallId.FIVE, BallId.SEVEN]
    xs = [s.position[0] for s in spots]
    assert xs == pytest.approx([FX, FX + D, FX + 2 * D])  # frozen to each other
    assert all(s.position[1] == FY for s in spots)


def test_spotted_ball_goes_against_a_ball_on_the_foot_spot_rule_3_32() -> None:
    blocker = (BallId.THREE, (FX, FY))
    spots = spot_balls((BallId.NINE,), (blocker,), TABLE_9FT)
    assert _where(spots)[BallId.NINE] == pytest.approx((FX + D, FY))


def test_ball_beside_the_long_string_pushes_the_spot_back_just_enough_rule_3_32() -> None:
    blocker = (BallId.THREE, (FX + 10.0, 30.0))
    (spot,) = spot_balls((BallId.NINE,), (blocker,), TABLE_9FT)
    x, y = spot.position
    assert y == FY
    assert math.hypot(x - FX - 10.0, y - 30.0) == pytest.approx(D)  # as near as possible
    assert x > FX


def test_spotted_ball_is_never_frozen_to_the_cue_ball_rule_3_32() -> None:
    cue = (BallId.CUE, (FX, FY))
    (spot,) = spot_balls((BallId.NINE,), (cue,), TABLE_9FT)
    gap = math.dist(spot.position, (FX, FY)) - D
    assert gap == pytest.approx(CUE_BALL_CLEARANCE_MM)


def test_no_room_behind_the_foot_spot_spots_in_front_lowest_nearest_rule_3_32() -> None:
    # Balls 5-15 frozen in a row fill the long string from the foot spot to the foot cushion.
    row = tuple((OBJECT_BALLS[4 + k], (FX + k * D, FY)) for k in range(11))
    assert FOOT_LIMIT - row[-1][1][0] < D, "the row must leave no room behind"
    spots = spot_balls((BallId.FOUR, BallId.TWO), row, TABLE_9FT)
    where = _where(spots)
    assert where[BallId.TWO] == pytest.approx((FX - D, FY))
    assert where[BallId.FOUR] == pytest.approx((FX - 2 * D, FY))


def test_spotting_works_on_every_standard_table_rule_3_32() -> None:
    for name in ("9ft", "8ft", "7ft"):
        table = TableSpec.standard(name)
        (spot,) = spot_balls((BallId.NINE,), (), table)
        assert spot.position == table.foot_spot


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(1, 4))
def test_spotted_balls_never_overlap_and_stay_on_the_long_string_rule_3_32(seed, count) -> None:
    rng = random.Random(seed)
    on_table = tuple(rng.sample(list(BallId), 10))
    layout = random_layout(rng, on_table)
    wanted = tuple(b for b in OBJECT_BALLS if b not in on_table)[:count]
    spots = spot_balls(wanted, layout.positions, TABLE_9FT)
    assert [s.ball for s in spots] == sorted(wanted, key=lambda b: b.number)
    placed = list(layout.positions)
    for s in spots:
        x, y = s.position
        assert y == FY and -TABLE_9FT.length / 2 < x <= FOOT_LIMIT + 1e-6
        for other, p in placed:
            need = D + (CUE_BALL_CLEARANCE_MM if other is BallId.CUE else 0.0)
            assert math.dist(s.position, p) >= need - 1e-2
        placed.append((s.ball, s.position))
