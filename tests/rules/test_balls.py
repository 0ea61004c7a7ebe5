from __future__ import annotations

import pytest

from rules.balls import NINE_BALL_SET, OBJECT_BALLS, BallGroup, BallId


def test_ids_are_the_strings_of_the_map() -> None:
    assert [b.value for b in BallId] == ["cue", *[str(n) for n in range(1, 16)]]


def test_groups_follow_rule_4_1() -> None:
    assert BallGroup.SOLIDS.balls == tuple(BallId.numbered(n) for n in range(1, 8))
    assert BallGroup.EIGHT.balls == (BallId.EIGHT,)
    assert BallGroup.STRIPES.balls == tuple(BallId.numbered(n) for n in range(9, 16))
    assert BallId.CUE.group is BallGroup.CUE


def test_numbers_and_stripes() -> None:
    assert BallId.CUE.number == 0 and not BallId.CUE.is_object_ball
    assert BallId("12").number == 12 and BallId("12").striped
    assert not BallId.EIGHT.striped
    assert len(OBJECT_BALLS) == 15 and NINE_BALL_SET[-1] is BallId.NINE


@pytest.mark.parametrize("n", [-1, 16])
def test_numbered_rejects_numbers_not_on_a_ball(n: int) -> None:
    with pytest.raises(ValueError, match="no pool ball"):
        BallId.numbered(n)
