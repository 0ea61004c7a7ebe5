"""How long the referee takes (rules.log, rules.referee).

Figures: one judge+advance of a break; folding a whole 9-ball rack; folding a 100-shot log (what
a correction of the past costs, since it re-folds everything); appending one shot to the live
referee at the end of that 100-shot log (a plain append folds one entry); and in 14.1, one
judge+advance of a shot that pockets the 14th ball (the re-rack plan, 6.7.3) and folding a whole
game to 150 points (a safe break, then 150 called balls through ten re-racks). Prints medians
and writes bench/results/referee_replay.json.

Run: PYTHONPATH=. python bench/referee_replay.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from rules.balls import BallId
from rules.games import game_for
from rules.inputs import CallShot, ShotInputs
from rules.log import replay, start_log
from rules.referee import Referee
from rules.shot import Layout
from rules.state import GameOptions, GameState
from rules.table import CushionId, PocketId, RackShape
from tests.factories import TABLE_9FT, ShotBuilder, break_shot, rack_layout, shot_at

TIMING = True
"""Run alone, in one process (`bench._harness`)."""
REPEATS = 200


def _rack_items() -> list:
    pockets = list(PocketId)
    items = [break_shot(index=0, pocket=(("3", PocketId.FOOT_LEFT),))]
    for i, ball in enumerate(("1", "2", "4", "5", "6", "7", "8", "9")):
        items.append(shot_at(ball, index=1 + i, pocket=pockets[i % 6]))
    return items


def _at_rest(state: GameState, potted: BallId) -> Layout:
    """The cue ball and the balls left, out of the rack's way."""
    left = [b for b in state.on_table if b is not potted]
    where = {b: (-200.0 + 60.0 * i, -450.0) for i, b in enumerate(left)}
    where[BallId.CUE] = (-300.0, 350.0)
    return Layout.of(where)


def _straight_game() -> tuple[list, GameState]:
    """A 14.1 game to 150: a safe break by Bob, then Ann runs 150 (log items, the state before
    her 14th ball)."""
    game = game_for("14.1", TABLE_9FT)
    state = game.start(("Ann", "Bob"), GameOptions(breaker=1))
    rack = rack_layout(TABLE_9FT, RackShape.TRIANGLE, tuple(str(n) for n in range(1, 16)))
    b = ShotBuilder(index=0, at_strike=rack).strike().crossed_head_string().hit("1")
    b.cushion("2", CushionId.FOOT).cushion("3", CushionId.LEFT_FOOT).cushion("cue", CushionId.FOOT)
    opening = b.build()
    items: list = [opening]
    state = game.advance(state, game.judge(state, opening, ShotInputs()))
    before_rerack = state
    for i in range(1, 151):
        ball = state.on_table[0]
        call = CallShot(ball, PocketId.FOOT_LEFT)
        shot = shot_at(ball, index=i, pocket=PocketId.FOOT_LEFT, at_rest=_at_rest(state, ball))
        items += [call, shot]
        if len(state.on_table) == 2 and before_rerack.shots == 1:
            before_rerack = state
        state = game.advance(state, game.judge(state, shot, ShotInputs(call=call)))
    assert state.over and state.scores == (150, 0), state.scores
    return items, before_rerack


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

    items, two_left = _straight_game()
    straight = game_for("14.1", TABLE_9FT)
    ball = two_left.on_table[0]
    call = ShotInputs(call=CallShot(ball, PocketId.FOOT_LEFT))
    rest = _at_rest(two_left, ball)
    fourteenth = shot_at(ball, index=99, pocket=PocketId.FOOT_LEFT, at_rest=rest)
    rerack_ms = _median_ms(
        lambda: straight.advance(two_left, straight.judge(two_left, fourteenth, call))
    )
    straight_log = start_log("14.1", ("Ann", "Bob"), GameOptions(breaker=1))
    for t, item in enumerate(items):
        straight_log = straight_log.record(item, float(t))
    straight_ms = _median_ms(lambda: replay(straight_log, TABLE_9FT), repeats=20)

    figures = {
        "judge_and_advance_break_ms": round(judge_ms, 3),
        "replay_9ball_rack_9_shots_ms": round(rack_ms, 3),
        "replay_100_shot_log_ms": round(long_ms, 2),
        "live_append_after_100_shots_ms": round(statistics.median(appends), 3),
        "judge_and_advance_14_1_rerack_ms": round(rerack_ms, 3),
        "replay_14_1_game_to_150_ms": round(straight_ms, 2),
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
