"""The link state driven from lists, with no port and no thread."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.sensors.link import LinkConfig, LinkState, SensorLink
from hardware.sensors.protocol import (
    Drop,
    Fault,
    FaultCode,
    Heartbeat,
    Hello,
    LineParser,
    encode,
)
from rules.table import PocketId

BOOT = 0xB007


def _online_link(config: LinkConfig | None = None) -> tuple[SensorLink, int, float]:
    """A link fed 5 s of clean heartbeats (device time = session time + 100 s)."""
    link = SensorLink("/dev/ttyTEST", config)
    link.opened(0.0)
    link.receive(encode(Hello(0, 100_000_000, 1, "1.0.0", 6, BOOT)), 0.004)
    seq = 1
    for s in range(1, 6):
        link.receive(encode(Heartbeat(seq, (100 + s) * 1_000_000, BOOT, 0)), s + 0.004)
        seq += 1
    return link, seq, 5.004


def test_clean_link_is_online_and_maps_drops() -> None:
    link, seq, now = _online_link()
    assert link.status(now).state is LinkState.ONLINE
    [signal] = link.receive(encode(Drop(seq, 105_300_000, 2)), now + 0.3)
    assert signal.pocket is PocketId.SIDE_LEFT and signal.sequence == seq
    # heartbeats arrived 4 ms after they were stamped: their transmission time and the 1 ms
    # latency floor are known, the rest (~0.2 ms) is taken as the board's offset
    heartbeat_s = len(encode(Heartbeat(1, 101_000_000, BOOT, 0))) * 10 / 115200
    assert abs(signal.time - (5.3 + 0.004 - heartbeat_s - 0.001)) < 1e-4


def test_stuck_sensor_degrades_with_the_pocket_named_until_clear() -> None:
    link, seq, now = _online_link()
    link.receive(encode(Fault(seq, 105_500_000, 4, FaultCode.STUCK)), now + 0.5)
    status = link.status(now + 0.5)
    assert status.state is LinkState.DEGRADED
    assert "foot-left sensor stuck (blocked or broken)" in status.reasons
    link.receive(encode(Heartbeat(seq + 1, 106_000_000, BOOT, 0x10)), now + 1.0)
    assert "foot-left sensor stuck (blocked or broken)" in link.status(now + 1.0).reasons
    link.receive(encode(Fault(seq + 2, 106_100_000, 4, FaultCode.CLEAR)), now + 1.1)
    assert link.status(now + 1.1).state is LinkState.ONLINE


def test_lost_drop_on_the_board_is_reported() -> None:
    link, seq, now = _online_link()
    link.receive(encode(Fault(seq, 105_500_000, 0, FaultCode.LOST)), now + 0.5)
    assert "the board lost a drop in head-left (queue full)" in link.status(now + 0.5).reasons


def test_drop_on_an_unmapped_input_is_not_a_signal() -> None:
    config = LinkConfig(pocket_map=(PocketId.HEAD_LEFT,) * 6)
    link, seq, now = _online_link(config)
    assert link.receive(encode(Drop(seq, 105_300_000, 7)), now + 0.3) == []
    assert "drop on unmapped input 7" in link.status(now + 0.3).reasons


def test_board_with_fewer_inputs_than_pockets_degrades() -> None:
    link = SensorLink("/dev/ttyTEST")
    link.opened(0.0)
    link.receive(encode(Hello(0, 1_000, 1, "1.0.0", 4, BOOT)), 0.01)
    assert "board has 4 pocket inputs, 6 mapped" in link.status(0.01).reasons


def test_waiting_then_silent_after_open_goes_offline() -> None:
    link = SensorLink("/dev/ttyTEST", LinkConfig(silence_s=3.0))
    assert link.status(0.0).state is LinkState.OFFLINE  # never opened
    link.opened(10.0)
    assert link.status(11.0).reasons == ("waiting for the board",)
    status = link.status(13.5)
    assert status.state is LinkState.OFFLINE and "no line" in status.reasons[0]
    assert "/dev/ttyTEST" in str(status)


def test_problems_age_out_of_the_status() -> None:
    link, seq, now = _online_link(LinkConfig(recent_s=10.0))
    link.receive(b"\x00garbage\n", now)
    assert link.status(now + 1).state is LinkState.DEGRADED
    for s in range(1, 12):
        link.receive(encode(Heartbeat(seq, (105 + s) * 1_000_000, BOOT, 0)), now + s)
        seq += 1
    assert link.status(now + 11).state is LinkState.ONLINE


def test_the_readme_examples_are_valid_lines() -> None:
    readme = (Path(__file__).resolve().parents[3] / "hardware" / "README.md").read_text()
    examples = re.findall(r"`(\$[A-Z],[^`]*\*[0-9A-F]{4})`", readme)
    assert len(examples) >= 4
    parsed = LineParser().feed(b"".join(e.encode() + b"\n" for e in examples))
    assert len(parsed.messages) == len(examples)
    assert not [p for p in parsed.problems if p.kind.value in {"bad-checksum", "malformed"}]


def test_hello_is_requested_once_only_if_the_board_did_not_say_it() -> None:
    link = SensorLink("/dev/ttyTEST")
    assert not link.wants_hello(5.0)  # not open
    link.opened(10.0)
    assert not link.wants_hello(11.0)  # a reset board is still in its bootloader
    assert link.wants_hello(11.6)
    assert not link.wants_hello(12.0)  # once per opening
    link.opened(20.0)
    link.receive(encode(Hello(0, 1_000, 1, "1.0.0", 6, BOOT)), 20.6)
    assert not link.wants_hello(22.0)


_u32 = st.integers(0, 2**32 - 1)
_u64 = st.integers(0, 2**64 - 1)
_messages = st.one_of(
    st.builds(Hello, _u32, _u64, st.integers(0, 3), st.just("1.0.0"), st.integers(1, 8), _u32),
    st.builds(Drop, _u32, _u64, st.integers(0, 7)),
    st.builds(Heartbeat, _u32, _u64, st.sampled_from([BOOT, BOOT + 1]), st.integers(0, 255)),
    st.builds(Fault, _u32, _u64, st.integers(0, 7), st.sampled_from(list(FaultCode))),
)


@settings(max_examples=60, deadline=None)
@given(stream=st.lists(st.tuples(_messages, st.floats(0, 0.5), st.binary(max_size=8)), max_size=40))
def test_any_sequence_of_lines_never_breaks_the_link(stream) -> None:
    link = SensorLink("/dev/ttyFUZZ")
    link.opened(0.0)
    now = 0.0
    for message, gap, noise in stream:
        now += gap
        for signal in link.receive(noise + encode(message), now):
            assert signal.uncertainty >= 0 and signal.pocket in list(PocketId)
        status = link.status(now)
        assert status.state in list(LinkState)
