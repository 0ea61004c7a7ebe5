"""`railbird watch` in a subprocess, its output read line by line as it comes (for the
end-to-end and crash tests)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 900.0
"""Longest wait for one thing the monitor should print (a loaded CI machine is slow)."""


class WatchProcess:
    """One `railbird watch` subprocess; every line it prints is kept in `lines`."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "railbird", "watch", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._new: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            self._new.put(line)
        self._new.put(None)

    def wait_for(self, done: Callable[[list[str]], bool], timeout_s: float = WAIT_S) -> None:
        """Wait until ``done(lines)``; fails with the output's tail when it never happens."""
        deadline = time.monotonic() + timeout_s
        while not done(self.lines):
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise AssertionError("the monitor never printed it:\n" + self.tail())
            try:
                item = self._new.get(timeout=min(left, 1.0))
            except queue.Empty:
                continue
            if item is None and not done(self.lines):
                raise AssertionError("the monitor ended first:\n" + self.tail())

    def rulings(self) -> list[str]:
        """The RULING lines so far."""
        return [line for line in self.lines if " RULING shot " in line]

    def states(self) -> list[dict[str, Any]]:
        """Every game state printed so far."""
        return [
            json.loads(line[len("state: ") :]) for line in self.lines if line.startswith("state: ")
        ]

    def value_after(self, prefix: str) -> str:
        """The rest of the first line that starts with ``prefix``."""
        return next(line[len(prefix) :].strip() for line in self.lines if line.startswith(prefix))

    def finish(self, timeout_s: float = WAIT_S) -> int:
        """Wait for the end of the run; its exit code."""
        try:
            return self.proc.wait(timeout=timeout_s)
        finally:
            self.kill()

    def stop(self) -> int:
        """Ctrl-C, as an operator ends a session; the exit code."""
        self.proc.send_signal(signal.SIGINT)
        return self.finish(60.0)

    def kill(self) -> None:
        """kill -9 (if still running); every line it printed is read after."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=10.0)

    def tail(self, n: int = 40) -> str:
        return "\n".join(self.lines[-n:])
