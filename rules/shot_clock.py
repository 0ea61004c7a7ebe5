"""What a shot clock shows (rules 1.11, 2.25): the value displays and the scoreboard read.

The clock model that produces readings from times and events is built on this; displays
(`hardware`) and the web scoreboard (`railbird`) only show a `ClockReading`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ClockPhase(StrEnum):
    """Where the shot clock is."""

    IDLE = "idle"
    """Not counting: balls still moving, or waiting for ball in hand to be taken."""
    RUNNING = "running"
    """Counting down, more than the warning time left."""
    WARNING = "warning"
    """Counting down inside the last 10 s ("time" has been or will be called, rule 1.11)."""
    STOPPED = "stopped"
    """Stopped by the cue strike."""
    EXPIRED = "expired"
    """Time ran out before the strike: a foul (rules 1.11, 2.25)."""


@dataclass(frozen=True, slots=True)
class ClockReading:
    """One look at the shot clock.

    Attributes:
        phase: Where the clock is.
        remaining_s: Seconds left on the shot (0 once expired; the limit while idle).
        limit_s: The time allowed for this shot, including an extension if one was taken.
        extension_used: The shooter has used the extension for this rack.
    """

    phase: ClockPhase
    remaining_s: float
    limit_s: float
    extension_used: bool = False

    def __post_init__(self) -> None:
        if self.remaining_s < 0 or self.limit_s <= 0 or self.remaining_s > self.limit_s:
            raise ValueError(
                f"a shot clock cannot show {self.remaining_s} s left of {self.limit_s} s"
            )
