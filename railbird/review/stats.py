"""Per-player statistics of a reviewed match, from the shots and their rulings."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from railbird.review.model import ReviewShot


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's figures.

    Attributes:
        player: The name.
        shots: Shots played.
        pocketed: Object balls pocketed (legally or not) on the player's shots.
        credited: Balls legally pocketed for the player.
        fouls: Fouls applied, by kind (the `FoulKind` value), most frequent first.
        longest_run: Most balls credited in consecutive shots of one inning.
        breaks: Breaks taken.
        breaks_pocketing: Breaks on which an object ball stayed down with no foul.
        average_shot_time_s: Mean time from the balls at rest to the strike (None: unknown).
    """

    player: str
    shots: int
    pocketed: int
    credited: int
    fouls: tuple[tuple[str, int], ...]
    longest_run: int
    breaks: int
    breaks_pocketing: int
    average_shot_time_s: float | None

    @property
    def foul_count(self) -> int:
        """Every foul applied to the player."""
        return sum(n for _, n in self.fouls)


def player_stats(shots: list[ReviewShot], players: tuple[str, ...]) -> tuple[PlayerStats, ...]:
    """Each player's figures, in the players' order."""
    return tuple(_one(shots, player) for player in players)


def _one(shots: list[ReviewShot], player: str) -> PlayerStats:
    mine = [s for s in shots if s.shooter == player and s.ruling is not None]
    fouls = Counter(str(s.ruling.foul.kind) for s in mine if s.ruling and s.ruling.foul)
    breaks = [s for s in mine if _is_break(s, shots)]
    times = [s.shot_time_s for s in mine if s.shot_time_s is not None]
    return PlayerStats(
        player=player,
        shots=len(mine),
        pocketed=sum(len(s.ruling.pocketed) for s in mine if s.ruling),
        credited=sum(len(s.ruling.credited) for s in mine if s.ruling),
        fouls=tuple(sorted(fouls.items(), key=lambda kv: (-kv[1], kv[0]))),
        longest_run=_longest_run(shots, player),
        breaks=len(breaks),
        breaks_pocketing=sum(
            1 for s in breaks if s.ruling and s.ruling.legal and s.ruling.pocketed
        ),
        average_shot_time_s=statistics.fmean(times) if times else None,
    )


def _is_break(review: ReviewShot, shots: list[ReviewShot]) -> bool:
    """The first shot of a rack is its break."""
    earlier = [s for s in shots if s.number < review.number and s.rack == review.rack]
    return not earlier


def _longest_run(shots: list[ReviewShot], player: str) -> int:
    best = run = 0
    for review in shots:
        ruling = review.ruling
        if ruling is None or review.shooter != player:
            run = 0
            continue
        if ruling.foul is None and ruling.credited:
            run += len(ruling.credited)
            best = max(best, run)
        else:
            run = 0
    return best
