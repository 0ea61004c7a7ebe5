"""Hand-made reviewed matches: shots judged by the real referee, written as a replay writes them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from railbird.recording import FrameTime
from railbird.review.model import ReviewShot, load_shots
from railbird.review.tracks import STATUSES, BallPaths
from rules.codec import to_jsonable
from rules.errors import RailbirdError
from rules.referee import Referee
from rules.shot import Shot
from tests.factories import TABLE_9FT
from tracking.model import BALLS, BallStatus

PLAYERS = ("Ann", "Bob")


def write_replay(folder: Path, shots: list[Shot], game: str = "9-ball") -> Path:
    """Judge ``shots`` in order and write shots.jsonl / rulings.jsonl as replay does."""
    referee = Referee.new(game, PLAYERS, TABLE_9FT)
    folder.mkdir(parents=True, exist_ok=True)
    with (
        (folder / "shots.jsonl").open("w") as shots_out,
        (folder / "rulings.jsonl").open("w") as rulings_out,
    ):
        for shot in shots:
            shots_out.write(json.dumps(to_jsonable(shot)) + "\n")
            line = {"shot": shot.index, "time": shot.strike_time}
            try:
                line["ruling"] = to_jsonable(referee.record(shot, shot.strike_time).rulings[-1])
            except RailbirdError as exc:  # the referee refuses: replay writes the reason
                line["error"] = str(exc)
            rulings_out.write(json.dumps(line) + "\n")
    return folder


def reviewed(folder: Path, shots: list[Shot], game: str = "9-ball") -> list[ReviewShot]:
    """The shots as the review loads them."""
    return load_shots(write_replay(folder, shots, game), PLAYERS)


def frame_times(count: int, fps: float = 10.0, start: float = 0.0) -> list[FrameTime]:
    """``count`` frames at ``fps`` in one-second segments."""
    per = round(fps)
    return [FrameTime(i, start + i / fps, i // per, i % per) for i in range(count)]


def straight_paths(
    moves: dict[str, tuple[tuple[float, float], tuple[float, float]]],
    times: np.ndarray,
    gone_after: dict[str, float] | None = None,
) -> BallPaths:
    """Balls moving in straight lines from a start to an end over ``times``; a ball in
    ``gone_after`` is pocketed from that time on."""
    n = len(times)
    positions = np.full((n, len(BALLS), 2), np.nan, np.float32)
    status = np.full((n, len(BALLS)), STATUSES.index(BallStatus.UNSEEN), np.uint8)
    span = times[-1] - times[0] if n > 1 else 1.0
    for ball, (a, b) in moves.items():
        k = BALLS.index(ball)
        f = (times - times[0]) / span
        positions[:, k, 0] = a[0] + f * (b[0] - a[0])
        positions[:, k, 1] = a[1] + f * (b[1] - a[1])
        status[:, k] = STATUSES.index(BallStatus.MOVING)
        if gone_after and ball in gone_after:
            status[times >= gone_after[ball], k] = STATUSES.index(BallStatus.POCKETED)
    return BallPaths(np.arange(n), times, positions, status)
