"""The virtual camera: a FrameSource over any time-varying table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.camera import MILD_BARREL, CameraModel
from calibration.table import TableSpec
from hardware.clock import FakeClock
from hardware.frames import FrameSource
from hardware.sim.camera_source import VirtualCamera
from hardware.sim.render import RenderConfig, TableRenderer
from hardware.sim.snapshot import TableSnapshot
from rules.balls import BALL_RADIUS_MM, BallId
from tests.hardware.sim.snapshots import snapshot

TABLE = TableSpec.standard("9ft")
SIZE = (640, 360)
CONFIG = RenderConfig(resolution=SIZE, fps=30.0).clean
CAMERA = CameraModel.overhead(TABLE, image_size=SIZE, tilt_deg=2.0, distortion=MILD_BARREL)
SPEED = 1500.0  # mm/s along +x


def _rolling(t: float) -> TableSnapshot:
    return snapshot({BallId.NINE: (-600.0 + SPEED * t, 200.0)}, time=t)


@pytest.fixture(scope="module")
def renderer() -> TableRenderer:
    return TableRenderer(TABLE, CAMERA, CONFIG)


def test_frames_come_at_the_frame_rate_on_the_session_clock(renderer) -> None:
    source: FrameSource = VirtualCamera(_rolling, renderer, start=10.0, end=10.5)
    frames = list(source)
    assert [f.index for f in frames] == list(range(16))
    assert [f.time for f in frames] == pytest.approx([10.0 + i / 30 for i in range(16)])
    assert all(f.size == SIZE for f in frames)
    assert source.size == SIZE and source.fps == 30.0


def test_each_frame_shows_the_table_at_its_time(renderer) -> None:
    source = VirtualCamera(_rolling, renderer, start=0.0, end=0.4)
    for frame in list(source)[::4]:
        x = -600.0 + SPEED * frame.time
        expected = CAMERA.project(np.array([[x, 200.0, BALL_RADIUS_MM]]))[0]
        diff = np.abs(frame.image.astype(int) - renderer.background.astype(int)).sum(axis=-1)
        cx, cy = np.round(expected).astype(int)
        window = diff[cy - 15 : cy + 16, cx - 15 : cx + 16] > 60
        ys, xs = np.nonzero(window)
        found = np.array((xs.mean() + cx - 15, ys.mean() + cy - 15))
        assert np.linalg.norm(found - expected) < 1.0, frame.index


def test_motion_blur_asks_for_instants_across_the_exposure_within_the_span() -> None:
    config = dataclasses.replace(CONFIG, blur_subframes=5, exposure_s=1 / 60)
    asked: list[float] = []

    def recorded(t: float) -> TableSnapshot:
        asked.append(t)
        return _rolling(t)

    source = VirtualCamera(recorded, TableRenderer(TABLE, CAMERA, config), start=1.0, end=1.1)
    frames = list(source)
    assert len(asked) == 5 * len(frames)
    assert min(asked) == 1.0 and max(asked) <= 1.1
    middle = source.exposure_times(frames[1].time)
    assert middle == pytest.approx(frames[1].time + np.linspace(-1 / 120, 1 / 120, 5))


def test_with_a_clock_frames_are_released_at_their_time(renderer) -> None:
    clock = FakeClock(start=4.0)
    source = VirtualCamera(_rolling, renderer, start=5.0, end=5.2, clock=clock)
    for frame in source:
        assert clock.now() == pytest.approx(frame.time)
    assert clock.now() == pytest.approx(5.2)


def test_close_stops_the_frames_and_is_idempotent(renderer) -> None:
    source = VirtualCamera(_rolling, renderer, start=0.0, end=1.0)
    frames = iter(source)
    next(frames)
    source.close()
    source.close()
    assert list(frames) == []


def test_a_span_that_ends_before_it_starts_is_refused(renderer) -> None:
    with pytest.raises(ValueError, match="before its start"):
        VirtualCamera(_rolling, renderer, start=2.0, end=1.0)
