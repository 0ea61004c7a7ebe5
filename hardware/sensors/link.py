"""The pocket-sensor link's state, fed bytes and times: drops out, status out. No I/O.

`SensorLink` is what the reader thread drives; a test (or a replay of a recorded serial log)
drives it the same way from a list, with no port and no thread.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from enum import StrEnum

from hardware.sensors.clock_sync import ClockSync
from hardware.sensors.protocol import (
    PROTOCOL_VERSION,
    Drop,
    Fault,
    FaultCode,
    Heartbeat,
    Hello,
    LineParser,
    Message,
    Problem,
    ProblemKind,
    encode,
)
from rules.signals import PocketSignal
from rules.table import PocketId

log = logging.getLogger(__name__)

DEFAULT_POCKET_MAP: tuple[PocketId, ...] = (
    PocketId.HEAD_LEFT,
    PocketId.HEAD_RIGHT,
    PocketId.SIDE_LEFT,
    PocketId.SIDE_RIGHT,
    PocketId.FOOT_LEFT,
    PocketId.FOOT_RIGHT,
)
"""Input i of the board (pin 2 + i on the reference firmware) is ``DEFAULT_POCKET_MAP[i]``."""


class LinkState(StrEnum):
    """What the monitor shows for the sensors."""

    ONLINE = "online"
    """Lines arrive, the clock is synchronised, nothing wrong lately."""
    DEGRADED = "degraded"
    """Drops still arrive, but something is off (see the reasons): rulings lean on vision."""
    OFFLINE = "offline"
    """No port, or a silent board: vision only."""


@dataclass(frozen=True, slots=True)
class SensorStatus:
    """The link's state with the reasons for it, for the monitor and the logs.

    Attributes:
        state: Online, degraded or offline.
        reasons: Human sentences; empty when online.
        port: The port name.
    """

    state: LinkState
    reasons: tuple[str, ...]
    port: str

    def __str__(self) -> str:
        why = "; ".join(self.reasons)
        return f"sensors {self.state} on {self.port}" + (f": {why}" if why else "")


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """How to read the link.

    Attributes:
        baudrate: Line speed; a line's transmission time is taken off its arrival time.
        min_latency_s: Latency floor after the last byte (USB polling, driver), taken off too.
        pocket_map: Pocket of each board input.
        silence_s: No line for this long (heartbeats are 1 s apart) means offline.
        recent_s: A problem keeps the link degraded for this long.
        max_uncertainty_s: Above this the clock counts as not synchronised (degraded).
    """

    baudrate: int = 115200
    min_latency_s: float = 0.001
    pocket_map: tuple[PocketId, ...] = DEFAULT_POCKET_MAP
    silence_s: float = 3.0
    recent_s: float = 10.0
    max_uncertainty_s: float = 0.005


_BAD_LINE = {
    ProblemKind.GARBAGE,
    ProblemKind.OVERLONG,
    ProblemKind.BAD_CHECKSUM,
    ProblemKind.MALFORMED,
}


class SensorLink:
    """Parser, clock mapping and status of one sensor board.

    Args:
        port: The port name, for status and logs.
        config: How to read the link.
    """

    def __init__(self, port: str, config: LinkConfig | None = None) -> None:
        self.port = port
        self.config = config or LinkConfig()
        self.parser = LineParser(source=port)
        self.sync = ClockSync()
        self._open = False
        self._open_error = "not opened yet"
        self._last_line_at: float | None = None
        self._opened_at = 0.0
        self._last_t_us: int | None = None
        self._recent: deque[tuple[float, str]] = deque(maxlen=256)
        self._stuck: set[int] = set()
        self._board_issue: str | None = None
        self._hello_since_open = False
        self._hello_requested = False

    def opened(self, now: float) -> None:
        """The port was (re)opened: forget any half line from before."""
        self._open = True
        self._last_line_at = None
        self._opened_at = now
        self._hello_since_open = False
        self._hello_requested = False
        self.parser.drop_partial_line()
        log.info("%s: port open", self.port)

    def closed(self, now: float, reason: str) -> None:
        """The port is gone (unplugged, failed to open)."""
        if self._open:
            log.warning("%s: %s", self.port, reason)
        self._open = False
        self._open_error = reason

    def receive(self, data: bytes, arrival: float) -> list[PocketSignal]:
        """Bytes that arrived at session time ``arrival``; returns the drops they carried."""
        signals: list[PocketSignal] = []
        for item in self.parser.feed(data).items:
            if isinstance(item, Problem):
                self._problem(item, arrival)
                continue
            self._last_line_at = arrival
            self._sample(item, arrival)
            signal = self._message(item, arrival)
            if signal is not None:
                signals.append(signal)
        return signals

    def wants_hello(self, now: float, after_s: float = 1.5) -> bool:
        """True once per opening, when no hello came ``after_s`` after the port opened.

        A board reset by the open (an Uno's DTR) says hello by itself; asking at once would send
        a byte into its bootloader. One that was not reset is asked after a while.
        """
        if not self._open or self._hello_since_open or self._hello_requested:
            return False
        if now - self._opened_at < after_s:
            return False
        self._hello_requested = True
        return True

    def status(self, now: float) -> SensorStatus:
        """The link's state at session time ``now``."""
        if not self._open:
            return SensorStatus(LinkState.OFFLINE, (self._open_error,), self.port)
        if self._last_line_at is None:
            if now - self._opened_at >= self.config.silence_s:
                why = f"no line from the board since the port opened ({self._silence_text})"
                return SensorStatus(LinkState.OFFLINE, (why,), self.port)
            return SensorStatus(LinkState.DEGRADED, ("waiting for the board",), self.port)
        if now - self._last_line_at >= self.config.silence_s:
            why = f"no line from the board for {self._silence_text}"
            return SensorStatus(LinkState.OFFLINE, (why,), self.port)
        reasons = self._degraded_reasons(now)
        state = LinkState.DEGRADED if reasons else LinkState.ONLINE
        return SensorStatus(state, tuple(reasons), self.port)

    @property
    def _silence_text(self) -> str:
        return f"{self.config.silence_s:g} s or more"

    def _degraded_reasons(self, now: float) -> list[str]:
        reasons: list[str] = []
        if self._board_issue:
            reasons.append(self._board_issue)
        for index in sorted(self._stuck):
            reasons.append(f"{self._pocket_name(index)} sensor stuck (blocked or broken)")
        if self._last_t_us is None or self.sync.fit() is None:
            reasons.append("board clock not yet synchronised")
        else:
            uncertainty = self.sync.to_session(self._last_t_us)[1]
            if uncertainty > self.config.max_uncertainty_s:
                # no number in it: a status changes when its meaning does, not every line
                reasons.append("board clock not yet synchronised")
        recent = sorted({what for when, what in self._recent if now - when < self.config.recent_s})
        reasons.extend(recent)
        return reasons

    def _problem(self, problem: Problem, arrival: float) -> None:
        if problem.kind in _BAD_LINE:
            self._recent.append((arrival, "bad lines on the link (noise or a loose cable)"))
        elif problem.kind is ProblemKind.SEQUENCE_GAP:
            self._recent.append((arrival, "lines lost on the link (drops may be missing)"))
        elif problem.kind is ProblemKind.RESET:
            self._recent.append((arrival, "the board restarted"))
            self.sync.reset()
            self._last_t_us = None
            self._stuck.clear()
        elif problem.kind is ProblemKind.UNSUPPORTED:
            self._board_issue = f"board speaks another protocol version ({problem.detail})"

    def _sample(self, message: Message, arrival: float) -> None:
        transmit_s = len(encode(message)) * 10 / self.config.baudrate
        self.sync.add(message.t_us, arrival - transmit_s - self.config.min_latency_s)
        self._last_t_us = message.t_us

    def _message(self, message: Message, arrival: float) -> PocketSignal | None:
        match message:
            case Hello():
                self._hello_since_open = True
                self._hello(message)
            case Heartbeat():
                self._stuck = {i for i in range(8) if message.stuck_mask >> i & 1}
            case Fault():
                self._fault(message, arrival)
            case Drop():
                return self._drop(message, arrival)
        return None

    def _hello(self, hello: Hello) -> None:
        log.info(
            "%s: board firmware %s, protocol %d, %d pockets, boot %08X",
            self.port,
            hello.firmware,
            hello.protocol,
            hello.pockets,
            hello.boot_id,
        )
        expected = len(self.config.pocket_map)
        if hello.protocol != PROTOCOL_VERSION:
            self._board_issue = f"board speaks protocol {hello.protocol}, not {PROTOCOL_VERSION}"
        elif hello.pockets != expected:
            self._board_issue = f"board has {hello.pockets} pocket inputs, {expected} mapped"
        else:
            self._board_issue = None

    def _fault(self, fault: Fault, arrival: float) -> None:
        name = self._pocket_name(fault.pocket)
        if fault.code is FaultCode.STUCK:
            self._stuck.add(fault.pocket)
        elif fault.code is FaultCode.CLEAR:
            self._stuck.discard(fault.pocket)
        else:
            self._recent.append((arrival, f"the board lost a drop in {name} (queue full)"))
        log.warning("%s: %s sensor %s", self.port, name, fault.code.value)

    def _drop(self, drop: Drop, arrival: float) -> PocketSignal | None:
        if drop.pocket >= len(self.config.pocket_map):
            self._recent.append((arrival, f"drop on unmapped input {drop.pocket}"))
            return None
        time, uncertainty = self.sync.to_session(drop.t_us)
        return PocketSignal(self.config.pocket_map[drop.pocket], time, uncertainty, drop.seq)

    def _pocket_name(self, index: int) -> str:
        if index < len(self.config.pocket_map):
            return str(self.config.pocket_map[index])
        return f"input {index}"
