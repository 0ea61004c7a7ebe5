"""Where every ball was in every replayed frame: the review's ball paths.

The replay hands each frame's `TrackFrame` to a `TrackLog`; the review keeps only what it draws
(the filtered centres and each ball's status), a few hundred bytes per frame, so a long match
fits in memory while its video is annotated in a second pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.balls import BallId
from rules.table import Point
from tracking.model import BALLS, BallStatus, TrackFrame

STATUSES: tuple[BallStatus, ...] = tuple(BallStatus)
"""Code order of `BallPaths.status`."""
_ON_TABLE = np.array([s.on_table for s in STATUSES])
_POCKETED = STATUSES.index(BallStatus.POCKETED)
_OFF_TABLE = STATUSES.index(BallStatus.OFF_TABLE)


class TrackLog:
    """Collects the tracker's output frame by frame (pass `add` as replay's ``on_track``)."""

    def __init__(self) -> None:
        self._frames: list[int] = []
        self._times: list[float] = []
        self._positions: list[np.ndarray] = []
        self._status: list[np.ndarray] = []

    def add(self, track: TrackFrame) -> None:
        """Keep one frame's centres and statuses."""
        self._frames.append(track.frame)
        self._times.append(track.time)
        self._positions.append(np.asarray(track.positions, dtype=np.float32).copy())
        self._status.append(np.array([STATUSES.index(s) for s in track.status], dtype=np.uint8))

    def paths(self) -> BallPaths:
        """Everything collected, as arrays."""
        n = len(self._frames)
        return BallPaths(
            np.array(self._frames, dtype=np.int64),
            np.array(self._times, dtype=np.float64),
            np.stack(self._positions) if n else np.zeros((0, len(BALLS), 2), np.float32),
            np.stack(self._status) if n else np.zeros((0, len(BALLS)), np.uint8),
        )


@dataclass(frozen=True, slots=True, eq=False)
class BallPaths:
    """Every ball's tracked centre per replayed frame (frames the video lacked are absent).

    Attributes:
        frames: (n,) recording frame indices, increasing.
        times: (n,) session times.
        positions: (n, 16, 2) filtered centres in table mm, rows in `BALLS` order (nan: unseen).
        status: (n, 16) codes into `STATUSES`.
    """

    frames: np.ndarray
    times: np.ndarray
    positions: np.ndarray
    status: np.ndarray

    def __len__(self) -> int:
        return len(self.frames)

    def row_of_frame(self, frame: int) -> int | None:
        """The row holding recording frame ``frame``, or None when it was not replayed."""
        i = int(np.searchsorted(self.frames, frame))
        return i if i < len(self.frames) and self.frames[i] == frame else None

    def on_table(self, row: int) -> np.ndarray:
        """(16,) True where the ball is on the table with a known centre at ``row``."""
        return _ON_TABLE[self.status[row]] & np.isfinite(self.positions[row, :, 0])

    def pocketed(self, row: int) -> np.ndarray:
        """(16,) True where the ball is in a pocket at ``row``."""
        return self.status[row] == _POCKETED

    def off_table(self, row: int) -> np.ndarray:
        """(16,) True where the ball has left the table at ``row``."""
        return self.status[row] == _OFF_TABLE

    def rows_between(self, start: float, end: float) -> range:
        """Rows with ``start <= time <= end``."""
        lo = int(np.searchsorted(self.times, start, side="left"))
        hi = int(np.searchsorted(self.times, end, side="right"))
        return range(lo, hi)

    def path(self, ball: BallId, start: float, end: float) -> tuple[Point, ...]:
        """The ball's centres on the table between two times, in order (gaps skipped)."""
        k = BALLS.index(ball)
        rows = self.rows_between(start, end)
        out: list[Point] = []
        for row in rows:
            if _ON_TABLE[self.status[row, k]] and np.isfinite(self.positions[row, k, 0]):
                x, y = self.positions[row, k]
                out.append((float(x), float(y)))
        return tuple(out)

    def position_at(self, ball: BallId, time: float) -> Point | None:
        """The ball's last known centre on the table at or before ``time`` (else the first one)."""
        k = BALLS.index(ball)
        known = _ON_TABLE[self.status[:, k]] & np.isfinite(self.positions[:, k, 0])
        rows = np.flatnonzero(known)
        if len(rows) == 0:
            return None
        i = int(np.searchsorted(self.times[rows], time, side="right")) - 1
        row = rows[max(i, 0)]
        x, y = self.positions[row, k]
        return (float(x), float(y))
