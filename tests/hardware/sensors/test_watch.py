from __future__ import annotations

import argparse
import io
from pathlib import Path

from hardware.clock import MonotonicClock
from hardware.sensors.watch import run_sensors, watch
from hardware.sim.sensors import (
    BoardModel,
    PtyPort,
    SimDrop,
    SimulatedBoard,
    play_in_background,
)
from rules.table import PocketId


def test_watch_prints_each_drop_with_its_pocket(tmp_path: Path) -> None:
    drops = [SimDrop(PocketId.SIDE_LEFT, 0.3), SimDrop(PocketId.FOOT_RIGHT, 0.5)]
    model = BoardModel(heartbeat_s=0.1)  # many heartbeats: a quick clock fit
    steps, _ = SimulatedBoard(drops, end=0.8, model=model).script()
    clock = MonotonicClock()
    out = io.StringIO()
    with PtyPort(tmp_path / "tty") as port:
        player, stop = play_in_background(steps, port, clock)
        try:
            seen = watch(port.path, 1.0, clock=clock, out=out)
        finally:
            stop.set()
            player.join(2.0)
    text = out.getvalue()
    assert seen == 2, text
    assert "drop side-left" in text and "drop foot-right" in text
    assert "sensors degraded" in text  # waiting for the board, then not yet synchronised


def test_run_sensors_on_a_missing_port_reports_offline(tmp_path: Path, capsys) -> None:
    args = argparse.Namespace(port=str(tmp_path / "nothing"), seconds=0.2)
    assert run_sensors(args) == 0
    assert "offline" in capsys.readouterr().out
