"""`railbird replay`: run a recording through the same pipeline the live monitor runs.

Frames go through the detector, the serial bytes through the sensor link, both into the
tracker, the shot segmenter and assembler, and each finished shot to the referee; the
recorded console inputs enter the referee between frames at their times. What comes
out is derived only from the recording, so replaying it twice writes the same bytes:

    events.jsonl    one line per shot event, with the frame index and time it was found at
    shots.jsonl     one line per Shot record (rules.shot.Shot as JSON)
    rulings.jsonl   one line per ruling, with the shot's index and time
    summary.json    counts, inputs that no longer fit, what the recording lacked, and the
                    final game state
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO

from tqdm import tqdm

from calibration.calibrate import calibrate_image
from calibration.file import Calibration, load
from calibration.table import TableSpec
from hardware.cameras.video_file import VideoFileSource
from hardware.clock import FakeClock
from hardware.frames import Frame
from hardware.sensors.link import SensorLink
from railbird.config import RailbirdConfig, parse_config
from railbird.live import LiveLoop, LiveUpdate
from railbird.recording import InputEntry, RecordingReader, SerialChunk
from railbird.sources import first_frame
from railbird.web.inputs import decode_input
from rules.codec import to_jsonable
from rules.errors import ConfigError, RailbirdError, RecordError
from rules.referee import Referee
from rules.signals import PocketSignal
from tracking.model import TrackFrame

log = logging.getLogger(__name__)

DEFAULT_PLAYERS = ("Player 1", "Player 2")
"""Who plays when neither the options nor the recording say."""

OUTPUTS = ("events.jsonl", "shots.jsonl", "rulings.jsonl", "summary.json")


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What the recording cannot say.

    Attributes:
        game: The game played (``9-ball``, ``8-ball``); None: the recording's config.
        players: The two players' names; None: the recording's (``Player 1``, ``Player 2``
            for a plain video).
        sensors: Use the recorded pocket-sensor bytes (False: vision only).
        calibration: A calibration file to use instead of the recording's.
        progress: Show a progress bar.
    """

    game: str | None = None
    players: tuple[str, str] | None = None
    sensors: bool = True
    calibration: Path | None = None
    progress: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``replay`` subcommand's options."""
    parser.add_argument("source", type=Path, help="a recording folder, or any video file")
    parser.add_argument("--out", type=Path, required=True, help="folder for the outputs")
    parser.add_argument("--game", help="the game played (default: the recording's config)")
    parser.add_argument("--players", help="two names, comma-separated (default: the recording's)")
    parser.add_argument("--no-sensors", action="store_true", help="ignore the sensor log")
    parser.add_argument("--calibration", type=Path, help="calibration file to use")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``railbird replay SOURCE --out DIR``."""
    options = ReplayOptions(
        args.game,
        parse_players(args.players),
        not args.no_sensors,
        args.calibration,
        progress=not args.no_progress,
    )
    summary = replay(args.source, args.out, options)
    print(
        f"{args.source}: {summary['frames']} frames, {summary['events']} events, "
        f"{summary['shots']} shots, {summary['rulings']} rulings -> {args.out}",
        file=out,
    )
    for problem in summary["problems"]:
        print(f"  lost: {problem}", file=out)
    return 0


def parse_players(text: str | None) -> tuple[str, str] | None:
    """``--players "Ann,Bob"`` as two names (None stays None).

    Raises:
        ConfigError: not two non-empty names.
    """
    if text is None:
        return None
    players = tuple(p.strip() for p in text.split(","))
    if len(players) != 2 or not all(players):
        raise ConfigError(f"--players {text!r}: give two names separated by a comma")
    return players  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class _Inputs:
    """What a replay reads, from a recording or a plain video."""

    frames: Iterable[Frame]
    frame_count: int | None
    chunks: list[SerialChunk]
    config: RailbirdConfig
    calibration: Calibration
    problems: list[str]
    operator: list[InputEntry] = field(default_factory=list)
    players: tuple[str, str] = DEFAULT_PLAYERS


def replay(
    source: Path,
    out: Path,
    options: ReplayOptions,
    on_track: Callable[[TrackFrame], None] | None = None,
) -> dict[str, Any]:
    """Replay ``source`` (a recording folder, or a plain video: vision only) into ``out``.

    ``on_track``, when given, sees the tracker's output for every frame (the review's ball
    paths come from it).

    Returns:
        The summary also written to ``out/summary.json``.

    Raises:
        RecordError: the source is unreadable, or ``out`` cannot be written.
        CalibrationError: no usable calibration.
        CameraError: a video that cannot be opened.
    """
    inputs = _open(source, options)
    table = inputs.calibration.table
    config = inputs.config
    referee = Referee.new(
        options.game or config.referee.game,
        options.players or inputs.players,
        table,
        config.referee.options,
        config.match,
    )
    signals = pocket_signals(inputs.chunks) if options.sensors else []
    frames = inputs.frames
    if options.progress:
        frames = tqdm(frames, total=inputs.frame_count, unit="frame", desc=source.name)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with (
            _Lines(out / "events.jsonl") as events_out,
            _Lines(out / "shots.jsonl") as shots_out,
            _Lines(out / "rulings.jsonl") as rulings_out,
        ):
            # The live loop's own stages, fed every frame in order on a clock that moves only
            # to the recorded inputs' times: nothing is dropped and nothing depends on how
            # fast this machine is.
            writer = _UpdateWriter(events_out, shots_out, rulings_out)
            clock = FakeClock()
            loop = LiveLoop(
                inputs.calibration,
                referee,
                clock,
                writer.write,
                on_track=on_track,
                light_height_mm=config.table.light_height_mm,
            )
            for signal in signals:
                loop.signal(signal)
            console = _Console(inputs.operator, loop, clock)
            for frame in frames:
                console.until(frame.time)
                loop.process(frame)
            console.until(math.inf)
            loop.finish()
        counts = {
            "frames": loop.stats.frames_processed,
            "events": loop.stats.events,
            "shots": loop.stats.shots,
            "rulings": loop.stats.rulings,
        }
        summary = {
            "source": str(source),
            "frames_recorded": inputs.frame_count,
            **counts,
            "pocket_signals": len(signals),
            "inputs": console.applied,
            "inputs_refused": console.refused,
            "problems": inputs.problems,
            "state": to_jsonable(referee.state),
        }
        (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        raise RecordError(f"{out}: cannot write the replay: {exc}") from exc
    return summary


class _Console:
    """The recorded operator inputs, entered between frames at their recorded times as the
    console entered them live (a rack-ready starts the next rack, a call goes with its shot)."""

    def __init__(self, entries: list[InputEntry], loop: LiveLoop, clock: FakeClock) -> None:
        self._pending = deque(sorted(entries, key=lambda e: e.time))
        self._loop = loop
        self._clock = clock
        self.applied = 0
        self.refused: list[str] = []

    def until(self, time: float) -> None:
        """Enter every input recorded at or before ``time``."""
        while self._pending and self._pending[0].time <= time:
            entry = self._pending.popleft()
            self._clock.advance(max(0.0, entry.time - self._clock.now()))
            try:
                self._loop.apply_input(decode_input(entry.value))
                self.applied += 1
            except RailbirdError as exc:
                # The pipeline saw the match differently this time (an improved tracker):
                # say which input no longer fits rather than stop.
                log.warning("input at %.3f s (%s) refused: %s", entry.time, entry.kind, exc)
                self.refused.append(f"{entry.time:.3f} s {entry.kind}: {exc}")


def _open(source: Path, options: ReplayOptions) -> _Inputs:
    if source.is_dir():
        reader = RecordingReader(source)
        path = options.calibration or reader.root / "calibration.json"
        if not path.is_file():
            raise RecordError(f"{source}: the recording has no calibration; pass --calibration")
        return _Inputs(
            reader,
            len(reader.frame_times()),
            reader.serial_chunks(),
            parse_config(reader.config_text(), f"{source}/config.toml"),
            load(path, image_size=reader.size),
            reader.problems,
            reader.inputs(),
            _recorded_players(reader),
        )
    video = VideoFileSource(source)
    if options.calibration is not None:
        calibration = load(options.calibration, image_size=video.size)
    else:
        first = first_frame(VideoFileSource(source), str(source))
        calibration = calibrate_image(
            first.image, TableSpec.standard("9ft"), made_from=f"{source} frame 0"
        )
        log.info("%s: calibrated from its first frame (lens %s)", source, calibration.intrinsics)
    return _Inputs(video, video.expected_frames, [], RailbirdConfig(), calibration, [])


def _recorded_players(reader: RecordingReader) -> tuple[str, str]:
    game = reader.game()
    return game.players if game is not None else DEFAULT_PLAYERS


class _UpdateWriter:
    """Writes the live loop's updates as the replay's JSON Lines outputs."""

    def __init__(self, events_out: _Lines, shots_out: _Lines, rulings_out: _Lines) -> None:
        self._events, self._shots, self._rulings = events_out, shots_out, rulings_out

    def write(self, update: LiveUpdate) -> None:
        if update.event is not None:
            self._events.write(
                {"frame": update.frame, "time": update.time, "event": to_jsonable(update.event)}
            )
        shot = update.shot
        if shot is None:
            return
        self._shots.write(to_jsonable(shot))
        line: dict[str, Any] = {"shot": shot.index, "time": shot.strike_time}
        if update.ruling is not None:
            line["ruling"] = to_jsonable(update.ruling)
        else:
            line["error"] = update.refused
        self._rulings.write(line)


def pocket_signals(chunks: Iterable[SerialChunk]) -> list[PocketSignal]:
    """The drops the recorded bytes carry, one link per port, fed in arrival order."""
    links: dict[str, SensorLink] = {}
    signals: list[PocketSignal] = []
    for chunk in sorted(chunks, key=lambda c: c.time):
        link = links.get(chunk.port)
        if link is None:
            link = links[chunk.port] = SensorLink(chunk.port)
            link.opened(chunk.time)
        signals.extend(link.receive(chunk.data, chunk.time))
    return signals


class _Lines:
    """A JSON Lines file with stable key order and float formatting, for identical replays."""

    def __init__(self, path: Path) -> None:
        self._file: IO[str] = path.open("w", encoding="utf-8")

    def write(self, value: Any) -> None:
        self._file.write(json.dumps(value, separators=(",", ":"), allow_nan=True) + "\n")

    def __enter__(self) -> _Lines:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


def iter_lines(path: Path) -> Iterator[dict[str, Any]]:
    """Read back a JSON Lines output of a replay."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)
