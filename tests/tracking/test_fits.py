"""The segmenter's line fits: straight-line velocities through a ball's last centres."""

from __future__ import annotations

import math

import numpy as np

from tracking.fits import straight_velocities

LIMITS = np.array([math.inf, math.inf, math.inf, 9.21, 13.28])
"""Chi-square limits by number of frames (p = 0.01 at 2(n - 2) degrees of freedom)."""


def _window(path, frames: int = 4, sigma: float = 0.5):
    """``frames`` samples, 1/60 s apart, of ball 3 following ``path(t)``; the other balls
    unseen."""
    times = np.arange(frames) / 60.0
    seen = np.zeros((frames, 16), dtype=bool)
    seen[:, 3] = True
    measured = np.full((frames, 16, 2), np.nan)
    measured[:, 3] = [path(t) for t in times]
    return times, seen, measured, np.full((frames, 16), sigma)


def _fit(window, since: float = -math.inf) -> np.ndarray:
    times, seen, measured, sigma = window
    fallback = np.array([[-1.0, -1.0]])
    return straight_velocities(
        times, seen, measured, sigma, np.array([3]), np.array([since]), fallback, LIMITS
    )[0]


def test_a_straight_run_gives_its_velocity() -> None:
    v = _fit(_window(lambda t: (100.0 + 600.0 * t, -50.0 - 300.0 * t)))
    assert np.allclose(v, (600.0, -300.0))


def test_a_turn_inside_the_window_leaves_only_the_frames_after_it() -> None:
    # Turned round between the first and second frames: the four do not lie on a line, the
    # last three do.
    def path(t: float) -> tuple[float, float]:
        return (600.0 * t, 0.0) if t < 0.01 else (12.0 - 600.0 * (t - 0.01), 0.0)

    assert np.allclose(_fit(_window(path)), (-600.0, 0.0))


def test_frames_before_the_last_contact_are_not_used() -> None:
    # The same bent path, with its turn found: the fit starts after it, at the second frame.
    def path(t: float) -> tuple[float, float]:
        return (0.0, 900.0 * t) if t < 0.01 else (0.0, 9.0 + 300.0 * (t - 0.01))

    assert np.allclose(_fit(_window(path), since=0.01), (0.0, 300.0))


def test_fewer_than_two_frames_since_the_last_contact_keep_the_fallback() -> None:
    v = _fit(_window(lambda t: (600.0 * t, 0.0)), since=2.5 / 60)
    assert np.allclose(v, (-1.0, -1.0))
