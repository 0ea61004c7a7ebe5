"""The segmenter's window of the newest frames: rows shift by one per frame, oldest first."""

from __future__ import annotations

import numpy as np

from tracking.model import BALLS, BallStatus, TrackFrame
from tracking.window import FrameWindow


def _frame(k: int) -> TrackFrame:
    n = len(BALLS)
    seen = np.zeros(n, dtype=bool)
    seen[k % n] = True
    positions = np.full((n, 2), float(k))
    measured = np.where(seen[:, None], positions + 0.5, np.nan)
    sigma = np.where(seen, 1.0 + k, np.nan)
    return TrackFrame(
        k,
        k / 60,
        (BallStatus.AT_REST,) * n,
        positions,
        np.zeros((n, 2)),
        np.ones(n),
        seen,
        np.full(n, 10.0),
        np.zeros(n),
        measured,
        sigma,
    )


def test_the_window_holds_the_newest_frames_oldest_first_once_full() -> None:
    window = FrameWindow(4)
    for k in range(3):
        window.push(_frame(k))
    assert len(window) == 3
    assert np.allclose(window.times[-3:], [0, 1 / 60, 2 / 60])
    for k in range(3, 7):
        window.push(_frame(k))
    assert len(window) == 4
    assert np.allclose(window.times, np.arange(3, 7) / 60)
    assert np.allclose(window.positions[:, 0, 0], [3, 4, 5, 6])
    assert [int(np.flatnonzero(row)[0]) for row in window.seen] == [3, 4, 5, 6]
    assert window.measured[-1, 6, 0] == 6.5 and np.isnan(window.measured[-1, 5, 0])
    assert window.measured_sigma[0, 3] == 4.0
