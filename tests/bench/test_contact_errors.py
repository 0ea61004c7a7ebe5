"""The benchmark's kinds of ball-ball errors, on hand-made motion."""

from __future__ import annotations

from collections import Counter

import numpy as np

from bench._contact_errors import FalseKind, MissKind, false_kinds, miss_kinds
from rules.balls import BALL_DIAMETER_MM, BallId
from rules.events import EventKind, ShotEvent
from rules.table import CushionId

D = BALL_DIAMETER_MM
T = 1.0  # every contact's time


def _contact(a: str, b: str, t: float = T) -> ShotEvent:
    return ShotEvent(EventKind.BALL_BALL, t, (BallId(a), BallId(b)))


def _moves(tracks: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]]):
    """Ball -> (centre at T, velocity before T, velocity after T): straight lines each side."""

    def position(ball: BallId, t: float) -> np.ndarray:
        at, before, after = (np.array(x, dtype=float) for x in tracks[str(ball)])
        return at + (before if t < T else after) * (t - T)

    return position


def test_a_missed_contact_is_named_by_the_first_kind_that_fits_it() -> None:
    # 1-2 at rest before the strike reaches them; 3-4 rolling 0.5 mm apart; 5-6 a kick of
    # 300 mm/s, the pair meeting again 50 ms later; 7-8 the same kick, the 8 reaching a
    # cushion 10 ms later; 9-10 a graze that changes each by 20 mm/s; 11-12 the kick alone.
    position = _moves(
        {
            "1": ((0, 0), (0, 0), (300, 0)),
            "2": ((D, 0), (0, 0), (600, 0)),
            "3": ((0, 200), (400, 0), (100, 0)),
            "4": ((D + 0.5, 200), (400, 0), (700, 0)),
            "5": ((0, 400), (300, 0), (0, 0)),
            "6": ((D, 400), (0, 0), (300, 0)),
            "7": ((0, 600), (300, 0), (0, 0)),
            "8": ((D, 600), (0, 0), (300, 0)),
            "9": ((0, 800), (300, 0), (300, -20)),
            "10": ((D, 820), (0, 0), (0, 20)),
            "11": ((0, -800), (300, 0), (0, 0)),
            "12": ((D, -800), (0, 0), (300, 0)),
        }
    )
    missed = [
        _contact("1", "2"),
        _contact("3", "4"),
        _contact("5", "6"),
        _contact("7", "8"),
        _contact("9", "10"),
        _contact("11", "12"),
    ]
    near = [
        _contact("5", "6", T + 0.05),
        ShotEvent(EventKind.BALL_CUSHION, T + 0.01, (BallId.EIGHT,), cushion=CushionId.FOOT),
    ]
    kinds = miss_kinds(missed, missed + near, position)
    assert kinds == Counter(
        {
            MissKind.RACK: 1,
            MissKind.PRESSED: 1,
            MissKind.TWICE: 1,
            MissKind.CROWDED: 1,
            MissKind.SOFT: 1,
            MissKind.ALONE: 1,
        }
    )


def test_a_false_contact_is_named_by_how_near_a_true_one_of_its_pair_came() -> None:
    truth = [_contact("1", "2"), _contact("3", "4", T + 2.0)]
    false = [_contact("2", "1", T + 0.04), _contact("3", "4", T + 0.5), _contact("5", "6")]
    assert false_kinds(false, truth) == Counter(
        {FalseKind.MISTIMED: 1, FalseKind.PAIR_TOUCHED: 1, FalseKind.NEVER: 1}
    )
