"""Resident memory of a long replay: the peak, and how fast it grows per hour of video.

A virtual-table recording of a whole rack of 9-ball (nine shots, a minute of play at 60 fps) is
replayed by `railbird.replay.replay`, the function ``railbird replay`` runs, in a fresh
subprocess, so the figures are that process's own. The child samples its resident set size
(``VmRSS`` in ``/proc/self/status``) every 0.2 s while it replays and reports its peak
(``VmHWM``). Growth is the least-squares slope of the samples over the second
half of the replay (after the first shot has filled every cache), per frame, converted to an
hour of 60 fps video; the one-hour figure is the end of the run extrapolated with that slope.
Target (issue 11): under 500 MB, flat over an hour.

    PYTHONPATH=. python -m bench --only memory [--quick]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench._pool import Task
from bench._recordings import CACHE, recording_task, scenario_recording

SCENARIO = "rack-9ball"
TARGET_MB = 500.0
FRAMES_PER_HOUR = 60 * 3600
SAMPLE_S = 0.2
MIN_GROWTH_S = 30.0
"""Shorter replays report their peak only: their growth is the warm-up's."""
ROOT = Path(__file__).resolve().parents[1]


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident set size now (``VmRSS``) or at its peak (``VmHWM``), in MB.

    The peak is read from /proc, not ``getrusage``: Linux carries ``ru_maxrss`` over from the
    forked copy of the parent into the child it execs, so a big parent inflates the child's.
    """
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/self/status has no {field} line")


def child(recording: str | Path) -> dict[str, Any]:
    """Replay ``recording`` here, sampling RSS: what the subprocess prints as JSON."""
    import cv2

    from railbird.replay import ReplayOptions, replay

    cv2.setNumThreads(1)
    samples: list[tuple[float, float]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_S):
            samples.append((time.perf_counter(), rss_mb()))

    start_rss = rss_mb()
    sampler = threading.Thread(target=sample, daemon=True)
    started = time.perf_counter()
    sampler.start()
    with tempfile.TemporaryDirectory() as out:
        summary = replay(Path(recording), Path(out), ReplayOptions())
    ended = time.perf_counter()
    done.set()
    sampler.join()
    return {
        "frames": summary["frames"],
        "shots": summary["shots"],
        "rss_before_replay_mb": start_rss,
        "rss_end_mb": rss_mb(),
        "peak_rss_mb": rss_mb("VmHWM"),
        "replay_s": ended - started,
        # (fraction of the replay done, RSS MB): frames are taken as even in time.
        "samples": [((t - started) / (ended - started), mb) for t, mb in samples],
    }


def replay_in_subprocess(recording: Path, timeout_s: float = 900.0) -> dict[str, Any]:
    """Run `child` on ``recording`` in a fresh Python; its figures.

    Raises:
        RuntimeError: the subprocess failed (its stderr tail is in the message).
    """
    code = "import json, sys; from bench.memory import child; print(json.dumps(child(sys.argv[1])))"
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", code, str(recording)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout_s,
    )
    if done.returncode != 0:
        raise RuntimeError(f"replay of {recording} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def growth_mb_per_hour(samples: Sequence[tuple[float, float]], frames: int) -> float:
    """Least-squares RSS slope over the second half of the samples, per hour of 60 fps video."""
    late = [(share, mb) for share, mb in samples if share >= 0.5]
    if len(late) < 3 or frames <= 0:
        return float("nan")
    share, mb = np.array(late).T
    slope_per_share = np.polyfit(share, mb, 1)[0]
    return float(slope_per_share / frames * FRAMES_PER_HOUR)


def measure(
    seconds: float | None,
    resolution: tuple[int, int] = (1280, 720),
    scenario: str = SCENARIO,
    directory: Path = CACHE,
) -> dict[str, Any]:
    """Memory figures of one replay of ``seconds`` of ``scenario`` (None: all of it)."""
    recording = scenario_recording(scenario, resolution, seconds=seconds, directory=directory)
    got = replay_in_subprocess(recording.path)
    video_s = got["frames"] / recording.fps
    # A short replay is all warm-up: its slope says nothing about an hour.
    growth = growth_mb_per_hour(got["samples"], got["frames"]) if video_s >= MIN_GROWTH_S else 0.0
    hour_frames_left = max(FRAMES_PER_HOUR - got["frames"], 0)
    one_hour = got["rss_end_mb"] + growth * hour_frames_left / FRAMES_PER_HOUR
    peak_one_hour = max(got["peak_rss_mb"], one_hour)
    return {
        "scenario": scenario,
        "resolution": "x".join(map(str, resolution)),
        "frames": got["frames"],
        "video_s": video_s,
        "shots": got["shots"],
        "samples": len(got["samples"]),
        "rss_before_replay_mb": got["rss_before_replay_mb"],
        "peak_rss_mb": got["peak_rss_mb"],
        "rss_end_mb": got["rss_end_mb"],
        "growth_mb_per_hour": growth if video_s >= MIN_GROWTH_S else None,
        "one_hour_rss_mb_extrapolated": one_hour if video_s >= MIN_GROWTH_S else None,
        "target": f"{'met' if peak_one_hour < TARGET_MB else 'NOT met'} (< {TARGET_MB:g} MB"
        + (")" if video_s >= MIN_GROWTH_S else "; peak only, the full set measures growth)"),
    }


def replay_span(quick: bool) -> tuple[float | None, tuple[int, int]]:
    """Seconds of the rack replayed (None: all of it) and at what size."""
    return (2.0, (640, 360)) if quick else (None, (1280, 720))


def prepare(quick: bool) -> list[Task]:
    """The rack's recording, for the harness to render beforehand (beside other renders)."""
    seconds, resolution = replay_span(quick)
    task = recording_task(SCENARIO, resolution, seconds=seconds)
    return [task] if task is not None else []


def run(quick: bool) -> dict[str, Any]:
    """Quick: the first 2 s of the rack at 640x360 (peak only). Full: the whole rack at 1280x720."""
    return measure(*replay_span(quick))
