"""Thin hits on a resting ball: whether the cue ball touched the object ball at all.

A referee's hardest first-contact call is the thin one: the cue ball shaves a resting ball and
sends it off at a few cm/s, or passes it by a millimetre or two and sends it nowhere. Each
shot is the cue ball struck along the table at one of `SPEEDS` past the 5, whose centre is
`OFFSETS` mm off its path (a touch when under one ball diameter), seen with vision's
heavy-tailed errors (`SIGMA_MM`, and `OUTLIERS` of the centres `OUTLIER_MM` further off).
Tallied by offset (and the touches by speed too): the shots called right, a touch found within
two frames and nothing else, or for a near miss (an offset over a diameter) no touch at all.
"""

from __future__ import annotations

import itertools

from bench._options import whole_corpus
from bench._pool import parallel_map
from rules.balls import BALL_DIAMETER_MM
from rules.events import EventKind
from tests.tracking.helpers import matched
from tests.tracking.helpers import run as run_pipeline
from tests.tracking.synth import render, simulate

SPEEDS = (350.0, 800.0, 1500.0, 2500.0)
"""mm/s at the strike; the cloth slows the cue ball by 100 mm/s^2 over its 300 mm run in."""
OFFSETS = (53.0, 55.0, 56.0, 56.5, 57.0, 58.15, 59.15, 61.15)
"""mm between the 5's centre and the cue ball's path: the first five touch (the object ball
leaves at 37 % down to 7 % of the cue ball's speed), the last three pass 1, 2 and 4 mm clear."""
SEEDS = 10
"""Shots per speed and offset with ``--all`` and in `bench.tracking` run alone (320 shots, some
2.5 minutes on two cores) ..."""
SEEDS_DEFAULT = 3
"""... in a default ``python -m bench`` run ..."""
SEEDS_QUICK = 1
"""... and with ``--quick``."""
SIGMA_MM = 0.8
OUTLIERS = 0.1
OUTLIER_MM = 3.0
_WINDOW_S = 2 / 60
_DECEL = 100.0
_STRIKE_S = 0.5
_RUN_IN_MM = 300.0
_RUN_ON_MM = 200.0


def thin_hit(item: tuple[float, float, int]) -> tuple[int, int, int]:
    """One shot (speed, offset, seed) tracked: its (tp, fp, fn) ball-ball contacts."""
    speed, offset, seed = item
    sim = simulate(
        {"cue": (-_RUN_IN_MM, 0.0), "5": (0.0, offset)},
        (speed, 0.0),
        strike_time=_STRIKE_S,
        decel=_DECEL,
    )
    seen = render(sim, seed, sigma=SIGMA_MM, outliers=(OUTLIERS, OUTLIER_MM))
    found = run_pipeline(seen, sim.signals).of_kind(EventKind.BALL_BALL)
    # Only the cue ball's pass by the 5 counts: off the cushions it may come back to it.
    passed = _STRIKE_S + _time_to_run(speed, _RUN_IN_MM + _RUN_ON_MM)
    truth = [e for e in sim.of_kind(EventKind.BALL_BALL) if e.time <= passed]
    found = [e for e in found if e.time <= passed]
    return matched(truth, found, _WINDOW_S)


def _time_to_run(speed: float, mm: float) -> float:
    """When a ball struck at ``speed`` and slowed by the cloth has run ``mm`` (or stopped)."""
    left = speed * speed - 2 * _DECEL * mm
    return (speed - (left**0.5 if left > 0 else 0.0)) / _DECEL


def thin_hits(quick: bool) -> dict:
    """The sweep's tallies: per offset (all speeds) and per speed (all touching offsets)."""
    seeds = SEEDS_QUICK if quick else SEEDS if whole_corpus() else SEEDS_DEFAULT
    items = list(itertools.product(SPEEDS, OFFSETS, range(seeds)))
    done = [d.value for d in parallel_map(thin_hit, items)]
    by_offset: dict[str, list[int]] = {}
    by_speed: dict[str, list[int]] = {}
    for (speed, offset, _), (_, fp, fn) in zip(items, done, strict=True):
        right = fp == 0 and fn == 0
        tallies = [by_offset.setdefault(f"{offset:g}mm", [0, 0])]
        if offset < BALL_DIAMETER_MM:
            tallies.append(by_speed.setdefault(f"{speed:g}mm_s", [0, 0]))
        for tally in tallies:
            tally[0] += right
            tally[1] += 1
    return {
        "seeds": seeds,
        "right_by_offset": {k: f"{a}/{n}" for k, (a, n) in by_offset.items()},
        "touches_right_by_speed": {k: f"{a}/{n}" for k, (a, n) in by_speed.items()},
    }
