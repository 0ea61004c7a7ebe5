"""`railbird watch`: referee a real table live from the config's camera and pocket sensors.

The camera and the sensor board are opened from the config file, the calibration from its file;
every raw input is recorded when --record is given, so the match can be replayed and reviewed,
and the live referee's log with it, so ``--resume DIR`` continues the match after a crash.
``--virtual-table SCENARIO`` watches the virtual table instead of the config's devices (its
camera rendered live, its sensor board through a pty): the same loop, for tests and trials.
A failing sensor board degrades to vision only; a failing camera is retried by its source;
frames the detector cannot use are skipped and counted. Every fault is shown on the scoreboard
and printed; none stops the match.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from calibration.file import Calibration, load
from hardware.cameras.live import CameraSource, CameraStatus
from hardware.clock import Clock, MonotonicClock
from hardware.frames import FrameSource
from hardware.sensors.link import LinkState
from hardware.sensors.reader import SensorReader
from railbird.config import RailbirdConfig, load_config
from railbird.demo import show_update
from railbird.feed import ScoreboardFeed
from railbird.live import LiveLoop, LiveUpdate
from railbird.recording import RecordingWriter
from railbird.resume import ResumePoint, resume_point
from railbird.virtual_table import Drill, FrameClock, VirtualTable
from railbird.web.hub import Hub, InputQueue
from railbird.web.server import add_web_arguments, serve_from_args
from rules.codec import dumps, loads, to_jsonable
from rules.config import RefereeConfig
from rules.errors import ConfigError, RecordError
from rules.match import MatchUnit
from rules.referee import Referee

log = logging.getLogger(__name__)

DEFAULT_PLAYERS = "Player 1,Player 2"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's options."""
    parser.add_argument(
        "--config", type=Path, help="the match's TOML config (with --resume: the recorded one)"
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        help="calibration file (with --resume: the recorded one; with --virtual-table: made "
        "from the first frame)",
    )
    parser.add_argument("--players", help=f"two names, comma-separated (default {DEFAULT_PLAYERS})")
    parser.add_argument("--record", type=Path, help="record the session into this folder")
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="continue the match recorded in DIR after a crash, and keep recording into it",
    )
    parser.add_argument(
        "--virtual-table",
        metavar="SCENARIO",
        help="watch the virtual table play SCENARIO instead of the config's camera and sensors",
    )
    parser.add_argument("--seed", type=int, default=0, help="the virtual table's seed")
    parser.add_argument("--fps", type=float, default=30.0, help="the virtual camera's rate")
    parser.add_argument(
        "--real-time",
        action="store_true",
        help="the virtual table plays in real time, frames dropped when the monitor falls "
        "behind (default: in lockstep with the monitor, no frame dropped)",
    )
    parser.add_argument(
        "--clean",
        action="store_true",
        help="the virtual camera renders without sensor noise and JPEG (faster)",
    )
    parser.add_argument(
        "--sensors-unplugged",
        type=_span,
        action="append",
        default=[],
        metavar="FROM:TO",
        help="fault drill: the virtual sensor board's cable is out from FROM to TO (session s)",
    )
    parser.add_argument(
        "--corrupt-frames",
        type=_span,
        action="append",
        default=[],
        metavar="FROM:TO",
        help="fault drill: the virtual camera delivers corrupt frames from FROM to TO",
    )
    parser.add_argument("--no-web", action="store_true", help="no scoreboard or console server")
    add_web_arguments(parser)
    parser.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Watch until Ctrl-C (or --seconds, or the virtual table's end); print events, rulings
    and the game state after each, then the run's figures.

    Raises:
        ConfigError: the config, the players or the options do not fit together.
        RecordError: --resume names a folder that is not a resumable recording of this match.
    """
    if args.record and args.resume:
        raise ConfigError("--record and --resume: a resumed match keeps recording into its folder")
    players = _players(args.players) if args.players else None
    lockstep = bool(args.virtual_table) and not args.real_time
    point = _resume_point(args, players, follow_wall=not lockstep) if args.resume else None
    virtual = (
        VirtualTable(
            args.virtual_table,
            args.seed,
            args.fps,
            args.clean,
            Drill(tuple(args.sensors_unplugged), tuple(args.corrupt_frames)),
        )
        if args.virtual_table
        else None
    )
    config = point.config if point else _config(args, virtual)
    if virtual is None and config.camera is None:
        where = args.config or (point.root / "config.toml" if point else "the config")
        raise ConfigError(f"{where}: a [camera] section is needed to watch a table")
    calibration = _calibration(args, point, virtual)
    if point is not None:
        referee = Referee(point.log, calibration.table)
        start = point.session_time
    else:
        names = players or _players(DEFAULT_PLAYERS)
        referee = Referee.new(
            config.referee.game, names, calibration.table, config.referee.options, config.match
        )
        start = virtual.start if virtual is not None else 0.0
    clock: Clock
    if virtual is not None and not args.real_time:
        clock = FrameClock(start, args.fps)
    else:
        clock = MonotonicClock(start)
    recorder = _recorder(args, point, calibration, start, config)
    if point is not None:
        print(
            f"resumed {point.root}: {len(point.log.entries)} log entries, {point.frames} frames; "
            f"session clock from {start:.3f} s",
            file=out,
        )
    show_state(referee, out)
    hub, inputs = Hub(), InputQueue()
    hub.on_input(inputs.submit)
    status = _Status(out)
    feed = ScoreboardFeed(referee, hub, config.shot_clock, status.read)
    with contextlib.ExitStack() as stack:
        if recorder is not None:
            stack.callback(recorder.close)
        if not args.no_web:
            stack.callback(serve_from_args(hub, args, out).stop)

        def on_update(update: LiveUpdate) -> None:
            show_update(update, out)
            if update.ruling is not None or update.event is None:
                show_state(referee, out)
            feed.update(update)

        def on_tick(t: float) -> None:
            if isinstance(clock, FrameClock):
                clock.frame_done(t)
            feed.tick(t)

        loop = LiveLoop(
            calibration,
            referee,
            clock,
            on_update,
            recorder,
            inputs,
            on_tick,
            light_height_mm=(
                virtual.light_height_mm if virtual is not None else config.table.light_height_mm
            ),
        )
        camera: FrameSource
        if virtual is not None:
            camera = virtual.camera(clock)
            port: str | None = stack.enter_context(virtual.sensor_port(clock))
            link = None
            print(
                f"virtual table: {args.virtual_table} seed {args.seed}, sensors on {port}", file=out
            )
        else:
            assert config.camera is not None
            camera = CameraSource(config.camera, clock)
            port, link = config.sensors.port or None, config.sensors.link_config()
        stack.callback(camera.close)
        reader = None
        if port:
            on_bytes = (lambda data, t: recorder.write_serial(t, port, data)) if recorder else None
            reader = SensorReader(
                port, clock=clock, config=link, on_signal=loop.signal, on_bytes=on_bytes
            )
            reader.start()
            stack.callback(reader.close)
        else:
            print("no [sensors] port: vision only", file=out)
        status.watch(reader, camera, loop)
        stop = threading.Event()
        stack.callback(_stop_on_signals(stop))
        if isinstance(clock, FrameClock):
            stack.callback(clock.release)
        if args.seconds:
            timer = threading.Timer(args.seconds, stop.set)
            timer.daemon = True
            timer.start()
        threading.Thread(target=_close_on, args=(stop, camera, clock), daemon=True).start()
        stats = loop.run(camera, stop)
    print(json.dumps(stats.summary(), indent=1), file=out)
    return 0


def show_state(referee: Referee, out: TextIO) -> None:
    """The game state as one line of JSON (what the scoreboard shows comes from it), then the
    match in one line: the score, and when a rack is over who breaks the next or who won."""
    print("state: " + json.dumps(to_jsonable(referee.state), separators=(",", ":")), file=out)
    line = match_line(referee)
    if line:
        print(line, file=out)


def match_line(referee: Referee) -> str:
    """The match in a few words (``match: Ann 2 - 1 Bob, race to 7 racks; rack 4``); empty
    for a single game."""
    match, state = referee.match, referee.state
    if match is None:
        return ""
    a, b = match.players
    config = match.config
    if config.unit is MatchUnit.POINTS:
        counted = state.over and state.winner is not None
        running = (0, 0) if counted else (state.scores[0], state.scores[1])
        score = (match.points_of(a) + running[0], match.points_of(b) + running[1])
    else:
        score = (match.racks_won(a), match.racks_won(b))
    text = f"match: {a} {score[0]} - {score[1]} {b}, race to {config.race_to} {config.unit}"
    if match.is_over:
        return f"{text}; match over: {match.winner} wins"
    if state.over:
        return f"{text}; rack over: {match.next_breaker} breaks next, on the console's rack ready"
    return f"{text}; rack {len(match.racks) + 1}, {match.players[state.breaker]} broke"


class _Status:
    """The sensors' and the camera's status for the scoreboard, printed when it changes."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._reader: SensorReader | None = None
        self._camera: FrameSource | None = None
        self._loop: LiveLoop | None = None
        self._shown: tuple[str, str] | None = None
        self._lock = threading.Lock()

    def watch(self, reader: SensorReader | None, camera: FrameSource, loop: LiveLoop) -> None:
        self._reader, self._camera, self._loop = reader, camera, loop

    def read(self) -> tuple[str, str]:
        """(sensors, camera) in a few words; "ok" when all is well."""
        sensors = "none: vision only"
        if self._reader is not None:
            s = self._reader.status
            if s.state is LinkState.ONLINE:
                sensors = "ok"
            else:
                why = "; ".join(s.reasons)
                vision = ": vision only" if s.state is LinkState.OFFLINE else ""
                sensors = f"{s.state}{vision}" + (f" ({why})" if why else "")
        camera = self._loop.camera_status() if self._loop is not None else "ok"
        if camera == "ok" and isinstance(self._camera, CameraSource):
            health = self._camera.health()
            if health.status is not CameraStatus.ONLINE:
                camera = f"{health.status}: {health.reason}"
        with self._lock:
            if (sensors, camera) != self._shown:
                if self._shown is None or sensors != self._shown[0]:
                    print(f"status: sensors {sensors}", file=self._out)
                if self._shown is None or camera != self._shown[1]:
                    print(f"status: camera {camera}", file=self._out)
                self._shown = (sensors, camera)
        return sensors, camera


def _span(text: str) -> tuple[float, float]:
    try:
        start, end = (float(v) for v in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give FROM:TO in seconds") from None
    if end < start:
        raise argparse.ArgumentTypeError(f"{text!r}: ends before it starts")
    return start, end


def _players(text: str) -> tuple[str, str]:
    players = tuple(p.strip() for p in text.split(","))
    if len(players) != 2 or not all(players):
        raise ConfigError(f"--players {text!r}: give two names separated by a comma")
    return players[0], players[1]


def _config(args: argparse.Namespace, virtual: VirtualTable | None) -> RailbirdConfig:
    if args.config is not None:
        return load_config(args.config)
    if virtual is None:
        raise ConfigError("--config is needed (or --resume DIR, or --virtual-table)")
    # The scenario's own game: a 9-ball referee would never see the 13 a cut shot pots.
    return RailbirdConfig(referee=RefereeConfig(game=virtual.run.game))


def _resume_point(
    args: argparse.Namespace, players: tuple[str, str] | None, follow_wall: bool
) -> ResumePoint:
    config_text = None
    if args.config is not None:
        load_config(args.config)  # its own errors first
        config_text = args.config.read_text(encoding="utf-8")
    calibration_json = dumps(load(args.calibration), indent=2) if args.calibration else None
    return resume_point(
        args.resume, None, config_text, calibration_json, players, follow_wall=follow_wall
    )


def _calibration(
    args: argparse.Namespace, point: ResumePoint | None, virtual: VirtualTable | None
) -> Calibration:
    if args.calibration is not None:
        return load(args.calibration)
    if point is not None and point.calibration_json is not None:
        where = str(point.root / "calibration.json")
        return loads(Calibration, point.calibration_json, where=where)
    if virtual is not None:
        return virtual.calibrate()
    raise ConfigError("--calibration is needed to watch a table")


def _recorder(
    args: argparse.Namespace,
    point: ResumePoint | None,
    calibration: Calibration,
    start: float,
    config: RailbirdConfig,
) -> RecordingWriter | None:
    if point is not None:
        writer = RecordingWriter.resume(point.root)
        if tuple(writer.meta.frame_size) != tuple(calibration.image_size):
            writer.close()
            raise RecordError(
                f"{point.root}: frames are {tuple(writer.meta.frame_size)}, the calibration's "
                f"camera {tuple(calibration.image_size)}"
            )
        return writer
    if not args.record:
        return None
    if args.config:
        config_text = args.config.read_text(encoding="utf-8")
    else:  # the virtual table's own game, so a replay or a resume referees the same one
        config_text = f'[referee]\ngame = "{config.referee.game}"\n'
    fps = args.fps if args.virtual_table else (config.camera.fps or 30.0)  # type: ignore[union-attr]
    return RecordingWriter.create(
        args.record,
        calibration.image_size,
        fps,
        config_text=config_text,
        calibration_json=dumps(calibration, indent=2),
        created_utc=datetime.now(UTC).isoformat(timespec="milliseconds"),
        session_time=start,
    )


def _stop_on_signals(stop: threading.Event) -> Callable[[], None]:
    """Ctrl-C (and a service manager's TERM) end the run cleanly, recording closed; returns
    what puts the previous handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda *_: stop.set())

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


def _close_on(stop: threading.Event, camera: FrameSource, clock: Clock) -> None:
    """A live camera's frames never end by themselves: close it when told to stop (and let a
    virtual camera waiting for its next frame's moment go)."""
    stop.wait()
    camera.close()
    if isinstance(clock, FrameClock):
        clock.release()
