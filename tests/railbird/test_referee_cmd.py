"""`railbird referee`: replay a recorded game log and print the rulings (logic before wiring)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from railbird.referee_cmd import add_referee_command, run_referee
from rules.codec import dumps
from rules.errors import ConfigError, RecordError
from rules.log import start_log
from rules.table import PocketId
from tests.factories import break_shot, shot_at


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_referee_command(parser.add_subparsers())
    return parser.parse_args(argv)


def _log_file(tmp_path: Path) -> Path:
    log = start_log("9-ball", ("Ann", "Bob"))
    log = log.record(break_shot(index=0), 0.0)
    log = log.record(shot_at("4", index=1), 1.0)  # Bob fouls: wrong ball first (5.8)
    log = log.record(shot_at("1", index=2, also=(("9", PocketId.FOOT_LEFT),)), 2.0)  # Ann wins
    path = tmp_path / "rack.json"
    path.write_text(dumps(log), encoding="utf-8")
    return path


def test_replays_a_log_and_prints_each_ruling(tmp_path, capsys) -> None:
    assert run_referee(_parse(["referee", str(_log_file(tmp_path))])) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "9-ball: Ann v Bob"
    assert out[1].startswith("shot 0 (Ann): legal -> Bob")
    assert "FOUL 5.8" in out[2] and "ball in hand anywhere" in out[2]
    assert "GAME OVER, Ann wins" in out[3] and out[-1] == "game over: Ann wins"


def test_json_output_is_the_timeline(tmp_path, capsys) -> None:
    assert run_referee(_parse(["referee", str(_log_file(tmp_path)), "--json"])) == 0
    timeline = json.loads(capsys.readouterr().out)
    assert timeline["state"]["winner"] == 0 and len(timeline["rulings"]) == 3


def test_bad_input_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(RecordError, match=r"missing\.json: cannot read the game log"):
        run_referee(_parse(["referee", str(tmp_path / "missing.json")]))
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x00\xffnot json")
    with pytest.raises(RecordError, match=r"garbage\.json: not a text game log"):
        run_referee(_parse(["referee", str(garbage)]))
    with pytest.raises(ConfigError, match="unknown table size '6ft'"):
        run_referee(_parse(["referee", str(_log_file(tmp_path)), "--table", "6ft"]))


def test_a_14_1_log_prints_points_and_the_score_rule_6_5(tmp_path, capsys) -> None:
    from rules.balls import BallId
    from rules.inputs import CallShot
    from tests.factories import miss

    log = start_log("14.1", ("Ann", "Bob"))
    log = log.record(miss(0), 0.0)  # Ann's break touches nothing: a break violation (6.6)
    log = log.record(CallShot(BallId.THREE, PocketId.FOOT_LEFT), 0.5)
    log = log.record(shot_at("3", index=1, pocket=PocketId.FOOT_LEFT), 1.0)  # Bob accepts, scores
    path = tmp_path / "straight.json"
    path.write_text(dumps(log), encoding="utf-8")
    assert run_referee(_parse(["referee", str(path)])) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "14.1: Ann v Bob"
    assert "FOUL 6.6" in out[1] and "Ann -2 (6.6)" in out[1]
    assert "Bob +1 (6.5)" in out[2]
    assert "score: Ann -2, Bob 1" in out
