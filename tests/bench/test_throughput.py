from __future__ import annotations

from pathlib import Path

import pytest

from bench._recordings import scenario_recording
from bench.throughput import STAGES, decoder_process, instrumented_loop, measure
from hardware.clock import FakeClock
from railbird.live import LiveLoop, LiveUpdate
from rules.referee import Referee


@pytest.mark.slow
def test_throughput_reports_every_stage_against_decode_on_a_tiny_break(tmp_path: Path) -> None:
    figures = measure(sizes=((320, 180),), seconds=0.2, directory=tmp_path)
    size = "320x180"
    assert figures[f"frames_{size}"] == 13  # 0.2 s at 60 fps, both ends included
    keys = (
        "fps_decode_1core",
        "fps_1core",
        "fps_1core_wall",
        "fps_2cores",
        "fps_2cores_decoder_process_wall",
        "fps_2cores_decode_thread_wall",
        "loop_ms_2cores",
        "decoder_ms_2cores",
    )
    for key in keys:
        assert figures[f"{key}_{size}"] > 0, key
    # The pipeline includes decode, so it costs more than decode alone.
    assert figures[f"cost_ratio_to_decode_{size}"] > 1
    assert figures[f"fps_1core_{size}"] < figures[f"fps_decode_1core_{size}"]
    stages = [*STAGES, "referee"]
    assert all(figures[f"stage_ms_{size}.{name}"] >= 0 for name in stages)
    assert figures[f"stage_ms_{size}.detection"] > 0
    # Each stage adds its cost: the cumulative rates never rise.
    upto = [figures[f"fps_1core_upto_{size}.{name}"] for name in stages]
    assert upto == sorted(upto, reverse=True)
    # Targets are stated for the sizes they are set at, and only when those were measured.
    assert not any(key.startswith("target.") for key in figures)


@pytest.mark.slow
def test_the_timed_stages_change_nothing_the_loop_emits(tmp_path: Path) -> None:
    recording = scenario_recording("scratch", (320, 180), seconds=0.6, directory=tmp_path)
    timed_updates: list[LiveUpdate] = []
    timed, totals = instrumented_loop(recording, timed_updates.append)
    calibration = recording.calibration()
    plain_updates: list[LiveUpdate] = []
    plain = LiveLoop(
        calibration,
        Referee.new("8-ball", ("A", "B"), calibration.table),
        FakeClock(),
        plain_updates.append,
    )
    for loop in (timed, plain):
        for frame in recording.reader():
            loop.process(frame)
        loop.finish()
    assert timed.stats.frames_processed == plain.stats.frames_processed == recording.frames
    assert [u.event for u in timed_updates] == [u.event for u in plain_updates]
    assert plain.stats.events > 0
    assert set(totals) >= {"detection", "tracking", "events", "shots"}
    assert all(seconds > 0 for seconds in totals.values())


@pytest.mark.slow
def test_a_decoding_process_hands_every_frame_over_in_order(tmp_path: Path) -> None:
    recording = scenario_recording("scratch", (320, 180), seconds=0.6, directory=tmp_path)
    apart: list[LiveUpdate] = []
    rates = decoder_process(recording, apart.append)
    assert rates["frames"] == recording.frames
    calibration = recording.calibration()
    together: list[LiveUpdate] = []
    plain = LiveLoop(
        calibration,
        Referee.new("8-ball", ("A", "B"), calibration.table),
        FakeClock(),
        together.append,
    )
    for frame in recording.reader():
        plain.process(frame)
    plain.finish()
    assert [u.event for u in apart] == [u.event for u in together]
    assert any(u.event is not None for u in together)
    assert rates["decoder_cpu_ms"] > 0 and rates["cpu_ms"] > 0
    # The slower side sets the rate two cores sustain.
    slower_ms = max(rates["decoder_cpu_ms"], rates["cpu_ms"])
    assert rates["two_core_fps"] == pytest.approx(1000 / slower_ms)
