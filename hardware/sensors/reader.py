"""The reader thread: moves bytes from a serial port into a `SensorLink`, and nothing else.

Ports are pyserial URLs opened with `serial.serial_for_url`: ``/dev/ttyACM0`` (or a stable
``/dev/serial/by-id/...`` link) live, a pty path or ``loop://`` in tests, ``spy:///dev/ttyACM0``
to see the bytes while debugging. When the port disappears (cable pulled, board reset by a
hub) the reader reports offline and retries with exponential backoff on the injected clock;
when it comes back the link carries on (a gap or a reset shows in the status).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

import serial

from hardware.clock import Clock
from hardware.sensors.link import LinkConfig, SensorLink, SensorStatus
from hardware.sensors.protocol import HELLO_REQUEST
from rules.errors import SensorError
from rules.signals import PocketSignal

log = logging.getLogger(__name__)

STABLE_LINK_S = 5.0
"""A connection that lasted this long resets the reconnection backoff."""


class SerialPort(Protocol):
    """The part of `serial.Serial` the reader uses."""

    @property
    def in_waiting(self) -> int:
        """Bytes ready to read."""
        ...

    def read(self, size: int = 1) -> bytes:
        """Read up to ``size`` bytes, waiting at most the port timeout."""
        ...

    def write(self, data: bytes) -> int | None:
        """Send bytes to the board."""
        ...

    def close(self) -> None:
        """Release the port."""
        ...


Opener = Callable[[str, int, float], SerialPort]
"""Opens (url, baudrate, read timeout) -> port; raises `SensorError` on failure."""


def open_port(url: str, baudrate: int = 115200, timeout: float = 0.05) -> SerialPort:
    """Open a pyserial URL.

    Raises:
        SensorError: The port does not exist, is held by another program, or the URL is
            invalid (names the port).
    """
    try:
        # exclusive: a second program on the same board would steal half its lines
        return serial.serial_for_url(url, baudrate=baudrate, timeout=timeout, exclusive=True)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise SensorError(f"cannot open sensor port {url}: {exc}") from exc


class SensorReader:
    """Reads one sensor board on a background thread.

    Drops go to ``on_signal`` if given, else into the thread-safe queue `signals`. Status
    changes go to ``on_status`` (and the log). Callbacks run on the reader thread: keep them
    short. Use as a context manager, or call `start` and `close`.

    Args:
        port: A pyserial URL.
        clock: The session clock: arrival stamps and reconnection backoff.
        config: How to read the link.
        on_signal: Called with each `PocketSignal`.
        on_status: Called with each new `SensorStatus`.
        on_bytes: Called with every chunk read and its arrival time, before parsing (the raw
            serial log a recording keeps; replaying it through `SensorLink.receive` gives the
            same drops).
        backoff_s: (first, longest) wait between attempts to open the port.
        read_timeout_s: Longest a read blocks (bounds how late a close or silence is noticed).
        request_hello: Ask for a hello if none came 1.5 s after opening (off for ``loop://``).
        opener: Opens the port (tests may pass their own).
    """

    def __init__(
        self,
        port: str,
        *,
        clock: Clock,
        config: LinkConfig | None = None,
        on_signal: Callable[[PocketSignal], Any] | None = None,
        on_status: Callable[[SensorStatus], Any] | None = None,
        on_bytes: Callable[[bytes, float], Any] | None = None,
        backoff_s: tuple[float, float] = (0.1, 2.0),
        read_timeout_s: float = 0.05,
        request_hello: bool = True,
        opener: Opener = open_port,
    ) -> None:
        self.port = port
        self.signals: queue.Queue[PocketSignal] = queue.Queue()
        self._clock = clock
        self._link = SensorLink(port, config)
        self._on_signal = on_signal
        self._on_status = on_status
        self._on_bytes = on_bytes
        self._backoff = backoff_s
        self._read_timeout_s = read_timeout_s
        self._request_hello = request_hello
        self._opener = opener
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress = threading.Condition()
        self._bytes_received = 0
        self._connections = 0
        self._status = self._link.status(clock.now())
        self._status_history: list[SensorStatus] = [self._status]

    def __enter__(self) -> SensorReader:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def link(self) -> SensorLink:
        """The link state (parser counters, clock fit)."""
        return self._link

    @property
    def status(self) -> SensorStatus:
        """The latest status."""
        with self._progress:
            return self._status

    @property
    def status_history(self) -> tuple[SensorStatus, ...]:
        """Every distinct status so far, oldest first (bounded to the last 100)."""
        with self._progress:
            return tuple(self._status_history)

    @property
    def bytes_received(self) -> int:
        """Bytes read from the port since start, over every connection."""
        with self._progress:
            return self._bytes_received

    @property
    def connections(self) -> int:
        """How many times the port was opened."""
        with self._progress:
            return self._connections

    def wait_for(self, predicate: Callable[[SensorReader], bool], timeout: float) -> bool:
        """Block (real time, at most ``timeout`` s) until ``predicate(self)`` holds."""
        with self._progress:
            return self._progress.wait_for(lambda: predicate(self), timeout)

    def start(self) -> None:
        """Start the reader thread.

        Raises:
            SensorError: It is already running.
        """
        if self._thread is not None:
            raise SensorError(f"the reader of {self.port} is already running")
        self._thread = threading.Thread(target=self._run, name=f"sensors {self.port}", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread and release the port."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("%s: reader thread did not stop within %.1f s", self.port, timeout)

    def _run(self) -> None:
        delay = self._backoff[0]
        while not self._stop.is_set():
            try:
                port = self._opener(self.port, self._link.config.baudrate, self._read_timeout_s)
            except SensorError as exc:
                self._link.closed(self._clock.now(), str(exc))
                self._report()
                self._wait(delay)
                delay = min(delay * 2, self._backoff[1])
                continue
            opened_at = self._clock.now()
            try:
                self._serve(port)
            except (serial.SerialException, OSError) as exc:
                self._link.closed(self._clock.now(), f"lost sensor port {self.port}: {exc}")
            except Exception:  # the reader must outlive any bug: report it and reconnect
                log.exception("%s: reader failed", self.port)
                self._link.closed(self._clock.now(), f"reader of {self.port} failed (see log)")
            finally:
                _close_quietly(port)
            self._report()
            # A link that held a while starts the backoff afresh; one that keeps failing right
            # after opening (a flapping cable) backs off like a port that will not open.
            if self._clock.now() - opened_at >= STABLE_LINK_S:
                delay = self._backoff[0]
            self._wait(delay)
            delay = min(delay * 2, self._backoff[1])
        self._link.closed(self._clock.now(), f"reader of {self.port} stopped")
        self._report()

    def _serve(self, port: SerialPort) -> None:
        self._link.opened(self._clock.now())
        with self._progress:
            self._connections += 1
            self._progress.notify_all()
        self._report()
        while not self._stop.is_set():
            data = port.read(max(1, port.in_waiting))
            now = self._clock.now()
            if self._request_hello and self._link.wants_hello(now):
                port.write(HELLO_REQUEST)
            if data:
                if self._on_bytes is not None:
                    self._call(self._on_bytes, data, now)
                for signal in self._link.receive(data, now):
                    self._deliver(signal)
                with self._progress:
                    self._bytes_received += len(data)
                    self._progress.notify_all()
            self._report()

    def _deliver(self, signal: PocketSignal) -> None:
        log.debug("%s: drop %s", self.port, signal)
        if self._on_signal is None:
            self.signals.put(signal)
        else:
            self._call(self._on_signal, signal)

    def _report(self) -> None:
        status = self._link.status(self._clock.now())
        with self._progress:
            if status == self._status:
                return
            self._status = status
            self._status_history.append(status)
            del self._status_history[:-100]
            self._progress.notify_all()
        log.info("%s", status)
        if self._on_status is not None:
            self._call(self._on_status, status)

    def _call(self, callback: Callable[..., Any], *args: object) -> None:
        """Run a user callback; a failing one is logged, never kills the reader."""
        try:
            callback(*args)
        except Exception:
            log.exception("%s: callback %r failed", self.port, callback)

    def _wait(self, seconds: float) -> None:
        """Wait on the session clock in short slices, so `close` is never held up."""
        deadline = self._clock.now() + seconds
        while not self._stop.is_set():
            left = deadline - self._clock.now()
            if left <= 0:
                return
            self._clock.sleep(min(left, self._read_timeout_s))


def _close_quietly(port: SerialPort) -> None:
    try:
        port.close()
    except (serial.SerialException, OSError) as exc:
        log.debug("closing the sensor port failed: %s", exc)
