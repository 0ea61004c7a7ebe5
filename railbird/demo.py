"""`railbird demo`: the live loop on the virtual table, in real time.

A scenario (a whole 9-ball rack by default) is played by the physics engine, filmed by the
virtual overhead camera as frames arrive on the session clock, and its pocket drops sent by the
simulated sensor board through a pseudo-terminal to the real sensor reader. The live loop
calibrates on the first frame, then calls events and rulings as they happen.
"""

from __future__ import annotations

import argparse
import json
import logging
import pathlib
import threading
from typing import TextIO

from hardware.clock import MonotonicClock
from hardware.sensors.reader import SensorReader
from railbird.feed import ScoreboardFeed
from railbird.live import LiveLoop, LiveUpdate
from railbird.recording import RecordingWriter
from railbird.virtual_table import VirtualTable
from railbird.web.hub import Hub, InputQueue
from railbird.web.server import add_web_arguments, serve_from_args
from rules.referee import Referee

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``demo`` subcommand's options."""
    parser.add_argument("--scenario", default="rack-9ball", help="virtual-table scenario")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", help="the game the referee applies (default: the scenario's own)")
    parser.add_argument("--fps", type=float, default=30.0, help="virtual camera frame rate")
    parser.add_argument("--record", type=pathlib.Path, help="record the session into this folder")
    parser.add_argument("--no-web", action="store_true", help="no scoreboard or console server")
    add_web_arguments(parser)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Play the scenario live; print each event and ruling, then the run's figures."""
    virtual = VirtualTable(args.scenario, args.seed, args.fps)
    calibration = virtual.calibrate()
    print(f"calibrated on the first frame: {calibration.reprojection_px:.2f} px", file=out)
    game = args.game or virtual.run.game
    referee = Referee.new(game, ("Player 1", "Player 2"), virtual.table)
    clock = MonotonicClock(virtual.start)  # the session clock reads the scenario's time
    recorder = (
        RecordingWriter.create(
            args.record,
            virtual.frame_size,
            virtual.render.fps,
            config_text=f'[referee]\ngame = "{game}"\n',
            session_time=virtual.start,
        )
        if args.record
        else None
    )
    hub, inputs = Hub(), InputQueue()
    hub.on_input(inputs.submit)
    feed = ScoreboardFeed(referee, hub)
    server = None if args.no_web else serve_from_args(hub, args, out)

    def on_update(update: LiveUpdate) -> None:
        show_update(update, out)
        feed.update(update)

    loop = LiveLoop(
        calibration,
        referee,
        clock,
        on_update,
        recorder,
        inputs,
        feed.tick,
        light_height_mm=virtual.light_height_mm,
    )
    try:
        with virtual.sensor_port(clock) as port:
            on_bytes = (lambda data, t: recorder.write_serial(t, port, data)) if recorder else None
            reader = SensorReader(port, clock=clock, on_signal=loop.signal, on_bytes=on_bytes)
            with reader:
                stats = loop.run(virtual.camera(clock), threading.Event())
    finally:
        if server is not None:
            server.stop()
        if recorder is not None:
            recorder.close()
    print(json.dumps(stats.summary(), indent=1), file=out)
    return 0


def show_update(update: LiveUpdate, out: TextIO) -> None:
    """One line per event or ruling, with the delay since its frame."""
    delay_ms = (update.emitted - update.time) * 1000
    if update.event is not None:
        e = update.event
        where = e.pocket or e.cushion or ""
        print(
            f"{update.time:8.3f}  {e.kind:<14} {' '.join(e.balls):<10} {where:<12} "
            f"(+{delay_ms:.0f} ms)",
            file=out,
        )
    elif update.refused is not None and update.shot is not None:
        print(
            f"{update.time:8.3f}  NOT JUDGED shot {update.shot.index}: {update.refused}",
            file=out,
        )
    elif update.ruling is not None:
        r = update.ruling
        call = f"FOUL {r.foul.rule} {r.foul.reason}" if r.foul else "legal"
        print(
            f"{update.time:8.3f}  RULING shot {r.shot_index}: {call}; next: player "
            f"{r.next_player + 1}, ball in hand {r.ball_in_hand} (+{delay_ms:.0f} ms)",
            file=out,
        )
