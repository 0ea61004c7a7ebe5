"""Shot diagrams: the drawn model counts what the shot did, and the PNG is drawn from it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from railbird.review.diagram import (
    HEADER_PX,
    RAIL_PX,
    SCALE_PX_PER_MM,
    build_diagram,
    draw_diagram,
    write_diagram,
)
from rules.errors import RecordError
from rules.events import EventKind
from rules.shot import Layout
from rules.table import CushionId, PocketId
from tests.factories import TABLE_9FT, ShotBuilder
from tests.railbird.review.matches import reviewed, straight_paths

START = Layout.of({"cue": (-600.0, 0.0), "1": (300.0, 200.0), "2": (0.0, -300.0)})


def _bank_shot():
    # The cue ball hits the 1, which banks off the foot cushion and off the left foot cushion
    # into the foot-left pocket; the 2 never moves.
    return (
        ShotBuilder(at_strike=START)
        .strike(t=0.0)
        .hit("1", t=0.4)
        .cushion("1", CushionId.FOOT, t=0.8)
        .cushion("1", CushionId.LEFT_FOOT, t=1.2)
        .pocket("1", PocketId.FOOT_LEFT, t=1.6)
        .build(end_time=2.0, at_rest=Layout.of({"cue": (250.0, 150.0), "2": (0.0, -300.0)}))
    )


@pytest.fixture
def model(tmp_path: Path):
    times = np.linspace(0.0, 2.0, 41)
    paths = straight_paths(
        {"cue": ((-600.0, 0.0), (250.0, 150.0)), "1": ((300.0, 200.0), (1270.0, 635.0))},
        times,
        gone_after={"1": 1.6},
    )
    review = reviewed(tmp_path, [_bank_shot()])[0]
    return build_diagram(review, paths)


def test_the_model_numbers_contacts_in_order_and_counts_cushions(model) -> None:
    assert [c.order for c in model.contacts] == [1, 2, 3]
    assert [c.kind for c in model.contacts] == [
        EventKind.BALL_BALL,
        EventKind.BALL_CUSHION,
        EventKind.BALL_CUSHION,
    ]
    assert [c.cushion for c in model.cushion_contacts] == [CushionId.FOOT, CushionId.LEFT_FOOT]
    assert model.pocketed == (("1", PocketId.FOOT_LEFT),)
    assert model.off_table == ()


def test_the_model_draws_moving_balls_only_and_places_contacts_on_the_path(model) -> None:
    assert [b for b, _ in model.paths] == ["cue", "1"]  # the 2 did not move
    one = dict(model.paths)["1"]
    assert one[0] == pytest.approx((300.0, 200.0), abs=1.0)
    # The 1 is drawn until it dropped, not beyond.
    assert all(x <= 300.0 + 970.0 * 1.6 / 2.0 + 1.0 for x, _ in one)
    first = model.contacts[0]
    assert first.balls == ("cue", "1") and first.position[0] == pytest.approx(-430.0, abs=1.0)
    assert model.call == "legal" and "Shot 1" in model.title and "Ann" in model.title


def test_the_picture_shows_the_table_and_the_paths(model, tmp_path: Path) -> None:
    image = draw_diagram(model, TABLE_9FT)
    assert image.ndim == 3 and image.shape[1] > image.shape[0] > 300
    path = write_diagram(model, TABLE_9FT, tmp_path / "shot.png")
    assert np.array_equal(cv2.imread(str(path)), image)
    # The cue ball's colour is on the cloth where its path runs (half way along it).
    cloth = draw_diagram(model.__class__(**{**_fields(model), "paths": ()}), TABLE_9FT)
    assert np.abs(image.astype(int) - cloth.astype(int)).sum() > 0


def test_a_crowded_break_tags_the_cue_balls_and_the_cushions_contacts_only(
    tmp_path: Path,
) -> None:
    start = Layout.of({"cue": (-800.0, 0.0), "1": (600.0, 0.0), "2": (650.0, 30.0)})
    builder = ShotBuilder(at_strike=start).strike(t=0.0).hit("1", t=0.2)
    for k in range(40):  # the rack's balls knock together
        builder.hit("2", "1", t=0.3 + k * 0.01)
    shot = builder.cushion("2", CushionId.FOOT, t=1.0).build(end_time=2.0)
    times = np.linspace(0.0, 2.0, 21)
    paths = straight_paths({"cue": ((-800.0, 0.0), (500.0, 0.0))}, times)
    model = build_diagram(reviewed(tmp_path, [shot])[0], paths)
    assert len(model.contacts) == 42 and len(model.ball_contacts) == 41
    assert model.tagged == {1, 42}  # the cue ball's contact and the cushion's
    assert draw_diagram(model, TABLE_9FT).shape[0] > 300


def test_an_unwritable_diagram_is_a_clear_error(model, tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot write the shot diagram"):
        write_diagram(model, TABLE_9FT, tmp_path / "missing" / "shot.png")


def _fields(model) -> dict:
    return {name: getattr(model, name) for name in model.__slots__}


def test_two_contacts_in_one_spot_both_show_their_numbers(model) -> None:
    # The cue ball hits the 1 frozen to a cushion, which then touches that cushion: both
    # contacts are drawn at one spot, and neither number may hide the other.
    first, second = model.contacts[:2]
    moved = replace(second, position=first.position)
    spot = replace(model, contacts=(first, moved, *model.contacts[2:]))
    x, y = (round(v) for v in _pixel(first.position))

    def white_near(m) -> int:
        near = draw_diagram(m, TABLE_9FT)[y - 40 : y + 40, x - 40 : x + 40]
        return int(np.all(near == (255, 255, 255), axis=2).sum())

    alone = white_near(replace(model, contacts=(first,)))
    assert alone > 100  # the ball contact's white tag
    assert white_near(spot) >= 0.8 * alone


def _pixel(p: tuple[float, float]) -> tuple[float, float]:
    """Table mm to diagram pixels (the table's centre at the middle of the drawn table)."""
    width = TABLE_9FT.length * SCALE_PX_PER_MM + 2 * RAIL_PX
    middle = HEADER_PX + RAIL_PX + TABLE_9FT.width * SCALE_PX_PER_MM / 2
    return width / 2 + p[0] * SCALE_PX_PER_MM, middle - p[1] * SCALE_PX_PER_MM
