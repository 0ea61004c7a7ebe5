"""Throughput of the live loop's own stages on a virtual-table break, one core and two.

The input is a recording of a busy rack (the 8-ball break: sixteen balls, most of them moving)
at 60 fps, 1280x720 and 1920x1080, rendered once by the virtual table and cached. Each size is
measured three ways, all in one run so the ratios compare like with like:

- **decode only**: the recording's frames read back (`RecordingReader`, what replay reads): the
  ceiling.
- **one core**: ``cv2.setNumThreads(1)``, one thread decodes a frame and hands it to
  `LiveLoop.process` (detector, tracker, segmenter, assembler, referee), as replay does. Each
  stage object of the loop is wrapped in a timer, so the per-stage milliseconds come from the
  real loop, not a copy of it.
- **two cores**, two ways: decode in a child **process** writing each frame into shared
  memory, the loop's stages in this one (`decoder_process`): ``fps_2cores`` is the rate two
  cores of their own sustain, from the CPU time each side spent in the same overlapped run
  (the slower side sets it; it includes copying the frame out), and its wall-clock rate
  beside it; and (full run) decode in a second **thread** feeding the loop through a short
  queue, as the live loop's frame grabber does (wall clock; one interpreter, so the GIL is
  shared). Also the bound from the one-core CPU times: the slower of decode and the stages
  after it.

Frames per second come from CPU time (``time.process_time``: the rate one dedicated core would
sustain, steadier on a shared machine) and from the wall clock. Targets (issue 11): the whole
pipeline at 1280x720 >= 120 fps on one core and >= 200 on two, >= 60 fps at 1920x1080 on one
core, and <= 7 ms per 1280x720 frame for the stages after decode.

    PYTHONPATH=. python -m bench --only throughput [--quick]
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from multiprocessing import shared_memory
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench._pool import Task
from bench._recordings import CACHE, Recording, recording_task, scenario_recording
from hardware.clock import FakeClock
from hardware.frames import Frame
from railbird.live import LiveLoop, LiveUpdate
from railbird.recording import RecordingReader
from rules.referee import Referee

TIMING = True
"""Run alone, in one process (`bench._harness`)."""
SCENARIO = "break-8ball"
SIZES = ((1280, 720), (1920, 1080))
TARGETS = {
    "fps_1core_1280x720": 120.0,
    "fps_2cores_1280x720": 200.0,
    "fps_1core_1920x1080": 60.0,
    "after_decode_ms_1280x720": 7.0,
}
# The live loop's stage objects and the one method of each it calls per frame.
STAGES = {
    "detection": ("_detector", "detect"),
    "tracking": ("_tracker", "update"),
    "events": ("_segmenter", "update"),
    "shots": ("_assembler", "update"),
}


class _Timed:
    """A stage object whose ``method`` adds the calling thread's CPU time to ``totals[name]``."""

    def __init__(self, stage: Any, method: str, name: str, totals: dict[str, float]) -> None:
        self._stage, self._method, self._name, self._totals = stage, method, name, totals

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._stage, attr)
        if attr != self._method:
            return value

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return value(*args, **kwargs)
            finally:
                self._totals[self._name] += time.thread_time() - started

        return timed


def instrumented_loop(
    recording: Recording, on_update: Callable[[LiveUpdate], None] = lambda update: None
) -> tuple[LiveLoop, dict[str, float]]:
    """A live loop for ``recording`` whose stages add their CPU seconds to the returned dict."""
    calibration = recording.calibration()
    referee = Referee.new("8-ball", ("A", "B"), calibration.table)
    loop = LiveLoop(calibration, referee, FakeClock(recording.run.truth.start_time), on_update)
    totals: dict[str, float] = defaultdict(float)
    for name, (attr, method) in STAGES.items():
        setattr(loop, attr, _Timed(getattr(loop, attr), method, name, totals))
    loop.referee = _Timed(referee, "record", "referee", totals)
    return loop, totals


def decode_only(recording: Recording) -> dict[str, float]:
    """Read every frame: frames, CPU and wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    frames = sum(1 for _ in recording.reader())
    return _rates(frames, time.process_time() - cpu, time.perf_counter() - wall)


def one_core(recording: Recording) -> tuple[dict[str, float], dict[str, float]]:
    """Decode and process each frame in turn on one thread: rates and per-stage CPU seconds.

    The stages' seconds include ``"decode"``: the CPU time spent getting each frame, in this run.
    """
    loop, totals = instrumented_loop(recording)
    frames_in = iter(recording.reader())
    cpu, wall = time.process_time(), time.perf_counter()
    frames = 0
    while True:
        started = time.process_time()
        frame = next(frames_in, None)
        totals["decode"] += time.process_time() - started
        if frame is None:
            break
        loop.process(frame)
        frames += 1
    loop.finish()
    rates = _rates(frames, time.process_time() - cpu, time.perf_counter() - wall)
    return rates, dict(totals)


def two_cores(recording: Recording) -> dict[str, float]:
    """Decode in a second thread, overlapped with the loop's stages: wall-clock rate."""
    loop, _ = instrumented_loop(recording)
    handoff: queue.Queue[Frame | None] = queue.Queue(maxsize=2)
    thread = threading.Thread(target=_decode_into, args=(recording.reader(), handoff), daemon=True)
    cpu, wall = time.process_time(), time.perf_counter()
    thread.start()
    frames = 0
    while (frame := handoff.get()) is not None:
        loop.process(frame)
        frames += 1
    loop.finish()
    thread.join()
    return _rates(frames, time.process_time() - cpu, time.perf_counter() - wall)


SLOTS = 4
"""Frames the decoding process may be ahead of the loop (shared-memory slots)."""


def decoder_process(
    recording: Recording, on_update: Callable[[LiveUpdate], None] = lambda update: None
) -> dict[str, float]:
    """Decode in a child process, the loop's stages here: two cores, no shared interpreter.

    The child decodes each frame into one of `SLOTS` shared-memory slots and says which; the
    loop copies the frame out (its stages may keep it), frees the slot and processes it, so
    decode of the next frames overlaps the stages of this one. Each process runs OpenCV on one
    thread. Returns the wall-clock rate, and the CPU milliseconds per frame of each side: the
    slower side's is the rate two cores of their own sustain, whatever else the machine runs.
    """
    width, height = recording.resolution
    shape = (height, width, 3)
    context = multiprocessing.get_context(_start_method())
    memory = shared_memory.SharedMemory(create=True, size=SLOTS * height * width * 3)
    free: Any = context.Queue()
    ready: Any = context.Queue()
    for slot in range(SLOTS):
        free.put(slot)
    slots: np.ndarray | None = np.ndarray((SLOTS, *shape), np.uint8, memory.buf)
    try:
        loop, _ = instrumented_loop(recording, on_update)
        child = context.Process(
            target=_decode_to_slots,
            args=(str(recording.path), memory.name, shape, free, ready),
            daemon=True,
        )
        cpu, wall = time.process_time(), time.perf_counter()
        child.start()
        frames = 0
        while (item := _next_ready(ready, child))[0] != "done":
            slot, index, at = item
            image = slots[slot].copy()
            free.put(slot)
            loop.process(Frame(index, at, image))
            frames += 1
        loop.finish()
        wall_s, loop_cpu_s = time.perf_counter() - wall, time.process_time() - cpu
        decoder_cpu_s = item[1]
        child.join(timeout=10.0)
    finally:
        slots = None  # no view of the memory may outlive it
        memory.close()
        memory.unlink()
    rates = _rates(frames, loop_cpu_s, wall_s)
    rates["decoder_cpu_ms"] = 1000 * decoder_cpu_s / frames
    rates["two_core_fps"] = frames / max(loop_cpu_s, decoder_cpu_s, 1e-9)
    return rates


def _next_ready(ready: Any, child: multiprocessing.process.BaseProcess) -> tuple:
    """The decoder's next message; raises if it died or failed instead of sending one."""
    while True:
        try:
            item = ready.get(timeout=1.0)
        except queue.Empty:
            if not child.is_alive():
                raise RuntimeError(
                    f"throughput: the decoding process ended (exit {child.exitcode})"
                ) from None
            continue
        if item is None:
            raise RuntimeError("throughput: the decoding process failed (see its traceback)")
        return item


def _start_method() -> str:
    # Never fork this process: a copy made while OpenCV's threads hold a lock waits for ever.
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def _decode_to_slots(
    recording: str, name: str, shape: tuple[int, int, int], free: Any, ready: Any
) -> None:
    """The child: decode every frame of the recording at path ``recording`` into a free slot;
    then ``("done", its CPU seconds)``."""
    cv2.setNumThreads(1)
    memory = shared_memory.SharedMemory(name=name)
    slots = np.ndarray((SLOTS, *shape), np.uint8, memory.buf)
    started = time.process_time()
    try:
        for frame in RecordingReader(Path(recording)):
            slot = free.get()
            slots[slot] = frame.image
            ready.put((slot, frame.index, frame.time))
        ready.put(("done", time.process_time() - started))
    except BaseException:
        ready.put(None)
        raise
    finally:
        del slots
        memory.close()


def measure_size(recording: Recording, two_core_run: bool = True) -> dict[str, Any]:
    """Every figure for one recording (one size); the two-thread run only if asked."""
    size = "x".join(map(str, recording.resolution))
    decode = _with_threads(1, lambda: decode_only(recording))
    alone, stages = _with_threads(1, lambda: one_core(recording))
    both = _with_threads(2, lambda: two_cores(recording)) if two_core_run else None
    apart = _with_threads(1, lambda: decoder_process(recording))
    frames = alone["frames"]
    decode_ms = decode["cpu_ms"]
    stage_ms = {name: 1000 * seconds / frames for name, seconds in stages.items()}
    decode_in_run_ms = stage_ms.pop("decode")
    after_ms = alone["cpu_ms"] - decode_in_run_ms
    figures: dict[str, Any] = {
        "frames": frames,
        f"fps_decode_1core_{size}": decode["cpu_fps"],
        f"fps_decode_1core_wall_{size}": decode["wall_fps"],
        f"fps_1core_{size}": alone["cpu_fps"],
        f"fps_1core_wall_{size}": alone["wall_fps"],
        f"fps_2cores_{size}": apart["two_core_fps"],
        f"fps_2cores_decoder_process_wall_{size}": apart["wall_fps"],
        f"fps_2cores_decode_thread_wall_{size}": both["wall_fps"] if both else None,
        f"fps_2cores_bound_{size}": 1000 / max(decode_ms, after_ms),
        f"loop_ms_2cores_{size}": apart["cpu_ms"],
        f"decoder_ms_2cores_{size}": apart["decoder_cpu_ms"],
        f"cost_ratio_to_decode_{size}": alone["cpu_ms"] / decode_ms,
        f"decode_ms_{size}": decode_ms,
        f"decode_in_pipeline_ms_{size}": decode_in_run_ms,
        f"after_decode_ms_{size}": after_ms,
        f"fps_after_decode_{size}": 1000 / after_ms,
    }
    cumulative = decode_in_run_ms
    for name in (*STAGES, "referee"):
        ms = stage_ms.get(name, 0.0)
        cumulative += ms
        figures[f"stage_ms_{size}.{name}"] = ms
        figures[f"fps_1core_upto_{size}.{name}"] = 1000 / cumulative
    figures[f"stage_ms_{size}.loop_other"] = after_ms - sum(stage_ms.values())
    return figures


def measure(
    sizes: Iterable[tuple[int, int]] = SIZES,
    seconds: float = 2.0,
    scenario: str = SCENARIO,
    directory: Path = CACHE,
    two_core_run: bool = True,
) -> dict[str, Any]:
    """Throughput figures for ``seconds`` of ``scenario`` at each size, with the targets' state.

    Without ``two_core_run`` there is no decode-thread run (the decoding process always runs).
    """
    figures: dict[str, Any] = {"scenario": scenario, "seconds_of_video": seconds, "fps_video": 60}
    live_log = logging.getLogger("railbird.live")
    level = live_log.level
    # The clip ends mid-break: the loop's warning that the open shot cannot be judged is expected.
    live_log.setLevel(logging.ERROR)
    try:
        for size in sizes:
            recording = scenario_recording(scenario, size, seconds=seconds, directory=directory)
            for key, value in measure_size(recording, two_core_run).items():
                figures[key if key != "frames" else f"frames_{size[0]}x{size[1]}"] = value
    finally:
        live_log.setLevel(level)
    for key, target in TARGETS.items():
        if key in figures:
            below = key.startswith("after_decode")
            met = figures[key] <= target if below else figures[key] >= target
            bound = f"{'<=' if below else '>='} {target:g}"
            figures[f"target.{key}"] = f"{'met' if met else 'NOT met'} ({bound})"
    return figures


def seconds_of_video(quick: bool) -> float:
    """How much of the break a run measures: 0.4 s (quick) or 4 s."""
    return 0.4 if quick else 4.0


def prepare(quick: bool) -> list[Task]:
    """The break's recordings at each size, for the harness to render beforehand."""
    tasks = (recording_task(SCENARIO, size, seconds=seconds_of_video(quick)) for size in SIZES)
    return [task for task in tasks if task is not None]


def run(quick: bool) -> dict[str, Any]:
    """Throughput at 1280x720 and 1920x1080 over the break's first 0.4 s (quick: no decode
    thread run) or its first 4 s."""
    return measure(seconds=seconds_of_video(quick), two_core_run=not quick)


def _decode_into(frames: Iterable[Frame], handoff: queue.Queue[Frame | None]) -> None:
    try:
        for frame in frames:
            handoff.put(frame)
    finally:
        handoff.put(None)


def _rates(frames: int, cpu_s: float, wall_s: float) -> dict[str, float]:
    if frames == 0:
        raise RuntimeError("throughput: the recording gave no frame")
    return {
        "frames": frames,
        "cpu_ms": 1000 * cpu_s / frames,
        "cpu_fps": frames / max(cpu_s, 1e-9),
        "wall_fps": frames / max(wall_s, 1e-9),
    }


def _with_threads(threads: int, measure_fn: Callable[[], Any]) -> Any:
    previous = cv2.getNumThreads()
    cv2.setNumThreads(threads)
    try:
        return measure_fn()
    finally:
        cv2.setNumThreads(previous)
