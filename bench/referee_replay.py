"""How long the referee takes (rules.log, rules.referee).

Figures: one judge+advance of a break; folding a whole 9-ball rack; folding a 100-shot log (what
a correction of the past costs, since it re-folds everything); and appending one shot to the
live referee at the end of that 100-shot log (a plain append folds one entry). Prints medians
and writes bench/results/referee_replay.json.

Run: PYTHONPATH=. python bench/referee_replay.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from rules.games import game_for
from rules.inputs import ShotInputs
from rules.log import replay, start_log
from rules.referee import Referee
from rules.state import GameOptions
from rules.table import PocketId
from tests.factories import TABLE_9FT, break_shot, shot_at

REPEATS = 200


def _rack_items() -> list:
    pockets = list(PocketId)
    items = [break_shot(index=0, pocket=(("3", PocketId.FOOT_LEFT),))]
    for i, ball in enumerate(("1", "2", "4", "5", "6", "7", "8", "9")):
        items.append(shot_at(ball, index=1 + i, pocket=pockets[i % 6]))
    return items


def _median_ms(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> dict:
    game = game_for("9-ball", TABLE_9FT)
    state = game.start(("Ann", "Bob"), GameOptions())
    opening = _rack_items()[0]
    judge_ms = _median_ms(lambda: game.advance(state, game.judge(state, opening, ShotInputs())))

    log = start_log("9-ball", ("Ann", "Bob"))
    for t, item in enumerate(_rack_items()):
        log = log.record(item, float(t))
    rack_ms = _median_ms(lambda: replay(log, TABLE_9FT))

    long_log = start_log("9-ball", ("Ann", "Bob")).record(break_shot(index=0), 0.0)
    for i in range(1, 100):
        long_log = long_log.record(shot_at("1", index=i), float(i))  # 99 legal misses
    long_ms = _median_ms(lambda: replay(long_log, TABLE_9FT), repeats=30)

    referee = Referee(long_log, TABLE_9FT)
    appends = []
    for i in range(100, 150):
        start = time.perf_counter()
        referee.record(shot_at("1", index=i), float(i))
        appends.append((time.perf_counter() - start) * 1000)

    figures = {
        "judge_and_advance_break_ms": round(judge_ms, 3),
        "replay_9ball_rack_9_shots_ms": round(rack_ms, 3),
        "replay_100_shot_log_ms": round(long_ms, 2),
        "live_append_after_100_shots_ms": round(statistics.median(appends), 3),
    }
    for name, value in figures.items():
        print(f"{name:34s} {value}")
    out = Path(__file__).parent / "results" / "referee_replay.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures


def run(quick: bool) -> dict:
    """The harness entry point (`python -m bench`): the same figures, quick or not."""
    return main()


if __name__ == "__main__":
    main()
