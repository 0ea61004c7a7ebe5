"""``railbird sim`` logic: listing, truth files, errors that say where."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from hardware.sim.runner import (
    FRAMES_TRUTH_FILE,
    TRUTH_FILE,
    add_arguments,
    frame_times,
    run_sim,
    scenario_listing,
    write_truth,
)
from hardware.sim.scenarios import list_scenarios, run_scenario
from hardware.sim.truth import FrameTruth, ScenarioTruth
from rules.codec import loads
from rules.errors import RecordError


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_listing_names_every_scenario() -> None:
    listing = scenario_listing()
    assert all(s.name in listing for s in list_scenarios())


def test_list_flag_prints_the_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_sim(_args("--list")) == 0
    assert "break-9ball" in capsys.readouterr().out


def test_sim_writes_truth_and_frame_truth(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_sim(_args("scratch", "--seed", "2", "--out", str(out), "--fps", "30")) == 0
    truth = loads(ScenarioTruth, (out / TRUTH_FILE).read_text(encoding="utf-8"))
    assert truth.scenario == "scratch" and truth.seed == 2
    assert truth == run_scenario("scratch", 2).truth
    frames = json.loads((out / FRAMES_TRUTH_FILE).read_text(encoding="utf-8"))
    assert len(frames) == len(frame_times(run_scenario("scratch", 2), 30.0))
    first = loads(FrameTruth, json.dumps(frames[0]))
    assert len(first.balls) == len(truth.balls)


def test_unwritable_output_is_a_record_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    with pytest.raises(RecordError, match="cannot write the truth of miss"):
        write_truth(run_scenario("miss", 0), blocker / "out")


def test_corrupt_truth_file_is_a_clear_error(tmp_path: Path) -> None:
    run = run_scenario("miss", 0)
    path = write_truth(run, tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["shots"][0]["events"][0]["kind"] = "teleport"
    with pytest.raises(RecordError, match=r"\$\.shots\[0\]\.events\[0\]\.kind"):
        loads(ScenarioTruth, json.dumps(data))
