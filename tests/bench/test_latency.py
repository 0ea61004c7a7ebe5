from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench._recordings import Recording, scenario_recording
from bench.latency import (
    CoreClock,
    LiveRun,
    PacedFrames,
    event_latencies,
    measure,
    ruling_latencies,
    visible_at,
)
from hardware.clock import FakeClock
from hardware.frames import Frame
from hardware.sim.scenarios import run_scenario
from railbird.live import LiveUpdate


def _frames(times: list[float]) -> list[Frame]:
    return [Frame(i, t, np.zeros((2, 2, 3), np.uint8)) for i, t in enumerate(times)]


def test_paced_frames_wait_for_their_time_and_skip_those_already_past() -> None:
    clock = FakeClock(0.0)
    fps = 10.0
    delivered = []
    camera = PacedFrames(_frames([0.1, 0.2, 0.3, 0.4, 0.5]), clock, fps)
    for frame in camera:
        delivered.append((frame.index, clock.now()))
        if frame.index == 1:
            clock.advance(0.25)  # the reader is late: frame 2's moment is a whole interval past
    # Frame 3 is late by less than an interval: still delivered, as a camera delivers it.
    assert [i for i, _ in delivered] == [0, 1, 3, 4]
    assert delivered[0][1] == pytest.approx(0.1) and delivered[1][1] == pytest.approx(0.2)
    assert camera.skipped == 1


def test_an_event_becomes_visible_in_the_first_frame_at_or_after_it() -> None:
    assert visible_at(0.0, 0.0, 60.0) == 0.0
    assert visible_at(0.001, 0.0, 60.0) == pytest.approx(1 / 60)
    assert visible_at(2 / 60, 0.0, 60.0) == pytest.approx(2 / 60)
    assert visible_at(-0.5, 0.0, 60.0) == 0.0


def test_emitted_events_and_rulings_are_matched_to_the_truth() -> None:
    run = run_scenario("scratch", 0)
    truth = run.truth
    recording = Recording(Path("unused"), run, (320, 180), 60.0, 120)
    strike, contact = truth.events[0], truth.events[1]
    shot = truth.shots[0]
    updates = [
        LiveUpdate(strike.time, visible_at(strike.time, truth.start_time, 60) + 0.040, strike),
        # Same kind and balls but far from any truth event: not matched.
        LiveUpdate(
            contact.time + 1.0,
            contact.time + 2.0,
            contact.__class__(contact.kind, contact.time + 1.0, contact.balls),
        ),
        LiveUpdate(shot.end_time, shot.end_time + 0.080, shot=shot, ruling=object()),
    ]
    by_kind, truth_count, emitted = event_latencies(LiveRun(recording, updates))
    assert truth_count == len(truth.events) and emitted == 2
    assert list(by_kind) == [strike.kind.value]
    assert by_kind[strike.kind.value] == [pytest.approx(0.040)]
    assert ruling_latencies(LiveRun(recording, updates)) == [pytest.approx(0.080)]


@pytest.mark.slow
def test_latency_plays_a_shot_live_and_modelled_and_reports_medians(tmp_path: Path) -> None:
    # Smaller pictures than this leave vision unsure of the balls' numbers.
    figures = measure(("scratch",), resolution=(960, 540), directory=tmp_path)
    frames = scenario_recording("scratch", (960, 540), tail_s=1.5, directory=tmp_path).frames
    assert figures["truth_shots"] == 1
    live, modelled = figures["realtime"], figures["modelled"]
    assert live["frames_grabbed"] + live["camera_skipped"] == frames
    assert modelled["frames_grabbed"] == frames and modelled["camera_skipped"] == 0
    for mode in (live, modelled):
        assert mode["frames_processed"] + mode["frames_dropped"] == mode["frames_grabbed"]
        assert mode["frames_processed"] > 0
    # On its own modelled core the loop sees the shot and rules on it.
    assert modelled["emitted_events"] > 0 and modelled["rulings"] == 1
    assert modelled["matched_events"] > 0
    assert 0 <= modelled["event_ms.median"] <= modelled["event_ms.p99"]
    assert 0 <= modelled["event_share_within_target"] <= 1
    assert modelled["ruling_ms.median"] > 0


def test_the_core_clock_moves_with_work_jumps_over_waits_and_skips_paused_work() -> None:
    clock = CoreClock(10.0)
    assert clock.now() == pytest.approx(10.0, abs=0.01)
    clock.jump_to(12.0)
    assert clock.now() == pytest.approx(12.0, abs=0.01)
    clock.jump_to(11.0)  # never back
    assert clock.now() >= 12.0
    with clock.paused():
        sum(i * i for i in range(300_000))  # the other core's work
    assert clock.now() == pytest.approx(12.0, abs=0.005)
    before = clock.now()
    sum(i * i for i in range(300_000))  # the loop's own work
    assert clock.now() > before
