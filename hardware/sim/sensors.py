"""Simulated pocket sensors: the same bytes as the reference firmware, through a real pty.

`SimulatedBoard` is pure: from drop events (pocket, session time) it writes the script of what a
real board would put on the wire, with its own clock (booted at some session time, running
``drift_ppm`` fast), heartbeats, sequence numbers, the debounce delay before a drop line, the
serial line's transmission time, USB latency with jitter, and the faults asked for: lost lines,
corrupted lines, garbage bytes, board resets and cable disconnects. Its `truth` says when each
drop happened and which line carried it.

`PtyPort` is the thin edge: a pseudo-terminal behind a stable symlink (like
``/dev/serial/by-id/...``) that can be unplugged and plugged back, so the real `SensorReader`
reads the script exactly as it reads a board. `play` streams a script on a clock in real time;
a test steps it instead, so nothing sleeps.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
import tty
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hardware.clock import Clock
from hardware.sensors.link import DEFAULT_POCKET_MAP
from hardware.sensors.protocol import Drop, Heartbeat, Hello, Message, encode
from rules.events import EventKind, ShotEvent
from rules.table import PocketId

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SimDrop:
    """A ball falling through a pocket sensor at a session time (the truth)."""

    pocket: PocketId
    time: float


def drops_from_events(events: Iterable[ShotEvent]) -> list[SimDrop]:
    """The sensor drops of a shot's events: one per ball pocketed or settling into a pocket."""
    kinds = (EventKind.POCKETED, EventKind.SETTLED_INTO_POCKET)
    return [SimDrop(e.pocket, e.time) for e in events if e.kind in kinds and e.pocket is not None]


@dataclass(frozen=True, slots=True)
class BoardModel:
    """How the simulated board and its link behave.

    Attributes:
        boot_at: Session time the board booted (device time 0); negative = before the session.
        drift_ppm: How much faster than the session clock the board's clock runs.
        latency_s: Latency floor after a line's last byte (USB polling, driver).
        jitter_s: Mean extra latency (exponential), from host load and USB scheduling.
        baudrate: Serial speed; each line takes ``10 * len / baudrate`` on the wire.
        heartbeat_s: Heartbeat period in device seconds.
        confirm_s: Debounce confirmation before a drop line is sent (its timestamp is the edge).
        poll_s: The firmware's input polling period: the edge is seen up to this late.
        boot_delay_s: From a reset to the hello (bootloader wait).
        firmware: Firmware version in the hello.
        boot_id: Boot id of the first boot (later boots derive theirs).
        pocket_map: Board input of each pocket (index = input).
    """

    boot_at: float = -42.0
    drift_ppm: float = 150.0
    latency_s: float = 0.001
    jitter_s: float = 0.0005
    baudrate: int = 115200
    heartbeat_s: float = 1.0
    confirm_s: float = 0.002
    poll_s: float = 150e-6
    boot_delay_s: float = 0.5
    firmware: str = "1.0.0"
    boot_id: int = 0x5EED0001
    pocket_map: tuple[PocketId, ...] = DEFAULT_POCKET_MAP


@dataclass(frozen=True, slots=True)
class Faults:
    """Faults to inject, each at session times.

    Attributes:
        lose_line_at: The first line sent at or after each time never arrives.
        corrupt_line_at: The first line sent at or after each time has one byte flipped.
        garbage_at: A burst of random bytes arrives at each time.
        reset_at: The board resets at each time (hello again after ``boot_delay_s``).
        unplugged: (unplug, replug) intervals: nothing arrives in between, and a line being
            sent at the unplug arrives only in part.
        reset_on_replug: Opening the port again resets the board (an Uno's DTR reset).
    """

    lose_line_at: tuple[float, ...] = ()
    corrupt_line_at: tuple[float, ...] = ()
    garbage_at: tuple[float, ...] = ()
    reset_at: tuple[float, ...] = ()
    unplugged: tuple[tuple[float, float], ...] = ()
    reset_on_replug: bool = True


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes that arrive at the host at a session time."""

    time: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Unplug:
    """The cable is pulled at a session time: the port disappears."""

    time: float


@dataclass(frozen=True, slots=True)
class Replug:
    """The cable is back at a session time: the port reappears."""

    time: float


Step = Chunk | Unplug | Replug
"""One step of a script."""


@dataclass(frozen=True, slots=True)
class DropTruth:
    """What happened to one simulated drop.

    Attributes:
        drop: The drop (pocket, true session time).
        t_us: The device timestamp the board gave it (None if the board was not running).
        seq: The sequence number of its line (None if never sent).
        arrival: Session time its line arrived (None if lost).
        boot: Which boot of the board saw it (0 = first; -1 = none, it was restarting).
    """

    drop: SimDrop
    t_us: int | None
    seq: int | None
    arrival: float | None
    boot: int


@dataclass(slots=True)
class _Boot:
    index: int
    at: float
    boot_id: int
    seq: int = 0


@dataclass(slots=True)
class _Line:
    sent: float
    message: Message
    drop: SimDrop | None = None
    boot: int = 0


@dataclass(frozen=True, slots=True)
class SimulatedBoard:
    """A sensor board's output for a list of drops, as a script of timed byte chunks.

    Args:
        drops: The drops (any order).
        end: Session time the script stops at.
        start: Session time the script starts at (lines before it are not sent).
        model: How the board and link behave.
        faults: What goes wrong.
        seed: Seed for jitter and garbage.
    """

    drops: Sequence[SimDrop]
    end: float
    start: float = 0.0
    model: BoardModel = field(default_factory=BoardModel)
    faults: Faults = field(default_factory=Faults)
    seed: int = 0

    @property
    def rate(self) -> float:
        """Device seconds per session second."""
        return 1.0 + self.model.drift_ppm * 1e-6

    def script(self) -> tuple[tuple[Step, ...], tuple[DropTruth, ...]]:
        """The steps in time order, and the truth about every drop."""
        rng = random.Random(self.seed)
        boots = self._boots()
        lines = self._lines(boots)
        return self._transmit(lines, rng)

    def device_us(self, time: float, boot_at: float) -> int:
        """The device time at session ``time`` for a boot at session ``boot_at``."""
        return round((time - boot_at) * self.rate * 1e6)

    def _boots(self) -> list[_Boot]:
        resets = sorted(
            [*self.faults.reset_at]
            + ([b for _, b in self.faults.unplugged] if self.faults.reset_on_replug else [])
        )
        boots = [_Boot(0, self.model.boot_at, self.model.boot_id)]
        for i, at in enumerate(resets, start=1):
            boots.append(_Boot(i, at, (self.model.boot_id * 2654435761 + i) % 2**32))
        return boots

    def _lines(self, boots: list[_Boot]) -> list[_Line]:
        lines: list[_Line] = []
        for k, boot in enumerate(boots):
            until = boots[k + 1].at if k + 1 < len(boots) else self.end
            running = boot.at + (self.model.boot_delay_s if k else 0.0)
            events: list[tuple[float, int, SimDrop | None]] = [(running, 0, None)]  # hello
            beat = running + self.model.heartbeat_s / self.rate
            while beat < until:
                events.append((beat, 1, None))
                beat += self.model.heartbeat_s / self.rate
            for drop in self.drops:
                if running <= drop.time < until:
                    events.append((drop.time + self.model.confirm_s, 2, drop))
            for sent, kind, drop in sorted(events, key=lambda e: (e[0], e[1])):
                if sent >= until:
                    continue
                lines.append(self._line(sent, kind, drop, boot))
        return lines

    def _line(self, sent: float, kind: int, drop: SimDrop | None, boot: _Boot) -> _Line:
        t_us = self.device_us(sent, boot.at)
        seq, boot.seq = boot.seq, boot.seq + 1
        m = self.model
        if kind == 0:
            message: Message = Hello(seq, t_us, 1, m.firmware, len(m.pocket_map), boot.boot_id)
        elif kind == 1:
            message = Heartbeat(seq, t_us, boot.boot_id, 0)
        else:
            assert drop is not None
            pocket = m.pocket_map.index(drop.pocket)
            # the poll loop sees the edge somewhere within one period after it happened
            seen = drop.time + random.Random(f"{self.seed}:{drop.time!r}").uniform(0, m.poll_s)
            message = Drop(seq, self.device_us(seen, boot.at), pocket)
        return _Line(sent, message, drop, boot.index)

    def _transmit(
        self, lines: list[_Line], rng: random.Random
    ) -> tuple[tuple[Step, ...], tuple[DropTruth, ...]]:
        m, f = self.model, self.faults
        steps: list[Step] = []
        truth: list[DropTruth] = []
        lose, corrupt = sorted(f.lose_line_at), sorted(f.corrupt_line_at)
        wire_free = last_arrival = float("-inf")
        for line in sorted(lines, key=lambda ln: ln.sent):
            data = encode(line.message)
            start = max(line.sent, wire_free)
            wire_free = start + len(data) * 10 / m.baudrate
            arrival = max(wire_free + m.latency_s + rng.expovariate(1 / m.jitter_s), last_arrival)
            delivered = self.start <= arrival < self.end
            if lose and line.sent >= lose[0]:
                lose.pop(0)
                delivered = False
            elif corrupt and line.sent >= corrupt[0]:
                corrupt.pop(0)
                flip = rng.randrange(1, len(data) - 1)
                data = data[:flip] + bytes([data[flip] ^ 0x04]) + data[flip + 1 :]
            cut = self._unplug_during(start, arrival)
            if cut is not None:
                if cut > last_arrival:
                    steps.append(Chunk(cut, data[: len(data) // 2]))  # half a line, then gone
                delivered = False
            elif any(u <= arrival and start < r for u, r in f.unplugged):
                delivered = False  # sent into a pulled cable
            if delivered:
                steps.append(Chunk(arrival, data))
                last_arrival = arrival
            if line.drop is not None:
                truth.append(
                    DropTruth(
                        line.drop,
                        line.message.t_us,
                        line.message.seq,
                        arrival if delivered else None,
                        line.boot,
                    )
                )
        for at in f.garbage_at:
            steps.append(Chunk(at, _garbage(rng)))
        for unplug, replug in f.unplugged:
            steps.extend((Unplug(unplug), Replug(replug)))
        missed = [
            DropTruth(d, None, None, None, -1)
            for d in self.drops
            if not any(t.drop is d for t in truth)
        ]
        steps = [s for s in steps if not isinstance(s, Chunk) or not self._unplugged_at(s.time)]
        steps.sort(key=lambda s: (s.time, 0 if isinstance(s, Chunk) else 1))
        return tuple(steps), tuple(sorted(truth + missed, key=lambda t: t.drop.time))

    def _unplug_during(self, start: float, arrival: float) -> float | None:
        for unplug, _ in self.faults.unplugged:
            if start < unplug <= arrival:
                return unplug - 1e-6
        return None

    def _unplugged_at(self, time: float) -> bool:
        return any(u <= time < r for u, r in self.faults.unplugged)


def _garbage(rng: random.Random) -> bytes:
    """Line noise: random bytes, sometimes with a line end or a stray ``$`` in them."""
    data = bytearray(rng.randbytes(rng.randrange(3, 40)))
    if rng.random() < 0.5:
        data[rng.randrange(len(data))] = ord("\n")
    if rng.random() < 0.5:
        data[rng.randrange(len(data))] = ord("$")
    return bytes(data)


class PtyPort:
    """A pseudo-terminal behind a stable path, that can be unplugged and plugged back.

    The reader opens ``path`` (a symlink to the current ``/dev/pts/N``), as it would open
    ``/dev/serial/by-id/...`` for a real board.

    Args:
        path: Where the symlink goes (its directory must exist).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._master: int | None = None
        self._slave: int | None = None
        self.received = bytearray()
        """Everything the host wrote to the board (hello requests)."""
        self.plug()

    @property
    def plugged(self) -> bool:
        """The port exists."""
        return self._master is not None

    def plug(self) -> None:
        """Create a new pty and point the stable path at it."""
        if self.plugged:
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no newline translation: bytes are bytes
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = f"{self.path}.new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        log.debug("pty %s -> %s", self.path, os.ttyname(slave))

    def unplug(self) -> None:
        """Close the pty (a reader on it gets an I/O error) and remove the path."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def write(self, data: bytes) -> None:
        """Send bytes to whoever reads the port; also discard what the host sent us."""
        if self._master is None:
            raise OSError(f"{self.path} is unplugged")
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._master, view) :]
            except BlockingIOError:
                os.set_blocking(self._master, True)
                view = view[os.write(self._master, view) :]
                os.set_blocking(self._master, False)
        self.drain_input()

    def drain_input(self) -> bytes:
        """Read (without blocking) what the host wrote to the board; kept in `received`."""
        if self._master is None:
            return b""
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, OSError):
            return b""
        self.received += data
        return data

    def close(self) -> None:
        """Unplug for good."""
        self.unplug()

    def __enter__(self) -> PtyPort:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def apply(step: Step, port: PtyPort) -> None:
    """Do one step of a script to the port."""
    if isinstance(step, Chunk):
        if port.plugged:
            port.write(step.data)
    elif isinstance(step, Unplug):
        port.unplug()
    else:
        port.plug()


def play(
    steps: Iterable[Step], port: PtyPort, clock: Clock, stop: threading.Event | None = None
) -> None:
    """Stream a script in real time on ``clock`` (for the demo; tests step it instead).

    Args:
        steps: The script.
        port: Where the bytes go.
        clock: The session clock the step times are on.
        stop: Set it to end early.
    """
    for step in steps:
        while (wait := step.time - clock.now()) > 0:
            if stop is not None and stop.is_set():
                return
            clock.sleep(min(wait, 0.05))
        apply(step, port)


def play_in_background(
    steps: Sequence[Step], port: PtyPort, clock: Clock
) -> tuple[threading.Thread, threading.Event]:
    """Start `play` on a daemon thread; set the returned event to stop it early."""
    stop = threading.Event()
    thread = threading.Thread(
        target=play, args=(steps, port, clock, stop), name="simulated sensors", daemon=True
    )
    thread.start()
    return thread, stop
