"""`railbird replay`: a recording through the whole pipeline, deterministic to the byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hardware.sim.render import RenderConfig
from hardware.sim.scenarios import run_scenario
from railbird.cli import main
from railbird.recording import InputEntry
from railbird.replay import OUTPUTS, ReplayOptions, iter_lines, replay
from railbird.simulate import SimRecordingConfig, record_scenario
from rules.codec import to_jsonable
from rules.errors import RecordError
from rules.inputs import OperatorFoul, RackReady
from rules.ruling import FoulKind

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


@pytest.mark.slow
def test_recorded_console_inputs_are_entered_at_their_times_and_a_misfit_is_reported(
    recording: Path, tmp_path: Path
) -> None:
    # After the shot the referee entered a foul no camera sees (3.21, a ball touched by hand);
    # a rack-ready in mid-rack no longer fits and is reported, not fatal.
    folder = tmp_path / "rec"
    shutil.copytree(recording, folder)
    truth = json.loads((folder / "truth.json").read_text())
    end = truth["end_time"]
    touched = OperatorFoul(FoulKind.TOUCHED_BALL, player=1, note="moved the 5 by hand")
    entries = [
        InputEntry(end - 0.05, "operator-foul", to_jsonable(touched)),
        InputEntry(truth["start_time"] + 0.01, "rack-ready", to_jsonable(RackReady())),
    ]
    with (folder / "inputs.jsonl").open("a", encoding="utf-8") as lines:
        lines.writelines(json.dumps(to_jsonable(e)) + "\n" for e in entries)
    plain = replay(recording, tmp_path / "plain", ReplayOptions())
    summary = replay(folder, tmp_path / "out", ReplayOptions())
    assert summary["inputs"] == 1 and len(summary["inputs_refused"]) == 1
    assert "rack-ready" in summary["inputs_refused"][0]
    before, after = plain["state"]["fouls_in_a_row"], summary["state"]["fouls_in_a_row"]
    assert after[1] == before[1] + 1  # the entered foul counts against its player
