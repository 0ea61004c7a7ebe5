from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.sensors.protocol import (
    MAX_LINE_BYTES,
    Drop,
    Fault,
    FaultCode,
    Heartbeat,
    Hello,
    LineParser,
    ProblemKind,
    crc16,
    encode,
    frame,
)

BOOT = 0x1234ABCD


def _hello(seq: int = 0, t_us: int = 1_000, boot: int = BOOT) -> Hello:
    return Hello(seq, t_us, 1, "1.0.0", 6, boot)


def _stream(n: int = 5, boot: int = BOOT) -> list:
    messages = [_hello(boot=boot)]
    for seq in range(1, n):
        t = 1_000 + seq * 250_000
        messages.append(Drop(seq, t, seq % 6) if seq % 2 else Heartbeat(seq, t, boot, 0))
    return messages


def _kinds(parsed) -> list[ProblemKind]:
    return [p.kind for p in parsed.problems]


def test_crc16_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_encoded_lines_are_ascii_framed_and_short() -> None:
    for message in [*_stream(), Fault(9, 2**40, 5, FaultCode.STUCK)]:
        line = encode(message)
        assert line.startswith(b"$") and line.endswith(b"\n") and line.isascii()
        assert len(line) <= MAX_LINE_BYTES
    assert encode(Drop(7, 123456, 2)) == frame(b"D,7,123456,2")


def test_every_message_round_trips() -> None:
    messages = [
        _hello(),
        Drop(1, 2**63, 5),
        Heartbeat(2, 2**63 + 5, BOOT, 0x21),
        Fault(3, 2**63 + 9, 0, FaultCode.LOST),
    ]
    parsed = LineParser().feed(b"".join(encode(m) for m in messages))
    assert list(parsed.messages) == messages
    assert parsed.problems == ()


def test_encode_refuses_fields_the_wire_cannot_carry() -> None:
    with pytest.raises(ValueError, match="seq"):
        encode(Drop(2**32, 0, 0))
    with pytest.raises(ValueError, match="pocket index"):
        encode(Drop(0, 0, 8))
    with pytest.raises(ValueError, match="firmware"):
        encode(Hello(0, 0, 1, "1,0", 6, 1))


def test_lines_split_across_chunks_at_every_byte() -> None:
    data = b"".join(encode(m) for m in _stream(8))
    for cut in range(len(data) + 1):
        parser = LineParser()
        got = parser.feed(data[:cut]).messages + parser.feed(data[cut:]).messages
        assert list(got) == _stream(8), cut


def test_byte_by_byte_feed_and_crlf_endings() -> None:
    parser = LineParser()
    data = encode(_hello()).replace(b"\n", b"\r\n") + encode(Drop(1, 5_000, 4))
    got = [m for b in data for m in parser.feed(bytes([b])).messages]
    assert got == [_hello(), Drop(1, 5_000, 4)]


def test_garbage_before_and_between_lines_is_skipped_and_counted() -> None:
    parser = LineParser()
    good = [encode(m) for m in _stream(3)]
    parsed = parser.feed(b"\x00\xff noise" + good[0] + b"junk\n" + b"**$$" + good[1] + good[2])
    assert list(parsed.messages) == _stream(3)
    assert _kinds(parsed) == [ProblemKind.GARBAGE] * 3
    assert parser.counters.garbage_bytes == len(b"\x00\xff noise") + len(b"junk") + len(b"**$$")


def test_bad_checksum_is_dropped_and_counted() -> None:
    parser = LineParser()
    corrupt = bytearray(encode(Drop(1, 5_000, 4)))
    corrupt[5] ^= 0x01
    parsed = parser.feed(encode(_hello()) + bytes(corrupt) + encode(Drop(2, 6_000, 1)))
    assert [type(m) for m in parsed.messages] == [Hello, Drop]
    assert ProblemKind.BAD_CHECKSUM in _kinds(parsed)
    assert parser.counters.bad_checksum == 1
    # the lost line also shows as a gap in the sequence
    assert ProblemKind.SEQUENCE_GAP in _kinds(parsed)


def test_good_crc_but_bad_fields_is_malformed() -> None:
    parser = LineParser()
    parsed = parser.feed(frame(b"D,1,5000") + frame(b"Z,1,2,3") + frame(b"D,01,5,1"))
    assert parsed.messages == ()
    assert _kinds(parsed) == [ProblemKind.MALFORMED] * 3
    assert parser.counters.malformed == 3


def test_unsupported_protocol_version_is_reported() -> None:
    parsed = LineParser().feed(encode(Hello(0, 0, 2, "9.0.0", 6, 1)))
    assert _kinds(parsed) == [ProblemKind.UNSUPPORTED]


def test_sequence_gap_reports_how_many_lines_were_lost() -> None:
    parser = LineParser()
    parser.feed(encode(_hello()))
    parsed = parser.feed(encode(Drop(4, 9_000, 2)))
    assert parsed.messages == (Drop(4, 9_000, 2),)
    [gap] = parsed.problems
    assert gap.kind is ProblemKind.SEQUENCE_GAP and gap.lost == 3
    assert parser.counters.lost_lines == 3


def test_sequence_wraps_without_a_gap() -> None:
    parser = LineParser()
    parser.feed(encode(Heartbeat(2**32 - 1, 10, BOOT, 0)))
    parsed = parser.feed(encode(Drop(0, 11, 1)))
    assert parsed.problems == ()


def test_reset_when_sequence_restarts() -> None:
    parser = LineParser()
    parser.feed(b"".join(encode(m) for m in _stream(6)))
    parsed = parser.feed(encode(Drop(0, 9_000_000, 1)))
    assert _kinds(parsed) == [ProblemKind.RESET]
    assert parser.counters.resets == 1


def test_reset_when_boot_id_changes_even_if_sequence_looks_fine() -> None:
    parser = LineParser()
    parser.feed(b"".join(encode(m) for m in _stream(3)))
    parsed = parser.feed(encode(Heartbeat(3, 2_000_000, BOOT + 1, 0)))
    assert _kinds(parsed) == [ProblemKind.RESET]


def test_reset_when_device_time_goes_back() -> None:
    parser = LineParser()
    parser.feed(b"".join(encode(m) for m in _stream(3)))
    parsed = parser.feed(encode(Heartbeat(3, 10, BOOT, 0)))
    assert _kinds(parsed) == [ProblemKind.RESET]


def test_new_hello_after_reset_then_stream_is_clean() -> None:
    parser = LineParser()
    parser.feed(b"".join(encode(m) for m in _stream(4)))
    parsed = parser.feed(b"".join(encode(m) for m in _stream(4, boot=BOOT + 7)))
    assert _kinds(parsed) == [ProblemKind.RESET]
    assert len(parsed.messages) == 4


def test_line_that_never_ends_keeps_the_buffer_bounded() -> None:
    parser = LineParser()
    for _ in range(100):
        parser.feed(b"A" * 1000)
        assert len(parser._buffer) <= MAX_LINE_BYTES
    assert parser.counters.overlong > 0
    parsed = parser.feed(b"\n" + encode(_hello()))
    assert parsed.messages == (_hello(),)


def test_half_line_before_a_replug_is_not_glued_to_the_next() -> None:
    parser = LineParser()
    line = encode(_hello())
    parser.feed(line[:10])
    parser.drop_partial_line()
    assert parser.feed(encode(Drop(1, 2_000, 0))).messages == (Drop(1, 2_000, 0),)
    assert parser.counters.garbage_bytes == 10


@settings(max_examples=300, deadline=None)
@given(noise=st.binary(max_size=600), seq=st.integers(0, 2**32 - 1), split=st.integers(0, 700))
def test_fuzz_random_bytes_never_raise_and_never_hide_the_next_valid_line(
    noise: bytes, seq: int, split: int
) -> None:
    parser = LineParser()
    valid = encode(Drop(seq, 123_456_789, 3))
    data = noise + valid
    split = min(split, len(data))
    got = parser.feed(data[:split]).messages + parser.feed(data[split:]).messages
    assert got[-1] == Drop(seq, 123_456_789, 3)
    assert len(parser._buffer) <= MAX_LINE_BYTES


def test_fuzz_corrupted_stream_seeded() -> None:
    rng = random.Random(7)
    messages = _stream(200)
    parser = LineParser()
    kept = []
    for message in messages:
        line = bytearray(encode(message))
        if rng.random() < 0.1:
            line[rng.randrange(len(line))] = rng.randrange(256)
        if rng.random() < 0.1:
            line = bytearray(rng.randbytes(rng.randrange(40))) + line
        kept.extend(parser.feed(bytes(line)).messages)
    # every line that survives is a real one, in order; most survive
    assert all(m in messages for m in kept)
    assert [m.seq for m in kept] == sorted(m.seq for m in kept)
    assert len(kept) > 150


def test_drop_stamped_before_the_previous_heartbeat_is_not_a_reset() -> None:
    # the beam broke at 999 ms, the heartbeat went out at 1000 ms, the drop was confirmed at
    # 1001 ms: on the wire the drop's time is earlier than the heartbeat's
    parser = LineParser()
    parser.feed(encode(_hello()) + encode(Heartbeat(1, 1_000_000, BOOT, 0)))
    assert parser.feed(encode(Drop(2, 999_000, 1))).problems == ()
    parser.feed(encode(Heartbeat(3, 5_000_000, BOOT, 0)))
    assert _kinds(parser.feed(encode(Drop(4, 1, 1)))) == [ProblemKind.RESET]  # 5 s back
