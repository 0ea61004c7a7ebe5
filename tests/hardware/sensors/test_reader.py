"""The real reader against the simulated board through a real pty."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import serial

from hardware.clock import FakeClock
from hardware.sensors.link import LinkConfig, LinkState, SensorLink, SensorStatus
from hardware.sensors.protocol import Drop, Heartbeat, Hello, encode
from hardware.sensors.reader import SensorReader
from hardware.sim.sensors import BoardModel, DropTruth, Faults, PtyPort, SimDrop, SimulatedBoard
from rules.errors import SensorError
from rules.signals import PocketSignal
from rules.table import PocketId
from tests.hardware.sensors.stepped import WAIT_S, SteppedClock, run_script

TOLERANCE_S = 0.002
POCKETS = list(PocketId)


def _drops(times: list[float]) -> list[SimDrop]:
    return [SimDrop(POCKETS[i % 6], t) for i, t in enumerate(times)]


def _run(
    tmp_path: Path, board: SimulatedBoard, *, until: float | None = None
) -> tuple[list[PocketSignal], tuple[DropTruth, ...], SensorReader, SteppedClock]:
    steps, truth = board.script()
    clock = SteppedClock(board.start)
    config = LinkConfig(baudrate=board.model.baudrate, min_latency_s=board.model.latency_s)
    with PtyPort(tmp_path / "ttyRAILBIRD") as port:
        reader = SensorReader(port.path, clock=clock, config=config)
        with reader:
            assert reader.wait_for(lambda r: r.connections == 1, WAIT_S)
            run_script(steps, port, reader, clock)
            if until is not None:
                clock.set(until)
                reader.wait_for(lambda r: r.status.state is LinkState.OFFLINE, 1.0)
    signals = []
    while not reader.signals.empty():
        signals.append(reader.signals.get_nowait())
    return signals, truth, reader, clock


def _assert_matches_truth(signals: list[PocketSignal], truth: tuple[DropTruth, ...]) -> None:
    delivered = [t for t in truth if t.arrival is not None]
    assert len(signals) == len(delivered)
    for signal, t in zip(signals, delivered, strict=True):
        assert signal.pocket is t.drop.pocket
        assert signal.sequence == t.seq
        assert abs(signal.time - t.drop.time) < TOLERANCE_S, (signal, t)
        assert signal.uncertainty < 0.005


def _reasons(reader: SensorReader) -> str:
    return " | ".join(r for s in reader.status_history for r in s.reasons)


def test_drops_arrive_at_their_true_session_times_despite_drift_and_jitter(
    tmp_path: Path,
) -> None:
    model = BoardModel(boot_at=-300.0, drift_ppm=2500.0, jitter_s=0.001)
    board = SimulatedBoard(_drops([3.1, 4.7, 6.02, 9.9, 13.3, 13.31, 17.0]), end=20.0, model=model)
    signals, truth, reader, _ = _run(tmp_path, board)
    _assert_matches_truth(signals, truth)
    assert len(signals) == 7
    states = [s.state for s in reader.status_history]
    assert states[-2] is LinkState.ONLINE  # online once synchronised; offline when closed
    assert len(states) <= 6  # a status changes with its meaning, not with every line
    assert LinkState.DEGRADED in states[: states.index(LinkState.ONLINE)]
    fit = reader.link.sync.fit()
    assert fit is not None and fit.drift_ppm == pytest.approx(-2500 / 1.0025, abs=50)


def test_garbage_corrupt_and_lost_lines_degrade_the_link_but_lose_no_good_drop(
    tmp_path: Path,
) -> None:
    faults = Faults(garbage_at=(4.5, 8.25), corrupt_line_at=(6.0,), lose_line_at=(10.0,))
    drops = _drops([3.0, 5.5, 7.0, 8.26, 10.0, 12.5, 15.0])
    board = SimulatedBoard(drops, end=30.0, faults=faults, seed=4)
    signals, truth, reader, _ = _run(tmp_path, board)
    _assert_matches_truth(signals, truth)
    assert sum(t.arrival is None for t in truth) == 1  # the lost line carried the 10.0 drop
    counters = reader.link.parser.counters
    assert counters.garbage_bytes > 0 and counters.bad_checksum >= 1  # noise may hold a $
    assert counters.gaps == 2  # after the corrupt line and after the lost one
    reasons = _reasons(reader)
    assert "bad lines" in reasons and "lines lost" in reasons
    assert reader.status_history[-2].state is LinkState.ONLINE  # 10 s after the last fault


def test_board_reset_restarts_the_clock_mapping(tmp_path: Path) -> None:
    faults = Faults(reset_at=(8.0,))
    board = SimulatedBoard(_drops([3.0, 6.0, 12.0, 14.5]), end=16.0, faults=faults)
    signals, truth, reader, _ = _run(tmp_path, board)
    _assert_matches_truth(signals, truth)
    assert [t.boot for t in truth] == [0, 0, 1, 1]
    assert reader.link.parser.counters.resets == 1
    assert "the board restarted" in _reasons(reader)


def test_unplug_goes_offline_and_the_reader_reconnects(tmp_path: Path) -> None:
    faults = Faults(unplugged=((6.3, 7.5),), reset_on_replug=True)
    drops = _drops([3.0, 5.0, 6.8, 11.0, 13.0])  # the 6.8 drop falls while unplugged
    board = SimulatedBoard(drops, end=20.0, faults=faults)  # "restarted" stays 10 s
    signals, truth, reader, _ = _run(tmp_path, board)
    _assert_matches_truth(signals, truth)
    assert [s.time for s in signals] == pytest.approx([3.0, 5.0, 11.0, 13.0], abs=TOLERANCE_S)
    assert reader.connections == 2
    states = [s.state for s in reader.status_history]
    offline = states.index(LinkState.OFFLINE, 1)
    assert LinkState.ONLINE in states[:offline] and LinkState.ONLINE in states[offline:]
    assert "lost sensor port" in _reasons(reader)
    assert "the board restarted" in _reasons(reader)


def test_replug_without_reset_shows_the_lost_lines(tmp_path: Path) -> None:
    faults = Faults(unplugged=((5.2, 6.5),), reset_on_replug=False)
    board = SimulatedBoard(_drops([3.0, 9.0]), end=11.0, faults=faults)
    signals, truth, reader, _ = _run(tmp_path, board)
    _assert_matches_truth(signals, truth)
    assert reader.link.parser.counters.lost_lines >= 1
    assert reader.link.parser.counters.resets == 0


def test_a_silent_board_goes_offline(tmp_path: Path) -> None:
    board = SimulatedBoard(_drops([2.0]), end=4.0)
    _, _, reader, _ = _run(tmp_path, board, until=8.0)
    silent = [s for s in reader.status_history if s.state is LinkState.OFFLINE and s.reasons]
    assert any("no line from the board for" in r for s in silent for r in s.reasons)


def test_a_missing_port_is_reported_offline_with_its_name(tmp_path: Path) -> None:
    missing = str(tmp_path / "ttyNOPE")
    seen: list[SensorStatus] = []
    reader = SensorReader(missing, clock=SteppedClock(), on_status=seen.append)
    with reader:
        assert reader.wait_for(lambda r: any(missing in x for x in r.status.reasons), WAIT_S)
    assert reader.status.state is LinkState.OFFLINE
    assert all(s.state is LinkState.OFFLINE for s in seen)
    with pytest.raises(SensorError, match="already running"):
        reader.start()


def test_loop_url_and_callback_delivery() -> None:
    clock = SteppedClock(100.0)
    got: list[PocketSignal] = []
    loop = serial.serial_for_url("loop://", timeout=0.05)
    loop.write(
        encode(Hello(0, 10_000, 1, "1.0.0", 6, 7))
        + encode(Heartbeat(1, 20_000, 7, 0))
        + encode(Drop(2, 25_000, 5))
    )
    reader = SensorReader(
        "loop://",
        clock=clock,
        on_signal=got.append,
        request_hello=False,
        opener=lambda url, baud, timeout: loop,
    )
    with reader:
        assert reader.wait_for(lambda r: r.link.parser.counters.lines == 3, WAIT_S)
    [signal] = got
    assert signal.pocket is PocketId.FOOT_RIGHT and signal.sequence == 2
    assert reader.signals.empty()


def test_raw_bytes_are_handed_out_and_replay_to_the_same_drops(tmp_path: Path) -> None:
    board = SimulatedBoard(_drops([2.0, 3.5, 4.0]), end=6.0, faults=Faults(garbage_at=(2.5,)))
    steps, _ = board.script()
    log: list[tuple[bytes, float]] = []
    clock = SteppedClock()
    with PtyPort(tmp_path / "tty") as port:
        reader = SensorReader(port.path, clock=clock, on_bytes=lambda d, t: log.append((d, t)))
        with reader:
            assert reader.wait_for(lambda r: r.connections == 1, WAIT_S)
            run_script(steps, port, reader, clock)
        port.drain_input()
        # no hello came (the board booted long before): asked once, 1.5 s after opening
        assert bytes(port.received) == b"?\n"
    live = [reader.signals.get_nowait() for _ in range(reader.signals.qsize())]
    replay = SensorLink("replay")
    replayed = [s for data, t in log for s in replay.receive(data, t)]
    assert len(live) == 3 and replayed == live


def test_spy_url_reads_through_and_logs_the_traffic(tmp_path: Path) -> None:
    board = SimulatedBoard(_drops([4.5, 5.0]), end=6.0)
    steps, truth = board.script()
    spy_log = tmp_path / "spy.txt"
    clock = SteppedClock()
    with PtyPort(tmp_path / "tty") as port:
        reader = SensorReader(f"spy://{port.path}?file={spy_log}", clock=clock)
        with reader:
            assert reader.wait_for(lambda r: r.connections == 1, WAIT_S)
            run_script(steps, port, reader, clock)
    signals = [reader.signals.get_nowait() for _ in range(reader.signals.qsize())]
    _assert_matches_truth(signals, truth)
    traffic = spy_log.read_text()
    assert traffic.count(" RX ") >= 6 and "ED0001" in traffic  # hex dump of what was read


def test_a_port_held_by_another_reader_is_refused_by_name(tmp_path: Path) -> None:
    with PtyPort(tmp_path / "tty") as port:
        first = SensorReader(port.path, clock=SteppedClock())
        with first:
            assert first.wait_for(lambda r: r.connections == 1, WAIT_S)
            second = SensorReader(port.path, clock=SteppedClock())
            with second:
                assert second.wait_for(lambda r: "exclusively" in str(r.status), WAIT_S)
            assert second.connections == 0
            assert str(second.status).startswith("sensors offline")


class _FlappingPort:
    """Opens fine, fails on the first read: a cable with a bad contact."""

    in_waiting = 0

    def read(self, size: int = 1) -> bytes:
        raise serial.SerialException("device reports readiness to read but returned no data")

    def write(self, data: bytes) -> int:
        return len(data)

    def close(self) -> None:
        pass


def test_a_flapping_port_backs_off_on_the_session_clock() -> None:
    clock = FakeClock()
    opened: list[float] = []

    def opener(url: str, baud: int, timeout: float) -> _FlappingPort:
        opened.append(clock.now())
        return _FlappingPort()

    reader = SensorReader("/dev/ttyFLAKY", clock=clock, opener=opener, backoff_s=(0.1, 2.0))
    with reader:
        assert reader.wait_for(lambda r: r.connections >= 8, WAIT_S)
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(opened)][:7]
    assert gaps == [0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0]
    assert "lost sensor port /dev/ttyFLAKY" in _reasons(reader)
