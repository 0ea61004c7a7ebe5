"""`railbird replay`: a recording through the whole pipeline, deterministic to the byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hardware.sim.render import RenderConfig
from hardware.sim.scenarios import run_scenario
from railbird.cli import main
from railbird.replay import OUTPUTS, ReplayOptions, iter_lines, replay
from railbird.simulate import SimRecordingConfig, record_scenario
from rules.errors import RecordError

RENDER = RenderConfig(resolution=(960, 540))


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = run_scenario("cut-shot", seed=2)
    folder = tmp_path_factory.mktemp("rec") / "cut"
    return record_scenario(run, folder, SimRecordingConfig(render=RENDER))


@pytest.mark.slow
def test_replaying_twice_gives_identical_files(recording: Path, tmp_path: Path) -> None:
    first = replay(recording, tmp_path / "a", ReplayOptions())
    replay(recording, tmp_path / "b", ReplayOptions())
    for name in OUTPUTS:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert first["frames"] == first["frames_recorded"] > 0
    assert first["shots"] >= 1 and first["rulings"] == first["shots"]
    assert first["pocket_signals"] == 1
    events = list(iter_lines(tmp_path / "a" / "events.jsonl"))
    assert events and all({"frame", "time", "event"} <= set(e) for e in events)
    rulings = list(iter_lines(tmp_path / "a" / "rulings.jsonl"))
    assert rulings[0]["ruling"]["shot_index"] == 0


@pytest.mark.slow
def test_replay_command_and_vision_only(
    recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "replay",
        str(recording),
        "--out",
        str(tmp_path / "r"),
        "--no-sensors",
        "--no-progress",
        "--players",
        "Ann,Bob",
    ]
    assert main(argv) == 0
    assert "rulings" in capsys.readouterr().out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["pocket_signals"] == 0 and summary["state"]["players"] == ["Ann", "Bob"]


def test_a_folder_that_is_not_a_recording_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not a recording"):
        replay(tmp_path, tmp_path / "out", ReplayOptions())


def test_bad_players_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["replay", str(tmp_path), "--out", str(tmp_path / "o"), "--players", "Ann"]
    assert main(argv) == 2
    assert "give two names" in capsys.readouterr().err
