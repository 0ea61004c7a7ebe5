"""The newest track frames' samples stacked as arrays, kept up to date one frame at a time.

The segmenter's rebound test reads the same few dozen frames every frame; stacking them anew
each time cost more than the test itself, so the stack is shifted by one row per frame instead.
"""

from __future__ import annotations

import numpy as np

from tracking.model import BALLS, TrackFrame


class FrameWindow:
    """The last ``size`` frames' times, seen flags, measured and filtered positions, and
    measurement sigmas, oldest first (rows of each array; ``len`` of them are filled)."""

    def __init__(self, size: int) -> None:
        n = len(BALLS)
        self.size = size
        self.times = np.full(size, np.nan)
        self.seen = np.zeros((size, n), dtype=bool)
        self.measured = np.full((size, n, 2), np.nan)
        self.positions = np.full((size, n, 2), np.nan)
        self.measured_sigma = np.full((size, n), np.nan)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def push(self, frame: TrackFrame) -> None:
        """Add the newest frame, dropping the oldest once full."""
        for name in ("times", "seen", "measured", "positions", "measured_sigma"):
            rows = getattr(self, name)
            rows[:-1] = rows[1:]
        self.times[-1] = frame.time
        self.seen[-1] = frame.seen
        self.measured[-1] = frame.measured
        self.positions[-1] = frame.positions
        self.measured_sigma[-1] = frame.measured_sigma
        self._count = min(self._count + 1, self.size)
