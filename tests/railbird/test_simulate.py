"""`railbird sim`: a virtual-table scenario recorded in the one recording format, with truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.file import load
from hardware.sensors.protocol import Drop, LineParser
from hardware.sim.render import RenderConfig
from hardware.sim.scenarios import run_scenario
from railbird.cli import main
from railbird.config import parse_config
from railbird.recording import RecordingReader
from railbird.simulate import SimRecordingConfig, record_scenario
from rules.codec import loads
from rules.events import EventKind
from rules.shot import Layout

SMALL = RenderConfig(resolution=(320, 180), jpeg_quality=None, noise_sigma=0.0)


@pytest.mark.slow
def test_a_recorded_scenario_replays_its_inputs_and_carries_its_truth(tmp_path: Path) -> None:
    run = run_scenario("several-pocketed", seed=3)
    folder = record_scenario(run, tmp_path / "rec", SimRecordingConfig(render=SMALL))
    reader = RecordingReader(folder)
    frames = list(reader)
    times = reader.frame_times()
    assert len(frames) == len(times) > 0 and reader.problems == []
    assert frames[0].size == (320, 180)
    assert times[0].time == pytest.approx(run.truth.start_time)
    assert times[-1].time >= run.truth.end_time

    # The serial log holds one drop line per ball that went down, as the firmware sends them.
    parsed = LineParser().feed(b"".join(c.data for c in reader.serial_chunks()))
    drops = [m for m in parsed.items if isinstance(m, Drop)]
    pocketed = [e for e in run.truth.events if e.kind is EventKind.POCKETED]
    assert len(drops) == len(pocketed) >= 2

    calibration = load(folder / "calibration.json", image_size=(320, 180))
    assert calibration.intrinsics == "given" and calibration.reprojection_px < 0.01
    truth = json.loads((folder / "truth.json").read_text())
    assert truth["scenario"] == "several-pocketed" and truth["seed"] == 3
    assert loads(Layout, json.dumps(truth["shots"][0]["at_strike"])).balls


def test_without_sensors_the_serial_log_is_empty(tmp_path: Path) -> None:
    run = run_scenario("miss", seed=1)
    config = SimRecordingConfig(render=SMALL, sensors=False)
    reader = RecordingReader(record_scenario(run, tmp_path / "rec", config))
    assert reader.serial_chunks() == []
    assert 'port = ""' in reader.config_text()
    # The recording says which game to referee it as, so a replay needs no option.
    assert parse_config(reader.config_text()).referee.game == run.game


def test_sim_list_and_unknown_scenario(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["sim", "--list"]) == 0
    assert "break-9ball" in capsys.readouterr().out
    assert main(["sim", "no-such-scenario", "--out", str(tmp_path / "x")]) == 2
    assert "no-such-scenario" in capsys.readouterr().err
