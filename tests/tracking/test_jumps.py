"""A ball in the air: it looks bigger, passes over balls without touching them (3.26, 3.27)."""

from __future__ import annotations

import math

import numpy as np

from rules.balls import BallId
from rules.events import EventKind
from tests.tracking.helpers import run
from tracking.segmenter import SegmenterConfig
from vision.detections import Detections

FRAME = 1 / 60
REST_PX = 11.0
IDS = (BallId.CUE, BallId.THREE, BallId.ELEVEN)


def _identity(rng: np.random.Generator, balls: tuple[BallId, ...]) -> np.ndarray:
    """Vision's doubt: mostly the true ball, some of it on the others."""
    ids = np.full((len(balls), 16), 0.002)
    for k, ball in enumerate(balls):
        ids[k, list(BallId).index(ball)] = rng.uniform(0.7, 0.9)
    return ids


def _hop_over(peak_growth: float, seed: int = 0) -> list[Detections]:
    """The cue ball at rest, then hopping straight over the 3 (its flight 30 frames, the 3
    under it at the middle), landing and rolling to a stop; the 11 far away."""
    rng = np.random.default_rng(seed)
    still, flight, roll = 30, 30, 40
    xs = [-600.0] * still
    xs += list(-600.0 + 30.0 * np.arange(1, flight + 1))
    x, v = xs[-1], 30.0
    for _ in range(roll):
        v = max(0.0, v - 1.0)
        x += v
        xs.append(x)
    xs += [x] * 40
    growth = [1.0] * still
    growth += [1.0 + (peak_growth - 1.0) * math.sin(math.pi * k / flight) for k in range(flight)]
    growth += [1.0] * (len(xs) - len(growth))
    out = []
    for k, (x, g) in enumerate(zip(xs, growth, strict=True)):
        pts = np.array([(x, 0.0), (-600.0 + 30.0 * flight / 2, 2.0), (900.0, 300.0)])
        pts += rng.normal(0.0, 0.7, pts.shape)
        out.append(
            Detections.of(
                k,
                k * FRAME,
                pts,
                identity=_identity(rng, IDS),
                radius_px=[REST_PX * g, REST_PX, REST_PX],
                sigma=0.75,
            )
        )
    return out


def test_a_cue_ball_hopping_over_a_ball_keeps_its_id_rule_3_26() -> None:
    for seed in range(3):
        result = run(_hop_over(1.05, seed))
        last = result.frames[-1]
        # Neither track was swapped: the cue ball ended past the 3, the 3 stayed put.
        assert last.position_of(BallId.CUE)[0] > 500.0
        assert abs(last.position_of(BallId.THREE)[0] - (-150.0)) < 5.0
        shot = result.shots[0]
        assert shot.jump is not None and shot.jump.airborne
        assert shot.jump.radius_growth > 1.04


def test_the_frames_say_which_ball_is_in_the_air_rule_3_26() -> None:
    result = run(_hop_over(1.05))
    cue = result.frames[0].row(BallId.CUE)
    air = [f.frame for f in result.frames if f.airborne[cue]]
    assert air and min(air) > 30 and max(air) < 60
    assert not any(f.airborne[f.row(BallId.THREE)] for f in result.frames)


def test_a_flat_shot_is_not_called_airborne_rule_3_26() -> None:
    result = run(_hop_over(1.0))
    shot = result.shots[0]
    assert shot.jump is not None and not shot.jump.airborne
    assert shot.jump.radius_growth < 1.01
    assert not any(f.airborne.any() for f in result.frames)


def test_a_cue_ball_passing_over_a_ball_never_touched_it_rule_3_26() -> None:
    # Mid-flight the tracker's velocity of the cue ball wavers with its growing picture; only
    # the ball it passes over, kicked, could show a touch, and the 3 never moves.
    for seed in range(6):
        result = run(_hop_over(1.05, seed))
        assert not [e for e in result.events if e.kind is EventKind.BALL_BALL], seed
        assert result.shots[0].first_contact is None


LAMP = SegmenterConfig(camera_height_mm=2600.0, light_height_mm=1000.0)


def test_a_ball_flying_up_to_the_lamp_left_the_table_rule_3_28() -> None:
    # At 1.6x its size on the cloth, the cue ball's top is within a centimetre of the lamp
    # 1 m up: it touched something that is not part of the table.
    events = run(_hop_over(1.6), segmenter=LAMP).events
    left = [e for e in events if e.kind is EventKind.LEFT_TABLE]
    assert [e.ball for e in left] == [BallId.CUE]
    assert 30 * FRAME < left[0].time < 60 * FRAME


def test_a_jump_well_below_the_lamp_stays_on_the_table_rule_3_28() -> None:
    events = run(_hop_over(1.3), segmenter=LAMP).events
    assert not [e for e in events if e.kind is EventKind.LEFT_TABLE]


def test_no_lamp_given_no_lamp_watched_rule_3_28() -> None:
    events = run(_hop_over(1.6)).events
    assert not [e for e in events if e.kind is EventKind.LEFT_TABLE]
