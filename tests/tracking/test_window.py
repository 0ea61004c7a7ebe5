"""The segmenter's window of the newest frames: rows shift by one per frame, oldest first."""

from __future__ import annotations

import dataclasses

import numpy as np

from tests.factories import TABLE_9FT
from tracking.geometry import TableCache
from tracking.model import BALLS, BallStatus, TrackFrame
from tracking.window import FrameWindow

_GEO = TableCache(TABLE_9FT)


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
    window = FrameWindow(4, _GEO, TABLE_9FT.ball_diameter)
    for k in range(3):
        window.push(_frame(k))
    assert len(window) == 3
    assert np.allclose(window.times[-3:], [0, 1 / 60, 2 / 60])
    for k in range(3, 7):
        window.push(_frame(k))
    assert len(window) == 4
    assert np.allclose(window.times, np.arange(3, 7) / 60)
    assert np.allclose(window.points[:, 0, 0], [3, 4, 5, 6])  # unseen in these frames: filtered
    assert [int(np.flatnonzero(row)[0]) for row in window.seen] == [3, 4, 5, 6]
    assert window.measured[-1, 6, 0] == 6.5 and np.isnan(window.measured[-1, 5, 0])
    assert window.measured_sigma[0, 3] == 4.0


def test_each_frame_brings_its_best_centres_and_their_distances_to_the_cushion_lines() -> None:
    window = FrameWindow(3, _GEO, TABLE_9FT.ball_diameter)
    frame = _frame(2)  # ball 2 seen (measured 0.5 mm off its filtered centre), the rest not
    window.push(frame)
    assert np.array_equal(window.points[-1, 2], frame.measured[2])
    assert np.array_equal(window.points[-1, 5], frame.positions[5])
    hx, hy = TABLE_9FT.length / 2, TABLE_9FT.width / 2
    assert np.allclose(window.edge_gaps[-1, 5], [hx - 2.0, hy - 2.0, hx + 2.0, hy + 2.0])
    assert not window.at_mouth[-1].any()
    assert window.on_table[-1].all()  # every ball at rest on the cloth


def test_a_centre_in_a_pocket_mouth_is_marked() -> None:
    window = FrameWindow(3, _GEO, TABLE_9FT.ball_diameter)
    frame = _frame(0)
    positions = frame.positions.copy()
    positions[7] = _GEO.mouth_centres[0]
    window.push(dataclasses.replace(frame, positions=positions))
    assert window.at_mouth[-1, 7]
    assert window.at_mouth[-1].sum() == 1
