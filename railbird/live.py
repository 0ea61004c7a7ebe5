"""The live loop: frames and pocket signals in, events and rulings out, as they happen.

One thread grabs frames from the source into a one-frame slot (recording each as it arrives);
the loop takes the newest, so a frame that cannot be processed in time is dropped and counted,
never queued. Each frame goes through the detector, the tracker (with the pocket signals that
arrived meanwhile), the shot segmenter and assembler; events are emitted at once (a scratch as
the cue ball drops) and a shot's ruling as soon as all balls are at rest. Replay
(`railbird.replay`) runs the same stages over a recording.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import statistics
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from calibration.file import Calibration
from hardware.clock import Clock
from hardware.frames import Frame, FrameSource, LatestFrame
from railbird.recording import RecordingWriter
from railbird.web.hub import InputQueue
from rules.codec import to_jsonable
from rules.errors import RailbirdError, RecordError
from rules.events import ShotEvent
from rules.inputs import OperatorInput, RackReady
from rules.referee import Referee
from rules.ruling import Ruling
from rules.shot import Shot
from rules.signals import PocketSignal
from tracking.assembler import ShotAssembler
from tracking.model import TrackFrame
from tracking.segmenter import Segmenter, SegmenterConfig
from tracking.tracker import Tracker
from vision.detector import BallDetector

log = logging.getLogger(__name__)

CAMERA_PROBLEM_S = 1.0
"""A camera problem stays on the scoreboard this long after it last happened."""

DELAY_WINDOW = 10_000
"""Delays kept for the statistics: the latest ones, so a session of days holds no growing list."""


@dataclass(frozen=True, slots=True)
class LiveUpdate:
    """Something the loop found, for the displays.

    Attributes:
        time: Session time of the frame it was found in.
        emitted: Session time it was emitted.
        event: A shot event, or None.
        shot: The finished shot a ruling is about, or None.
        ruling: The referee's ruling on ``shot``, or None.
        frame: Index of the frame it was found in (-1 for an operator input).
        refused: Why the referee could not judge ``shot``, when it could not.
    """

    time: float
    emitted: float
    event: ShotEvent | None = None
    shot: Shot | None = None
    ruling: Ruling | None = None
    frame: int = -1
    refused: str | None = None


@dataclass
class LiveStats:
    """Counts of a live run, and the delays of its latest `DELAY_WINDOW` events and rulings."""

    frames_grabbed: int = 0
    frames_processed: int = 0
    frames_dropped: int = 0
    frames_unusable: int = 0
    frames_unrecorded: int = 0
    events: int = 0
    shots: int = 0
    rulings: int = 0
    event_delays_s: deque[float] = field(default_factory=lambda: deque(maxlen=DELAY_WINDOW))
    ruling_delays_s: deque[float] = field(default_factory=lambda: deque(maxlen=DELAY_WINDOW))

    def summary(self) -> dict[str, float | int | None]:
        """Counts plus the median and 99th-percentile delays."""
        return {
            "frames_grabbed": self.frames_grabbed,
            "frames_processed": self.frames_processed,
            "frames_dropped": self.frames_dropped,
            "frames_unusable": self.frames_unusable,
            "frames_unrecorded": self.frames_unrecorded,
            "events": self.events,
            "shots": self.shots,
            "rulings": self.rulings,
            "event_delay_median_s": _median(self.event_delays_s),
            "event_delay_p99_s": _p99(self.event_delays_s),
            "ruling_delay_median_s": _median(self.ruling_delays_s),
        }


class LiveLoop:
    """The monitor's pipeline over live inputs.

    Args:
        calibration: The camera over the table.
        referee: The game being refereed.
        clock: The session clock (emission times, delays).
        on_update: Called with every event, ruling and operator input (keep it short).
        recorder: Where raw inputs are recorded, if anywhere.
        inputs: Operator inputs from the console, applied between frames on the loop's thread.
        on_tick: Called after every frame with its time (to refresh the shot clock display).
        on_track: Called with every frame's tracker output (post-match review draws from it).
        light_height_mm: The lamp's underside above the cloth (``[table] light_height_mm``): a
            ball seen that high touched it (3.28). None: no lamp is watched.
    """

    def __init__(
        self,
        calibration: Calibration,
        referee: Referee,
        clock: Clock,
        on_update: Callable[[LiveUpdate], None] = lambda update: None,
        recorder: RecordingWriter | None = None,
        inputs: InputQueue | None = None,
        on_tick: Callable[[float], None] = lambda t: None,
        on_track: Callable[[TrackFrame], None] | None = None,
        light_height_mm: float | None = None,
    ) -> None:
        self._table = calibration.table
        self._venue = SegmenterConfig(
            camera_height_mm=calibration.camera.height_mm, light_height_mm=light_height_mm
        )
        self._inputs = inputs
        self._on_tick = on_tick
        self._on_track = on_track
        self.referee = referee
        self.stats = LiveStats()
        self._clock = clock
        self._on_update = on_update
        self._recorder = recorder
        self._detector = BallDetector(calibration, balls=referee.balls)
        self._new_table()
        self._signals: queue.Queue[PocketSignal] = queue.Queue()
        self._pending: list[PocketSignal] = []
        self._grab_error: Exception | None = None
        self._last_frame: Frame | None = None
        self._camera_problem: tuple[float, str] | None = None
        if recorder is not None:
            recorder.write_game(referee.log)

    def signal(self, signal: PocketSignal) -> None:
        """A pocket signal from the sensor reader (any thread)."""
        self._signals.put(signal)

    def run(self, source: FrameSource, stop: threading.Event | None = None) -> LiveStats:
        """Process the newest frames of ``source`` until it ends or ``stop`` is set."""
        stop = stop or threading.Event()
        slot = LatestFrame()
        grabber = threading.Thread(
            target=self._grab, args=(source, slot, stop), name="frame grabber", daemon=True
        )
        grabber.start()
        try:
            while not stop.is_set() and not slot.closed:
                frame = slot.take(timeout_s=0.5)
                if frame is not None:
                    self.process(frame)
            self.finish()
        finally:
            stop.set()
            grabber.join(timeout=2.0)
            self.stats.frames_dropped = slot.replaced
        if self._grab_error is not None:
            raise self._grab_error
        return self.stats

    def camera_status(self, now: float | None = None) -> str:
        """The camera's state in a few words, for the scoreboard: ``ok``, or what went wrong
        within the last `CAMERA_PROBLEM_S` seconds."""
        now = self._clock.now() if now is None else now
        problem = self._camera_problem
        if problem is None or now - problem[0] > CAMERA_PROBLEM_S:
            return "ok"
        return f"degraded: {problem[1]}"

    def process(self, frame: Frame) -> None:
        """One frame through every stage; a frame the detector cannot use is counted, shown
        as a camera problem and skipped (the match goes on)."""
        try:
            detections = self._detector.detect(frame)
        except RailbirdError as exc:
            self.stats.frames_unusable += 1
            self._camera_problem = (
                self._clock.now(),
                f"{self.stats.frames_unusable} unusable frames ({exc})",
            )
            log.warning("frame %d skipped: %s", frame.index, exc)
            self._on_tick(frame.time)
            return
        track = self._tracker.update(detections, self._drain_signals(frame.time))
        if self._on_track is not None:
            self._on_track(track)
        events = self._segmenter.update(track)
        self.stats.frames_processed += 1
        self._last_frame = frame
        now = self._clock.now()
        for event in events:
            self.stats.events += 1
            self.stats.event_delays_s.append(now - frame.time)
            self._on_update(LiveUpdate(frame.time, now, event=event, frame=frame.index))
        for shot in self._assembler.update(track, events):
            self._judge(shot, frame)
        if self._inputs is not None:
            self._inputs.drain(self.apply_input)
        self._on_tick(frame.time)

    def apply_input(self, item: OperatorInput) -> None:
        """An operator input enters the game's log (and the recording); the state re-derives.

        Raises:
            RailbirdError: the referee refuses it (the message goes back to the console).
        """
        now = self._clock.now()
        self.referee.record(item, now)
        if isinstance(item, RackReady):
            # A re-racked table: every ball was moved by hand, so tracking starts afresh.
            self._new_table()
        if self._recorder is not None:
            self._recorder.write_input(now, item.kind, to_jsonable(item))
            self._recorder.write_game(self.referee.log)
        self._on_update(LiveUpdate(now, now))

    def finish(self) -> None:
        """The source ended: judge the shot still open, if any (ended if its balls all rest)."""
        events = self._segmenter.finish()
        now = self._clock.now()
        for event in events:
            self.stats.events += 1
            self._on_update(LiveUpdate(now, now, event=event))
        for shot in self._assembler.finish(events):
            self._judge(shot, self._last_frame)

    def _new_table(self) -> None:
        """Tracking from scratch: at the start, and when a new rack is racked."""
        self._tracker = Tracker(self._table)
        self._segmenter = Segmenter(self._table, self._venue)
        self._assembler = ShotAssembler(self._table)
        # The log already holds shots (a resumed match, an earlier rack): tracking numbers its
        # shots from 0 again.
        self._shot_offset = 1 + max(
            (e.item.index for e in self.referee.log.entries if isinstance(e.item, Shot)),
            default=-1,
        )

    def _judge(self, shot: Shot, frame: Frame | None) -> None:
        if self._shot_offset:
            shot = dataclasses.replace(shot, index=shot.index + self._shot_offset)
        self.stats.shots += 1
        now = self._clock.now()
        frame_time = frame.time if frame is not None else now
        index = frame.index if frame is not None else -1
        try:
            timeline = self.referee.record(shot, shot.strike_time)
        except RailbirdError as exc:
            log.warning("shot %d could not be judged: %s", shot.index, exc)
            self._on_update(LiveUpdate(frame_time, now, shot=shot, frame=index, refused=str(exc)))
            return
        if self._recorder is not None:
            self._recorder.write_game(self.referee.log)
        self.stats.rulings += 1
        if shot.end_time is not None:
            self.stats.ruling_delays_s.append(now - max(shot.end_time, frame_time))
        update = LiveUpdate(frame_time, now, shot=shot, ruling=timeline.rulings[-1], frame=index)
        self._on_update(update)

    def _record(self, frame: Frame) -> None:
        try:
            self._recorder.write_frame(frame)  # type: ignore[union-attr]
        except RecordError as exc:  # one bad frame (a camera changing mode) is not the end
            self.stats.frames_unrecorded += 1
            self._camera_problem = (self._clock.now(), str(exc))
            log.warning("frame %d not recorded: %s", frame.index, exc)

    def _drain_signals(self, up_to: float) -> tuple[PocketSignal, ...]:
        """Signals stamped at or before ``up_to``; later ones wait for their frame."""
        while True:
            try:
                self._pending.append(self._signals.get_nowait())
            except queue.Empty:
                break
        due = tuple(s for s in self._pending if s.time <= up_to)
        self._pending = [s for s in self._pending if s.time > up_to]
        return due

    def _grab(self, source: Iterable[Frame], slot: LatestFrame, stop: threading.Event) -> None:
        try:
            for frame in source:
                if stop.is_set():
                    break
                if self._recorder is not None:
                    self._record(frame)
                self.stats.frames_grabbed += 1
                slot.put(frame)
        except RailbirdError as exc:  # a device gave out: the run ends with what was seen
            log.error("frame source failed: %s", exc)
        except Exception as exc:  # a bug: hand it to the loop's thread to raise
            self._grab_error = exc
        finally:
            slot.close()


def _median(values: deque[float]) -> float | None:
    return statistics.median(values) if values else None


def _p99(values: deque[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
