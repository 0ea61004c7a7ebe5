"""Latency of the live loop on the virtual table: truth event -> event emitted, rest -> ruling.

Each scenario is played to `railbird.live.LiveLoop.run` in real time, as ``railbird demo`` plays
it: a camera delivers 60 fps frames on a `MonotonicClock` at their session times (skipping a
frame whose moment has passed, as a live camera does), the simulated pocket-sensor board writes
its bytes into a pseudo-terminal read by the real `SensorReader`, and the loop takes the newest
frame, dropping what it cannot keep up with. The frames are the scenario's cached recording
(rendered once, decoded just ahead of their time), so the renderer's own cost does not compete
with the loop for the CPU as it does in the demo.

Each scenario is also played **modelled**: the same loop on one dedicated core, with the
session clock advanced by the loop thread's own CPU time while it works and jumped to the next
frame's time while it waits (`CoreClock`), decode and sensors taken to run on the other core,
and the newest arrived frame taken whenever the loop is free (what the one-frame slot does).
The modelled figures are what a quiet two-core machine would see; the real-time ones are what
this machine saw, and on a busy machine they mostly measure the load.

Figures, over all scenarios, for each mode (``realtime.``, ``modelled.``):

- **event latency**: for each emitted event matched to a truth event (same kind and balls,
  within ``MATCH_S`` of it), the emission time minus the time of the first frame at or after the
  truth event (the frame in which it becomes visible); median and p99, per kind, and the share
  within one frame interval plus 10 ms (the issue's target).
- **ruling latency**: for each ruling, its emission time minus the moment the truth says all
  balls came to rest; target 100 ms.
- what the loop itself counted (`LiveStats`): frames grabbed, processed and dropped.

Real-time runs cost wall time, and on a busy machine the loop drops frames it would process on
a quiet one: read the figures beside the load average the harness records.

    PYTHONPATH=. python -m bench --only latency [--quick]
"""

from __future__ import annotations

import contextlib
import logging
import math
import statistics
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2

from bench._pool import Task
from bench._recordings import CACHE, Recording, recording_task, scenario_recording
from hardware.clock import Clock, MonotonicClock
from hardware.frames import Frame
from hardware.sensors.reader import SensorReader
from hardware.sim.sensors import PtyPort, SimulatedBoard, drops_from_events, play_in_background
from railbird.live import LiveLoop, LiveStats, LiveUpdate
from railbird.replay import pocket_signals
from rules.events import ShotEvent
from rules.referee import Referee
from vision.warm import warm_up

log = logging.getLogger(__name__)

TIMING = True
"""Run alone, in one process (`bench._harness`): real-time runs measure the machine's load."""
QUICK = ("scratch",)
FULL = ("scratch", "cut-shot", "bank-shot", "kick-shot", "break-9ball")
MATCH_S = 0.25
"""An emitted event further than this from every truth event of its kind is unmatched."""
TAIL_S = 1.5
"""Rest recorded after a scenario ends, so the loop sees the rest before the source ends."""
RULING_TARGET_S = 0.100


class PacedFrames:
    """Recorded frames delivered at their session times, as a live camera delivers them.

    The next frame is decoded before its time comes; a frame whose moment passed by a whole
    interval or more (the reader was late) is skipped and counted, never queued.
    """

    def __init__(self, frames: Iterable[Frame], clock: Clock, fps: float) -> None:
        self._frames, self._clock, self._interval = frames, clock, 1.0 / fps
        self.skipped = 0

    def __iter__(self) -> Iterator[Frame]:
        for frame in self._frames:
            wait = frame.time - self._clock.now()
            if wait > 0:
                self._clock.sleep(wait)
            elif -wait >= self._interval:
                self.skipped += 1
                continue
            yield frame


@dataclass
class LiveRun:
    """What one real-time run emitted."""

    recording: Recording
    updates: list[LiveUpdate] = field(default_factory=list)
    stats: LiveStats | None = None
    camera_skipped: int = 0


def play_live(recording: Recording, game: str = "9-ball") -> LiveRun:
    """Play ``recording`` to a live loop in real time, with the simulated sensors on a pty."""
    warm_up()  # start-up work (the compiled vision loops), before the session's clock runs
    truth = recording.run.truth
    start = truth.start_time
    frames = recording.reader()
    end = start + recording.frames / recording.fps
    clock = MonotonicClock(start)
    calibration = recording.calibration()
    referee = Referee.new(game, ("Player 1", "Player 2"), calibration.table)
    result = LiveRun(recording)
    loop = LiveLoop(calibration, referee, clock, result.updates.append)
    board = SimulatedBoard(
        drops_from_events(truth.events), end=end, start=start - 1.0, seed=recording.run.seed
    )
    steps, _ = board.script()
    camera = PacedFrames(frames, clock, recording.fps)
    with tempfile.TemporaryDirectory() as tmp:
        port = PtyPort(Path(tmp) / "pocket-sensors")
        player, stop_player = play_in_background(steps, port, clock)
        reader = SensorReader(port.path, clock=clock, on_signal=loop.signal)
        try:
            with reader:
                result.stats = loop.run(camera, threading.Event())
        finally:
            stop_player.set()
            player.join(timeout=2.0)
            port.close()
    result.camera_skipped = camera.skipped
    return result


class CoreClock:
    """The session clock of a loop alone on its core: it moves with the loop thread's CPU time.

    `jump_to` moves it forward to a moment the loop waits for (the next frame's arrival);
    `paused` leaves out work done on the other core (decoding the next frame).
    """

    def __init__(self, start: float) -> None:
        self._base, self._mark = start, time.thread_time()

    def now(self) -> float:
        """Session time: the start plus the CPU time the loop has spent since."""
        return self._base + time.thread_time() - self._mark

    def sleep(self, seconds: float) -> None:
        """Waiting costs no CPU: the clock jumps."""
        self.jump_to(self.now() + max(seconds, 0.0))

    def jump_to(self, moment: float) -> None:
        """Move forward to ``moment`` (never back)."""
        if moment > self.now():
            self._base, self._mark = moment, time.thread_time()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Work in this block is not the loop's: the clock does not move."""
        started = time.thread_time()
        try:
            yield
        finally:
            self._base -= time.thread_time() - started


def play_modelled(recording: Recording, game: str = "9-ball") -> LiveRun:
    """Play ``recording`` to a live loop on a modelled dedicated core (see `CoreClock`)."""
    warm_up()  # start-up work (the compiled vision loops), before the session's clock runs
    truth = recording.run.truth
    clock = CoreClock(truth.start_time)
    calibration = recording.calibration()
    referee = Referee.new(game, ("Player 1", "Player 2"), calibration.table)
    result = LiveRun(recording)
    loop = LiveLoop(calibration, referee, clock, result.updates.append)
    reader = recording.reader()
    for signal in pocket_signals(reader.serial_chunks()):
        loop.signal(signal)  # the loop only takes a signal once a frame as late as it has come
    frames = iter(reader)
    grabbed = processed = 0

    def next_frame() -> Frame | None:
        nonlocal grabbed
        with clock.paused():
            frame = next(frames, None)
        grabbed += frame is not None
        return frame

    upcoming = next_frame()
    while upcoming is not None:
        clock.jump_to(upcoming.time)
        frame, upcoming = upcoming, next_frame()
        while upcoming is not None and upcoming.time <= clock.now():
            frame, upcoming = upcoming, next_frame()  # arrived while the loop was busy
        loop.process(frame)
        processed += 1
    loop.finish()
    result.stats = loop.stats
    result.stats.frames_grabbed, result.stats.frames_dropped = grabbed, grabbed - processed
    return result


def visible_at(event_time: float, start: float, fps: float) -> float:
    """Session time of the first frame at or after ``event_time`` (frames at start + k/fps)."""
    k = math.ceil((event_time - start) * fps - 1e-9)
    return start + max(k, 0) / fps


def _key(event: ShotEvent) -> tuple[str, frozenset[str]]:
    return event.kind.value, frozenset(event.balls)


def event_latencies(run: LiveRun) -> tuple[dict[str, list[float]], int, int]:
    """Latency of each matched event, by kind; and the counts of truth and emitted events."""
    truth = run.recording.run.truth
    unmatched = list(truth.events)
    by_kind: dict[str, list[float]] = {}
    emitted = 0
    for update in run.updates:
        if update.event is None:
            continue
        emitted += 1
        near = [
            e
            for e in unmatched
            if _key(e) == _key(update.event) and abs(e.time - update.event.time) <= MATCH_S
        ]
        if not near:
            continue
        match = min(near, key=lambda e: abs(e.time - update.event.time))
        unmatched.remove(match)
        seen = visible_at(match.time, truth.start_time, run.recording.fps)
        by_kind.setdefault(match.kind.value, []).append(update.emitted - seen)
    return by_kind, len(truth.events), emitted


def ruling_latencies(run: LiveRun) -> list[float]:
    """For each ruling, its emission time minus the truth's all-at-rest time of its shot."""
    shots = run.recording.run.truth.shots
    rulings = [u for u in run.updates if u.ruling is not None]
    return [
        u.emitted - shot.end_time
        for u, shot in zip(rulings, shots, strict=False)
        if shot.end_time is not None
    ]


MODES = {"modelled": 1, "realtime": 2}
"""Each way of playing a scenario, with the OpenCV threads it runs with (one core, two)."""


def measure(
    scenarios: Sequence[str],
    resolution: tuple[int, int] = (1280, 720),
    directory: Path = CACHE,
    modes: Sequence[str] = tuple(MODES),
) -> dict[str, Any]:
    """Play each scenario in each mode; latency figures per mode over all scenarios."""
    recordings = [
        scenario_recording(name, resolution, tail_s=TAIL_S, directory=directory)
        for name in scenarios
    ]
    figures: dict[str, Any] = {
        "scenarios": ",".join(scenarios),
        "resolution": "x".join(map(str, resolution)),
        "fps_camera": recordings[0].fps,
        "event_target_ms": 1000 * (1.0 / recordings[0].fps + 0.010),
        "truth_events": sum(len(r.run.truth.events) for r in recordings),
        "truth_shots": sum(len(r.run.truth.shots) for r in recordings),
    }
    for mode in modes:
        play = play_modelled if mode == "modelled" else play_live
        previous = cv2.getNumThreads()
        cv2.setNumThreads(MODES[mode])
        try:
            runs = [play(recording) for recording in recordings]
        finally:
            cv2.setNumThreads(previous)
        figures[mode] = summarise(runs)
    return figures


def summarise(runs: Sequence[LiveRun]) -> dict[str, Any]:
    """Latency figures over several runs."""
    events: dict[str, list[float]] = {}
    rulings: list[float] = []
    totals = dict.fromkeys(("emitted_events", "rulings", "frames_grabbed"), 0)
    totals |= dict.fromkeys(("frames_processed", "frames_dropped", "camera_skipped"), 0)
    for run in runs:
        by_kind, _, emitted = event_latencies(run)
        for kind, values in by_kind.items():
            events.setdefault(kind, []).extend(values)
        rulings.extend(ruling_latencies(run))
        assert run.stats is not None
        totals["emitted_events"] += emitted
        totals["rulings"] += run.stats.rulings
        totals["frames_grabbed"] += run.stats.frames_grabbed
        totals["frames_processed"] += run.stats.frames_processed
        totals["frames_dropped"] += run.stats.frames_dropped
        totals["camera_skipped"] += run.camera_skipped
    every = [v for values in events.values() for v in values]
    target = 1.0 / runs[0].recording.fps + 0.010
    figures: dict[str, Any] = {
        **totals,
        "matched_events": len(every),
        "event_ms.median": _ms(_median(every)),
        "event_ms.p99": _ms(_p99(every)),
        "event_share_within_target": _share(every, target),
        "ruling_ms.median": _ms(_median(rulings)),
        "ruling_ms.p99": _ms(_p99(rulings)),
        "ruling_share_within_100ms": _share(rulings, RULING_TARGET_S),
    }
    for kind, values in sorted(events.items()):
        figures[f"event_ms_by_kind.{kind}.median"] = _ms(_median(values))
        figures[f"event_ms_by_kind.{kind}.p99"] = _ms(_p99(values))
        figures[f"event_ms_by_kind.{kind}.count"] = len(values)
    return figures


def prepare(quick: bool) -> list[Task]:
    """The scenarios' recordings, for the harness to render beforehand."""
    resolution = (1280, 720)
    tasks = (recording_task(n, resolution, tail_s=TAIL_S) for n in (QUICK if quick else FULL))
    return [task for task in tasks if task is not None]


def run(quick: bool) -> dict[str, Any]:
    """Quick: one short shot (about 3 s of real time). Full: five scenarios with a break."""
    return measure(QUICK if quick else FULL)


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else 1000 * seconds


def _share(values: list[float], limit: float) -> float | None:
    return sum(v <= limit for v in values) / len(values) if values else None
