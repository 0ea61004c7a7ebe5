from __future__ import annotations

import io

import pytest
import serial
from hypothesis import given
from hypothesis import strategies as st

from hardware.displays import (
    LedCommand,
    SerialLedShotClock,
    ShotClockDisplay,
    TerminalShotClock,
    big_digits,
    decode_line,
    encode_brightness,
    encode_reading,
    shown_seconds,
)
from rules.errors import HardwareError
from rules.shot_clock import ClockPhase, ClockReading

RUNNING = ClockReading(ClockPhase.RUNNING, remaining_s=23.5, limit_s=35.0)
WARNING = ClockReading(ClockPhase.WARNING, remaining_s=7.2, limit_s=35.0, extension_used=True)
EXPIRED = ClockReading(ClockPhase.EXPIRED, remaining_s=0.0, limit_s=35.0)
IDLE = ClockReading(ClockPhase.IDLE, remaining_s=35.0, limit_s=35.0)


class Terminal(io.StringIO):
    """A text buffer that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("reading", "seconds"), [(RUNNING, 24), (WARNING, 8), (EXPIRED, 0), (IDLE, 35)]
)
def test_a_shot_clock_shows_the_time_left_rounded_up(reading, seconds) -> None:
    assert shown_seconds(reading) == seconds


def test_both_displays_are_shot_clock_displays() -> None:
    displays: list[ShotClockDisplay] = [
        TerminalShotClock(io.StringIO()),
        SerialLedShotClock("loop://"),
    ]
    for display in displays:
        display.show(RUNNING)
        display.close()


# -- terminal -------------------------------------------------------------------------------


def test_a_plain_stream_gets_one_plain_line_per_reading() -> None:
    out = io.StringIO()
    display = TerminalShotClock(out)
    for reading in (RUNNING, WARNING, EXPIRED):
        display.show(reading)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert "\x1b" not in out.getvalue()
    assert " 24  running  (35 s)" in lines[0]
    assert "  8  warning  (35 s, extension used)" in lines[1]
    assert "  0  TIME - foul" in lines[2]


def test_a_terminal_gets_colour_by_phase_and_redraws_in_place() -> None:
    out = Terminal()
    display = TerminalShotClock(out)
    display.show(RUNNING)
    display.show(EXPIRED)
    text = out.getvalue()
    assert "\x1b[32m" in text and "\x1b[1;31m" in text  # green running, red expired
    assert "\n" not in text  # one line, rewritten
    assert text.count("\r\x1b[2K") == 2
    display.close()
    assert out.getvalue().endswith("\n")


def test_colour_can_be_turned_off_on_a_terminal() -> None:
    out = Terminal()
    TerminalShotClock(out, colour=False).show(WARNING)
    assert "\x1b[1;33m" not in out.getvalue()


def test_big_digits_draw_the_seconds_above_the_line() -> None:
    out = io.StringIO()
    TerminalShotClock(out, big=True).show(ClockReading(ClockPhase.RUNNING, 33.2, 35.0))
    rows = out.getvalue().splitlines()
    assert rows[:5] == [
        "███ █ █",
        "  █ █ █",
        "███ ███",
        "  █   █",
        "███   █",
    ]
    assert "35 s" in rows[5]


def test_big_digits_on_a_terminal_redraw_the_whole_block_in_place() -> None:
    out = Terminal()
    display = TerminalShotClock(out, big=True, colour=False)
    display.show(RUNNING)
    first = out.getvalue()
    display.show(WARNING)
    assert out.getvalue()[len(first) :].startswith("\x1b[5F")  # up to the first row
    display.blank()
    assert out.getvalue().endswith("\x1b[2K")


def test_big_digits_refuse_what_is_not_a_digit() -> None:
    assert big_digits("8")[2] != big_digits("0")[2]
    with pytest.raises(ValueError, match="'x'"):
        big_digits("1x")


# -- serial LED protocol --------------------------------------------------------------------


def test_reading_line_matches_the_documented_example() -> None:
    assert encode_reading(RUNNING) == b"T 235 R 0 *22\n"
    assert encode_reading(EXPIRED).startswith(b"T 0 E 0 *")
    assert decode_line(encode_reading(WARNING)) == LedCommand("T", ("72", "W", "1"))
    assert decode_line(encode_brightness(8)) == LedCommand("B", ("8",))


readings = st.builds(
    lambda phase, limit, share, ext: ClockReading(phase, limit * share, limit, ext),
    st.sampled_from(list(ClockPhase)),
    st.floats(1.0, 600.0),
    st.floats(0.0, 1.0),
    st.booleans(),
)


@given(readings)
def test_every_reading_encodes_to_a_line_the_controller_accepts(reading: ClockReading) -> None:
    command = decode_line(encode_reading(reading))
    tenths, phase, ext = command.args
    assert command.kind == "T"
    assert 0 <= int(tenths) <= 9999
    expected = 0 if reading.phase is ClockPhase.EXPIRED else round(reading.remaining_s * 10)
    assert int(tenths) == min(9999, expected)
    assert phase == reading.phase.name[0]
    assert ext == ("1" if reading.extension_used else "0")


@pytest.mark.parametrize(
    "line",
    [b"T 235 R 0 *23\n", b"T 235 R 0\n", b"Q 1 *51\n", b"\xff\xfe *01\n", b"B *42\n"],
)
def test_the_controller_refuses_damaged_or_unknown_lines(line: bytes) -> None:
    with pytest.raises(HardwareError, match="LED display line"):
        decode_line(line)


def test_brightness_outside_the_range_is_refused() -> None:
    with pytest.raises(ValueError, match="0-15"):
        encode_brightness(16)
    with pytest.raises(ValueError, match="0-15"):
        SerialLedShotClock("loop://", brightness=-1)


# -- serial LED display over a loopback port ------------------------------------------------


class Loopback:
    """A serial factory handing out `loop://` ports whose echo the test can read."""

    def __init__(self) -> None:
        self.ports: list[serial.SerialBase] = []
        self.fail_opens = 0

    def __call__(self, url: str, **kwargs):
        if self.fail_opens:
            self.fail_opens -= 1
            raise serial.SerialException(f"could not open port {url}: unplugged")
        port = serial.serial_for_url("loop://", **kwargs)
        self.ports.append(port)
        return port

    def lines(self, port_number: int = -1) -> list[bytes]:
        port = self.ports[port_number]
        data = port.read(port.in_waiting)
        return [line + b"\n" for line in data.split(b"\n") if line]


def test_the_display_writes_documented_lines_to_the_port() -> None:
    loop = Loopback()
    display = SerialLedShotClock("/dev/ttyUSB7", brightness=9, serial_factory=loop)
    display.show(RUNNING)
    display.blank()
    commands = [decode_line(line) for line in loop.lines()]
    assert commands == [
        LedCommand("B", ("9",)),
        LedCommand("T", ("235", "R", "0")),
        LedCommand("X"),
    ]


def test_a_port_that_will_not_open_is_a_hardware_error_and_the_next_show_retries() -> None:
    loop = Loopback()
    loop.fail_opens = 1
    display = SerialLedShotClock("/dev/ttyUSB7", serial_factory=loop)
    with pytest.raises(HardwareError, match=r"/dev/ttyUSB7: cannot open: .*unplugged"):
        display.show(RUNNING)
    assert not display.connected
    display.show(WARNING)
    assert [decode_line(line).args for line in loop.lines()] == [("72", "W", "1")]


def test_a_missing_device_fails_fast_with_its_name() -> None:
    display = SerialLedShotClock("/dev/ttyRAILBIRD-NONE")
    with pytest.raises(HardwareError, match="ttyRAILBIRD-NONE"):
        display.show(RUNNING)


class BrokenPort:
    def __init__(self) -> None:
        self.closed = False

    def write(self, data: bytes) -> int:
        raise serial.SerialTimeoutException("Write timeout")

    def close(self) -> None:
        self.closed = True


def test_a_write_that_fails_drops_the_port_and_the_next_show_reconnects_with_brightness() -> None:
    broken = BrokenPort()
    loop = Loopback()
    factories = iter([lambda url, **kw: broken, loop])
    display = SerialLedShotClock(
        "/dev/ttyACM3", brightness=4, serial_factory=lambda url, **kw: next(factories)(url, **kw)
    )
    with pytest.raises(HardwareError, match=r"/dev/ttyACM3: write failed: Write timeout"):
        display.show(RUNNING)
    assert broken.closed and not display.connected
    display.show(IDLE)
    assert [decode_line(line).kind for line in loop.lines()] == ["B", "T"]
    display.close()
    display.close()
    assert not display.connected
