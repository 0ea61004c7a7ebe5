"""Frames after the first: only where the image changed is searched, the rest carried over.

Each test compares what a detector following the frames reports with the truth (and, where
it helps, with a fresh detector that searches the whole frame).
"""

from __future__ import annotations

import numpy as np

from rules.balls import BallId
from tests.vision import scenes
from tests.vision.test_detector import CALIBRATION, CAMERA, match, named
from vision.detector import BallDetector
from vision.occluders import occluder_area_mm2

RENDERER = scenes.renderer(CAMERA)


def _frame(balls, occluders=(), seed: int = 0) -> np.ndarray:
    snap = scenes.snapshot(balls, np.random.default_rng(1), occluders=occluders)
    return RENDERER.render(snap, frame_index=seed)


def test_a_ball_that_moved_a_whole_frames_travel_is_found_where_it_went() -> None:
    # 10 m/s (a hard break) at 60 frames a second: 167 mm between two frames.
    balls = scenes.random_layout(np.random.default_rng(21), 9)
    mover = next(iter(balls))
    start = np.array(balls[mover])
    heading = -start / np.hypot(*start)  # toward the table's middle: room to travel
    after = dict(balls)
    after[mover] = tuple(start + heading * 167.0)
    detector = BallDetector(CALIBRATION)
    detector.detect(_frame(balls), 0, 0.0)
    d = detector.detect(_frame(after, seed=1), 1, 1 / 60)
    rows, errors = match(d, after)
    assert (rows >= 0).all() and len(d) == len(after)
    assert errors.max() < 3.0
    assert named(d, rows[list(after).index(mover)]) is mover
    gone = np.hypot(*(d.positions - start).T)
    assert gone.min() > 100.0, "nothing is left where the ball was"


def test_a_ball_coming_out_from_under_an_arm_is_found() -> None:
    balls = {BallId.CUE: (-800.0, 0.0), BallId.THREE: (300.0, 200.0)}
    arm = scenes.arm(350.0, 220.0, angle_deg=60.0)  # the hand over the 3
    detector = BallDetector(CALIBRATION)
    hidden = detector.detect(_frame(balls, (arm,)), 0, 0.0)
    assert hidden.occluded
    out = dict(balls)
    out[BallId.THREE] = (420.0, -150.0)  # rolled out from under it; the arm stays
    d = detector.detect(_frame(out, (arm,), seed=1), 1, 1 / 60)
    rows, errors = match(d, out)
    assert (rows >= 0).all() and errors.max() < 3.0
    assert named(d, rows[1]) is BallId.THREE
    assert d.occluded, "the arm is still there"


def test_an_occluder_is_reported_while_it_stays_and_read_again_when_it_moves() -> None:
    balls = {BallId.CUE: (-800.0, 0.0), BallId.NINE: (600.0, -300.0)}
    arm = scenes.arm(0.0, 100.0, angle_deg=60.0)
    detector = BallDetector(CALIBRATION)
    first = detector.detect(_frame(balls, (arm,)), 0, 0.0)
    rolled = dict(balls)
    rolled[BallId.CUE] = (-700.0, -250.0)  # far from the arm: only the cue ball is searched
    second = detector.detect(_frame(rolled, (arm,), seed=1), 1, 1 / 60)
    assert second.occluded == first.occluded
    assert (match(second, rolled)[0] >= 0).all()
    moved_arm = scenes.arm(200.0, 100.0, angle_deg=60.0)
    third = detector.detect(_frame(rolled, (moved_arm,), seed=2), 2, 2 / 60)
    fresh = BallDetector(CALIBRATION).detect(_frame(rolled, (moved_arm,), seed=2))
    assert third.occluded != first.occluded
    poly = np.concatenate([np.array(p) for p in third.occluded])
    assert poly[:, 0].max() > 150.0, "the arm's new reach"
    assert abs(occluder_area_mm2(third.occluded) - occluder_area_mm2(fresh.occluded)) < (
        0.05 * occluder_area_mm2(fresh.occluded)
    )


def test_a_ball_seen_blurred_stays_found_while_its_place_does_not_change() -> None:
    # A camera may hand over the same picture twice, and a ball creeping to rest changes too
    # little between frames to be searched again: a ball read as a streak (it is not one of the
    # balls at rest carried over) must not vanish because only something else moved.
    renderer = scenes.renderer(CAMERA, blur_subframes=8)
    config = renderer.config
    rolling = {BallId.THREE: (2500.0, 0.0), BallId.CUE: (0.0, 0.0)}
    detector = BallDetector(CALIBRATION)
    detector.detect(_frame({BallId.THREE: (300.0, 200.0), BallId.CUE: (-800.0, 0.0)}), 0, 0.0)
    for i, cue in enumerate(((-800.0, 0.0), (-650.0, -150.0), (-500.0, -300.0)), start=1):
        balls = {BallId.THREE: (300.0, 200.0), BallId.CUE: cue}
        image = renderer.render(scenes.Moving(balls, rolling).exposure(config), frame_index=1)
        d = detector.detect(image, i, i / 60)
        rows, errors = match(d, balls)
        assert (rows >= 0).all() and len(d) == 2, f"frame {i}: {d.positions}"
        three = rows[0]
        assert not np.isnan(d.blur_velocity[three, 0]), f"frame {i}: the 3 is read as blurred"
        assert errors[0] < 6.0


def test_a_ball_seen_blurred_then_lost_is_looked_for_again_where_it_was() -> None:
    # A ball read as a streak, gone the next frame (melted into the cloth, or the image torn)
    # and fading back too slowly for any frame to change much there, while the cue ball rolls
    # elsewhere: its place must be searched again, as for a ball lost at rest.
    three = (300.0, 200.0)
    renderer = scenes.renderer(CAMERA, blur_subframes=8, noise_sigma=0.0, jpeg_quality=None)
    detector = BallDetector(CALIBRATION)

    def frame(k: int, visible: float) -> np.ndarray:
        cue = (-900.0 + 40.0 * k, -200.0)
        still = {BallId.CUE: (0.0, 0.0)}
        blurred = scenes.Moving(
            {BallId.CUE: cue, BallId.THREE: three}, {**still, BallId.THREE: (2500.0, 0.0)}
        )
        with_three = renderer.render(blurred.exposure(renderer.config))
        without = renderer.render(scenes.Moving({BallId.CUE: cue}, still).exposure(renderer.config))
        return np.round(visible * with_three + (1 - visible) * without).astype(np.uint8)

    detector.detect(frame(0, 0.0), 0, 0.0)
    seen = detector.detect(frame(1, 1.0), 1, 1 / 60)
    rows, _ = match(seen, {BallId.THREE: three})
    assert rows[0] >= 0 and not np.isnan(seen.blur_velocity[rows[0], 0]), "read as a streak"
    assert match(detector.detect(frame(2, 0.0), 2, 2 / 60), {BallId.THREE: three})[0][0] < 0
    steps = 16  # each step changes a pixel by far less than the change threshold
    for k in range(3, steps + 3):
        d = detector.detect(frame(k, min((k - 2) / steps, 1.0)), k, k / 60)
    rows, errors = match(d, {BallId.THREE: three})
    assert rows[0] >= 0 and errors[0] < 6.0
