"""Operator inputs: typed, tagged values that read back from a recorded log unambiguously."""

from __future__ import annotations

import pytest

from rules.balls import BallId
from rules.codec import dumps, from_jsonable, loads, to_jsonable
from rules.errors import RecordError
from rules.inputs import (
    CallShot,
    Extension,
    InputKind,
    Interference,
    InterferenceOutcome,
    OperatorFoul,
    Override,
    PushOut,
    RackReady,
    Safety,
    Stalemate,
    TimeOut,
    Undo,
)
from rules.log import Entry, GameLog, replay, start_log
from rules.ruling import FoulKind
from rules.table import PocketId
from tests.factories import TABLE_9FT, break_shot, shot_at


def test_inputs_with_the_same_fields_read_back_as_themselves() -> None:
    # Extension and TimeOut both name a player; Safety and PushOut have no field but the tag.
    for item in (
        Extension(1),
        TimeOut(1),
        Safety(),
        PushOut(),
        CallShot(BallId.NINE, PocketId.SIDE_LEFT),
        Stalemate("x"),
        RackReady("x"),
    ):
        entry = Entry(0, 1.0, item)
        assert loads(Entry, dumps(entry)) == entry


def test_a_tag_that_does_not_match_the_type_is_refused() -> None:
    with pytest.raises(ValueError, match="has kind safety"):
        Safety(kind=InputKind.PUSH_OUT)
    data = to_jsonable(Entry(0, 0.0, Safety()))
    data["item"]["kind"] = "teleport"
    with pytest.raises(RecordError, match=r"\$\.item"):
        from_jsonable(Entry, data)


def test_corrections_need_a_reason_for_the_record() -> None:
    with pytest.raises(ValueError, match="reason"):
        Undo(0, "  ")
    with pytest.raises(ValueError, match="reason"):
        Override(3, "")
    with pytest.raises(ValueError, match="not 4"):
        Override(4, "wrong shot", record=shot_at("1", index=3))


def test_operator_inputs_are_checked_when_made() -> None:
    with pytest.raises(ValueError, match="object ball"):
        CallShot(BallId.CUE, PocketId.FOOT_LEFT)
    with pytest.raises(ValueError, match="player is 0 or 1"):
        OperatorFoul(FoulKind.TIP_ONLY, 2)
    with pytest.raises(ValueError, match="needs the shot"):
        Interference(InterferenceOutcome.REPLAY_SHOT)


def test_operator_foul_carries_its_rule_number_rules_3_29_3_40_6_7_5() -> None:
    assert OperatorFoul(FoulKind.INTENTIONAL, 0).as_foul().rule == "3.29"
    assert OperatorFoul(FoulKind.CUE_BALL_IN_HAND, 0).as_foul().rule == "3.40"
    assert OperatorFoul(FoulKind.DELIBERATE, 0).as_foul().rule == "6.7.5"
    assert all(k.operator_only for k in (FoulKind.TIP_ONLY, FoulKind.FOOT_ON_FLOOR))


def test_a_recorded_log_reads_back_and_replays_the_same() -> None:
    log = start_log("9-ball", ("Ann", "Bob"))
    log = log.record(break_shot(index=0), 0.0).record(PushOut(), 1.0)
    log = log.record(shot_at("3", index=1), 2.0).record(Extension(0), 3.0)
    text = dumps(log)
    again = loads(GameLog, text, where="match.json")
    assert again == log and replay(again, TABLE_9FT) == replay(log, TABLE_9FT)
    assert replay(again, TABLE_9FT).state.extensions_used == (True, False)


def test_a_corrupt_log_says_where() -> None:
    log = start_log("9-ball", ("Ann", "Bob")).record(break_shot(index=0), 0.0)
    data = to_jsonable(log)
    data["entries"][0]["seq"] = 5
    with pytest.raises(RecordError, match="log entry 0 carries seq 5"):
        from_jsonable(GameLog, data)
    with pytest.raises(RecordError, match="not valid JSON"):
        loads(GameLog, dumps(log)[:-3], where="match.json")


def test_a_second_extension_in_the_rack_is_noted_not_granted_rule_1_11() -> None:
    log = start_log("9-ball", ("Ann", "Bob")).record(Extension(1), 0.0).record(Extension(1), 1.0)
    timeline = replay(log, TABLE_9FT)
    assert timeline.state.extensions_used == (False, True)
    assert any("already used the extension" in n for n in timeline.notes)
