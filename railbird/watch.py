"""`railbird watch`: referee a real table live from the config's camera and pocket sensors.

The camera and the sensor board are opened from the config file, the calibration from its file;
every raw input is recorded when --record is given, so the match can be replayed and reviewed.
A failing sensor board degrades to vision only; a failing camera is retried by its source.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from calibration.file import load
from hardware.cameras.live import CameraSource
from hardware.clock import MonotonicClock
from hardware.sensors.reader import SensorReader
from railbird.config import load_config
from railbird.demo import show_update
from railbird.feed import ScoreboardFeed
from railbird.live import LiveLoop, LiveUpdate
from railbird.recording import RecordingWriter
from railbird.web.hub import Hub, InputQueue
from railbird.web.server import add_web_arguments, serve_from_args
from rules.codec import dumps
from rules.errors import ConfigError
from rules.referee import Referee

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's options."""
    parser.add_argument("--config", type=Path, required=True, help="the match's TOML config")
    parser.add_argument("--calibration", type=Path, required=True, help="calibration file")
    parser.add_argument("--players", default="Player 1,Player 2", help="two names, comma-separated")
    parser.add_argument("--record", type=Path, help="record the session into this folder")
    parser.add_argument("--no-web", action="store_true", help="no scoreboard or console server")
    add_web_arguments(parser)
    parser.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Watch until Ctrl-C (or --seconds); print events and rulings, then the run's figures."""
    config = load_config(args.config)
    if config.camera is None:
        raise ConfigError(f"{args.config}: a [camera] section is needed to watch a table")
    players = tuple(p.strip() for p in args.players.split(","))
    if len(players) != 2 or not all(players):
        raise ConfigError(f"--players {args.players!r}: give two names separated by a comma")
    calibration = load(args.calibration)
    clock = MonotonicClock()
    referee = Referee.new(config.referee.game, players, calibration.table, config.referee.options)
    recorder = None
    if args.record:
        recorder = RecordingWriter.create(
            args.record,
            calibration.image_size,
            config.camera.fps or 30.0,
            config_text=args.config.read_text(encoding="utf-8"),
            calibration_json=dumps(calibration, indent=2),
            created_utc=datetime.now(UTC).isoformat(timespec="seconds"),
        )
    hub, inputs = Hub(), InputQueue()
    hub.on_input(inputs.submit)
    feed = ScoreboardFeed(referee, hub, config.shot_clock)
    server = None if args.no_web else serve_from_args(hub, args, out)

    def on_update(update: LiveUpdate) -> None:
        show_update(update, out)
        feed.update(update)

    loop = LiveLoop(calibration, referee, clock, on_update, recorder, inputs, feed.tick)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.seconds:
        threading.Timer(args.seconds, stop.set).start()
    camera = CameraSource(config.camera, clock)
    reader = None
    if config.sensors.port:
        on_bytes = (
            (lambda data, t: recorder.write_serial(t, config.sensors.port, data))
            if recorder
            else None
        )
        reader = SensorReader(
            config.sensors.port,
            clock=clock,
            config=config.sensors.link_config(),
            on_signal=loop.signal,
            on_bytes=on_bytes,
        )
        reader.start()
    else:
        print("no [sensors] port: vision only", file=out)
    try:
        threading.Thread(target=_close_on, args=(stop, camera), daemon=True).start()
        stats = loop.run(camera, stop)
    finally:
        if server is not None:
            server.stop()
        camera.close()
        if reader is not None:
            reader.close()
        if recorder is not None:
            recorder.close()
    print(stats.summary(), file=out)
    return 0


def _close_on(stop: threading.Event, camera: CameraSource) -> None:
    """A live camera's frames never end by themselves: close it when told to stop."""
    stop.wait()
    camera.close()
