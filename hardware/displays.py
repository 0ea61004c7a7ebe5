"""Shot-clock displays: a terminal and a serial seven-segment LED controller.

Every display shows a `rules.shot_clock.ClockReading` and nothing else; the clock model that
makes readings lives in `rules`, the web scoreboard in `railbird`.

Serial LED protocol (host -> controller, one way, ASCII lines)
---------------------------------------------------------------

Each line is ``<command> *<checksum>\\n`` where the checksum is two upper-case hex digits of the
XOR of every byte before the space that precedes ``*`` (as in NMEA). The controller ignores a
line whose checksum does not match, and keeps showing what it showed before.

=============================== ==============================================================
``T <tenths> <phase> <ext> *CS`` Show the clock: ``tenths`` of a second left (integer,
                                 0-9999), ``phase`` one letter (``I`` idle, ``R`` running,
                                 ``W`` warning, ``S`` stopped, ``E`` expired), ``ext`` ``1``
                                 once the extension is used, else ``0``.
``B <level> *CS``                Brightness, 0 (dimmest) to 15.
``X *CS``                        Blank the display.
=============================== ==============================================================

Example: ``T 235 R 0 *22`` shows 24 (a controller shows whole seconds rounded up, as shot
clocks do), in the running colour. Suggested controller behaviour: ``W`` flashes the digits,
``E`` shows ``00`` steadily with a horn output pulse, ``S`` freezes the digits, ``I`` shows the
limit dimmed, ``ext`` lights a decimal point. The host sends a ``T`` line on every reading; a
controller that hears nothing for a few seconds should blank itself, so a dead host never
leaves a stale time on the wall.
"""

from __future__ import annotations

import logging
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

import serial

from rules.errors import HardwareError
from rules.shot_clock import ClockPhase, ClockReading

log = logging.getLogger(__name__)

PHASE_LETTERS: dict[ClockPhase, str] = {
    ClockPhase.IDLE: "I",
    ClockPhase.RUNNING: "R",
    ClockPhase.WARNING: "W",
    ClockPhase.STOPPED: "S",
    ClockPhase.EXPIRED: "E",
}
MAX_TENTHS = 9999
MAX_BRIGHTNESS = 15


class ShotClockDisplay(Protocol):
    """Anything that shows the shot clock."""

    def show(self, reading: ClockReading) -> None:
        """Show one reading; returns promptly.

        Raises:
            HardwareError: the display's device is gone (a later call tries again).
        """
        ...

    def blank(self) -> None:
        """Show nothing."""
        ...

    def close(self) -> None:
        """Release the device; idempotent."""
        ...


def shown_seconds(reading: ClockReading) -> int:
    """Whole seconds a shot clock shows: the time left rounded up (0 only once expired)."""
    if reading.phase is ClockPhase.EXPIRED:
        return 0
    return math.ceil(round(reading.remaining_s, 6))


# -- the terminal ---------------------------------------------------------------------------

_COLOURS: dict[ClockPhase, str] = {
    ClockPhase.IDLE: "\x1b[2m",
    ClockPhase.RUNNING: "\x1b[32m",
    ClockPhase.WARNING: "\x1b[1;33m",
    ClockPhase.STOPPED: "\x1b[36m",
    ClockPhase.EXPIRED: "\x1b[1;31m",
}
_RESET = "\x1b[0m"

# Five rows per digit, three columns: a seven-segment look in any monospaced font.
_FONT: dict[str, tuple[str, ...]] = {
    "0": ("###", "# #", "# #", "# #", "###"),
    "1": ("  #", "  #", "  #", "  #", "  #"),
    "2": ("###", "  #", "###", "#  ", "###"),
    "3": ("###", "  #", "###", "  #", "###"),
    "4": ("# #", "# #", "###", "  #", "  #"),
    "5": ("###", "#  ", "###", "  #", "###"),
    "6": ("###", "#  ", "###", "# #", "###"),
    "7": ("###", "  #", "  #", "  #", "  #"),
    "8": ("###", "# #", "###", "# #", "###"),
    "9": ("###", "# #", "###", "  #", "###"),
}
BIG_ROWS = 5


def describe(reading: ClockReading) -> str:
    """One line of text for a reading, e.g. ``shot clock  24  running  (35 s, extension used)``."""
    words = {
        ClockPhase.IDLE: "ready",
        ClockPhase.RUNNING: "running",
        ClockPhase.WARNING: "warning",
        ClockPhase.STOPPED: "stopped",
        ClockPhase.EXPIRED: "TIME - foul",
    }
    extension = ", extension used" if reading.extension_used else ""
    limit = f"{reading.limit_s:g} s"
    seconds = shown_seconds(reading)
    return f"shot clock {seconds:3d}  {words[reading.phase]}  ({limit}{extension})"


def big_digits(text: str, glyph: str = "#") -> list[str]:
    """Render digits as `BIG_ROWS` rows of block characters.

    Raises:
        ValueError: ``text`` holds something other than digits.
    """
    unknown = sorted(set(text) - set(_FONT))
    if unknown:
        raise ValueError(f"no big glyph for {''.join(unknown)!r}")
    rows = [" ".join(_FONT[c][row] for c in text) for row in range(BIG_ROWS)]
    return [row.replace("#", glyph) for row in rows]


class TerminalShotClock:
    """The shot clock on a text stream (a terminal, a log file, a test buffer).

    On a terminal the reading is redrawn in place and coloured by phase; on anything else each
    reading is one more line (or block) of plain text.

    Args:
        stream: Where to write (standard output by default).
        big: Draw the seconds in large block digits above the description line.
        colour: ANSI colours; ``None`` means only when ``stream`` is a terminal.
    """

    def __init__(
        self, stream: TextIO | None = None, *, big: bool = False, colour: bool | None = None
    ) -> None:
        self._stream = stream if stream is not None else sys.stdout
        self._tty = _isatty(self._stream)
        self._colour = self._tty if colour is None else colour
        self._big = big
        self._glyph = "█" if _can_encode(self._stream, "█") else "#"
        self._drawn_rows = 0

    def show(self, reading: ClockReading) -> None:
        """Draw one reading."""
        rows = []
        if self._big:
            rows += big_digits(f"{shown_seconds(reading):02d}", self._glyph)
        rows.append(describe(reading))
        if self._colour:
            rows = [f"{_COLOURS[reading.phase]}{row}{_RESET}" for row in rows]
        self._draw(rows)

    def blank(self) -> None:
        """Clear what was drawn (on a terminal) or write an empty line."""
        self._draw([""] * (BIG_ROWS + 1 if self._big else 1))

    def close(self) -> None:
        """End the in-place drawing with a newline; the stream stays open (it is not ours)."""
        if self._tty and self._drawn_rows:
            self._write("\n")
        self._drawn_rows = 0

    def _draw(self, rows: list[str]) -> None:
        if not self._tty:
            self._write("\n".join(rows) + "\n")
            return
        # Back to the first row drawn last time, then overwrite each row in place.
        up = f"\x1b[{self._drawn_rows - 1}F" if self._drawn_rows > 1 else ""
        self._write(up + "\r" + "\n".join(f"\x1b[2K{row}" for row in rows))
        self._drawn_rows = len(rows)

    def _write(self, text: str) -> None:
        self._stream.write(text)
        self._stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _can_encode(stream: TextIO, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


# -- the serial LED controller --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedCommand:
    """One decoded controller line (what the controller acts on; used by tests and tools).

    Attributes:
        kind: ``T`` (show), ``B`` (brightness) or ``X`` (blank).
        args: The words between the command letter and the checksum.
    """

    kind: str
    args: tuple[str, ...] = ()


def checksum(body: bytes) -> str:
    """Two upper-case hex digits of the XOR of ``body``'s bytes."""
    value = 0
    for byte in body:
        value ^= byte
    return f"{value:02X}"


def frame_line(body: str) -> bytes:
    """A protocol line: ``body``, its checksum and the newline."""
    raw = body.encode("ascii")
    return raw + b" *" + checksum(raw).encode("ascii") + b"\n"


def encode_reading(reading: ClockReading) -> bytes:
    """The ``T`` line for a reading."""
    tenths = min(MAX_TENTHS, round(reading.remaining_s * 10))
    if reading.phase is ClockPhase.EXPIRED:
        tenths = 0
    ext = "1" if reading.extension_used else "0"
    return frame_line(f"T {tenths} {PHASE_LETTERS[reading.phase]} {ext}")


def encode_brightness(level: int) -> bytes:
    """The ``B`` line.

    Raises:
        ValueError: ``level`` is outside 0-15.
    """
    if not 0 <= level <= MAX_BRIGHTNESS:
        raise ValueError(f"brightness {level} is outside 0-{MAX_BRIGHTNESS}")
    return frame_line(f"B {level}")


def decode_line(line: bytes) -> LedCommand:
    """Parse one line as the controller does.

    Raises:
        HardwareError: the line is not ASCII, has no or a wrong checksum, or an unknown command.
    """
    text = line.rstrip(b"\r\n")
    body, sep, given = text.rpartition(b" *")
    if not sep or checksum(body) != given.decode("ascii", "replace"):
        raise HardwareError(f"LED display line {line!r}: missing or wrong checksum")
    try:
        words = body.decode("ascii").split()
    except UnicodeDecodeError:
        raise HardwareError(f"LED display line {line!r}: not ASCII") from None
    arity = {"T": 3, "B": 1, "X": 0}
    if not words or words[0] not in arity or len(words) - 1 != arity[words[0]]:
        raise HardwareError(f"LED display line {line!r}: unknown command")
    return LedCommand(words[0], tuple(words[1:]))


SerialFactory = Callable[..., Any]


class SerialLedShotClock:
    """The shot clock on a seven-segment controller behind a serial port.

    The port opens on first use. When it fails (unplugged, gone, a write that times out) the
    call raises `HardwareError` naming the port and the port is dropped; the next call reopens
    it and restores the brightness. No call blocks longer than the write timeout (plus the
    time the OS takes to refuse a missing device).

    Args:
        url: A pyserial URL: ``/dev/ttyUSB0``, ``COM3``, ``loop://``, ``spy://...``.
        baudrate: Line speed.
        write_timeout_s: Longest a write may block.
        brightness: Brightness to set on every (re)connection (``None``: leave the controller's).
        serial_factory: Opens the port (`serial.serial_for_url` by default).
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 9600,
        write_timeout_s: float = 0.1,
        brightness: int | None = None,
        serial_factory: SerialFactory = serial.serial_for_url,
    ) -> None:
        if brightness is not None:
            encode_brightness(brightness)  # refuse a bad level now, not on the first show
        self.url = url
        self._baudrate = baudrate
        self._write_timeout_s = write_timeout_s
        self._brightness = brightness
        self._factory = serial_factory
        self._port: Any = None
        self._where = f"LED shot-clock display on {url}"

    @property
    def connected(self) -> bool:
        """The port is open."""
        return self._port is not None

    def show(self, reading: ClockReading) -> None:
        """Send the reading's ``T`` line."""
        self._send(encode_reading(reading))

    def blank(self) -> None:
        """Send ``X``."""
        self._send(frame_line("X"))

    def set_brightness(self, level: int) -> None:
        """Send ``B`` now and again after every reconnection."""
        line = encode_brightness(level)
        self._brightness = level
        self._send(line)

    def close(self) -> None:
        """Close the port; idempotent."""
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError) as exc:
                log.debug("LED display %s: close failed: %s", self.url, exc)

    def _send(self, line: bytes) -> None:
        port = self._open()
        try:
            port.write(line)
        except (serial.SerialException, OSError) as exc:  # SerialTimeoutException included
            self.close()
            raise HardwareError(
                f"LED shot-clock display on {self.url}: write failed: {exc}"
            ) from exc

    def _open(self) -> Any:
        if self._port is not None:
            return self._port
        try:
            port = self._factory(
                self.url,
                baudrate=self._baudrate,
                timeout=0,
                write_timeout=self._write_timeout_s,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise HardwareError(
                f"LED shot-clock display on {self.url}: cannot open: {exc}"
            ) from exc
        self._port = port
        log.info("LED shot-clock display on %s connected", self.url)
        if self._brightness is not None:
            self._send(encode_brightness(self._brightness))
        return port
