"""The benchmark harness: find benchmark modules, run them, print a table, write JSON.

A benchmark is a module ``bench/<name>.py`` (no leading underscore) with a function
``run(quick: bool) -> dict``; see ``bench/README.md`` for the contract. Modules whose names start
with an underscore are helpers and are never run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import importlib.util
import json
import logging
import math
import os
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = BENCH_DIR / "results" / "latest.json"

Benchmark = Callable[[bool], Mapping[str, Any]]


def discover(directory: Path = BENCH_DIR) -> dict[str, Benchmark]:
    """Benchmark functions by name: every ``<name>.py`` in ``directory`` exposing ``run``."""
    found: dict[str, Benchmark] = {}
    for path in sorted(directory.glob("*.py")):
        name = path.stem
        if name.startswith("_"):
            continue
        module = _load(directory, name, path)
        run = getattr(module, "run", None)
        if callable(run):
            found[name] = run
        else:
            log.debug("%s has no run(quick) function; not a benchmark", path)
    return found


def run_all(benchmarks: Mapping[str, Benchmark], quick: bool) -> dict[str, dict[str, Any]]:
    """Run each benchmark; a failing one is recorded with its error, the rest still run."""
    results: dict[str, dict[str, Any]] = {}
    for name, run in benchmarks.items():
        print(f"running {name} ...", file=sys.stderr, flush=True)
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            figures = flatten(run(quick))
            entry: dict[str, Any] = {"figures": figures}
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            entry = {"error": f"{type(exc).__name__}: {exc}"}
        entry["seconds"] = round(time.perf_counter() - started, 2)
        # CPU time far below wall time means the machine was busy: the figures are low.
        entry["cpu_seconds"] = round(time.process_time() - cpu_started, 2)
        results[name] = entry
    return results


def flatten(figures: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested figure mappings as one level, keys joined with dots; values must be JSON scalars.

    Raises:
        TypeError: a value is not a number, string, bool or None (or a mapping of them).
    """
    flat: dict[str, Any] = {}
    for key, value in figures.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        elif value is None or isinstance(value, str | int | float | bool):
            if isinstance(value, float) and not math.isfinite(value):
                value = None  # JSON has no NaN/inf
            flat[name] = value
        else:
            raise TypeError(f"figure {name!r} is a {type(value).__name__}, not a JSON scalar")
    return flat


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1min": _load_average(),
    }
    for module in ("numpy", "cv2"):
        try:
            info[{"cv2": "opencv"}.get(module, module)] = importlib.import_module(
                module
            ).__version__
        except ImportError:
            info[module] = None
    return info


def report(results: Mapping[str, Mapping[str, Any]], quick: bool) -> dict[str, Any]:
    """The JSON document written to ``results/latest.json``."""
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "quick": quick,
        "commit": _git_commit(),
        "machine": machine(),
        "benchmarks": dict(results),
    }


def markdown(doc: Mapping[str, Any]) -> str:
    """The figures as a Markdown table, with the date and machine above it."""
    m = doc["machine"]
    lines = [
        f"Benchmarks {'(quick) ' if doc['quick'] else ''}{doc['date']} on {m['cpu']}, "
        f"{m['nproc']} CPUs, Python {m['python']}, numpy {m.get('numpy')}, "
        f"OpenCV {m.get('opencv')}, commit {doc.get('commit') or 'unknown'}, "
        f"load average {m.get('load_average_1min')} at start",
        "",
        "| benchmark | figure | value |",
        "|---|---|---|",
    ]
    for name, entry in doc["benchmarks"].items():
        if "error" in entry:
            lines.append(f"| {name} | **failed** | {entry['error']} |")
            continue
        for figure, value in entry["figures"].items():
            lines.append(f"| {name} | {figure} | {_format(value)} |")
        lines.append(
            f"| {name} | (wall / CPU time, s) | {entry['seconds']} / {entry['cpu_seconds']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks; 0 when all ran, 1 when any failed, 2 on a bad ``--only`` name."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short runs (about two minutes)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON file to write")
    parser.add_argument("--dir", type=Path, default=BENCH_DIR, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    benchmarks = discover(args.dir)
    if args.only:
        unknown = sorted(set(args.only) - set(benchmarks))
        if unknown:
            print(f"unknown benchmark(s) {', '.join(unknown)}; have {', '.join(benchmarks)}")
            return 2
        benchmarks = {name: benchmarks[name] for name in args.only}
    doc = report(run_all(benchmarks, args.quick), args.quick)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(markdown(doc))
    print(f"\nwritten to {args.out}")
    return 1 if any("error" in entry for entry in doc["benchmarks"].values()) else 0


def _load(directory: Path, name: str, path: Path) -> ModuleType:
    if directory.resolve() == BENCH_DIR:
        return importlib.import_module(f"bench.{name}")
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3g}"
    return str(value)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=BENCH_DIR,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
