"""Resting balls found overlapping are moved apart (two balls' centres are a diameter apart at
least)."""

from __future__ import annotations

import numpy as np

from rules.balls import BALL_DIAMETER_MM, BallId
from tests.vision import scenes
from tests.vision.test_detector import CALIBRATION, CAMERA, match
from vision.apart import MAX_OVERLAP_MM, apart
from vision.detector import BallDetector

D = BALL_DIAMETER_MM


def _gaps(p: np.ndarray) -> np.ndarray:
    g = np.hypot(*(p[:, None, :] - p[None, :, :]).transpose(2, 0, 1))
    return g[np.triu_indices(len(p), k=1)]


def test_a_pair_found_too_close_is_moved_apart_evenly_along_its_line() -> None:
    p = np.array([(100.0, 50.0), (100.0 + D - 2.0, 50.0), (-400.0, 0.0)])
    out = apart(p, np.ones(3, bool))
    assert abs(np.hypot(*(out[1] - out[0])) - D) < 1e-9
    np.testing.assert_allclose(out[0], (99.0, 50.0))
    np.testing.assert_allclose(out[1], (101.0 + D - 2.0, 50.0))
    np.testing.assert_array_equal(out[2], p[2])  # far from both: untouched
    assert p[1, 0] == 100.0 + D - 2.0  # the input is not changed


def test_moving_balls_and_balls_apart_are_left_where_they_were_found() -> None:
    p = np.array([(0.0, 0.0), (D - 1.0, 0.0), (300.0, 0.0), (300.0 + D + 0.5, 0.0)])
    out = apart(p, np.array([True, False, True, True]))
    np.testing.assert_array_equal(out, p)


def test_the_least_overlap_moved_is_a_hundredth_of_a_millimetre() -> None:
    slight = np.array([(0.0, 0.0), (D - 0.009, 0.0)])
    np.testing.assert_array_equal(apart(slight, np.ones(2, bool)), slight)
    over = np.array([(0.0, 0.0), (D - 0.02, 0.0)])
    assert abs(np.hypot(*np.subtract(*apart(over, np.ones(2, bool)))) - D) < 1e-9


def test_an_overlap_too_large_for_a_crease_is_left_alone() -> None:
    p = np.array([(0.0, 0.0), (D - MAX_OVERLAP_MM - 1.0, 0.0)])
    np.testing.assert_array_equal(apart(p, np.ones(2, bool)), p)


def test_a_rack_found_squeezed_is_spread_until_no_two_balls_overlap() -> None:
    rack = np.array(list(scenes.rack().values())[:15])
    centre = rack.mean(axis=0)
    squeezed = centre + (rack - centre) * 0.97  # every touching pair about 1.7 mm too close
    out = apart(squeezed, np.ones(15, bool))
    assert _gaps(squeezed).min() < D - 1.5
    assert _gaps(out).min() > D - 0.05
    np.testing.assert_allclose(out.mean(axis=0), centre, atol=0.05)  # spread, not shifted


def test_the_detector_never_reports_frozen_balls_overlapping() -> None:
    balls = scenes.rack()
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls, np.random.default_rng(9)))
    d = BallDetector(CALIBRATION).detect(image)
    rows, errors = match(d, balls)
    assert (rows >= 0).all()
    racked = [rows[i] for i, b in enumerate(balls) if b is not BallId.CUE]
    assert _gaps(d.positions[racked]).min() > D - 0.05
    assert np.median(errors) < 1.0
