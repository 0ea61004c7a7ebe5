"""The hub: latest state for the streams, console inputs to the live loop's handler."""

from __future__ import annotations

import threading

import pytest

from railbird.web.hub import Hub, InputQueue, NoLiveLoop
from railbird.web.scoreboard import scoreboard_state
from rules.errors import RecordError
from rules.inputs import PushOut, Safety
from rules.referee import Referee
from tests.factories import TABLE_9FT


def _board(name: str = "Ann"):
    return scoreboard_state(Referee.new("9-ball", (name, "Bob"), TABLE_9FT).timeline)


def test_publish_keeps_only_the_latest_state_and_counts_versions() -> None:
    hub = Hub()
    assert hub.latest() == (0, None)
    boards = [_board(n) for n in ("Ann", "Cy", "Di")]
    versions = [hub.publish(b) for b in boards]
    assert versions == [1, 2, 3]
    assert hub.latest() == (3, boards[-1])


def test_publish_from_many_threads_wakes_listeners_once_per_state() -> None:
    hub = Hub()
    woken: list[int] = []
    hub.add_listener(lambda: woken.append(1))
    board = _board()
    threads = [
        threading.Thread(target=lambda: [hub.publish(board) for _ in range(100)]) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert hub.latest()[0] == 400 and len(woken) == 400


def test_a_listener_of_a_closed_event_loop_does_not_stop_publishing() -> None:
    hub = Hub()

    def closed() -> None:
        raise RuntimeError("Event loop is closed")

    hub.add_listener(closed)
    assert hub.publish(_board()) == 1
    hub.remove_listener(closed)
    hub.remove_listener(closed)  # removing twice is harmless


def test_inputs_go_to_the_handler_and_its_refusal_comes_back() -> None:
    hub = Hub()
    with pytest.raises(NoLiveLoop, match="no live loop"):
        hub.submit(Safety())
    seen = []
    hub.on_input(seen.append)
    hub.submit(Safety())
    assert seen == [Safety()]

    def refuse(item: object) -> None:
        raise RecordError("log entry 7: the game is already over")

    hub.on_input(refuse)
    with pytest.raises(RecordError, match="already over"):
        hub.submit(Safety())


def test_an_input_queue_hands_inputs_to_the_loop_thread_and_returns_its_verdict() -> None:
    hub = Hub()
    inputs = InputQueue(timeout_s=5.0)
    hub.on_input(inputs.submit)
    applied: list[tuple[object, str]] = []
    stop = threading.Event()

    def apply(item: object) -> None:
        if isinstance(item, PushOut):
            raise RecordError("log entry 3: a push-out only after the break (5.6)")
        applied.append((item, threading.current_thread().name))

    def live_loop() -> None:
        while not stop.is_set():
            inputs.drain(apply)
            stop.wait(0.001)

    loop = threading.Thread(target=live_loop, name="live-loop")
    loop.start()
    try:
        hub.submit(Safety())
        with pytest.raises(RecordError, match=r"\(5\.6\)"):
            hub.submit(PushOut())
    finally:
        stop.set()
        loop.join()
    assert applied == [(Safety(), "live-loop")]


def test_an_input_the_loop_never_takes_is_withdrawn_not_applied_later() -> None:
    inputs = InputQueue(timeout_s=0.01)
    with pytest.raises(NoLiveLoop, match=r"did not take the input within 0\.01 s"):
        inputs.submit(Safety())
    applied: list[object] = []
    assert inputs.drain(applied.append) == 0 and applied == []
