"""A clocked virtual camera skips frames whose moment passed, as a live camera would."""

from __future__ import annotations

from calibration.camera import CameraModel
from calibration.table import TableSpec
from hardware.clock import FakeClock
from hardware.sim.camera_source import VirtualCamera
from hardware.sim.render import RenderConfig, TableRenderer
from rules.balls import BallId
from tests.hardware.sim.snapshots import snapshot

T9 = TableSpec.standard("9ft")


def test_a_late_reader_gets_the_current_frame_not_a_backlog() -> None:
    config = RenderConfig(resolution=(160, 90), fps=10.0, jpeg_quality=None, noise_sigma=0.0)
    renderer = TableRenderer(T9, CameraModel.overhead(T9, image_size=(160, 90)), config)
    clock = FakeClock()
    camera = VirtualCamera(
        lambda t: snapshot({BallId.CUE: (0.0, 0.0)}, time=t),
        renderer,
        start=0.0,
        end=2.0,
        clock=clock,
    )
    frames = iter(camera)
    assert next(frames).index == 0
    clock.advance(1.0)  # the reader was busy for a second
    late = next(frames)
    assert late.index == 10 and camera.frames_skipped == 9
