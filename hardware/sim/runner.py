"""The logic of ``railbird sim``: list scenarios, run one, write its truth.

``railbird sim --list`` prints the scenarios; ``railbird sim SCENARIO --out DIR`` runs one and
writes ``DIR/truth.json`` (a `ScenarioTruth`) and ``DIR/frames_truth.json`` (a `FrameTruth` per
frame time). The recording itself (video, frame times, serial log, config and calibration
snapshot) is written by the recording module: it calls `run_scenario`, renders
`ScenarioRun.result.snapshot(t)` at its frame times, feeds the truth's POCKETED events to the
sensor simulator, and passes its frame times to `write_truth` so both files share them.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path

from calibration.table import TableSpec
from hardware.sim.play import frame_truth
from hardware.sim.scenarios import ScenarioRun, list_scenarios, run_scenario
from rules.codec import dumps
from rules.errors import RecordError

log = logging.getLogger(__name__)

TRUTH_FILE = "truth.json"
FRAMES_TRUTH_FILE = "frames_truth.json"


def scenario_listing() -> str:
    """One line per scenario: name, family, what happens."""
    rows = list_scenarios()
    width = max(len(s.name) for s in rows)
    return "\n".join(f"{s.name:<{width}}  {s.kind:<8}  {s.description}" for s in rows)


def frame_times(run: ScenarioRun, fps: float, lead_s: float = 0.5) -> tuple[float, ...]:
    """Frame times at ``fps`` from the scenario start to half a second past its end."""
    start, end = run.truth.start_time, run.truth.end_time + lead_s
    count = int((end - start) * fps) + 1
    return tuple(start + k / fps for k in range(count))


def write_truth(run: ScenarioRun, out_dir: Path, times: Sequence[float] | None = None) -> Path:
    """Write the truth of a run into ``out_dir`` (created if missing).

    Args:
        run: The scenario run.
        out_dir: Directory to write into.
        times: Frame times for the per-frame truth; none: no per-frame file.

    Returns:
        Path of the truth file.

    Raises:
        RecordError: the directory cannot be created or written.
    """
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / TRUTH_FILE
        path.write_text(dumps(run.truth, indent=1), encoding="utf-8")
        if times is not None:
            frames = frame_truth(run.result, times)
            (out_dir / FRAMES_TRUTH_FILE).write_text(dumps(frames), encoding="utf-8")
    except OSError as exc:
        raise RecordError(
            f"cannot write the truth of {run.truth.scenario} to {out_dir}: {exc}"
        ) from exc
    return path


def run_sim(args: argparse.Namespace) -> int:
    """``railbird sim``: ``args.list`` or ``args.scenario``, ``args.seed``, ``args.out``,
    ``args.fps``, ``args.table`` (a standard size name)."""
    if getattr(args, "list", False) or not getattr(args, "scenario", None):
        print(scenario_listing())
        return 0
    table = TableSpec.standard(getattr(args, "table", None) or "9ft")
    run = run_scenario(args.scenario, int(getattr(args, "seed", 0) or 0), table)
    out = Path(args.out) if getattr(args, "out", None) else Path(f"sim-{args.scenario}-{run.seed}")
    fps = float(getattr(args, "fps", 60.0) or 60.0)
    path = write_truth(run, out, frame_times(run, fps))
    truth = run.truth
    print(
        f"{truth.scenario} seed {truth.seed}: {len(truth.shots)} shot(s), "
        f"{len(truth.events)} events, {truth.end_time - truth.start_time:.2f} s -> {path}"
    )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``sim`` subcommand's arguments (for the lead's CLI wiring)."""
    parser.add_argument("scenario", nargs="?", help="scenario name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the scenarios")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--out", help="output directory (default sim-SCENARIO-SEED)")
    parser.add_argument("--fps", type=float, default=60.0, help="frame rate of the per-frame truth")
    parser.add_argument("--table", default="9ft", help="table size: 9ft, 8ft or 7ft")
    parser.set_defaults(run=run_sim)
