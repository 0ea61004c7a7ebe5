"""End to end on the virtual table: record scenarios, replay them, compare with the truth.

Each scenario is recorded as `railbird sim` records it (1280x720, 60 fps, noise and JPEG,
sensors on), replayed as `railbird replay` replays it, and the replay's Shot records compared
with the scenario's exact ones: did it see the right number of shots, the right first object
ball, the right set of pocketed balls, and does the referee's call (foul or not, and which
rule) agree with the referee's call on the exact shots. Also: replay frames per second.

    PYTHONPATH=. python -m bench --only pipeline [--quick]
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import cv2

from hardware.sim.render import RenderConfig
from hardware.sim.scenarios import run_scenario
from railbird.replay import ReplayOptions, iter_lines, replay
from railbird.simulate import SimRecordingConfig, record_scenario
from rules.codec import from_jsonable
from rules.errors import RecordError
from rules.referee import Referee
from rules.shot import Shot

QUICK = ("cut-shot", "scratch", "miss")
FULL = (
    *QUICK,
    "break-9ball",
    "bank-shot",
    "combination",
    "wrong-ball-first",
    "no-cushion",
    "several-pocketed",
    "kick-shot",
    "rattle",
)


def _compare(run, replayed: list[Shot], rulings: list[dict]) -> dict[str, float | bool]:
    truth = run.truth.shots
    first_ok = pocketed_ok = 0
    for t, r in zip(truth, replayed, strict=False):
        t_first = t.first_contact.ball if t.first_contact else None
        r_first = r.first_contact.ball if r.first_contact else None
        first_ok += t_first == r_first
        pocketed_ok += set(t.pocketed) == set(r.pocketed)
    # The referee's call on the exact shots is what the pipeline's call should be.
    referee = Referee.new("9-ball", ("A", "B"), run.truth.table)
    calls_ok = 0
    for shot, line in zip(truth, rulings, strict=False):
        try:
            expected = referee.record(shot, shot.strike_time).rulings[-1].foul
        except RecordError:
            break
        called = (line.get("ruling") or {}).get("foul")
        calls_ok += (called or {}).get("rule") == (expected.rule if expected else None)
    return {
        "shots_truth": len(truth),
        "shots_seen": len(replayed),
        "first_contact_right": first_ok,
        "pocketed_set_right": pocketed_ok,
        "foul_call_right": calls_ok,
    }


def run(quick: bool) -> dict:
    """Record and replay each scenario; return the agreement figures and replay speed."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    names = QUICK if quick else FULL
    totals = {
        "shots_truth": 0,
        "shots_seen": 0,
        "first_contact_right": 0,
        "pocketed_set_right": 0,
        "foul_call_right": 0,
    }
    fps = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                scenario_run = run_scenario(name, seed=1)
                folder = record_scenario(
                    scenario_run, Path(tmp) / name, SimRecordingConfig(render=RenderConfig())
                )
                start = time.process_time()
                summary = replay(folder, Path(tmp) / f"{name}-out", ReplayOptions())
                fps.append(summary["frames"] / max(time.process_time() - start, 1e-9))
                shots = [
                    from_jsonable(Shot, s)
                    for s in iter_lines(Path(tmp) / f"{name}-out" / "shots.jsonl")
                ]
                rulings = list(iter_lines(Path(tmp) / f"{name}-out" / "rulings.jsonl"))
                for key, value in _compare(scenario_run, shots, rulings).items():
                    totals[key] += value
    finally:
        cv2.setNumThreads(threads)
    shots = max(totals["shots_truth"], 1)
    return {
        "scenarios": len(names),
        **totals,
        "first_contact_accuracy": totals["first_contact_right"] / shots,
        "pocketed_set_accuracy": totals["pocketed_set_right"] / shots,
        "foul_call_agreement": totals["foul_call_right"] / shots,
        "replay_fps_1thread_median": statistics.median(fps),
    }
