"""The real pro 9-ball figures' own measure: how near the cue ball came to a cushion."""

from __future__ import annotations

import math

import pytest

from bench.tracking import _nearest_nose
from calibration.table import TableSpec
from rules.balls import BallId
from vision.detections import Detections, one_hot

TABLE = TableSpec.standard("9ft")


def _seen(*cue_at: tuple[float, float]) -> list[Detections]:
    """One frame per cue-ball centre, with the 9 resting at the table's centre."""
    balls = [BallId.CUE, BallId.NINE]
    return [
        Detections.of(k, k / 30, [at, (0.0, 0.0)], identity=one_hot(balls))
        for k, at in enumerate(cue_at)
    ]


def test_the_cue_balls_nearest_approach_to_any_nose() -> None:
    foot = TABLE.length / 2 - TABLE.ball_diameter / 2
    side = TABLE.width / 2 - TABLE.ball_diameter / 2
    path = _seen((0.0, 0.0), (foot - 40.0, 100.0), (-300.0, -(side - 12.0)), (50.0, 0.0))
    assert _nearest_nose(path, TABLE) == pytest.approx(12.0)


def test_a_shot_whose_cue_ball_was_never_named_came_nowhere_near() -> None:
    unnamed = [Detections.of(0, 0.0, [(TABLE.length / 2 - 30.0, 0.0)])]
    assert _nearest_nose(unnamed, TABLE) == math.inf
