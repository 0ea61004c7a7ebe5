"""`railbird replay`: run a recording through the same pipeline the live monitor runs.

Frames go through the detector, the serial bytes through the sensor link, both into the
tracker, the shot segmenter and assembler, and each finished shot to the referee. What comes
out is derived only from the recording, so replaying it twice writes the same bytes:

    events.jsonl    one line per shot event, with the frame index and time it was found at
    shots.jsonl     one line per Shot record (rules.shot.Shot as JSON)
    rulings.jsonl   one line per ruling, with the shot's index and time
    summary.json    counts, what the recording lacked, and the final game state
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
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
from railbird.recording import RecordingReader, SerialChunk
from railbird.sources import first_frame
from rules.codec import to_jsonable
from rules.errors import ConfigError, RecordError
from rules.referee import Referee
from rules.signals import PocketSignal
from tracking.model import TrackFrame

log = logging.getLogger(__name__)

OUTPUTS = ("events.jsonl", "shots.jsonl", "rulings.jsonl", "summary.json")


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """What the recording cannot say.

    Attributes:
        game: The game played (``9-ball``, ``8-ball``); None: the recording's config.
        players: The two players' names.
        sensors: Use the recorded pocket-sensor bytes (False: vision only).
        calibration: A calibration file to use instead of the recording's.
        progress: Show a progress bar.
    """

    game: str | None = None
    players: tuple[str, str] = ("Player 1", "Player 2")
    sensors: bool = True
    calibration: Path | None = None
    progress: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``replay`` subcommand's options."""
    parser.add_argument("source", type=Path, help="a recording folder, or any video file")
    parser.add_argument("--out", type=Path, required=True, help="folder for the outputs")
    parser.add_argument("--game", help="the game played (default: the recording's config)")
    parser.add_argument("--players", default="Player 1,Player 2", help="two names, comma-separated")
    parser.add_argument("--no-sensors", action="store_true", help="ignore the sensor log")
    parser.add_argument("--calibration", type=Path, help="calibration file to use")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``railbird replay SOURCE --out DIR``."""
    players = tuple(p.strip() for p in args.players.split(","))
    if len(players) != 2 or not all(players):
        raise ConfigError(f"--players {args.players!r}: give two names separated by a comma")
    options = ReplayOptions(
        args.game, players, not args.no_sensors, args.calibration, progress=not args.no_progress
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


@dataclass(frozen=True, slots=True)
class _Inputs:
    """What a replay reads, from a recording or a plain video."""

    frames: Iterable[Frame]
    frame_count: int | None
    chunks: list[SerialChunk]
    config: RailbirdConfig
    calibration: Calibration
    problems: list[str]


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
    referee = Referee.new(
        options.game or inputs.config.referee.game,
        options.players,
        table,
        inputs.config.referee.options,
    )
    signals = _pocket_signals(inputs.chunks) if options.sensors else []
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
            # The live loop's own stages, fed every frame in order on a clock that never
            # moves: nothing is dropped and nothing depends on how fast this machine is.
            writer = _UpdateWriter(events_out, shots_out, rulings_out)
            loop = LiveLoop(
                inputs.calibration, referee, FakeClock(), writer.write, on_track=on_track
            )
            for signal in signals:
                loop.signal(signal)
            for frame in frames:
                loop.process(frame)
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
            "problems": inputs.problems,
            "state": to_jsonable(referee.state),
        }
        (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        raise RecordError(f"{out}: cannot write the replay: {exc}") from exc
    return summary


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


def _pocket_signals(chunks: Iterable[SerialChunk]) -> list[PocketSignal]:
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
