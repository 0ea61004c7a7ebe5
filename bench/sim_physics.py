"""How fast the virtual table's physics simulates breaks (the heaviest shots).

Prints the median wall time to simulate a 9-ball and an 8-ball break (strike to all balls at
rest) over N seeded racks, with event counts, and writes bench/results/sim_physics.json.

    PYTHONPATH=. python bench/sim_physics.py [N]
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

from calibration.table import TableSpec
from hardware.sim import aim
from hardware.sim.physics import Engine
from hardware.sim.racks import eight_ball_order, kitchen_spot, nine_ball_order, racked
from rules.balls import BallId
from rules.events import EventKind
from rules.table import RackShape

TIMING = True
"""Run alone, in one process (`bench._harness`)."""
RESULTS = Path(__file__).parent / "results" / "sim_physics.json"


def _break(table: TableSpec, seed: int, shape: RackShape, order) -> tuple[float, int, int, float]:
    rng = random.Random(seed)
    rack = racked(table, shape, order(rng), rng)
    cue = kitchen_spot(table, rng)
    engine = Engine(table, [(BallId.CUE, cue), *rack])
    apex = rack[0][1]
    start = time.perf_counter()
    engine.strike(0, rng.uniform(8000.0, 10500.0), aim.heading_deg(cue, apex))
    engine.run()
    elapsed = time.perf_counter() - start
    pocketed = sum(e.kind is EventKind.POCKETED for e in engine.events)
    return elapsed, len(engine.events), pocketed, engine.time


def main(n: int = 50) -> dict:
    table = TableSpec.standard("9ft")
    report: dict = {"n": n, "python": platform.python_version(), "machine": platform.machine()}
    for name, shape, order in (
        ("9ball_break", RackShape.DIAMOND, nine_ball_order),
        ("8ball_break", RackShape.TRIANGLE, eight_ball_order),
    ):
        runs = [_break(table, seed, shape, order) for seed in range(n)]
        times = [r[0] for r in runs]
        report[name] = {
            "median_s": statistics.median(times),
            "p90_s": sorted(times)[int(0.9 * (n - 1))],
            "max_s": max(times),
            "median_events": statistics.median(r[1] for r in runs),
            "mean_pocketed": statistics.mean(r[2] for r in runs),
            "median_simulated_s": statistics.median(r[3] for r in runs),
        }
        r = report[name]
        print(
            f"{name}: median {r['median_s'] * 1000:.1f} ms, p90 {r['p90_s'] * 1000:.1f} ms, "
            f"max {r['max_s'] * 1000:.1f} ms over {n} seeds; median {r['median_events']:.0f} "
            f"events, {r['mean_pocketed']:.2f} balls pocketed, {r['median_simulated_s']:.1f} s "
            "of table time"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def run(quick: bool) -> dict:
    """The harness entry point (`python -m bench`): break simulation times over seeds."""
    report = main(10 if quick else 50)
    return {k: v for k, v in report.items() if isinstance(v, dict | int)}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
