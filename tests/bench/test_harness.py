from __future__ import annotations

import json
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
