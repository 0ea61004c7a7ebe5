"""`railbird demo`, the README's first command: the live loop on the virtual table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from railbird.cli import main
from railbird.config import parse_config
from railbird.recording import RecordingReader


@pytest.mark.slow
def test_the_demo_referees_a_shot_live_and_records_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seed 1 of the scratch shot pots the 10: a 9-ball referee would never see that ball.
    folder = tmp_path / "rec"
    assert (
        main(["demo", "--scenario", "scratch", "--seed", "1", "--no-web", "--record", str(folder)])
        == 0
    )
    out = capsys.readouterr().out
    rulings = [line for line in out.splitlines() if "RULING" in line]
    assert len(rulings) == 1 and "FOUL" in rulings[0]  # the cue ball went down
    summary = json.loads(out[out.index("{") :])
    assert summary["shots"] == summary["rulings"] == 1
    reader = RecordingReader(folder)
    assert parse_config(reader.config_text()).referee.game == "8-ball"
    assert len(reader.frame_times()) == summary["frames_grabbed"]
