"""The session clock: one monotonic time base in seconds, injected so tests never sleep."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic session time in seconds."""

    def now(self) -> float:
        """Seconds since the session started."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait; a fake clock advances instead."""
        ...


class MonotonicClock:
    """The real session clock: `time.monotonic`, reading ``start`` at the moment it was made."""

    def __init__(self, start: float = 0.0) -> None:
        self._origin = time.monotonic() - start

    def now(self) -> float:
        """Seconds since this clock was made, plus ``start``."""
        return time.monotonic() - self._origin

    def sleep(self, seconds: float) -> None:
        """Block for ``seconds``."""
        time.sleep(max(0.0, seconds))


class FakeClock:
    """A clock for tests: time moves only when told to (thread-safe)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current fake time."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward.

        Raises:
            ValueError: ``seconds`` is negative (a monotonic clock never goes back).
        """
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back {seconds} s")
        with self._lock:
            self._now += seconds

    def sleep(self, seconds: float) -> None:
        """Advance instead of waiting."""
        self.advance(max(0.0, seconds))
