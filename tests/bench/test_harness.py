from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from bench._clips import table_clip
from bench._harness import flatten, main
from bench.decode import decode_fps

FAKE = """
def run(quick):
    stage = {"p99_ms": 3.25, "ok": True}
    return {"fps": 250.0 if quick else 240.0, "codec": "mp4v", "stage": stage}
"""
BROKEN = """
def run(quick):
    raise RuntimeError("no virtual table yet")
"""
HELPER = """
def run(quick):
    raise AssertionError("a helper module must never be run")
"""


@pytest.fixture
def bench_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "bench"
    directory.mkdir()
    (directory / "fake.py").write_text(FAKE)
    (directory / "_helper.py").write_text(HELPER)
    (directory / "notes.py").write_text("WHAT = 'no run function: not a benchmark'\n")
    return directory


def test_the_harness_runs_each_benchmark_and_writes_json(bench_dir: Path, capsys) -> None:
    out = bench_dir / "results" / "latest.json"
    assert main(["--quick", "--dir", str(bench_dir), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["quick"] is True
    assert doc["date"].endswith("+00:00")
    assert {"nproc", "cpu", "python", "numpy", "opencv", "load_average_1min"} <= set(doc["machine"])
    assert {"seconds", "cpu_seconds"} <= set(doc["benchmarks"]["fake"])
    assert list(doc["benchmarks"]) == ["fake"]
    assert doc["benchmarks"]["fake"]["figures"] == {
        "fps": 250.0,
        "codec": "mp4v",
        "stage.p99_ms": 3.25,
        "stage.ok": True,
    }
    table = capsys.readouterr().out
    assert "| benchmark | figure | value |" in table
    assert "| fake | fps | 250.0 |" in table
    assert "| fake | stage.p99_ms | 3.25 |" in table


def test_a_failing_benchmark_is_reported_and_the_others_still_run(bench_dir, capsys) -> None:
    (bench_dir / "broken.py").write_text(BROKEN)
    out = bench_dir / "latest.json"
    assert main(["--dir", str(bench_dir), "--out", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["quick"] is False
    assert doc["benchmarks"]["broken"]["error"] == "RuntimeError: no virtual table yet"
    assert doc["benchmarks"]["fake"]["figures"]["fps"] == 240.0
    assert "| broken | **failed** | RuntimeError: no virtual table yet |" in capsys.readouterr().out


def test_only_runs_the_named_benchmarks_and_refuses_unknown_names(bench_dir: Path) -> None:
    (bench_dir / "broken.py").write_text(BROKEN)
    out = bench_dir / "latest.json"
    assert main(["--dir", str(bench_dir), "--out", str(out), "--only", "fake"]) == 0
    assert list(json.loads(out.read_text())["benchmarks"]) == ["fake"]
    assert main(["--dir", str(bench_dir), "--out", str(out), "--only", "nope"]) == 2


def test_figures_must_be_json_scalars() -> None:
    assert flatten({"a": {"b": float("nan")}}) == {"a.b": None}
    with pytest.raises(TypeError, match="'arr' is a ndarray"):
        flatten({"arr": np.zeros(3)})


def test_the_decode_benchmark_reads_every_frame_of_its_clip(tmp_path: Path) -> None:
    clip = table_clip(160, 90, frames=12, directory=tmp_path)
    assert clip.path.is_file() and clip.codec in {"avc1", "H264", "mp4v", "MJPG"}
    fps, frames = decode_fps(clip.path, threads=1)
    assert frames == 12 and fps > 0
    again = table_clip(160, 90, frames=12, directory=tmp_path)  # cached, not rewritten
    assert again.path.stat().st_mtime_ns == clip.path.stat().st_mtime_ns


def test_every_benchmark_module_has_the_harness_entry_point() -> None:
    import ast
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "bench"
    for path in sorted(bench.glob("[!_]*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "run" in names, f"{path.name} has no run(quick) for python -m bench"


def _phase_bench(log: Path, name: str, timing: bool, prepare: bool) -> str:
    """A fake benchmark that logs when it runs (and when its preparation runs)."""
    lines = [
        "import functools, os, pathlib",
        "from bench._pool import Task",
        "from tests.bench.tasks import append_line",
        f"LOG = pathlib.Path({str(log)!r})",
        f"TIMING = {timing}",
        "def run(quick):",
        f"    append_line(LOG, 'run {name}')",
        "    return {'jobs': os.environ.get('RAILBIRD_BENCH_JOBS', ''),",
        "            'all': os.environ.get('RAILBIRD_BENCH_ALL', '')}",
    ]
    if prepare:
        lines += [
            "def prepare(quick):",
            "    call = functools.partial(append_line, LOG, 'prepare " + name + "')",
            f"    return [Task(call, '{name} input', 2.0)]",
        ]
    return "\n".join(lines) + "\n"


def test_inputs_are_prepared_first_then_timing_benchmarks_run_alone_then_the_rest(
    tmp_path: Path, capsys
) -> None:
    directory = tmp_path / "bench"
    directory.mkdir()
    log = tmp_path / "order.log"
    (directory / "a_accuracy.py").write_text(_phase_bench(log, "a_accuracy", False, True))
    (directory / "b_timing.py").write_text(_phase_bench(log, "b_timing", True, True))
    (directory / "c_accuracy.py").write_text(_phase_bench(log, "c_accuracy", False, False))
    (directory / "d_timing.py").write_text(_phase_bench(log, "d_timing", True, False))
    out = tmp_path / "latest.json"
    assert main(["--dir", str(directory), "--out", str(out), "--jobs", "2"]) == 0
    order = log.read_text().splitlines()
    assert sorted(order[:2]) == ["prepare a_accuracy", "prepare b_timing"]
    assert order[2:] == ["run b_timing", "run d_timing", "run a_accuracy", "run c_accuracy"]
    doc = json.loads(out.read_text())
    assert list(doc["benchmarks"]) == ["a_accuracy", "b_timing", "c_accuracy", "d_timing"]
    assert doc["benchmarks"]["b_timing"]["phase"] == "timing"
    assert doc["benchmarks"]["a_accuracy"]["phase"] == "accuracy"
    assert doc["prepare"]["tasks"] == 2 and doc["prepare"]["workers"] == 2
    assert doc["prepare"]["failed"] == ""
    assert doc["seconds"] >= 0.0 and doc["whole_corpus"] is False  # rounded: a quick run is 0.0
    # The run's options reach the benchmarks (and their workers) through the environment.
    assert doc["benchmarks"]["a_accuracy"]["figures"] == {"jobs": "2", "all": ""}
    assert "inputs prepared in" in capsys.readouterr().out


def test_all_and_jobs_are_set_for_the_run_only(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("RAILBIRD_BENCH_JOBS", raising=False)
    monkeypatch.delenv("RAILBIRD_BENCH_ALL", raising=False)
    directory = tmp_path / "bench"
    directory.mkdir()
    (directory / "one.py").write_text(_phase_bench(tmp_path / "log", "one", False, False))
    out = tmp_path / "latest.json"
    assert main(["--dir", str(directory), "--out", str(out), "--all", "--jobs", "1"]) == 0
    doc = json.loads(out.read_text())
    assert doc["benchmarks"]["one"]["figures"] == {"jobs": "1", "all": "1"}
    assert doc["whole_corpus"] is True
    assert "RAILBIRD_BENCH_JOBS" not in os.environ and "RAILBIRD_BENCH_ALL" not in os.environ


def test_a_failed_preparation_is_reported_and_its_benchmark_still_runs(tmp_path: Path) -> None:
    directory = tmp_path / "bench"
    directory.mkdir()
    (directory / "needs_input.py").write_text(
        "import functools\n"
        "from bench._pool import Task\n"
        "from tests.bench.tasks import fail_on_three\n"
        "def prepare(quick):\n"
        "    return [Task(functools.partial(fail_on_three, 3), 'the clip')]\n"
        "def run(quick):\n"
        "    return {'made_it_anyway': True}\n"
    )
    out = tmp_path / "latest.json"
    assert main(["--dir", str(directory), "--out", str(out), "--jobs", "2"]) == 0
    doc = json.loads(out.read_text())
    assert doc["prepare"]["failed"] == "the clip: ValueError: item 3 is bad"
    assert doc["benchmarks"]["needs_input"]["figures"] == {"made_it_anyway": True}


@pytest.mark.parametrize("jobs", ["0", "-2", "many"])
def test_jobs_must_be_a_positive_number(tmp_path: Path, jobs: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--dir", str(tmp_path), "--jobs", jobs])
    assert exit_.value.code == 2
    assert "not a positive whole number" in capsys.readouterr().err
