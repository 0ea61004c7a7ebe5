"""Module-level functions for the harness and pool tests: pool workers import them by name."""

from __future__ import annotations

import os
import time
from pathlib import Path


def append_line(path: Path, text: str) -> None:
    """Add ``text`` as a line to ``path``."""
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(text + "\n")


def square_with_pid(x: int) -> tuple[int, int]:
    """``x`` squared, and the process that squared it."""
    return x * x, os.getpid()


def fail_on_three(x: int) -> int:
    """``x``, unless it is 3."""
    if x == 3:
        raise ValueError(f"item {x} is bad")
    return x


def environment_value(key: str) -> str | None:
    """The variable ``key`` as this process sees it."""
    return os.environ.get(key)


def spin(cpu_s: float) -> None:
    """Keep the CPU busy for ``cpu_s`` seconds of this process's CPU time."""
    end = time.process_time() + cpu_s
    while time.process_time() < end:
        pass
