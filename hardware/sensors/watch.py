"""Watch a sensor board live: the logic of ``railbird sensors PORT`` (wiring checks at install).

Prints every drop (pocket, session time, uncertainty) and every status change, so an installer
can drop a ball in each pocket and see the right name come up.
"""

from __future__ import annotations

import argparse
import queue
import sys
from typing import TextIO

from hardware.clock import Clock, MonotonicClock
from hardware.sensors.link import LinkConfig, SensorStatus
from hardware.sensors.reader import SensorReader


def watch(
    port: str,
    seconds: float | None,
    *,
    clock: Clock | None = None,
    config: LinkConfig | None = None,
    out: TextIO | None = None,
) -> int:
    """Print drops and status changes from ``port`` for ``seconds`` (None: until Ctrl-C).

    Returns:
        The number of drops seen.
    """
    clock = clock or MonotonicClock()
    out = out or sys.stdout
    statuses: queue.Queue[SensorStatus] = queue.Queue()
    drops = 0
    reader = SensorReader(port, clock=clock, config=config, on_status=statuses.put)
    with reader:
        try:
            while seconds is None or clock.now() < seconds:
                while not statuses.empty():
                    print(f"{clock.now():9.3f}  {statuses.get_nowait()}", file=out)
                try:
                    signal = reader.signals.get(timeout=0.05)
                except queue.Empty:
                    continue
                drops += 1
                print(
                    f"{signal.time:9.3f}  drop {signal.pocket:<10} "
                    f"+-{signal.uncertainty * 1e3:.1f} ms  seq {signal.sequence}",
                    file=out,
                )
        except KeyboardInterrupt:
            pass
    print(f"{drops} drop(s); link: {reader.link.parser.counters}", file=out)
    return drops


def run_sensors(args: argparse.Namespace) -> int:
    """``railbird sensors PORT [--seconds S]``: watch the board; exit status 0."""
    watch(args.port, args.seconds)
    return 0
