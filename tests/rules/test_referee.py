"""The live referee: entries in, timeline out; a bad entry changes nothing."""

from __future__ import annotations

import pytest

from rules.errors import ConfigError, RecordError
from rules.inputs import Decision, PushOut
from rules.referee import Referee
from rules.ruling import Choice
from rules.table import PocketId
from tests.factories import TABLE_9FT, ShotBuilder, break_shot, shot_at


def test_live_referee_follows_a_push_out_and_an_undo_rule_5_6() -> None:
    ref = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT)
    assert ref.last_ruling is None and ref.state.shooter == 0
    ref.record(break_shot(index=0), 0.0)
    ref.record(PushOut(), 1.0)
    ref.record(ShotBuilder(index=1).strike().build(), 2.0)
    assert ref.last_ruling is not None and ref.last_ruling.push_out
    ref.record(Decision(Choice.HAND_BACK), 3.0)
    assert ref.state.shooter == 1
    ref.undo(3, "Ann meant to shoot", 4.0)
    assert ref.state.choices == (Choice.SHOOT, Choice.HAND_BACK)
    assert len(ref.log.entries) == 5


def test_a_refused_entry_leaves_the_log_unchanged() -> None:
    ref = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT)
    ref.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 0.0)
    before = ref.log
    with pytest.raises(RecordError, match="already over"):
        ref.record(shot_at("1", index=1), 1.0)
    assert ref.log == before and ref.state.winner == 0
    with pytest.raises(RecordError, match="entries 0 to 0"):
        ref.undo(5, "typo", 2.0)
    with pytest.raises(RecordError, match="reason"):
        ref.undo(0, " ", 2.0)


def test_unknown_game_fails_at_once() -> None:
    with pytest.raises(ConfigError, match="unknown game"):
        Referee.new("straight-pool", ("Ann", "Bob"), TABLE_9FT)


@pytest.mark.parametrize(("game", "count"), [("9-ball", 10), ("8-ball", 16), ("14.1", 16)])
def test_the_games_balls_are_the_cue_ball_and_its_rack_rules_4_3_5_2_6_4(game, count) -> None:
    ref = Referee.new(game, ("Ann", "Bob"), TABLE_9FT)
    assert ref.balls[0] == "cue" and len(set(ref.balls)) == count
    assert set(ref.balls[1:]) == set(ref.state.on_table)
