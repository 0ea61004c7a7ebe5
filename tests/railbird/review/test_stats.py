"""Per-player statistics from judged shots."""

from __future__ import annotations

from pathlib import Path

import pytest

from railbird.review.stats import player_stats
from rules.table import PocketId
from tests.factories import break_shot, miss, shot_at
from tests.railbird.review.matches import PLAYERS, reviewed


def test_statistics_of_a_short_nine_ball_rack(tmp_path: Path) -> None:
    shots = reviewed(
        tmp_path,
        [
            break_shot(0, pocket=(("2", PocketId.FOOT_LEFT), ("3", PocketId.FOOT_RIGHT))),  # Ann
            shot_at("1", index=1, pocket=PocketId.SIDE_LEFT),  # Ann runs the 1
            shot_at("5", index=2, cushion=True),  # Ann: wrong ball first (the 5, not the 4)
            shot_at("4", index=3, scratch=PocketId.HEAD_LEFT),  # Bob (ball in hand): scratch
            miss(index=4),  # Ann: no contact
        ],
    )
    ann, bob = player_stats(shots, PLAYERS)
    assert (ann.player, ann.shots, bob.shots) == ("Ann", 4, 1)
    assert ann.pocketed == 3 and ann.credited == 3 and bob.pocketed == 0
    assert dict(ann.fouls) == {"wrong-ball-first": 1, "no-contact": 1} and ann.foul_count == 2
    assert dict(bob.fouls) == {"scratch": 1}
    assert ann.longest_run == 3  # two on the break, the 1 next
    assert (ann.breaks, ann.breaks_pocketing, bob.breaks) == (1, 1, 0)
    assert ann.average_shot_time_s == pytest.approx(0.0) and bob.average_shot_time_s is not None


def test_a_player_without_shots(tmp_path: Path) -> None:
    shots = reviewed(tmp_path, [break_shot(0)])
    _, bob = player_stats(shots, PLAYERS)
    assert (bob.shots, bob.pocketed, bob.fouls, bob.longest_run) == (0, 0, (), 0)
    assert bob.average_shot_time_s is None
