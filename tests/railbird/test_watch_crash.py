"""Crash test: kill -9 the monitor mid-rack, resume, and the match is where it was."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

from calibration.table import TableSpec
from railbird.recording import RecordingReader
from rules.codec import to_jsonable
from rules.log import replay
from tests.railbird.watch_process import WatchProcess

VIRTUAL = ["--virtual-table", "rack-9ball", "--seed", "0", "--clean", "--no-web"]


def _state_after_ruling(count: int):
    def done(lines: list[str]) -> bool:
        rulings = [i for i, line in enumerate(lines) if " RULING shot " in line]
        if len(rulings) < count:
            return False
        return any(line.startswith("state: ") for line in lines[rulings[count - 1] :])

    return done


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_kill_9_mid_rack_then_resume_gives_the_same_match(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    first = WatchProcess(*VIRTUAL, "--record", str(rec))
    first.wait_for(_state_after_ruling(2))
    time.sleep(0.5)  # the balls are at rest, the next shooter is getting down: mid-rack
    first.kill()
    before = first.states()[-1]
    assert before["phase"] != "over" and before["shots"] == 2
    recorded = _files(rec)

    second = WatchProcess(*VIRTUAL, "--resume", str(rec))
    second.wait_for(lambda lines: any(line.startswith("state: ") for line in lines))
    assert any(line.startswith(f"resumed {rec}: ") for line in second.lines)
    # The published state after the resume is the one published before the kill: score,
    # rack, whose turn, ball in hand, fouls in a row, balls on the table, all of it.
    assert second.states()[0] == before
    second.wait_for(lambda lines: any(" RULING shot " in line for line in lines))
    assert " RULING shot 2: " in second.rulings()[0]  # the shots go on being numbered
    assert second.stop() == 0

    after = _files(rec)
    for name, data in recorded.items():
        if name.endswith(".jsonl"):
            assert after[name].startswith(data), f"{name} was rewritten"
        elif name != "torn.txt":
            assert after[name] == data, f"{name} was changed"
    reader = RecordingReader(rec)
    frames = reader.frame_times()
    assert [f.index for f in frames] == list(range(len(frames)))
    assert all(a.time < b.time for a, b in itertools.pairwise(frames))
    assert any(
        f.segment > max(int(n[6:12]) for n in recorded if n.startswith("video/")) for f in frames
    )
    log = reader.game_log()
    assert log is not None
    state = replay(log, TableSpec.standard("9ft")).state
    assert to_jsonable(state) == second.states()[-1]
