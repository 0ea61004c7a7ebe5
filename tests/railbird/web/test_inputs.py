"""Console inputs: JSON decoded strictly into the rules.inputs type its kind names."""

from __future__ import annotations

import pytest

from railbird.web.inputs import INPUT_TYPES, InputError, decode_input, encode_input, parse_input
from rules.balls import BallId
from rules.inputs import (
    CallShot,
    Decision,
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
    WarningGiven,
)
from rules.ruling import Choice, Foul, FoulKind
from rules.table import PocketId

ONE_OF_EACH = (
    CallShot(BallId.NINE, PocketId.FOOT_LEFT),
    Safety(),
    PushOut(),
    Decision(Choice.HAND_BACK),
    OperatorFoul(FoulKind.FOOT_ON_FLOOR, 1, shot=3, note="no foot down"),
    WarningGiven(0),
    Interference(InterferenceOutcome.REPLAY_SHOT, shot=2, note="spectator touched the 5"),
    Extension(1),
    TimeOut(0, minutes=5.0),
    Undo(4, "wrong pocket called"),
    Override(3, "the 1 was hit first", fouls=(Foul.of(FoulKind.SCRATCH, "in the side"),)),
    Stalemate("no progress"),
    RackReady("racked by the referee"),
)


def test_every_kind_has_a_type() -> None:
    assert set(INPUT_TYPES) == set(InputKind)
    assert {type(item).__name__ for item in ONE_OF_EACH} == {
        t.__name__ for t in INPUT_TYPES.values()
    }


@pytest.mark.parametrize("item", ONE_OF_EACH, ids=lambda item: item.kind.value)
def test_each_input_decodes_into_its_type(item: object) -> None:
    assert decode_input(encode_input(item)) == item  # type: ignore[arg-type]


def test_a_foul_the_camera_cannot_see_arrives_with_its_rule_3_13() -> None:
    item = parse_input(b'{"kind": "operator-foul", "foul": "foot-on-floor", "player": 0}')
    assert isinstance(item, OperatorFoul) and item.shot is None
    assert item.as_foul().rule == "3.13"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", r"\$: not valid JSON \(Expecting property name"),
        (b"\xff\xfe", r"\$: the body is not UTF-8 text"),
        (b"[1, 2]", r"\$: expected an object with a 'kind'"),
        (b'{"ball": "9"}', r"\$: missing key 'kind'"),
        (b'{"kind": "celebrate"}', r"\$.kind: 'celebrate' is not one of call-shot, safety"),
        (b'{"kind": "call-shot", "ball": "9"}', r"\$: missing key 'pocket'"),
        (b'{"kind": "call-shot", "ball": "9", "pocket": "corner"}', r"\$.pocket: 'corner'"),
        (b'{"kind": "call-shot", "ball": "cue", "pocket": "foot-left"}', r"object ball"),
        (b'{"kind": "safety", "colour": "red"}', r"\$: unknown key\(s\) colour"),
        (b'{"kind": "extension", "player": "1"}', r"\$.player: expected int, got '1'"),
        (b'{"kind": "undo", "target": 2, "reason": " "}', r"\$: an undo needs a reason"),
        (
            b'{"kind": "override", "shot": 1, "reason": "r", "fouls": [{"kind": "oops"}]}',
            r"\$.fouls\[0\].kind: 'oops'",
        ),
    ],
)
def test_bad_input_is_refused_with_the_path(body: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_input(body)
