from __future__ import annotations

import argparse
import io

import pytest
import serial.tools.list_ports

from hardware.sensors.ports import list_ports, run_ports
from rules.errors import SensorError


class _Fake:
    def __init__(self, device: str, vid: int | None) -> None:
        self.device, self.vid, self.description, self.hwid = device, vid, "desc", "USB VID:PID"


def test_list_ports_puts_likely_boards_first(monkeypatch: pytest.MonkeyPatch) -> None:
    fakes = [_Fake("/dev/ttyS0", None), _Fake("/dev/ttyUSB0", 0x1A86), _Fake("/dev/ttyACM1", None)]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: fakes)
    ports = list_ports()
    assert [p.device for p in ports] == ["/dev/ttyACM1", "/dev/ttyUSB0", "/dev/ttyS0"]
    assert [p.likely_board for p in ports] == [True, True, False]
    out = io.StringIO()
    assert run_ports(argparse.Namespace(), out) == 0
    assert out.getvalue().splitlines()[0].startswith("* /dev/ttyACM1\tdesc")


def test_no_ports_is_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    out = io.StringIO()
    assert run_ports(argparse.Namespace(), out) == 0
    assert "no serial ports found" in out.getvalue()


def test_os_failure_is_a_sensor_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> list:
        raise OSError("sysfs unreadable")

    monkeypatch.setattr(serial.tools.list_ports, "comports", broken)
    with pytest.raises(SensorError, match="cannot list serial ports: sysfs unreadable"):
        list_ports()
