"""The Shot record's derived facts, on hand-made shots."""

from __future__ import annotations

import pytest

from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from rules.shot import Frozen, Layout, Shot
from rules.table import CushionId, PocketId
from tests.factories import ShotBuilder

CUE, ONE, TWO, NINE = BallId.CUE, BallId.ONE, BallId.TWO, BallId.NINE


def test_first_contact_never_counts_the_cue_strike() -> None:
    shot = ShotBuilder().strike().hit("1").hit("2", a="1").build()
    first = shot.first_contact
    assert first is not None and first.ball is ONE and not first.is_split


def test_contact_recorded_before_the_strike_is_not_a_first_contact() -> None:
    # A cue ball touching a ball while being placed happens before the strike.
    shot = ShotBuilder().hit("2", t=-1.0).strike(t=0.0).hit("1").build()
    assert shot.first_contact is not None and shot.first_contact.ball is ONE


def test_a_ball_frozen_to_the_cue_ball_is_touched_at_the_strike_rule_3_38() -> None:
    # Shooting toward a ball frozen to it, the cue ball is in contact at the strike's instant.
    shot = ShotBuilder().strike(t=0.0).hit("1", t=0.0).hit("2", a="1", t=0.3).build()
    assert shot.first_contact is not None and shot.first_contact.ball is ONE
    assert shot.first_contact.time == 0.0


def test_a_miss_has_no_first_contact() -> None:
    shot = ShotBuilder().strike().cushion("cue", CushionId.FOOT).build()
    assert shot.first_contact is None


def test_two_balls_inside_the_timing_uncertainty_are_a_split_hit_rule_2_10() -> None:
    shot = ShotBuilder().strike().hit("1", t=0.500, uncertainty=0.004).hit("2", t=0.503).build()
    first = shot.first_contact
    assert first is not None and first.is_split
    assert first.candidates == (ONE, TWO)


def test_two_balls_outside_the_timing_uncertainty_are_not_split() -> None:
    shot = ShotBuilder().strike().hit("1", t=0.500, uncertainty=0.004).hit("2", t=0.520).build()
    assert shot.first_contact is not None and not shot.first_contact.is_split


def test_ball_bouncing_out_of_a_pocket_is_not_pocketed_rule_3_11() -> None:
    shot = (
        ShotBuilder()
        .strike()
        .hit("1")
        .pocket("1", PocketId.FOOT_LEFT)
        .rebound("1", PocketId.FOOT_LEFT)
        .pocket("2", PocketId.SIDE_LEFT)
        .build()
    )
    assert shot.pocketed == (TWO,)
    assert shot.pocket_of(ONE) is None and shot.pocket_of(TWO) is PocketId.SIDE_LEFT


def test_cushions_after_first_contact_rule_3_19() -> None:
    shot = (
        ShotBuilder()
        .strike()
        .cushion("cue", CushionId.HEAD)
        .hit("1")
        .cushion("1", CushionId.FOOT)
        .cushion("cue", CushionId.LEFT_FOOT)
        .cushion("1", CushionId.RIGHT_FOOT)
        .build()
    )
    assert shot.balls_to_cushion_after_first_contact == (ONE, CUE)
    assert len(shot.cushion_contacts(CUE)) == 2
    assert len(shot.cushion_contacts(ONE)) == 2


def test_left_table_and_disturbed_balls() -> None:
    shot = ShotBuilder().disturbed("9", t=-0.5).strike(t=0.0).hit("1").off_table("1").build()
    assert shot.left_table == (ONE,)
    assert shot.disturbed == (NINE,)


def test_events_must_be_in_time_order() -> None:
    events = (
        ShotEvent(EventKind.CUE_STRIKE, 1.0, (CUE,)),
        ShotEvent(EventKind.BALL_BALL, 0.5, (CUE, ONE)),
    )
    with pytest.raises(ValueError, match="time order"):
        Shot(0, 1.0, 2.0, Layout(), Layout(), events)


def test_shot_cannot_end_before_its_strike() -> None:
    with pytest.raises(ValueError, match="ends before"):
        Shot(0, 1.0, 0.5, Layout(), Layout())


def test_incomplete_shot() -> None:
    shot = Shot(0, 1.0, None, Layout(), Layout())
    assert not shot.is_complete and shot.strike is None


def test_layout_is_ordered_and_unique() -> None:
    layout = Layout.of({BallId.NINE: (1.0, 2.0), BallId.CUE: (0.0, 0.0), BallId.TWO: (3, 4)})
    assert layout.balls == (CUE, TWO, NINE)
    assert layout[TWO] == (3.0, 4.0) and layout.get(ONE) is None
    assert ONE not in layout and NINE in layout and len(layout) == 3
    with pytest.raises(ValueError, match="one place"):
        Layout(((ONE, (0.0, 0.0)), (ONE, (1.0, 1.0))))


def test_frozen_names_exactly_one_partner() -> None:
    with pytest.raises(ValueError):
        Frozen(ONE, 0.0)
    with pytest.raises(ValueError):
        Frozen(ONE, 0.0, cushion=CushionId.HEAD, other=CUE)
