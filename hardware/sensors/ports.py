"""Which serial ports this machine has: the logic of ``railbird ports``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TextIO

import serial.tools.list_ports

from rules.errors import SensorError


@dataclass(frozen=True, slots=True)
class PortInfo:
    """A serial port the machine has.

    Attributes:
        device: What to put in the config (``/dev/ttyACM0``, ``COM3``).
        description: What the OS says it is.
        hwid: USB ids and serial number.
        likely_board: It looks like an Arduino-compatible board (known USB vendor or type).
    """

    device: str
    description: str
    hwid: str
    likely_board: bool


# Arduino, Arduino.org, WCH CH340, FTDI, Silicon Labs CP210x, Adafruit, SparkFun
_BOARD_VENDORS = {0x2341, 0x2A03, 0x1A86, 0x0403, 0x10C4, 0x239A, 0x1B4F}


def list_ports() -> tuple[PortInfo, ...]:
    """Serial ports on this machine, likely sensor boards first.

    Raises:
        SensorError: The operating system would not list its ports.
    """
    try:
        found = serial.tools.list_ports.comports()
    except OSError as exc:
        raise SensorError(f"cannot list serial ports: {exc}") from exc
    ports = [
        PortInfo(
            device=p.device,
            description=p.description or "",
            hwid=p.hwid or "",
            likely_board=p.vid in _BOARD_VENDORS or "ttyACM" in p.device,
        )
        for p in found
    ]
    return tuple(sorted(ports, key=lambda p: (not p.likely_board, p.device)))


def run_ports(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``railbird ports``: print candidate sensor ports, one per line; exit status 0.

    A ``*`` marks a likely sensor board. With no ports, says so (still status 0: it is an
    answer, not a failure).
    """
    del args  # no options yet
    out = out or sys.stdout
    ports = list_ports()
    if not ports:
        print("no serial ports found (is the board plugged in?)", file=out)
        return 0
    for port in ports:
        mark = "*" if port.likely_board else " "
        print(f"{mark} {port.device}\t{port.description}\t{port.hwid}", file=out)
    return 0
