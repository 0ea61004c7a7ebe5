"""The hub between the live loop and the web server.

The live loop calls `Hub.publish` with each new `ScoreboardState` from any thread; publishing
only swaps the latest state under a lock and pokes the listeners, so it never waits for a
browser. Each browser stream sends the latest state when it is ready for one: a slow client
skips the states it was too slow for instead of queueing them. Console inputs go the other way
through `Hub.submit` to the callback the live loop registered with `Hub.on_input`.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from railbird.web.scoreboard import ScoreboardState
from rules.errors import RailbirdError
from rules.inputs import OperatorInput

log = logging.getLogger(__name__)

InputHandler = Callable[[OperatorInput], None]
"""The live loop's handler of a console input: returns None, or raises `RailbirdError` whose
message goes back to the console."""


class NoLiveLoop(RailbirdError):
    """A console input arrived while no live loop takes inputs."""


class Hub:
    """The latest scoreboard state, a version counter, and the console input route.

    Thread-safe: `publish` and `submit` may be called from any thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: ScoreboardState | None = None
        self._version = 0
        self._listeners: list[Callable[[], None]] = []
        self._handler: InputHandler | None = None
        self._submit_lock = threading.Lock()

    def publish(self, state: ScoreboardState) -> int:
        """Make ``state`` the latest and wake the streams; returns its version. Never blocks on
        a client (listeners only schedule work on the server's event loop)."""
        with self._lock:
            self._state = state
            self._version += 1
            version = self._version
            listeners = tuple(self._listeners)
        for wake in listeners:
            try:
                wake()
            except RuntimeError:  # the server's event loop is closed: it is shutting down
                log.debug("a stream listener is gone")
        return version

    def latest(self) -> tuple[int, ScoreboardState | None]:
        """The latest version and state (0 and None before the first publish)."""
        with self._lock:
            return self._version, self._state

    def add_listener(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (from the publishing thread) after every publish; it must not block."""
        with self._lock:
            self._listeners.append(wake)

    def remove_listener(self, wake: Callable[[], None]) -> None:
        """Stop calling ``wake``."""
        with self._lock:
            if wake in self._listeners:
                self._listeners.remove(wake)

    def on_input(self, handler: InputHandler | None) -> None:
        """Route console inputs to ``handler`` (None: refuse them)."""
        with self._lock:
            self._handler = handler

    def submit(self, item: OperatorInput) -> None:
        """Hand a console input to the live loop's handler, one input at a time.

        Raises:
            NoLiveLoop: no handler is registered.
            RailbirdError: the handler refused the input (its message says why).
        """
        with self._lock:
            handler = self._handler
        if handler is None:
            raise NoLiveLoop("no live loop is taking console inputs")
        with self._submit_lock:
            handler(item)


class InputQueue:
    """Console inputs for a live loop that runs on one thread of its own.

    Register `submit` as the hub's handler (``hub.on_input(queue.submit)``) and call `drain`
    from the loop between frames: the server's thread waits until the loop has applied the
    input, so the referee's refusal still goes back to the console. An input the loop does not
    reach within ``timeout_s`` is withdrawn (never applied later) and reported.
    """

    def __init__(self, timeout_s: float = 2.0) -> None:
        self.timeout_s = timeout_s
        self._queue: queue.SimpleQueue[_Pending] = queue.SimpleQueue()

    def submit(self, item: OperatorInput) -> None:
        """Queue ``item`` and wait for the loop's verdict.

        Raises:
            NoLiveLoop: the loop did not take it within ``timeout_s``.
            RailbirdError: the loop refused it.
        """
        pending = _Pending(item)
        self._queue.put(pending)
        pending.done.wait(self.timeout_s)
        with pending.lock:
            if not pending.done.is_set():
                pending.withdrawn = True
                raise NoLiveLoop(f"the live loop did not take the input within {self.timeout_s} s")
        if pending.error is not None:
            raise pending.error

    def drain(self, apply: InputHandler) -> int:
        """Apply every queued input with ``apply`` (on the loop's thread); returns how many
        were applied or refused. A `RailbirdError` from ``apply`` goes back to the console."""
        handled = 0
        while True:
            try:
                pending = self._queue.get_nowait()
            except queue.Empty:
                return handled
            with pending.lock:
                if pending.withdrawn:
                    continue
                try:
                    apply(pending.item)
                except RailbirdError as exc:
                    pending.error = exc
                pending.done.set()
                handled += 1


class _Pending:
    __slots__ = ("done", "error", "item", "lock", "withdrawn")

    def __init__(self, item: OperatorInput) -> None:
        self.item = item
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.error: RailbirdError | None = None
        self.withdrawn = False
