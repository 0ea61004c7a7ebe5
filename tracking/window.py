"""The newest track frames' samples stacked as arrays, kept up to date one frame at a time.

The segmenter's rebound test reads the same few dozen frames every frame; stacking them anew
each time cost more than the test itself, so the stack is shifted by one row per frame instead,
and what the test derives from one frame (each centre's distance to the cushion lines) is
derived once, as the frame comes in.
"""

from __future__ import annotations

import numpy as np

from tracking.geometry import TableCache
from tracking.model import BALLS, TrackFrame


class FrameWindow:
    """The last ``size`` frames' samples, oldest first (rows of each array; ``len`` of them
    are filled).

    Attributes:
        times: (size,) frame times.
        seen: (size, 16) detection matched.
        on_table: (size, 16) in play.
        measured: (size, 16, 2) the matched detections' centres (nan when unseen).
        measured_sigma: (size, 16) their sigmas (nan when unseen).
        points: (size, 16, 2) each ball's best centre: measured where seen, else filtered.
        edge_gaps: (size, 16, 4) each point's distance inside the cushion nose lines
            ``x = hx``, ``y = hy``, ``x = -hx`` and ``y = -hy`` (hx, hy: the table's half
            length and half width).
        at_mouth: (size, 16) each point within ``mouth_reach`` of a pocket's mouth centre.
    """

    def __init__(self, size: int, geo: TableCache, mouth_reach: float) -> None:
        n = len(BALLS)
        self.size = size
        self._geo = geo
        self._half = np.array([geo.hx, geo.hy])
        self._mouth_reach = mouth_reach
        self.times = np.full(size, np.nan)
        self.seen = np.zeros((size, n), dtype=bool)
        self.on_table = np.zeros((size, n), dtype=bool)
        self.measured = np.full((size, n, 2), np.nan)
        self.measured_sigma = np.full((size, n), np.nan)
        self.points = np.full((size, n, 2), np.nan)
        self.edge_gaps = np.full((size, n, 4), np.nan)
        self.at_mouth = np.zeros((size, n), dtype=bool)
        # The per-ball arrays (a column per ball), allocated once and only written into.
        self._ball_rows = (
            self.seen,
            self.on_table,
            self.measured,
            self.measured_sigma,
            self.points,
            self.edge_gaps,
            self.at_mouth,
        )
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def swap_rows(self, a: int, b: int) -> None:
        """Exchange two balls' samples in every frame kept (`TrackFrame.swapped`)."""
        for rows in self._ball_rows:
            rows[:, [a, b]] = rows[:, [b, a]]

    def push(self, frame: TrackFrame) -> None:
        """Add the newest frame, dropping the oldest once full."""
        for rows in (self.times, *self._ball_rows):
            rows[:-1] = rows[1:]
        self.times[-1] = frame.time
        self.seen[-1] = frame.seen
        self.on_table[-1] = frame.on_table
        self.measured[-1] = frame.measured
        self.measured_sigma[-1] = frame.measured_sigma
        points = np.where(frame.seen[:, None], frame.measured, frame.positions)
        self.points[-1] = points
        self.edge_gaps[-1, :, :2] = self._half - points
        self.edge_gaps[-1, :, 2:] = self._half + points
        self.at_mouth[-1] = self._geo.near_a_mouth(points, self._mouth_reach)
        self._count = min(self._count + 1, self.size)
