"""The colour model: a default from the reference colours, and learning from a checked rack."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.colour import (
    ColourModel,
    ball_pixels,
    default_colour_model,
    learn_colour_model,
    placed_from_pixels,
    rgb_to_lab,
)
from hardware.sim.render import CLOTH_BGR, ClothColour
from rules.balls import BallId
from rules.errors import CalibrationError
from rules.rack import check_rack
from rules.shot import Layout
from tests.vision import scenes


def test_default_model_names_every_ball_with_its_reference_colour() -> None:
    model = default_colour_model()
    assert [c.ball for c in model.balls] == list(BallId)
    yellow, blue = model.colour_of(BallId.ONE).lab, model.colour_of(BallId.TWO).lab
    assert yellow[2] > 180 and blue[2] < 100  # b*: yellow is far toward +b, blue toward -b
    assert model.colour_of(BallId.NINE).lab == yellow  # stripes share the solids' colours
    assert model.shading == ()


def test_a_model_refuses_balls_out_of_order_and_bad_shading() -> None:
    model = default_colour_model()
    with pytest.raises(ValueError, match="16 ids in order"):
        ColourModel(model.cloth_lab, (), model.balls[::-1], model.white_lab)
    with pytest.raises(ValueError, match="positive"):
        model.with_shading(np.array([[1.0, -1.0], [1.0, 1.0]]))


def test_pixels_split_into_white_black_and_colour() -> None:
    white = np.array([rgb_to_lab((245, 245, 240))] * 60)
    red = np.array([rgb_to_lab((205, 30, 35))] * 40)
    stats = ball_pixels(np.vstack((white, red)))
    assert stats.white_fraction == pytest.approx(0.6)
    assert stats.colour_fraction == pytest.approx(0.4)
    assert stats.colour_lab[1] > 170  # red: far toward +a


@pytest.fixture(scope="module")
def racked():
    cam = scenes.camera()
    balls = scenes.rack()
    image = scenes.renderer(cam, ClothColour.RED).render(scenes.snapshot(balls))
    return cam, balls, image


def test_learning_from_a_checked_rack_measures_cloth_balls_and_light(racked) -> None:
    cam, balls, image = racked
    layout = Layout(tuple((b, p) for b, p in balls.items()))
    assert check_rack(layout, "8-ball", scenes.TABLE).ok
    model = learn_colour_model(image, cam, scenes.TABLE, balls)
    cloth = rgb_to_lab(CLOTH_BGR[ClothColour.RED][::-1])
    assert np.hypot(model.cloth_lab[1] - cloth[1], model.cloth_lab[2] - cloth[2]) < 6
    shading = model.shading_array()
    rows, cols = shading.shape
    # The lamps light the middle more than the corners (vignetting adds to it).
    assert shading[rows // 2, cols // 2] > 1.3 * shading[0, 0]
    # Measured under this light, yellow stays yellow and maroon stays dark red.
    assert model.colour_of(BallId.ONE).lab[2] > 170
    assert model.colour_of(BallId.SEVEN).lab[1] > 150
    assert model.source == "rack"


def test_learning_refuses_a_frame_of_another_size(racked) -> None:
    cam, balls, image = racked
    with pytest.raises(CalibrationError, match="1280x720"):
        learn_colour_model(image[:100], cam, scenes.TABLE, balls)


def test_learning_refuses_a_frame_without_cloth(racked) -> None:
    cam, balls, _ = racked
    noise = np.random.default_rng(0).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    with pytest.raises(CalibrationError, match="cloth"):
        learn_colour_model(noise, cam, scenes.TABLE, balls)


def test_balls_named_by_clicking_teach_their_colours(racked) -> None:
    cam, balls, image = racked
    clicks = {
        b: tuple(cam.project(np.array([[*balls[b], scenes.R]]))[0])
        for b in (BallId.CUE, BallId.TWO, BallId.EIGHT)
    }
    placed = placed_from_pixels(cam, clicks)
    for b, p in placed.items():
        assert np.hypot(p[0] - balls[b][0], p[1] - balls[b][1]) < 0.5
    model = learn_colour_model(image, cam, scenes.TABLE, placed, source="named balls")
    assert model.colour_of(BallId.TWO).lab[2] < 110  # blue, measured
    assert model.colour_of(BallId.CUE).lab[0] > 170  # white, measured
    assert model.source == "named balls"
