"""What kind of ball-ball contact the segmenter missed, or found that was not there: the
benchmark's breakdown of its ball-ball errors, from the exact motion of the virtual table.

Nearly every ball-ball error is in a break, and most are of a few kinds (a rack's pairs at the
strike, pairs rolling pressed together, a pair meeting twice in a corner, contacts crowded
within a frame or two of each other): counting them per kind says where the contact model
falls short, run after run, without a script to re-derive it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from enum import StrEnum

import numpy as np

from rules.balls import BALL_DIAMETER_MM, BallId
from rules.events import EventKind, ShotEvent

Position = Callable[[BallId, float], np.ndarray]
"""A ball's exact centre (mm, table frame) at a time (s)."""

REST_MM_S = 1.0
"""A ball slower than this just before a contact was at rest."""

PRESSED_MM = 2.0
"""Two balls whose gap stayed under this over `PRESSED_S` before their contact rolled on
pressed together."""

PRESSED_S = 0.1

TWICE_S = 0.1
"""A pair touching again within this was in a corner or a pack's crush."""

CROWDED_S = 0.025
"""Another contact of either ball within this (a frame and a half at 60 fps) crowds one."""

SOFT_MM_S = 50.0
"""A contact that changed neither ball's velocity by this much was soft."""

_STEP_S = 0.004
"""The span each side of a contact the velocities before and after are measured over."""


class MissKind(StrEnum):
    """Why a true ball-ball contact may have been missed (the first that applies)."""

    RACK = "rack-at-strike"
    PRESSED = "pressed-pair"
    TWICE = "pair-twice"
    CROWDED = "crowded"
    SOFT = "soft"
    ALONE = "alone"


class FalseKind(StrEnum):
    """What a ball-ball contact found that was not there was near."""

    MISTIMED = "pair-touched-near"
    PAIR_TOUCHED = "pair-touched-elsewhere"
    NEVER = "pair-never-touched"


def miss_kinds(
    missed: list[ShotEvent], truth: list[ShotEvent], position: Position
) -> Counter[MissKind]:
    """How many of the ``missed`` true ball-ball contacts are of each kind, given all the true
    contacts (``truth``: ball-ball and cushion, as a camera counts them) and the exact
    motion."""
    return Counter(_miss_kind(e, truth, position) for e in missed)


def false_kinds(false: list[ShotEvent], truth: list[ShotEvent]) -> Counter[FalseKind]:
    """How many of the ``false`` ball-ball contacts are of each kind, given the true ones."""
    kinds: Counter[FalseKind] = Counter()
    for e in false:
        times = [t.time for t in truth if _same_pair(t, e)]
        if any(abs(t - e.time) <= TWICE_S for t in times):
            kinds[FalseKind.MISTIMED] += 1
        else:
            kinds[FalseKind.PAIR_TOUCHED if times else FalseKind.NEVER] += 1
    return kinds


def _miss_kind(e: ShotEvent, truth: list[ShotEvent], position: Position) -> MissKind:
    a, b = e.balls[:2]
    t = e.time
    before = [_velocity(position, ball, t - _STEP_S, t) for ball in (a, b)]
    if all(float(np.hypot(*v)) < REST_MM_S for v in before):
        return MissKind.RACK
    if _pressed(position, a, b, t):
        return MissKind.PRESSED
    others = [u for u in truth if u is not e]
    if any(_same_pair(u, e) and abs(u.time - t) <= TWICE_S for u in others):
        return MissKind.TWICE
    if any(set(u.balls) & {a, b} and abs(u.time - t) <= CROWDED_S for u in others):
        return MissKind.CROWDED
    after = [_velocity(position, ball, t, t + _STEP_S) for ball in (a, b)]
    kicks = [float(np.hypot(*(w - v))) for v, w in zip(before, after, strict=True)]
    return MissKind.SOFT if max(kicks) < SOFT_MM_S else MissKind.ALONE


def _same_pair(u: ShotEvent, e: ShotEvent) -> bool:
    return u.kind is EventKind.BALL_BALL and set(u.balls) == set(e.balls)


def _pressed(position: Position, a: BallId, b: BallId, t: float) -> bool:
    times = np.linspace(t - PRESSED_S, t - _STEP_S, 12)
    gaps = [float(np.hypot(*(position(a, u) - position(b, u)))) for u in times]
    return max(gaps) - BALL_DIAMETER_MM < PRESSED_MM


def _velocity(position: Position, ball: BallId, t0: float, t1: float) -> np.ndarray:
    """The mean velocity over (t0, t1), stepping just inside it (off the contact itself)."""
    eps = 1e-5
    return (position(ball, t1 - eps) - position(ball, t0 + eps)) / (t1 - t0 - 2 * eps)
