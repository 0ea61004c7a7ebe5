from __future__ import annotations

import os
import select
from pathlib import Path

import pytest

from hardware.clock import FakeClock
from hardware.sensors.protocol import Drop, Heartbeat, Hello, LineParser, ProblemKind
from hardware.sim.sensors import (
    BoardModel,
    Chunk,
    Faults,
    PtyPort,
    Replug,
    SimDrop,
    SimulatedBoard,
    Unplug,
    drops_from_events,
    play_in_background,
)
from rules.events import EventKind, ShotEvent
from rules.table import PocketId


def _bytes(steps) -> bytes:
    return b"".join(s.data for s in steps if isinstance(s, Chunk))


def _board(**kwargs) -> SimulatedBoard:
    drops = [SimDrop(PocketId.FOOT_LEFT, 2.5), SimDrop(PocketId.SIDE_RIGHT, 4.25)]
    return SimulatedBoard(drops, end=kwargs.pop("end", 8.0), **kwargs)


def test_drops_from_shot_events_keep_pocketed_balls_only() -> None:
    events = [
        ShotEvent(EventKind.CUE_STRIKE, 0.1, ("cue",)),
        ShotEvent(EventKind.POCKETED, 1.5, ("9",), pocket=PocketId.HEAD_LEFT),
        ShotEvent(EventKind.POCKET_REBOUND, 1.7, ("3",), pocket=PocketId.SIDE_LEFT),
        ShotEvent(EventKind.SETTLED_INTO_POCKET, 9.0, ("4",), pocket=PocketId.FOOT_RIGHT),
    ]
    assert drops_from_events(events) == [
        SimDrop(PocketId.HEAD_LEFT, 1.5),
        SimDrop(PocketId.FOOT_RIGHT, 9.0),
    ]


def test_script_is_the_firmware_protocol_with_device_time_and_drift() -> None:
    model = BoardModel(boot_at=-10.0, drift_ppm=1000.0)
    board = _board(model=model)
    steps, truth = board.script()
    messages = LineParser().feed(_bytes(steps)).messages
    assert all(isinstance(m, Heartbeat | Drop) for m in messages)  # booted before the start
    assert [m.seq for m in messages] == list(
        range(messages[0].seq, messages[0].seq + len(messages))
    )
    drops = [m for m in messages if isinstance(m, Drop)]
    assert [d.pocket for d in drops] == [4, 3]
    edge_us = round((2.5 + 10.0) * 1.001 * 1e6)
    assert 0 <= drops[0].t_us - edge_us <= model.poll_s * 1.001e6 + 1  # seen at the next poll
    assert [t.t_us for t in truth] == [d.t_us for d in drops]
    # arrivals come after the drop: debounce + transmission + latency floor at least
    for t in truth:
        assert t.arrival is not None
        assert t.arrival - t.drop.time > model.confirm_s + model.latency_s + 22 * 10 / 115200
    times = [s.time for s in steps]
    assert times == sorted(times)


def test_same_seed_same_script_and_other_seed_other_jitter() -> None:
    assert _board(seed=3).script() == _board(seed=3).script()
    assert _board(seed=3).script() != _board(seed=4).script()


def test_faults_show_on_the_wire() -> None:
    faults = Faults(
        lose_line_at=(3.0,),
        corrupt_line_at=(5.0,),
        garbage_at=(6.5,),
        reset_at=(7.0,),
    )
    steps, _ = _board(faults=faults, end=9.0).script()
    kinds = [p.kind for p in LineParser().feed(_bytes(steps)).problems]
    assert kinds.count(ProblemKind.SEQUENCE_GAP) == 2  # the lost and the corrupted line
    assert ProblemKind.BAD_CHECKSUM in kinds
    assert ProblemKind.GARBAGE in kinds or ProblemKind.OVERLONG in kinds
    assert ProblemKind.RESET in kinds


def test_unplug_cuts_a_line_and_loses_what_was_sent_meanwhile() -> None:
    model = BoardModel(jitter_s=1e-4)
    probe = _board(model=model).script()[0]
    heartbeat = next(s for s in probe if isinstance(s, Chunk) and s.time > 3.0)
    unplug = heartbeat.time - 0.001  # in the middle of that line's transfer
    faults = Faults(unplugged=((unplug, 5.0),), reset_on_replug=False)
    steps, truth = _board(model=model, faults=faults).script()
    before = [s for s in steps if s.time < unplug]
    assert before[-1] == Chunk(unplug - 1e-6, heartbeat.data[: len(heartbeat.data) // 2])
    assert [type(s) for s in steps if not isinstance(s, Chunk)] == [Unplug, Replug]
    assert [t.arrival is None for t in truth] == [False, True]  # 4.25 fell while unplugged
    assert not any(unplug <= s.time < 5.0 for s in steps if isinstance(s, Chunk))


def test_reset_on_replug_boots_again_with_a_hello() -> None:
    faults = Faults(unplugged=((3.0, 4.0),))
    steps, truth = _board(faults=faults).script()
    after = LineParser().feed(_bytes(s for s in steps if s.time > 4.0)).messages
    assert isinstance(after[0], Hello) and after[0].seq == 0
    assert after[0].t_us == pytest.approx(0.5e6, rel=0.01)  # after the bootloader's wait
    assert truth[1].arrival is None  # 4.25 s: the board was still in its bootloader


def test_drops_after_a_reset_belong_to_the_new_boot() -> None:
    board = SimulatedBoard(
        [SimDrop(PocketId.HEAD_RIGHT, 6.0)], end=8.0, faults=Faults(reset_at=(3.0,))
    )
    [truth] = board.script()[1]
    assert truth.boot == 1 and truth.seq is not None and truth.t_us is not None
    assert 0 <= truth.t_us - round(3.0 * board.rate * 1e6) <= 151


def test_play_streams_the_script_through_a_pty(tmp_path: Path) -> None:
    steps, _ = _board().script()
    with PtyPort(tmp_path / "tty") as port:
        reader = os.open(port.path, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            thread, _ = play_in_background(steps, port, FakeClock())
            thread.join(5.0)
            assert not thread.is_alive()
            got = _read_until(reader, len(_bytes(steps)))
        finally:
            os.close(reader)
    assert got == _bytes(steps)


def _read_until(fd: int, size: int, timeout: float = 5.0) -> bytes:
    """Read from a pty until ``size`` bytes came (the kernel hands them over asynchronously)."""
    got = b""
    while len(got) < size:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            break
        got += os.read(fd, 65536)
    return got


def test_pty_port_unplug_removes_the_path(tmp_path: Path) -> None:
    port = PtyPort(tmp_path / "tty")
    first = os.readlink(port.path)
    port.unplug()
    assert not os.path.exists(port.path)
    with pytest.raises(OSError, match="unplugged"):
        port.write(b"x")
    port.plug()
    assert os.path.exists(port.path) and port.plugged
    port.close()
    assert first.startswith("/dev/")
