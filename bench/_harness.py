"""The benchmark harness: find benchmark modules, run them, print a table, write JSON.

A benchmark is a module ``bench/<name>.py`` (no leading underscore) with a function
``run(quick: bool) -> dict``; see ``bench/README.md`` for the contract. Modules whose names start
with an underscore are helpers and are never run.

A run has three phases, so that a speed is never measured beside other load:

1. **prepare**: every benchmark's ``prepare(quick)`` tasks (renders of the inputs it reads from
   its cache) over a pool of worker processes, one per core (`bench._pool`);
2. **timing**: the benchmarks that set ``TIMING = True`` (they measure speed or latency), one
   after another in this process, with nothing else running;
3. **accuracy**: the others, one after another; each may spread its own corpus over the pool.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib
import importlib.util
import json
import logging
import math
import os
import platform
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from bench._options import ALL_ENV, JOBS_ENV, jobs, whole_corpus
from bench._pool import Task, run_tasks, worker_cpu_seconds

log = logging.getLogger(__name__)

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = BENCH_DIR / "results" / "latest.json"

Benchmark = Callable[[bool], Mapping[str, Any]]
Prepare = Callable[[bool], Sequence[Task]]


@dataclass(frozen=True, slots=True)
class Bench:
    """One benchmark module's entry points.

    Attributes:
        name: The module's name.
        run: ``run(quick) -> figures``.
        prepare: ``prepare(quick) -> tasks`` making its inputs, or None.
        timing: It measures speed or latency: run it alone, in one process.
    """

    name: str
    run: Benchmark
    prepare: Prepare | None = None
    timing: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a run did: each benchmark's entry (in name order) and the preparation's."""

    results: dict[str, dict[str, Any]]
    prepare: dict[str, Any]


def discover(directory: Path = BENCH_DIR) -> dict[str, Bench]:
    """Benchmarks by name: every ``<name>.py`` in ``directory`` exposing ``run``."""
    found: dict[str, Bench] = {}
    for path in sorted(directory.glob("*.py")):
        name = path.stem
        if name.startswith("_"):
            continue
        module = _load(directory, name, path)
        run = getattr(module, "run", None)
        if not callable(run):
            log.debug("%s has no run(quick) function; not a benchmark", path)
            continue
        prepare = getattr(module, "prepare", None)
        timing = bool(getattr(module, "TIMING", False))
        found[name] = Bench(name, run, prepare if callable(prepare) else None, timing)
    return found


def run_all(benchmarks: Mapping[str, Bench], quick: bool) -> Outcome:
    """Prepare inputs in parallel, then the timing benchmarks alone, then the others.

    A failing benchmark is recorded with its error and the rest still run.
    """
    prepared = prepare_all(benchmarks.values(), quick)
    order = [b for b in benchmarks.values() if b.timing]
    order += [b for b in benchmarks.values() if not b.timing]
    results = {bench.name: run_one(bench, quick) for bench in order}
    return Outcome({name: results[name] for name in benchmarks}, prepared)


def prepare_all(benchmarks: Iterable[Bench], quick: bool) -> dict[str, Any]:
    """Every benchmark's preparation tasks over the pool: what ran, its time and its failures."""
    tasks: list[Task] = []
    for bench in benchmarks:
        if bench.prepare is not None:
            tasks.extend(bench.prepare(quick))
    print(f"preparing {len(tasks)} input(s) on {jobs()} worker(s) ...", file=sys.stderr, flush=True)
    started, cpu_started = time.perf_counter(), _cpu_with_children()
    done = run_tasks(tasks) if tasks else []
    failed = [f"{task.label}: {d.value}" for task, d in zip(tasks, done, strict=True) if d.value]
    return {
        "tasks": len(tasks),
        "workers": jobs(),
        "seconds": round(time.perf_counter() - started, 2),
        "cpu_seconds": round(_cpu_with_children() - cpu_started, 2),
        "failed": "; ".join(failed),
    }


def run_one(bench: Bench, quick: bool) -> dict[str, Any]:
    """Run one benchmark: its figures (or error), wall and CPU seconds, and its phase."""
    print(f"running {bench.name} ...", file=sys.stderr, flush=True)
    started, cpu_started = time.perf_counter(), _cpu_with_children()
    try:
        entry: dict[str, Any] = {"figures": flatten(bench.run(quick))}
    except Exception as exc:  # one broken benchmark must not hide the others' figures
        traceback.print_exc()
        entry = {"error": f"{type(exc).__name__}: {exc}"}
    entry["seconds"] = round(time.perf_counter() - started, 2)
    # CPU time far below wall time for a timing benchmark means the machine was busy: its
    # figures are low. For an accuracy benchmark it includes its pool's workers.
    entry["cpu_seconds"] = round(_cpu_with_children() - cpu_started, 2)
    entry["phase"] = "timing" if bench.timing else "accuracy"
    return entry


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


def report(
    results: Mapping[str, Mapping[str, Any]],
    quick: bool,
    *,
    prepare: Mapping[str, Any] | None = None,
    seconds: float | None = None,
    load_average: float | None = None,
) -> dict[str, Any]:
    """The JSON document written to ``results/latest.json``."""
    info = machine()
    if load_average is not None:
        info["load_average_1min"] = load_average  # at the start of the run, not its end
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "quick": quick,
        "whole_corpus": whole_corpus(),
        "commit": _git_commit(),
        "machine": info,
        "seconds": seconds,
        "prepare": dict(prepare or {}),
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
        _phases(doc),
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
            f"| {name} | (wall / CPU time, s; {entry.get('phase', '?')}) "
            f"| {entry['seconds']} / {entry['cpu_seconds']} |"
        )
    return "\n".join(lines)


def _phases(doc: Mapping[str, Any]) -> str:
    prep = doc.get("prepare") or {}
    line = (
        f"Whole run {doc.get('seconds')} s wall{' (--all)' if doc.get('whole_corpus') else ''}: "
        f"inputs prepared in {prep.get('seconds', 0)} s ({prep.get('tasks', 0)} task(s) on "
        f"{prep.get('workers', 1)} worker(s), {prep.get('cpu_seconds', 0)} CPU s); timing "
        "benchmarks then ran alone in one process, accuracy benchmarks after them (CPU time "
        "includes their workers)."
    )
    if prep.get("failed"):
        line += f" Preparation failed: {prep['failed']}."
    return line


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks; 0 when all ran, 1 when any failed, 2 on a bad ``--only`` name."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short runs (about two minutes)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every corpus at its whole size (e.g. all virtual-table scenarios in pipeline)",
    )
    parser.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="worker processes for preparation and accuracy corpora (default: the cores)",
    )
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
    load_average = _load_average()
    started = time.perf_counter()
    with _environment({JOBS_ENV: args.jobs and str(args.jobs), ALL_ENV: args.all and "1"}):
        outcome = run_all(benchmarks, args.quick)
        doc = report(
            outcome.results,
            args.quick,
            prepare=outcome.prepare,
            seconds=round(time.perf_counter() - started, 1),
            load_average=load_average,
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(markdown(doc))
    print(f"\nwritten to {args.out}")
    return 1 if any("error" in entry for entry in doc["benchmarks"].values()) else 0


@contextlib.contextmanager
def _environment(values: Mapping[str, str | None]) -> Iterator[None]:
    """Set the variables that are not None for the run (workers and subprocesses inherit
    them), and put back what was there."""
    saved = {key: os.environ.get(key) for key in values}
    try:
        for key, value in values.items():
            if value:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def _cpu_with_children() -> float:
    """CPU seconds of this process, of its children that have ended (a subprocess once waited
    for), and of the pools' workers on their items (`bench._pool.worker_cpu_seconds`)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = worker_cpu_seconds()
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + workers


def _load(directory: Path, name: str, path: Path) -> ModuleType:
    if directory.resolve() == BENCH_DIR:
        return importlib.import_module(f"bench.{name}")
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # so its functions pickle into a pool's workers
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
