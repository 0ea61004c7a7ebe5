"""How well pocket-drop times land on the session clock, across board drift and link jitter.

Plays the simulated board's bytes into the real `SensorLink` (the reader thread only moves
these bytes) with exact arrival stamps, and compares each drop's mapped session time with the
truth. Prints the median, 95th percentile and worst error, and how often the truth lies inside
the reported uncertainty; writes bench/results/sensor_timing.json.

    PYTHONPATH=. python bench/sensor_timing.py
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

from hardware.sensors.link import LinkConfig, SensorLink
from hardware.sim.sensors import BoardModel, Chunk, SimDrop, SimulatedBoard
from rules.table import PocketId

SESSION_S = 600.0
CASES = [
    # (drift ppm, mean jitter s)
    (0.0, 0.0002),
    (150.0, 0.0005),
    (1000.0, 0.001),
    (5000.0, 0.001),
    (1000.0, 0.005),
    (-3000.0, 0.010),
]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_case(drift_ppm: float, jitter_s: float, seed: int = 1) -> dict[str, float]:
    """Errors of every drop after the first 5 s (the mapping needs ~2 s of heartbeats)."""
    rng = random.Random(seed)
    drops = [SimDrop(rng.choice(list(PocketId)), rng.uniform(5.0, SESSION_S)) for _ in range(400)]
    model = BoardModel(boot_at=-rng.uniform(10, 5000), drift_ppm=drift_ppm, jitter_s=jitter_s)
    steps, truth = SimulatedBoard(drops, end=SESSION_S, model=model, seed=seed).script()
    link = SensorLink("bench", LinkConfig(min_latency_s=model.latency_s))
    signals = [
        s for step in steps if isinstance(step, Chunk) for s in link.receive(step.data, step.time)
    ]
    by_seq = {t.seq: t for t in truth if t.arrival is not None}
    errors = [abs(s.time - by_seq[s.sequence].drop.time) for s in signals]
    covered = [abs(s.time - by_seq[s.sequence].drop.time) <= s.uncertainty for s in signals]
    return {
        "drift_ppm": drift_ppm,
        "jitter_mean_ms": jitter_s * 1e3,
        "drops": len(signals),
        "median_error_ms": statistics.median(errors) * 1e3,
        "p95_error_ms": _percentile(errors, 0.95) * 1e3,
        "max_error_ms": max(errors) * 1e3,
        "median_uncertainty_ms": statistics.median(s.uncertainty for s in signals) * 1e3,
        "coverage": sum(covered) / len(covered),
    }


def main() -> None:
    """Run every case, print a table, write the JSON."""
    results = [run_case(d, j) for d, j in CASES]
    print(
        f"{'drift ppm':>10} {'jitter ms':>9} {'median ms':>9} {'p95 ms':>7} {'max ms':>7} "
        f"{'unc ms':>7} {'coverage':>8}"
    )
    for r in results:
        print(
            f"{r['drift_ppm']:>10.0f} {r['jitter_mean_ms']:>9.1f} {r['median_error_ms']:>9.3f} "
            f"{r['p95_error_ms']:>7.3f} {r['max_error_ms']:>7.3f} "
            f"{r['median_uncertainty_ms']:>7.3f} {r['coverage']:>8.2f}"
        )
    out = Path(__file__).resolve().parent / "results" / "sensor_timing.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"session_s": SESSION_S, "cases": results}, indent=2) + "\n")
    print(f"wrote {out}")


def run(quick: bool) -> dict:
    """The harness entry point (`python -m bench`): error figures per drift/jitter case."""
    cases = CASES[:2] if quick else CASES
    figures: dict = {}
    for drift, jitter in cases:
        r = run_case(drift, jitter)
        key = f"drift{drift:.0f}ppm_jitter{jitter * 1e3:.1f}ms"
        figures[key] = {k: round(v, 4) for k, v in r.items() if k.endswith(("_ms", "coverage"))}
    return figures


if __name__ == "__main__":
    main()
