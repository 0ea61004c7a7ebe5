from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from hardware.cameras import CameraConfig, CameraHealth, CameraSource, CameraStatus
from hardware.cameras.live import CameraLink
from hardware.clock import FakeClock, MonotonicClock
from tests.hardware.cameras.fakes import FakeCamera

FPS = 30.0
CONFIG = CameraConfig(source=0, reconnect_initial_s=0.5, reconnect_max_s=4.0, failed_reads=3)


def _link(camera: FakeCamera, clock: FakeClock, config: CameraConfig = CONFIG):
    seen: list[CameraHealth] = []
    link = CameraLink(config, clock, capture_factory=camera, on_status=seen.append)
    return link, seen


def _steps(link: CameraLink, n: int):
    return [link.step() for _ in range(n)]


def test_frames_are_numbered_and_stamped_on_the_session_clock_at_arrival() -> None:
    clock = FakeClock(100.0)
    link, seen = _link(FakeCamera(clock, [["ok"] * 8]), clock)
    frames = _steps(link, 8)
    assert [f.index for f in frames] == list(range(8))
    assert [f.time for f in frames] == pytest.approx([100.0 + (i + 1) / FPS for i in range(8)])
    assert frames[0].image.shape == (24, 32, 3)
    health = link.health()
    assert health.status is CameraStatus.ONLINE
    assert health.frames == 8 and health.dropped_by_camera == 0
    assert health.nominal_fps == FPS and health.measured_fps == pytest.approx(FPS)
    assert [h.status for h in seen] == [CameraStatus.ONLINE]
    assert link.size == (32, 24) and link.fps == pytest.approx(FPS)


def test_frames_the_camera_dropped_skip_indices_and_degrade_it_for_a_while() -> None:
    clock = FakeClock()
    link, seen = _link(FakeCamera(clock, [["ok", "ok", ("gap", 3), "ok"] + ["ok"] * 200]), clock)
    frames = _steps(link, 4)
    assert [f.index for f in frames] == [0, 1, 5, 6]
    health = link.health()
    assert health.status is CameraStatus.DEGRADED
    assert "3 frames dropped" in health.reason
    assert health.dropped_by_camera == 3
    _steps(link, 200)  # over 5 s of clean frames
    assert link.health().status is CameraStatus.ONLINE
    assert [h.status for h in seen] == [
        CameraStatus.ONLINE,
        CameraStatus.DEGRADED,
        CameraStatus.ONLINE,
    ]


def test_a_camera_slower_than_its_nominal_rate_is_degraded() -> None:
    clock = FakeClock()
    config = CameraConfig(fps=40.0)  # asked for 40, the camera manages 30 without gaps
    link, _ = _link(FakeCamera(clock, [["ok"] * 20], fps=30.0), clock, config)
    frames = _steps(link, 20)
    assert [f.index for f in frames] == list(range(20))
    health = link.health()
    assert health.status is CameraStatus.DEGRADED
    assert health.reason == "30.0 fps of a nominal 40"


def test_the_size_is_known_once_opened_before_the_first_frame() -> None:
    clock = FakeClock()
    link, _ = _link(FakeCamera(clock, [["fail", "ok"]]), clock)
    assert link.size == (0, 0)
    assert link.step() is None
    assert link.size == (32, 24)


def test_a_camera_that_numbers_its_frames_is_believed_over_arrival_times() -> None:
    clock = FakeClock()
    script = ["ok", "ok", ("skip", 2), "ok", ("late", 2), "ok"]
    link, _ = _link(FakeCamera(clock, [script], numbered=True), clock)
    frames = _steps(link, 6)
    # Two frames lost on the device though the third came on time; the late one lost none.
    assert [f.index for f in frames] == [0, 1, 4, 5, 6, 7]
    assert link.health().dropped_by_camera == 2


def test_a_camera_that_fails_mid_stream_is_reported_retried_with_backoff_and_recovers() -> None:
    clock = FakeClock()
    sessions = [["ok"] * 5 + ["fail"] * 3, None, ["ok"] * 5]
    camera = FakeCamera(clock, sessions)
    link, seen = _link(camera, clock)
    before = _steps(link, 8)
    assert [f.index for f in before if f] == [0, 1, 2, 3, 4]
    assert camera.captures[0].released
    lost = link.health()
    assert lost.status is CameraStatus.OFFLINE
    assert "3 reads in a row" in lost.reason and "reopening in 0.5 s (attempt 1)" in lost.reason

    assert link.step() is None and camera.opens == 1  # the backoff is respected
    clock.advance(0.5)
    assert link.step() is None and camera.opens == 2  # this reopen fails...
    assert "cannot open camera 0" in link.health().reason
    assert "reopening in 1 s (attempt 2)" in link.health().reason  # ...so the wait doubles
    clock.advance(0.99)
    assert link.step() is None and camera.opens == 2
    clock.advance(0.01)
    after = _steps(link, 5)
    assert camera.opens == 3
    assert [f.index for f in after] == [5, 6, 7, 8, 9]  # numbering continues
    health = link.health()
    assert health.status is CameraStatus.ONLINE and health.reconnects == 1
    assert health.dropped_by_camera == 0  # an outage is not counted as dropped frames
    assert [h.status for h in seen] == [
        CameraStatus.ONLINE,
        CameraStatus.OFFLINE,
        CameraStatus.ONLINE,
    ]


def test_a_driver_error_is_a_failed_read_with_its_message() -> None:
    clock = FakeClock()
    link, _ = _link(FakeCamera(clock, [["ok", "raise", "raise", "raise"]]), clock)
    _steps(link, 4)
    health = link.health()
    assert health.status is CameraStatus.OFFLINE
    assert "device unplugged" in health.reason


def test_a_failure_between_good_frames_is_tolerated() -> None:
    clock = FakeClock()
    link, _ = _link(FakeCamera(clock, [["ok", "fail", "ok", "fail", "fail", "ok"]]), clock)
    frames = [f for f in _steps(link, 6) if f is not None]
    assert len(frames) == 3 and link.connected


def test_a_read_that_hangs_past_the_stall_timeout_reopens_at_once() -> None:
    clock = FakeClock()
    config = CameraConfig(stall_timeout_s=1.0, failed_reads=5)
    link, _ = _link(FakeCamera(clock, [["ok", ("stall", 60)]]), clock, config)
    assert link.step() is not None
    assert link.step() is None  # returned empty after 2 s: one failure, but a long one
    health = link.health()
    assert health.status is CameraStatus.OFFLINE and not link.connected
    assert "no frame for 2.0 s" in health.reason


def test_an_opened_camera_that_stops_delivering_is_reported_offline() -> None:
    clock = FakeClock()
    config = CameraConfig(stall_timeout_s=2.0)
    link, _ = _link(FakeCamera(clock, [["ok"] * 3]), clock, config)
    _steps(link, 3)
    assert link.health().status is CameraStatus.ONLINE
    clock.advance(2.5)  # the grabber is stuck in a read: health still tells the truth
    health = link.health()
    assert health.status is CameraStatus.OFFLINE and "no frame for 2.5 s" in health.reason


def test_gray_frames_become_bgr_and_malformed_frames_are_refused() -> None:
    clock = FakeClock()
    link, _ = _link(FakeCamera(clock, [["gray", "bad", "ok"]]), clock)
    gray, bad, ok = _steps(link, 3)
    assert gray is not None and gray.image.shape == (24, 32, 3)
    assert bad is None
    assert ok is not None and ok.index == 2  # the refused frame counts as dropped
    assert link.health().dropped_by_camera == 1


def test_an_open_that_raises_is_a_failed_attempt() -> None:
    clock = FakeClock()

    def broken(config: CameraConfig):
        raise RuntimeError("no such device /dev/video9")

    link = CameraLink(CameraConfig(source="/dev/video9"), clock, capture_factory=broken)
    assert link.step() is None
    health = link.health()
    assert health.status is CameraStatus.OFFLINE
    assert "cannot open camera /dev/video9: no such device" in health.reason


def test_a_failing_status_listener_does_not_stop_the_camera() -> None:
    clock = FakeClock()

    def listener(health: CameraHealth) -> None:
        raise RuntimeError("scoreboard down")

    link = CameraLink(
        CONFIG, clock, capture_factory=FakeCamera(clock, [["ok"] * 3]), on_status=listener
    )
    assert all(f is not None for f in _steps(link, 3))


# -- the grabber thread (real time, bounded waits) ----------------------------------------


def _wait_for(condition, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.005)


def test_source_recovers_after_the_camera_fails_mid_stream() -> None:
    clock = MonotonicClock()
    camera = FakeCamera(clock, [["ok"] * 10 + ["fail"] * 3, ["ok"] * 10_000], fps=500.0)
    config = CameraConfig(reconnect_initial_s=0.01, reconnect_max_s=0.05, stall_timeout_s=2.0)
    statuses: list[CameraStatus] = []
    with CameraSource(
        config, clock, capture_factory=camera, on_status=lambda h: statuses.append(h.status)
    ) as source:
        _wait_for(lambda: source.health().reconnects == 1)
        frames = [source.read(timeout_s=2.0) for _ in range(2)]  # the first may predate the loss
        assert frames[1] is not None and frames[1].index >= 10
        assert isinstance(frames[1].image, np.ndarray)
        assert source.health().status is not CameraStatus.OFFLINE
        seen = list(statuses)
    # Real time under load may add a degraded spell; the exact sequence is tested on a FakeClock.
    assert seen[0] is not CameraStatus.OFFLINE and seen[-1] is not CameraStatus.OFFLINE
    assert CameraStatus.OFFLINE in seen
    assert statuses[-1] is CameraStatus.OFFLINE  # closed


def test_a_slow_consumer_gets_the_latest_frame_and_the_skipped_ones_are_counted() -> None:
    clock = MonotonicClock()
    release = threading.Event()
    # Numbered frames: real-time jitter under load must not look like camera drops here.
    camera = FakeCamera(clock, [["ok"] * 5 + [("block", release)]], fps=1000.0, numbered=True)
    source = CameraSource(CameraConfig(), clock, capture_factory=camera)
    try:
        _wait_for(lambda: source.health().frames == 5)
        frame = source.read(timeout_s=1.0)
        assert frame is not None and frame.index == 4
        assert source.health().dropped_by_consumer == 4
        assert source.read(timeout_s=0.05) is None  # the camera hangs: the read times out
    finally:
        release.set()
        source.close()


def test_close_stops_the_grabber_and_ends_iteration() -> None:
    clock = MonotonicClock()
    camera = FakeCamera(clock, [["ok"] * 100_000], fps=1000.0)
    source = CameraSource(CameraConfig(), clock, capture_factory=camera)
    frames = []
    for frame in source:
        frames.append(frame)
        if len(frames) == 3:
            source.close()
    assert len(frames) == 3
    indices = [f.index for f in frames]
    assert indices == sorted(set(indices))
    _wait_for(lambda: camera.captures[0].released, timeout_s=2.0)


def test_a_camera_that_never_opens_never_blocks_the_caller() -> None:
    clock = MonotonicClock()
    camera = FakeCamera(clock, [None] * 1000)
    config = CameraConfig(source="rtsp://nowhere/stream", reconnect_initial_s=0.01)
    with CameraSource(config, clock, capture_factory=camera) as source:
        assert source.read(timeout_s=0.1) is None
        health = source.health()
        assert health.status is CameraStatus.OFFLINE
        assert "cannot open camera rtsp://nowhere/stream" in health.reason
        assert source.size == (0, 0)


@pytest.mark.hardware
def test_a_real_camera_delivers_frames() -> None:
    with CameraSource(CameraConfig(source=0), MonotonicClock()) as source:
        frame = source.read(timeout_s=5.0)
        assert frame is not None, source.health().reason
        assert frame.image.ndim == 3
