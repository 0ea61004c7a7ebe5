"""Virtual-table recordings for benchmarks, made once and cached in ``bench/results/cache/``.

A recording is what ``railbird sim`` writes (`railbird.simulate.record_scenario`: the video the
overhead camera would shoot, frame times, pocket-sensor bytes, config, the exact calibration),
cut to a span of the scenario: the first ``seconds`` after its start, or the whole scenario plus
``tail_s`` of balls at rest (so the live loop sees the rest it needs before it rules). Rendering
costs tens of milliseconds a frame, so a recording is rendered once per machine and reused.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from bench._pool import Task
from calibration.file import Calibration, load
from hardware.sim.render import RenderConfig
from hardware.sim.runner import frame_times
from hardware.sim.scenarios import ScenarioRun, run_scenario
from railbird.recording import RecordingReader
from railbird.simulate import SimRecordingConfig, record_scenario

log = logging.getLogger(__name__)

CACHE = Path(__file__).resolve().parent / "results" / "cache" / "recordings"
LEAD_S = 0.5
"""What `frame_times` adds past the end it is given."""


@dataclass(frozen=True, slots=True)
class Recording:
    """A cached recording and the scenario run it was made from (the truth)."""

    path: Path
    run: ScenarioRun
    resolution: tuple[int, int]
    fps: float
    frames: int

    def reader(self) -> RecordingReader:
        """A fresh reader of its frames."""
        return RecordingReader(self.path)

    def calibration(self) -> Calibration:
        """The calibration it was recorded with."""
        return load(self.path / "calibration.json", image_size=self.resolution)


def scenario_recording(
    scenario: str,
    resolution: tuple[int, int],
    *,
    seed: int = 0,
    seconds: float | None = None,
    tail_s: float = LEAD_S,
    fps: float = 60.0,
    directory: Path = CACHE,
) -> Recording:
    """The cached recording of ``scenario``, rendered now if missing.

    Args:
        scenario: A virtual-table scenario name (``railbird sim --list``).
        resolution: (width, height) of the video.
        seed: The scenario's seed.
        seconds: Record only this many seconds from the start (None: all of it).
        tail_s: Seconds of rest recorded after the scenario ends (when ``seconds`` is None).
        fps: Frame rate.
        directory: Cache directory.
    """
    run, span, name, frames = _span(scenario, resolution, seed, seconds, tail_s, fps)
    path = directory / name
    if not (path / "done").is_file():
        log.info("rendering %s (%d frames)", name, frames)
        tmp = directory / f"tmp-{name}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.parent.mkdir(parents=True, exist_ok=True)
        render = RenderConfig(resolution=resolution, fps=fps, seed=seed)
        record_scenario(span, tmp, SimRecordingConfig(render=render))
        (tmp / "done").write_text(f"{frames}\n")
        shutil.rmtree(path, ignore_errors=True)
        tmp.replace(path)  # a half-rendered recording never sits under the final name
    return Recording(path, run, resolution, fps, frames)


def recording_task(
    scenario: str,
    resolution: tuple[int, int],
    *,
    seed: int = 0,
    seconds: float | None = None,
    tail_s: float = LEAD_S,
    fps: float = 60.0,
    directory: Path = CACHE,
) -> Task | None:
    """A task rendering what `scenario_recording` with these arguments reads; None if cached.

    Its cost is the frames it renders (times the pixels over 1280x720's).
    """
    _, _, name, frames = _span(scenario, resolution, seed, seconds, tail_s, fps)
    if (directory / name / "done").is_file():
        return None
    call = functools.partial(
        _render,
        scenario,
        resolution,
        seed=seed,
        seconds=seconds,
        tail_s=tail_s,
        fps=fps,
        directory=directory,
    )
    pixels = resolution[0] * resolution[1] / (1280 * 720)
    return Task(call, f"recording {name}", frames * max(pixels, 0.25))


def _render(scenario: str, resolution: tuple[int, int], **kwargs) -> None:
    scenario_recording(scenario, resolution, **kwargs)  # into the cache; nothing sent back


def _span(
    scenario: str,
    resolution: tuple[int, int],
    seed: int,
    seconds: float | None,
    tail_s: float,
    fps: float,
) -> tuple[ScenarioRun, ScenarioRun, str, int]:
    """The scenario run, the span of it recorded, the recording's cache name, its frames."""
    run = run_scenario(scenario, seed)
    truth = run.truth
    end = truth.end_time + tail_s if seconds is None else truth.start_time + seconds
    # record_scenario records up to truth.end_time + LEAD_S: move that end to where we want it.
    span = dataclasses.replace(run, truth=dataclasses.replace(truth, end_time=end - LEAD_S))
    width, height = resolution
    name = f"{scenario}-{seed}-{width}x{height}-{fps:g}fps-to{end - truth.start_time:.3f}s"
    return run, span, name, len(frame_times(span, fps))
