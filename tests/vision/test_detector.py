"""The ball detector on the virtual table: every ball found, placed and named."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from rules.balls import BallId
from tests.vision import scenes
from vision.detections import BALL_ORDER, Detections
from vision.detector import BallDetector, DetectorConfig, FrameError

CAMERA = scenes.camera()
CALIBRATION = scenes.calibration_for(CAMERA)


def match(d: Detections, truth: dict[BallId, tuple[float, float]], gate: float = 20.0):
    """Per true ball: the nearest detection's row and distance (row -1 when none within gate)."""
    pts = np.array(list(truth.values()))
    rows, errors = [], []
    for p in pts:
        if len(d) == 0:
            rows.append(-1)
            errors.append(np.inf)
            continue
        dist = np.hypot(*(d.positions - p).T)
        j = int(np.argmin(dist))
        rows.append(j if dist[j] < gate else -1)
        errors.append(float(dist[j]))
    return np.array(rows), np.array(errors)


def named(d: Detections, row: int) -> BallId:
    return BALL_ORDER[int(np.argmax(d.identity[row]))]


@pytest.fixture(scope="module")
def detector() -> BallDetector:
    return BallDetector(CALIBRATION)


@pytest.mark.parametrize("cloth", [ClothColour.GREEN, ClothColour.RED])
def test_a_full_rack_frozen_together_is_found_placed_and_named(cloth: ClothColour) -> None:
    balls = scenes.rack()
    image = scenes.renderer(CAMERA, cloth).render(scenes.snapshot(balls))
    d = BallDetector(CALIBRATION).detect(image, 7, 1.5)
    assert (d.frame, d.time) == (7, 1.5)
    rows, errors = match(d, balls)
    assert (rows >= 0).all(), f"missed {[b for b, r in zip(balls, rows, strict=True) if r < 0]}"
    assert len(d) == len(balls)
    assert np.median(errors) < 1.5 and errors.max() < 8.0
    right = sum(named(d, r) == b for b, r in zip(balls, rows, strict=True))
    assert right >= 14


def test_balls_on_cushions_in_jaws_and_frozen_pairs_are_found() -> None:
    balls = scenes.hard_places()
    rng = np.random.default_rng(3)
    image = scenes.renderer(CAMERA, ClothColour.BLUE).render(scenes.snapshot(balls, rng))
    d = BallDetector(CALIBRATION).detect(image)
    rows, errors = match(d, balls)
    assert (rows >= 0).all(), f"missed {[b for b, r in zip(balls, rows, strict=True) if r < 0]}"
    assert len(d) == len(balls)
    assert np.median(errors) < 1.5


def test_positions_are_on_the_plane_of_ball_centres_not_the_cloth() -> None:
    # Near a corner a cloth-plane mapping would be over a centimetre off.
    corner = (scenes.TABLE.length / 2 - 60, scenes.TABLE.width / 2 - 60)
    balls = {BallId.CUE: corner}
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls))
    d = BallDetector(CALIBRATION).detect(image)
    assert len(d) == 1
    assert np.hypot(*(d.positions[0] - corner)) < 2.0
    assert d.sigma[0] < 3.0 and d.confidence[0] > 0.8


def test_a_ball_under_an_arm_is_not_invented_and_the_arm_is_reported() -> None:
    balls = {BallId.CUE: (-800.0, 0.0), BallId.NINE: (600.0, -300.0)}
    arm = scenes.arm(0.0, 100.0, angle_deg=60.0)
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls, occluders=(arm,)))
    d = BallDetector(CALIBRATION).detect(image)
    rows, _ = match(d, balls)
    assert (rows >= 0).all()
    assert len(d) == 2, "the arm must not be taken for balls"
    assert d.occluded, "the arm must be reported as an occluder"
    # The polygon covers the arm's tip, in table mm.
    poly = np.array(d.occluded[0])
    assert poly[:, 0].min() < 0 < poly[:, 0].max()


def test_an_unchanged_frame_reuses_the_last_result_restamped(detector: BallDetector) -> None:
    balls = scenes.random_layout(np.random.default_rng(5), 8)
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls))
    detector.reset()
    first = detector.detect(image, 0, 0.0)
    again = detector.detect(image.copy(), 1, 1 / 60)
    assert again.frame == 1 and again.time == pytest.approx(1 / 60)
    np.testing.assert_array_equal(first.positions, again.positions)
    # One ball moves: only it changes.
    moved = dict(balls)
    moved[BallId.CUE] = (balls[BallId.CUE][0] + 40.0, balls[BallId.CUE][1])
    later = detector.detect(scenes.renderer(CAMERA).render(scenes.snapshot(moved)), 2, 2 / 60)
    rows, errors = match(later, moved)
    assert (rows >= 0).all() and errors.max() < 4.0
    assert len(later) == len(moved)


def test_a_blank_frame_gives_no_balls() -> None:
    d = BallDetector(CALIBRATION).detect(np.zeros((720, 1280, 3), np.uint8), 3, 0.1)
    assert len(d) == 0 and d.frame == 3


def test_a_frame_without_cloth_gives_no_balls() -> None:
    noise = np.random.default_rng(1).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    detector = BallDetector(CALIBRATION)
    image = scenes.renderer(CAMERA).render(scenes.snapshot(scenes.rack()))
    detector.detect(image)  # the cloth is learned from a good frame first
    assert len(detector.detect(noise)) == 0


@pytest.mark.parametrize(
    "image, message",
    [
        (np.zeros((480, 640, 3), np.uint8), "640x480 pixels, but the calibration is for 1280x720"),
        (np.zeros((720, 1280), np.uint8), "HxWx3"),
        (np.zeros((720, 1280, 3), np.float32), "uint8"),
    ],
)
def test_a_frame_that_does_not_fit_is_refused_naming_it(image, message) -> None:
    with pytest.raises(FrameError, match=message) as info:
        BallDetector(CALIBRATION).detect(image, 42)
    assert "frame 42" in str(info.value)


def test_config_is_a_frozen_value() -> None:
    cfg = DetectorConfig()
    with pytest.raises(AttributeError):
        cfg.edge_threshold = 1.0  # type: ignore[misc]


def test_a_streak_gives_the_mid_exposure_centre_and_the_speed() -> None:
    cfg = RenderConfig(blur_subframes=8)
    renderer = TableRenderer(scenes.TABLE, CAMERA, cfg)
    balls = {BallId.CUE: (-400.0, 100.0), BallId.THREE: (300.0, -200.0)}
    vel = {BallId.CUE: (3000.0, 0.0), BallId.THREE: (-1500.0, 2000.0)}
    d = BallDetector(CALIBRATION).detect(renderer.render(scenes.Moving(balls, vel).exposure(cfg)))
    rows, errors = match(d, balls)
    assert (rows >= 0).all() and len(d) == 2
    assert errors.max() < 3.0
    for ball, row in zip(balls, rows, strict=True):
        got, want = d.blur_velocity[row], np.array(vel[ball])
        assert np.hypot(*got) == pytest.approx(np.hypot(*want), rel=0.25)
        # A streak alone does not say which way: the axis is right, the sign may not be.
        assert abs(np.dot(got, want)) / (np.hypot(*got) * np.hypot(*want)) > 0.97


def test_balls_at_rest_report_no_blur() -> None:
    balls = scenes.random_layout(np.random.default_rng(9), 12)
    image = scenes.renderer(CAMERA).render(scenes.snapshot(balls, np.random.default_rng(9)))
    d = BallDetector(CALIBRATION).detect(image)
    assert np.isnan(d.blur_velocity).all()


def test_only_the_games_balls_are_ever_named() -> None:
    # A 9-ball table (cue, 1-9) seen by a detector told so: a stray 12 on the cloth is found
    # as a ball but never named 12, and the game's balls keep their names.
    nine_ball = [BallId.CUE, *(BallId(str(n)) for n in range(1, 10))]
    balls = {b: p for b, p in scenes.rack().items() if b in nine_ball or b is BallId.TWELVE}
    image = scenes.renderer(CAMERA, ClothColour.GREEN).render(scenes.snapshot(balls))
    d = BallDetector(CALIBRATION, balls=nine_ball).detect(image, 0, 0.0)
    rows, _ = match(d, balls)
    assert (rows >= 0).all()
    assert not d.identity[:, BALL_ORDER.index(BallId.TWELVE)].any()
    right = sum(named(d, r) == b for b, r in zip(balls, rows, strict=True) if b in nine_ball)
    assert right >= len(nine_ball) - 1


def test_a_ball_lost_for_a_moment_is_found_again_when_it_fades_back_slowly() -> None:
    # A green ball on green cloth turned number-down melts into the cloth for a frame or two,
    # and turns back too slowly for any frame to change much. Meanwhile the cue ball rolls
    # elsewhere, so every frame is searched, but only where it changed: without looking again
    # where a ball was lost, the lost ball would stay lost for the rest of the rack.
    six = (900.0, 300.0)
    render = scenes.renderer(CAMERA, noise_sigma=0.0, jpeg_quality=None).render
    detector = BallDetector(CALIBRATION)

    def frame(k: int, visible: float) -> np.ndarray:
        cue = {BallId.CUE: (-900.0 + 40.0 * k, -200.0)}
        with_six = render(scenes.snapshot({**cue, BallId.SIX: six}))
        without = render(scenes.snapshot(cue))
        return np.round(visible * with_six + (1 - visible) * without).astype(np.uint8)

    assert match(detector.detect(frame(0, 1.0), 0, 0.0), {BallId.SIX: six})[0][0] >= 0
    assert match(detector.detect(frame(1, 0.0), 1, 1 / 60), {BallId.SIX: six})[0][0] < 0
    steps = 16  # each step changes a pixel by far less than the change threshold
    for k in range(2, steps + 2):
        d = detector.detect(frame(k, min((k - 1) / steps, 1.0)), k, k / 60)
    rows, errors = match(d, {BallId.SIX: six})
    assert rows[0] >= 0 and errors[0] < 3.0
