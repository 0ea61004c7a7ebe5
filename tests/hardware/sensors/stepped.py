"""Drive the real reader over a real pty from a simulated board's script, on stepped time.

The test owns session time: it sets the clock to each step's time, writes the step's bytes and
waits (a bounded real-time wait, never a sleep) until the reader has consumed them, so every
chunk is stamped with exactly its simulated arrival time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from hardware.sensors.link import LinkState
from hardware.sensors.reader import SensorReader
from hardware.sim.sensors import Chunk, PtyPort, Replug, Step, Unplug, apply

WAIT_S = 5.0
"""Longest real wait for the reader thread at any step (it normally takes microseconds)."""


class SteppedClock:
    """A session clock moved by the test; ``sleep`` waits (briefly, in real time) for it."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._changed = threading.Condition()

    def now(self) -> float:
        """The current session time."""
        with self._changed:
            return self._now

    def set(self, time: float) -> None:
        """Move time forward to ``time`` (never back)."""
        with self._changed:
            if time > self._now:
                self._now = time
                self._changed.notify_all()

    def sleep(self, seconds: float) -> None:
        """Return when time has moved ``seconds`` on, or after a few real milliseconds.

        Returning early is allowed (callers re-check the time), and keeps a stopping thread
        from waiting on a test that no longer moves the clock.
        """
        with self._changed:
            target = self._now + seconds
            self._changed.wait_for(lambda: self._now >= target, timeout=0.005)


def run_script(
    steps: Sequence[Step], port: PtyPort, reader: SensorReader, clock: SteppedClock
) -> None:
    """Play ``steps`` into ``port`` in lockstep with ``reader``."""
    written = 0
    for i, step in enumerate(steps):
        clock.set(step.time)
        apply(step, port)
        if isinstance(step, Chunk):
            written += len(step.data)
            target = written
            ok = reader.wait_for(lambda r, n=target: r.bytes_received >= n, WAIT_S)
            assert ok, f"reader did not take the bytes of step {i} ({step})"
        elif isinstance(step, Unplug):
            ok = reader.wait_for(lambda r: r.status.state is LinkState.OFFLINE, WAIT_S)
            assert ok, "reader did not notice the unplug"
            written = reader.bytes_received
        elif isinstance(step, Replug):
            _wait_reconnect(
                steps[i + 1].time if i + 1 < len(steps) else step.time + 5, reader, clock
            )


def _wait_reconnect(limit: float, reader: SensorReader, clock: SteppedClock) -> None:
    """Let backoff time pass, 10 ms at a time, until the reader reopened the port."""
    before = reader.connections
    while clock.now() < limit:
        if reader.wait_for(lambda r: r.connections > before, 0.02):
            return
        clock.set(min(limit, clock.now() + 0.01))
    assert reader.wait_for(lambda r: r.connections > before, WAIT_S), "no reconnect"
