"""`railbird watch --resume`: the recorded game log re-derives the match; bad folders refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from hardware.frames import Frame
from railbird.recording import RecordingReader, RecordingWriter
from railbird.resume import resume_point
from rules.balls import BallId
from rules.errors import RecordError
from rules.inputs import CallShot, OperatorFoul
from rules.referee import Referee
from rules.ruling import FoulKind
from rules.table import PocketId
from tests.factories import TABLE_9FT, break_shot, miss, shot_at

SIZE = (320, 240)
CONFIG = '[referee]\ngame = "9-ball"\n'
CREATED = datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)


def _frame(i: int) -> Frame:
    return Frame(i, 10.0 + i / 30, np.full((SIZE[1], SIZE[0], 3), i % 250, np.uint8))


def _played(root: Path, frames: int = 5) -> Referee:
    """A recording of a game three shots and two inputs in, as watch writes it."""
    referee = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT)
    writer = RecordingWriter.create(
        root,
        SIZE,
        30.0,
        config_text=CONFIG,
        calibration_json='{"made": "here"}',
        created_utc=CREATED.isoformat(timespec="milliseconds"),
        session_time=10.0,
    )
    writer.write_game(referee.log)
    for i in range(frames):
        writer.write_frame(_frame(i))
    referee.record(break_shot(index=0), 10.0)
    writer.write_game(referee.log)
    referee.record(CallShot(BallId.ONE, PocketId.FOOT_LEFT), 10.05)
    writer.write_game(referee.log)
    referee.record(miss(index=1), 10.1)  # a foul: ball in hand for Bob
    writer.write_game(referee.log)
    referee.record(OperatorFoul(FoulKind.CUE_BALL_IN_HAND, player=1), 10.12)
    writer.write_game(referee.log)
    writer.close()  # a crash would leave everything flushed but the open video segment
    return referee


def test_resume_re_derives_the_state_the_referee_had(tmp_path: Path) -> None:
    live = _played(tmp_path / "rec")
    point = resume_point(tmp_path / "rec", CREATED + timedelta(seconds=60))
    resumed = Referee(point.log, TABLE_9FT)
    assert resumed.state == live.state
    assert resumed.timeline.rulings == live.timeline.rulings
    assert resumed.state.fouls_in_a_row == live.state.fouls_in_a_row != (0, 0)
    assert point.config_text == CONFIG and point.calibration_json == '{"made": "here"}'
    assert point.frames == 5


def test_the_session_clock_goes_on_from_the_wall_or_from_the_log(tmp_path: Path) -> None:
    _played(tmp_path / "rec")
    later = CREATED + timedelta(seconds=60)
    assert resume_point(tmp_path / "rec", later).session_time == pytest.approx(70.0)
    lockstep = resume_point(tmp_path / "rec", later, follow_wall=False)
    assert lockstep.last_time == pytest.approx(10.0 + 4 / 30)  # the last frame
    assert lockstep.session_time == pytest.approx(10.0 + 5 / 30)
    too_soon = resume_point(tmp_path / "rec", CREATED)  # wall clock set back: never go back
    assert too_soon.session_time > too_soon.last_time


def test_resumed_writer_appends_and_keeps_everything(tmp_path: Path) -> None:
    live = _played(tmp_path / "rec")
    root = tmp_path / "rec"
    before = {p.name: p.read_bytes() for p in (root / "video").iterdir()}
    log_before = (root / "log.jsonl").read_bytes()
    with RecordingWriter.resume(root) as writer:
        for i in range(5, 8):
            writer.write_frame(_frame(i))
        live.record(shot_at("1", index=2), 20.0)
        writer.write_game(live.log)
    assert {
        p.name: p.read_bytes() for p in (root / "video").iterdir() if p.name in before
    } == before
    assert (root / "log.jsonl").read_bytes().startswith(log_before)
    reader = RecordingReader(root)
    assert [f.index for f in reader] == list(range(8))
    assert reader.game_log() == live.log


def test_a_torn_last_line_is_set_aside_not_lost(tmp_path: Path) -> None:
    live = _played(tmp_path / "rec")
    root = tmp_path / "rec"
    with (root / "log.jsonl").open("a") as f:
        f.write('{"seq":5,"ti')
    point = resume_point(root)
    assert Referee(point.log, TABLE_9FT).state == live.state
    with RecordingWriter.resume(root) as writer:
        live.record(shot_at("1", index=2), 20.0)
        writer.write_game(live.log)
    assert RecordingReader(root).game_log() == live.log
    assert (root / "torn.txt").read_text() == 'log.jsonl: {"seq":5,"ti\n'


def test_not_a_recording_is_a_record_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not a recording"):
        resume_point(tmp_path)


def test_a_recording_without_a_game_log_cannot_be_resumed(tmp_path: Path) -> None:
    RecordingWriter.create(tmp_path / "rec", SIZE, 30.0).close()
    with pytest.raises(RecordError, match=r"no game log \(game.json\)"):
        resume_point(tmp_path / "rec")


def test_another_config_calibration_or_players_is_refused(tmp_path: Path) -> None:
    _played(tmp_path / "rec")
    with pytest.raises(RecordError, match="config given is not the one the match ran with"):
        resume_point(tmp_path / "rec", config_text='[referee]\ngame = "8-ball"\n')
    same = resume_point(tmp_path / "rec", config_text='[referee]\ngame="9-ball"  # same\n')
    assert same.config.referee.game == "9-ball"
    with pytest.raises(RecordError, match="calibration given is not the one"):
        resume_point(tmp_path / "rec", calibration_json='{"made": "elsewhere"}')
    with pytest.raises(RecordError, match="between Ann, Bob, not Ann, Cid"):
        resume_point(tmp_path / "rec", players=("Ann", "Cid"))


def test_a_corrupt_log_entry_names_file_and_line(tmp_path: Path) -> None:
    _played(tmp_path / "rec")
    path = tmp_path / "rec" / "log.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = '{"seq": 1, "time": "soon"}'
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"log\.jsonl:2: corrupt line"):
        resume_point(tmp_path / "rec")


def test_a_writer_refuses_another_game(tmp_path: Path) -> None:
    _played(tmp_path / "rec")
    other = Referee.new("8-ball", ("Ann", "Bob"), TABLE_9FT)
    with (
        RecordingWriter.resume(tmp_path / "rec") as writer,
        pytest.raises(RecordError, match="holds a game of 9-ball between Ann, Bob, not 8-ball"),
    ):
        writer.write_game(other.log)
    game = json.loads((tmp_path / "rec" / "game.json").read_text())
    assert game["game"] == "9-ball"


def test_resume_mid_match_restores_the_racks_won_and_the_next_breaker_rule_3_36(
    tmp_path: Path,
) -> None:
    from rules.inputs import RackReady
    from rules.match import BreakOrder, MatchConfig
    from rules.state import GameOptions

    config = MatchConfig(race_to=3, break_order=BreakOrder.ALTERNATE)
    live = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT, GameOptions(breaker=1), config)
    writer = RecordingWriter.create(
        tmp_path / "rec", SIZE, 30.0, config_text=CONFIG, session_time=10.0
    )
    for item, t in (
        (break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 10.0),  # Bob breaks and wins
        (RackReady(), 20.0),  # Ann breaks rack 2 (alternate)
        (break_shot(index=1), 30.0),
        (shot_at("1", index=2, pocket=PocketId.FOOT_LEFT), 31.0),  # Bob at the table
    ):
        live.record(item, t)
        writer.write_game(live.log)
    writer.close()
    point = resume_point(tmp_path / "rec", CREATED, follow_wall=False)
    assert point.log.match == config
    resumed = Referee(point.log, TABLE_9FT)
    assert resumed.match == live.match and resumed.state == live.state
    assert resumed.match is not None and resumed.match.racks_won("Bob") == 1
    assert resumed.match.rack_in_progress and resumed.state.breaker == 0
    assert resumed.match.next_breaker == "Ann"  # alternate: Ann broke rack 2, it is under way
