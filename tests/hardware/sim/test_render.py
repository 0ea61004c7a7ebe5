"""The overhead-camera renderer: balls land where the camera model says, and look like balls."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.camera import MILD_BARREL, CameraModel
from calibration.table import TableSpec
from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from hardware.sim.snapshot import Occluder
from hardware.sim.sprites import sprite_outline_error_px
from rules.balls import BALL_RADIUS_MM, BallId
from rules.codec import dumps, loads
from rules.errors import ConfigError
from tests.hardware.sim.snapshots import rotation, snapshot

TABLE = TableSpec.standard("9ft")
R = BALL_RADIUS_MM
HX, HY = TABLE.length / 2, TABLE.width / 2
CLEAN = RenderConfig().clean

CAMERAS = {
    "straight": CameraModel.overhead(TABLE),
    "tilted-distorted": CameraModel.overhead(
        TABLE, tilt_deg=4.0, side_tilt_deg=-2.0, yaw_deg=1.5, distortion=MILD_BARREL
    ),
}


@pytest.fixture(scope="module", params=list(CAMERAS))
def renderer(request) -> TableRenderer:
    return TableRenderer(TABLE, CAMERAS[request.param], CLEAN)


@pytest.fixture(scope="module")
def plain() -> TableRenderer:
    return TableRenderer(TABLE, CAMERAS["straight"], CLEAN)


def _chroma(image: np.ndarray) -> np.ndarray:
    f = image.astype(np.float64) + 1.0
    return f / f.sum(axis=-1, keepdims=True)


def _ball_mask(renderer: TableRenderer, frame: np.ndarray) -> np.ndarray:
    """Pixels of another colour than the table's: balls, not their shadows (which keep the
    table's chromaticity) nor sensor noise (small in grey levels)."""
    bg = renderer.background
    chroma = np.linalg.norm(_chroma(frame) - _chroma(bg), axis=-1) > 0.06
    far = np.linalg.norm(frame.astype(float) - bg, axis=-1) > 30
    return chroma & far


def _blob_near(mask: np.ndarray, centre: np.ndarray, half: int = 30) -> tuple[np.ndarray, int]:
    x0, y0 = int(centre[0]) - half, int(centre[1]) - half
    ys, xs = np.nonzero(mask[y0 : y0 + 2 * half, x0 : x0 + 2 * half])
    assert len(xs), f"no ball pixels near {centre}"
    return np.array((xs.mean() + x0, ys.mean() + y0)), len(xs)


SPREAD_OUT = {
    BallId.CUE: (-600.0, 150.0),
    BallId.ONE: (HX - R, HY - R),  # frozen in the foot-left corner
    BallId.TWO: (0.0, -HY + R),  # frozen to the right long cushion at the side pocket
    BallId.THREE: (-HX + R, 40.0),  # frozen to the head cushion
    BallId.FOUR: (500.0, -300.0),
    BallId.TEN: (-HX + 90, -HY + R + 2),  # by the head-right corner pocket
}


def test_ball_pixels_land_where_the_camera_projects_the_centres(renderer) -> None:
    snap = snapshot(SPREAD_OUT, orientations={BallId.TEN: rotation("x", 90)})
    frame = renderer.render(snap)
    mask = _ball_mask(renderer, frame)
    expected = renderer.camera.project(snap.positions)
    for ball, centre in zip(snap.balls, expected, strict=True):
        found, area = _blob_near(mask, centre)
        radius_px = R / renderer.camera.mm_per_pixel(np.array([0.0, 0.0, R]))
        assert area == pytest.approx(np.pi * radius_px**2, rel=0.25), ball
        assert np.linalg.norm(found - centre) < 0.5, f"{ball}: blob at {found}, want {centre}"


def test_noise_and_compression_keep_the_balls_in_place() -> None:
    noisy = TableRenderer(TABLE, CAMERAS["tilted-distorted"], RenderConfig(noise_sigma=3.0))
    snap = snapshot({BallId.CUE: (300.0, 200.0), BallId.THREE: (HX - R, -HY + 150)})
    frame = noisy.render(snap, frame_index=5)
    mask = _ball_mask(noisy, frame)
    for centre in noisy.camera.project(snap.positions):
        found, _ = _blob_near(mask, centre)
        assert np.linalg.norm(found - centre) < 1.0


def test_the_sprite_outline_matches_the_exact_silhouette_within_a_tenth_of_a_pixel() -> None:
    spots = [(x, y, R) for x in (-HX + R, 0.0, 700.0, HX - R) for y in (-HY + R, 0.0, HY - R)]
    spots.append((HX + 100, 0.0, 250.0))  # airborne over the foot rail
    for camera in CAMERAS.values():
        errors = [sprite_outline_error_px(camera, np.array(p)) for p in spots]
        assert max(errors) < 0.1


SMALL = (640, 360)


def test_cloth_colours_differ_and_look_like_their_names() -> None:
    camera = CameraModel.overhead(TABLE, image_size=SMALL)
    centre = (slice(150, 210), slice(270, 370))
    means = {}
    for cloth in ClothColour:
        config = dataclasses.replace(CLEAN, resolution=SMALL, cloth=cloth)
        means[cloth] = TableRenderer(TABLE, camera, config).background[centre].mean(axis=(0, 1))
    b, g, r = means[ClothColour.GREEN]
    assert g > b + 40 and g > r + 40
    b, g, r = means[ClothColour.BLUE]
    assert b > g + 30 and b > r + 60
    b, g, r = means[ClothColour.RED]
    assert r > g + 60 and r > b + 60
    assert np.ptp(means[ClothColour.GREY]) < 15
    colours = list(means.values())
    for i, a in enumerate(colours):
        for other in colours[i + 1 :]:
            assert np.abs(a - other).max() > 30


def test_the_table_has_rails_darker_than_the_cloth_and_dark_pockets(plain) -> None:
    cam = plain.camera
    bg = plain.background.astype(float)
    cloth = bg[tuple(np.round(cam.project(np.array([[0.0, 300.0, 0.0]]))[0, ::-1]).astype(int))]
    rail_point = np.array([[HX / 4 + 60, HY + 130, TABLE.cushion_nose_height]])
    rail = bg[tuple(np.round(cam.project(rail_point)[0, ::-1]).astype(int))]
    pocket = TABLE.pocket(TABLE.pockets[0].id).centre
    hole = bg[tuple(np.round(cam.project(np.array([[*pocket, 0.0]]))[0, ::-1]).astype(int))]
    assert hole.max() < 30
    assert rail.sum() < cloth.sum()
    assert rail[2] > rail[0]  # wood: red over blue


def test_a_ball_under_an_arm_is_hidden(plain) -> None:
    ball = {BallId.ONE: (200.0, 100.0)}
    arm = Occluder(((100.0, 0.0), (300.0, 0.0), (300.0, 200.0), (100.0, 200.0)), height_mm=200)
    centre = plain.camera.project(np.array([[200.0, 100.0, R]]))[0]
    x, y = np.round(centre).astype(int)
    window = (slice(y - 15, y + 16), slice(x - 15, x + 16))
    seen = plain.render(snapshot(ball))
    hidden = plain.render(snapshot(ball, occluders=(arm,)))
    yellow = np.array((20, 196, 250))
    assert np.sum(np.linalg.norm(seen[window] - yellow, axis=-1) < 80) > 100
    assert np.sum(np.linalg.norm(hidden[window].astype(float) - yellow, axis=-1) < 80) == 0
    assert np.allclose(hidden[y, x], arm.colour_bgr, atol=2)


def test_a_pocketed_ball_is_not_drawn(plain) -> None:
    snap = snapshot({BallId.FIVE: (0.0, 0.0), BallId.SIX: (400, 0)}, off_table=(BallId.SIX,))
    frame = plain.render(snap)
    mask = _ball_mask(plain, frame)
    six = plain.camera.project(np.array([[400.0, 0.0, R]]))[0]
    x, y = np.round(six).astype(int)
    assert not mask[y - 20 : y + 20, x - 20 : x + 20].any()
    five = plain.camera.project(np.array([[0.0, 0.0, R]]))[0]
    x, y = np.round(five).astype(int)
    assert mask[y - 20 : y + 20, x - 20 : x + 20].sum() > 200


def test_an_airborne_ball_looks_bigger_and_leaves_its_shadow_behind(plain) -> None:
    def blob(z: float) -> tuple[np.ndarray, int]:
        frame = plain.render(snapshot({BallId.CUE: (700.0, 300.0, z)}))
        centre = plain.camera.project(np.array([[700.0, 300.0, z]]))[0]
        return _blob_near(_ball_mask(plain, frame), centre, half=40)

    (_, resting), (found, flying) = blob(R), blob(R + 400.0)
    lifted = plain.camera.project(np.array([[700.0, 300.0, R + 400.0]]))[0]
    assert np.linalg.norm(found - lifted) < 0.5
    # 400 mm nearer a camera 2.6 m up: about 18 % wider, 40 % more area.
    assert flying / resting == pytest.approx(((2600 - R) / (2600 - R - 400)) ** 2, rel=0.08)
    # A hop of 100 mm (a jump shot): the ball is drawn away from the spot under it, which
    # its (softer) shadow darkens.
    frame = plain.render(snapshot({BallId.CUE: (700.0, 300.0, R + 100.0)}))
    under = plain.camera.project(np.array([[700.0, 300.0, 0.0]]))[0].round().astype(int)
    assert frame[under[1], under[0]].sum() < plain.background[under[1], under[0]].sum() - 10


def test_a_ball_dropping_into_a_pocket_darkens(plain) -> None:
    spot = (HX - R, 0.0)
    at_rest = plain.render(snapshot({BallId.CUE: spot}))
    dropping = plain.render(snapshot({BallId.CUE: (*spot, 0.3 * R)}))
    x, y = plain.camera.project(np.array([[*spot, R]]))[0].round().astype(int)
    assert dropping[y, x].sum() < 0.5 * at_rest[y, x].sum()


def test_balls_out_of_view_are_not_drawn(plain) -> None:
    far = {BallId.CUE: (20_000.0, 0.0), BallId.ONE: (0.0, 0.0, 5000.0), BallId.TWO: (0, -9e4)}
    frame = plain.render(snapshot(far))
    assert np.array_equal(frame, plain.background)


def test_motion_blur_smears_a_moving_ball_along_its_path() -> None:
    config = dataclasses.replace(CLEAN, blur_subframes=8, exposure_s=1 / 120)
    blurred = TableRenderer(TABLE, CAMERAS["straight"], config)
    speed = 6000.0  # mm/s, a firm break: 50 mm over the exposure
    times = np.linspace(-config.exposure_s / 2, config.exposure_s / 2, config.blur_subframes)
    subs = [snapshot({BallId.CUE: (speed * t, 0.0)}, time=t) for t in times]
    frame = blurred.render(subs)
    diff = np.abs(frame.astype(int) - blurred.background.astype(int)).sum(axis=-1) > 12
    ys, xs = np.nonzero(diff)
    start, end = blurred.camera.project(np.array([[-25.0, 0.0, R], [25.0, 0.0, R]]))
    streak_px = np.linalg.norm(end - start)
    assert np.ptp(xs) > np.ptp(ys) + 0.7 * streak_px  # longer along the path by about its length
    still = blurred.render(subs[len(subs) // 2])
    assert not np.array_equal(still, frame)
    # The smear is centred on the mid-exposure position.
    weight = np.abs(frame.astype(float) - blurred.background).sum(axis=-1) * diff
    ys, xs = np.nonzero(weight)
    w = weight[ys, xs]
    centroid = np.array([np.average(xs, weights=w), np.average(ys, weights=w)])
    assert np.linalg.norm(centroid - (start + end) / 2) < 1.5


def test_a_fast_ball_leaves_a_smooth_streak_not_a_row_of_ghosts(plain) -> None:
    # 6 m/s over 1/60 s is 100 mm, 40 px: 8 instants alone would leave 8 ghosts 6 px apart.
    subs = [
        snapshot({BallId.CUE: (6000 * t, 0.0)}, time=t) for t in np.linspace(-1 / 120, 1 / 120, 8)
    ]
    x, y = plain.camera.project(np.array([[0.0, 0.0, R]]))[0].round().astype(int)
    background = plain.background.astype(int)

    def roughness(image: np.ndarray) -> float:
        diff = np.abs(image.astype(int) - background).sum(axis=2)
        profile = diff[y - 15 : y + 16, x - 10 : x + 11].sum(axis=0)  # across the streak
        return float(np.abs(np.diff(profile, 2)).mean())

    assert roughness(plain.render(subs)) < 0.6 * roughness(plain.expose(subs))


def test_exposure_equals_the_average_of_its_instants(plain) -> None:
    times = np.linspace(0.0, 0.008, 6)
    subs = [
        snapshot(
            {
                BallId.CUE: (-400 + 5000 * t, 100.0),  # moving
                BallId.NINE: (-380.0, 110.0 + 2000 * t),  # moving, overlapping the cue's path
                BallId.FIVE: (600.0, -200.0),  # still
                BallId.EIGHT: (HX - R, 0.0),  # still, on the foot cushion
            },
            orientations={BallId.CUE: rotation("y", 4000 * t)},
            occluders=(Occluder(((0, 0), (200 + 3e4 * t, 0), (200, 100), (0, 100))),),
            time=t,
        )
        for t in times
    ]
    naive = np.mean([plain.compose(s).astype(float) for s in subs], axis=0)
    assert np.abs(plain.expose(subs).astype(float) - naive).max() <= 1.0


def test_exposure_copes_with_reordered_and_pocketed_balls(plain) -> None:
    def instant(k: int):
        balls = {BallId.TWO: (100.0 + 8 * k, 0.0), BallId.SIX: (-300.0, 200.0)}
        if k % 2:
            balls = dict(reversed(balls.items()))
        return snapshot(balls, off_table=(BallId.SIX,) if k >= 3 else ())

    subs = [instant(k) for k in range(6)]
    naive = np.mean([plain.compose(s).astype(float) for s in subs], axis=0)
    assert np.abs(plain.expose(subs).astype(float) - naive).max() <= 1.0


def test_stripes_and_numbers_turn_with_the_ball(plain) -> None:
    spot = (0.0, -200.0)
    centre = plain.camera.project(np.array([[*spot, R]]))[0]
    x, y = np.round(centre).astype(int)
    window = (slice(y - 10, y + 11), slice(x - 10, x + 11))

    def coloured(ball: BallId, turn: np.ndarray) -> int:
        frame = plain.render(snapshot({ball: spot}, orientations={ball: turn}))
        patch = frame[window].astype(float)
        return int(np.sum(patch.max(axis=-1) - patch.min(axis=-1) > 90))

    # Stripe axis (body z) pointing at the camera: a white cap; turned on its side: the band.
    cap = coloured(BallId.ELEVEN, np.eye(3))
    band = coloured(BallId.ELEVEN, rotation("x", 90))
    assert band > cap + 100

    # The number disc (body x) turned up faces the camera: white in the middle of a solid.
    def white(turn: np.ndarray) -> int:
        frame = plain.render(snapshot({BallId.TWO: spot}, orientations={BallId.TWO: turn}))
        return int(np.sum(frame[window].min(axis=-1) > 150))

    assert white(rotation("y", -90)) > white(np.eye(3)) + 30


def test_the_same_seed_gives_identical_frames() -> None:
    config = RenderConfig(resolution=SMALL, noise_sigma=3.0, jpeg_quality=80, seed=4)
    snap = snapshot(SPREAD_OUT)
    camera = CameraModel.overhead(TABLE, image_size=SMALL, tilt_deg=3, distortion=MILD_BARREL)
    renderer = TableRenderer(TABLE, camera, config)
    first = renderer.render(snap, frame_index=3)
    renderer.render(snap, frame_index=9)
    again = TableRenderer(TABLE, camera, config).render(snap, frame_index=3)
    assert np.array_equal(first, again)
    other_frame = renderer.render(snap, frame_index=4)
    other_seed = TableRenderer(TABLE, camera, dataclasses.replace(config, seed=5)).render(
        snap, frame_index=3
    )
    assert not np.array_equal(first, other_frame)
    assert not np.array_equal(first, other_seed)


def test_a_camera_of_another_size_is_refused() -> None:
    camera = CameraModel.overhead(TABLE, image_size=(640, 360))
    with pytest.raises(ConfigError, match=r"\(640, 360\) differs from the configured"):
        TableRenderer(TABLE, camera, RenderConfig())


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("fps", 0.0, "fps"),
        ("blur_subframes", 0, "blur_subframes"),
        ("exposure_s", 0.5, "within one frame"),
        ("jpeg_quality", 0, "jpeg_quality"),
        ("noise_sigma", -1.0, "noise_sigma"),
        ("vignetting", 1.0, "vignetting"),
    ],
)
def test_bad_render_settings_are_refused(field, value, message) -> None:
    with pytest.raises(ValueError, match=message):
        RenderConfig(**{field: value})


def test_render_settings_round_trip_through_the_codec() -> None:
    config = RenderConfig(cloth=ClothColour.BLUE, jpeg_quality=None, blur_subframes=4, seed=9)
    assert loads(RenderConfig, dumps(config)) == config
    assert loads(RenderConfig, dumps(RenderConfig())) == RenderConfig()
