from __future__ import annotations

import argparse
import io

from hardware.cameras import CameraStatus
from hardware.cameras.check import add_arguments, run_camera_check
from hardware.clock import MonotonicClock
from tests.hardware.cameras.fakes import FakeCamera


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_a_working_camera_is_reported_with_its_size_and_rate() -> None:
    clock = MonotonicClock()
    camera = FakeCamera(clock, [["ok"] * 100_000], fps=500.0)
    out = io.StringIO()
    code = run_camera_check(
        _args("2", "--seconds", "0.2"), out=out, clock=clock, capture_factory=camera
    )
    text = out.getvalue()
    assert code == 0
    assert text.startswith("camera 2: ")
    assert CameraStatus.OFFLINE.value not in text.splitlines()[0]  # frames were flowing
    assert "size 32x24" in text and "nominal 500 fps" in text


def test_a_camera_that_never_opens_exits_1_saying_why() -> None:
    clock = MonotonicClock()
    out = io.StringIO()
    code = run_camera_check(
        _args("rtsp://cam/1", "--seconds", "0.1"),
        out=out,
        clock=clock,
        capture_factory=FakeCamera(clock, [None] * 100),
    )
    assert code == 1
    assert "camera rtsp://cam/1: offline (cannot open camera rtsp://cam/1" in out.getvalue()


def test_bad_options_exit_2() -> None:
    out = io.StringIO()
    assert run_camera_check(_args("0", "--fourcc", "H26"), out=out) == 2
    assert "fourcc" in out.getvalue()
