"""The pocket-sensor line protocol: encoders and a pure parser fed bytes.

The wire format is documented once, in ``hardware/README.md``. In short, every line is::

    $<kind>,<seq>,<t_us>[,<field>...]*<CRC>\\n

ASCII; ``kind`` is one letter (H hello, D drop, B heartbeat, F fault); ``seq`` a sequence number
shared by all lines of one boot (0 for the boot hello, +1 per line, modulo 2**32); ``t_us`` the
device time in microseconds since boot (64-bit, never wraps in practice); ``CRC`` four upper-case
hex digits of CRC-16/CCITT-FALSE over the bytes between ``$`` and ``*``.

The parser never raises on any byte input. It resyncs on the last ``$`` of a line, so garbage
before a valid line never hides it; it bounds the buffer of a line that never ends; it counts and
logs every bad line; and it watches the link: sequence gaps (lost lines), and resets (a new boot
id, a sequence that restarts, device time that goes back).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from enum import StrEnum

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
"""The protocol version this module speaks (the hello's first field)."""

MAX_LINE_BYTES = 128
"""Longest valid line, ``$`` to ``\\n`` included; anything longer is garbage."""

SEQ_MODULUS = 2**32
"""Sequence numbers count modulo this."""

DROP_STAMP_SLACK_US = 1_000_000
"""How far a drop's time may precede the last line's: it is stamped at the beam's first edge."""

HELLO_REQUEST = b"?\n"
"""What the host writes to ask the board for a hello (after opening a port without a reset)."""

_FIRMWARE_RE = re.compile(r"[0-9A-Za-z.+\-]{1,16}\Z")
_UINT_RE = re.compile(r"(0|[1-9][0-9]{0,19})\Z")
_HEX8_RE = re.compile(r"[0-9A-F]{8}\Z")
_HEX2_RE = re.compile(r"[0-9A-F]{2}\Z")
_CRC_RE = re.compile(rb"[0-9A-F]{4}\Z")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).

    Args:
        data: The bytes between ``$`` and ``*`` of a line.

    Returns:
        The 16-bit checksum (``crc16(b"123456789") == 0x29B1``).
    """
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


class FaultCode(StrEnum):
    """What a fault line reports about one pocket input."""

    STUCK = "STUCK"
    """The input stayed active far longer than a ball takes to fall: blocked or broken sensor."""
    CLEAR = "CLEAR"
    """A stuck input is free again; drops from it count again."""
    LOST = "LOST"
    """The board's drop queue overflowed: a drop in this pocket was detected but not sent."""


@dataclass(frozen=True, slots=True)
class Hello:
    """The first line after boot (and the answer to a hello request).

    Attributes:
        seq: Sequence number (0 at boot).
        t_us: Device time in microseconds since boot.
        protocol: Protocol version the firmware speaks.
        firmware: Firmware version, e.g. ``1.0.0``.
        pockets: Number of pocket inputs.
        boot_id: 32-bit id that changes at every boot of the board.
    """

    seq: int
    t_us: int
    protocol: int
    firmware: str
    pockets: int
    boot_id: int


@dataclass(frozen=True, slots=True)
class Drop:
    """A ball fell through a pocket's sensor.

    Attributes:
        seq: Sequence number.
        t_us: Device time of the first edge of the (debounced) drop, microseconds since boot.
        pocket: Pocket input index, 0-based (the host maps it to a `PocketId`).
    """

    seq: int
    t_us: int
    pocket: int


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Sent every second: the link is alive; carries the boot id so a reset is always seen.

    Attributes:
        seq: Sequence number.
        t_us: Device time, microseconds since boot.
        boot_id: The board's boot id.
        stuck_mask: Bit i set while input i is reported stuck.
    """

    seq: int
    t_us: int
    boot_id: int
    stuck_mask: int


@dataclass(frozen=True, slots=True)
class Fault:
    """A sensor fault or a lost drop.

    Attributes:
        seq: Sequence number.
        t_us: Device time, microseconds since boot.
        pocket: Pocket input index.
        code: What happened.
    """

    seq: int
    t_us: int
    pocket: int
    code: FaultCode


Message = Hello | Drop | Heartbeat | Fault
"""Any decoded line."""


def _body(message: Message) -> str:
    match message:
        case Hello():
            return (
                f"H,{message.seq},{message.t_us},{message.protocol},{message.firmware},"
                f"{message.pockets},{message.boot_id:08X}"
            )
        case Drop():
            return f"D,{message.seq},{message.t_us},{message.pocket}"
        case Heartbeat():
            return f"B,{message.seq},{message.t_us},{message.boot_id:08X},{message.stuck_mask:02X}"
        case Fault():
            return f"F,{message.seq},{message.t_us},{message.pocket},{message.code.value}"
    raise TypeError(f"not a sensor message: {message!r}")


def frame(body: bytes) -> bytes:
    """Wrap a line body in ``$``, ``*CRC`` and ``\\n``."""
    return b"$" + body + b"*" + f"{crc16(body):04X}".encode() + b"\n"


def encode(message: Message) -> bytes:
    """The exact bytes the firmware sends for ``message``.

    Raises:
        ValueError: A field is out of the range the protocol can carry.
    """
    _check_fields(message)
    return frame(_body(message).encode("ascii"))


def _check_fields(message: Message) -> None:
    if not 0 <= message.seq < SEQ_MODULUS:
        raise ValueError(f"seq {message.seq} is outside 0..2**32-1")
    if not 0 <= message.t_us < 2**64:
        raise ValueError(f"t_us {message.t_us} is outside 0..2**64-1")
    if isinstance(message, Hello):
        if not _FIRMWARE_RE.match(message.firmware):
            raise ValueError(f"firmware version {message.firmware!r} must match [0-9A-Za-z.+-]")
        if not 0 <= message.boot_id < 2**32 or not 1 <= message.pockets <= 8:
            raise ValueError(f"bad hello fields: {message}")
    if isinstance(message, Heartbeat) and not (
        0 <= message.boot_id < 2**32 and 0 <= message.stuck_mask < 256
    ):
        raise ValueError(f"bad heartbeat fields: {message}")
    if isinstance(message, Drop | Fault) and not 0 <= message.pocket < 8:
        raise ValueError(f"pocket index {message.pocket} is outside 0..7")


class ProblemKind(StrEnum):
    """What can be wrong on the link."""

    GARBAGE = "garbage"
    """Bytes that are not part of any line (noise, a half line after a replug)."""
    OVERLONG = "overlong"
    """A line longer than `MAX_LINE_BYTES`: dropped, the buffer stays bounded."""
    BAD_CHECKSUM = "bad-checksum"
    """A framed line whose CRC does not match: corrupted in transit."""
    MALFORMED = "malformed"
    """A line with a good CRC but fields that do not parse (or an unknown kind)."""
    UNSUPPORTED = "unsupported"
    """A hello announcing a protocol version this host does not speak."""
    SEQUENCE_GAP = "sequence-gap"
    """Lines were lost: the sequence number jumped forward."""
    RESET = "reset"
    """The board restarted: new boot id, sequence restarted, or device time went back."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong seen on the link, with enough context to log and count.

    Attributes:
        kind: What went wrong.
        detail: A human sentence.
        data: The offending bytes (truncated), if any.
        lost: Lines lost, for a sequence gap.
    """

    kind: ProblemKind
    detail: str
    data: bytes = b""
    lost: int = 0


@dataclass(frozen=True, slots=True)
class Parsed:
    """What one `LineParser.feed` call found.

    Attributes:
        items: Messages and problems in stream order (a reset is reported just before the
            first message of the new boot, so a consumer can restart its clock mapping there).
    """

    items: tuple[Message | Problem, ...] = ()

    @property
    def messages(self) -> tuple[Message, ...]:
        """The decoded lines, in order."""
        return tuple(i for i in self.items if not isinstance(i, Problem))

    @property
    def problems(self) -> tuple[Problem, ...]:
        """What was wrong, in order."""
        return tuple(i for i in self.items if isinstance(i, Problem))


@dataclass(slots=True)
class LinkCounters:
    """Running totals for the status display and the logs."""

    lines: int = 0
    garbage_bytes: int = 0
    bad_checksum: int = 0
    malformed: int = 0
    overlong: int = 0
    gaps: int = 0
    lost_lines: int = 0
    resets: int = 0


@dataclass(slots=True)
class _LinkState:
    boot_id: int | None = None
    last_seq: int | None = None
    last_t_us: int | None = None


def _uint(text: str) -> int:
    if not _UINT_RE.match(text):
        raise ValueError(f"{text!r} is not an unsigned decimal")
    return int(text)


def _hex(text: str, pattern: re.Pattern[str]) -> int:
    if not pattern.match(text):
        raise ValueError(f"{text!r} is not upper-case hex of the right width")
    return int(text, 16)


def decode_body(body: str) -> Message:
    """Decode the text between ``$`` and ``*`` of a line whose CRC already matched.

    Raises:
        ValueError: Unknown kind, wrong field count, or a field that does not parse.
    """
    fields = body.split(",")
    kind, rest = fields[0], fields[1:]
    counts = {"H": 6, "D": 3, "B": 4, "F": 4}
    if kind not in counts:
        raise ValueError(f"unknown line kind {kind!r}")
    if len(rest) != counts[kind]:
        raise ValueError(f"a {kind} line has {counts[kind]} fields, got {len(rest)}")
    seq, t_us = _uint(rest[0]), _uint(rest[1])
    if seq >= SEQ_MODULUS or t_us >= 2**64:
        raise ValueError(f"seq {seq} or time {t_us} out of range")
    if kind == "H":
        if not _FIRMWARE_RE.match(rest[3]):
            raise ValueError(f"bad firmware version {rest[3]!r}")
        pockets = _uint(rest[4])
        if not 1 <= pockets <= 8:
            raise ValueError(f"pocket count {pockets} is outside 1..8")
        return Hello(seq, t_us, _uint(rest[2]), rest[3], pockets, _hex(rest[5], _HEX8_RE))
    if kind == "B":
        return Heartbeat(seq, t_us, _hex(rest[2], _HEX8_RE), _hex(rest[3], _HEX2_RE))
    pocket = _uint(rest[2])
    if pocket >= 8:
        raise ValueError(f"pocket index {pocket} is outside 0..7")
    if kind == "D":
        return Drop(seq, t_us, pocket)
    return Fault(seq, t_us, pocket, FaultCode(rest[3]))


@dataclass(slots=True)
class LineParser:
    """Turns a byte stream into messages and problems. Pure: no I/O, no clock, never raises.

    Feed it whatever the port delivered; it keeps a partial line between calls. Call
    `drop_partial_line` when the port is reopened, so half a line from before an unplug is not
    glued to the first bytes after it (the link state survives, so lines lost during the unplug
    still show as a gap, and a board reset as a reset).

    Attributes:
        source: Where the bytes come from (a port name), for log messages.
        counters: Running totals.
    """

    source: str = "sensor link"
    counters: LinkCounters = field(default_factory=LinkCounters)
    _buffer: bytearray = field(default_factory=bytearray)
    _link: _LinkState = field(default_factory=_LinkState)

    def feed(self, data: bytes) -> Parsed:
        """Consume ``data``; return the complete lines' messages and any problems."""
        items: list[Message | Problem] = []
        self._buffer.extend(data)
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                break
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            self._line(line, items)
        self._bound_buffer(items)
        for item in items:
            if isinstance(item, Problem):
                log.warning("%s: %s", self.source, item.detail)
        return Parsed(tuple(items))

    def drop_partial_line(self) -> None:
        """Forget an unfinished line (call after reopening the port)."""
        if self._buffer:
            self.counters.garbage_bytes += len(self._buffer)
            self._buffer.clear()

    def _bound_buffer(self, items: list[Message | Problem]) -> None:
        if len(self._buffer) <= MAX_LINE_BYTES:
            return
        # Keep a possible line start, so a valid line right after the garbage is not lost.
        start = self._buffer.rfind(b"$")
        keep = start if start >= 0 and len(self._buffer) - start <= MAX_LINE_BYTES else None
        dropped = len(self._buffer) if keep is None else keep
        if dropped:
            self.counters.overlong += 1
            self.counters.garbage_bytes += dropped
            items.append(
                Problem(
                    ProblemKind.OVERLONG,
                    f"dropped {dropped} bytes with no line end",
                    bytes(self._buffer[:32]),
                )
            )
            del self._buffer[:dropped]

    def _line(self, line: bytes, items: list[Message | Problem]) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        start = line.rfind(b"$")
        junk = line if start < 0 else line[:start]
        if junk:
            self.counters.garbage_bytes += len(junk)
            items.append(Problem(ProblemKind.GARBAGE, f"{len(junk)} garbage bytes", junk[:32]))
        if start < 0:
            return
        framed = line[start + 1 :]
        if len(framed) + 2 > MAX_LINE_BYTES:
            self.counters.overlong += 1
            items.append(Problem(ProblemKind.OVERLONG, "line too long", framed[:32]))
            return
        star = framed.rfind(b"*")
        if star < 0 or not _CRC_RE.match(framed[star + 1 :]):
            self.counters.bad_checksum += 1
            items.append(Problem(ProblemKind.BAD_CHECKSUM, "line without a CRC", framed))
            return
        body, crc = framed[:star], int(framed[star + 1 :], 16)
        if crc16(body) != crc:
            self.counters.bad_checksum += 1
            items.append(
                Problem(ProblemKind.BAD_CHECKSUM, f"CRC mismatch in {body[:40]!r}", framed)
            )
            return
        try:
            message = decode_body(body.decode("ascii"))
        except (ValueError, UnicodeDecodeError) as exc:
            self.counters.malformed += 1
            items.append(Problem(ProblemKind.MALFORMED, f"malformed line: {exc}", framed))
            return
        if isinstance(message, Hello) and message.protocol != PROTOCOL_VERSION:
            self.counters.malformed += 1
            items.append(
                Problem(
                    ProblemKind.UNSUPPORTED,
                    f"board speaks protocol {message.protocol}, host speaks {PROTOCOL_VERSION}",
                    framed,
                )
            )
        self.counters.lines += 1
        self._follow_link(message, items)
        items.append(message)

    def _follow_link(self, message: Message, items: list[Message | Problem]) -> None:
        link = self._link
        reason = self._reset_reason(message)
        if reason is not None:
            self.counters.resets += 1
            items.append(Problem(ProblemKind.RESET, f"board reset: {reason}"))
            link.boot_id = None
        elif link.last_seq is not None:
            lost = (message.seq - link.last_seq - 1) % SEQ_MODULUS
            if lost:
                self.counters.gaps += 1
                self.counters.lost_lines += lost
                items.append(
                    Problem(
                        ProblemKind.SEQUENCE_GAP,
                        f"{lost} line(s) lost before seq {message.seq}",
                        lost=lost,
                    )
                )
        if isinstance(message, Hello | Heartbeat):
            link.boot_id = message.boot_id
        link.last_seq = message.seq
        if not isinstance(message, Drop):
            link.last_t_us = message.t_us

    def _reset_reason(self, message: Message) -> str | None:
        link = self._link
        boot_id = message.boot_id if isinstance(message, Hello | Heartbeat) else None
        if boot_id is not None and link.boot_id is not None and boot_id != link.boot_id:
            return f"boot id {link.boot_id:08X} -> {boot_id:08X}"
        # A drop is stamped at its first edge, before it is confirmed and queued, so a heartbeat
        # sent in between carries a later time: allow a drop that much slack.
        slack = DROP_STAMP_SLACK_US if isinstance(message, Drop) else 0
        if link.last_t_us is not None and message.t_us + slack < link.last_t_us:
            return f"device time went back {link.last_t_us} -> {message.t_us} us"
        if link.last_seq is None:
            return None
        behind = (link.last_seq - message.seq) % SEQ_MODULUS
        if 0 <= behind < SEQ_MODULUS // 2 and message.seq != (link.last_seq + 1) % SEQ_MODULUS:
            return f"sequence restarted {link.last_seq} -> {message.seq}"
        return None
