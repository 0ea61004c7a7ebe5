from __future__ import annotations

import pytest

from rules.balls import BallId
from rules.events import (
    EventKind,
    ShotEvent,
    after,
    at_least,
    between,
    in_pocket,
    involving,
    of_kind,
    on_cushion,
    select,
)
from rules.table import CushionId, PocketId

CUE, ONE, TWO = BallId.CUE, BallId.ONE, BallId.TWO


def _events() -> tuple[ShotEvent, ...]:
    return (
        ShotEvent(EventKind.CUE_STRIKE, 0.0, (CUE,)),
        ShotEvent(EventKind.BALL_BALL, 0.5, (CUE, ONE)),
        ShotEvent(EventKind.BALL_CUSHION, 0.8, (ONE,), cushion=CushionId.FOOT),
        ShotEvent(EventKind.BALL_BALL, 1.0, (ONE, TWO), confidence=0.6),
        ShotEvent(EventKind.POCKETED, 1.4, (TWO,), pocket=PocketId.FOOT_LEFT),
        ShotEvent(EventKind.BALL_CUSHION, 1.6, (CUE,), cushion=CushionId.LEFT_FOOT),
    )


def test_filters_compose_like_and() -> None:
    events = _events()
    contact = events[1]
    later_cushions = select(events, of_kind(EventKind.BALL_CUSHION), after(contact))
    assert [e.ball for e in later_cushions] == [ONE, CUE]
    assert select(events, involving(TWO)) == (events[3], events[4])
    assert select(events, between(0.5, 1.0)) == events[1:4]
    assert select(events, on_cushion(CushionId.FOOT)) == (events[2],)
    assert select(events, in_pocket(PocketId.FOOT_LEFT)) == (events[4],)
    assert events[3] not in select(events, at_least(0.9))


def test_after_excludes_events_at_the_same_time() -> None:
    a = ShotEvent(EventKind.BALL_BALL, 1.0, (ONE, TWO))
    b = ShotEvent(EventKind.BALL_CUSHION, 1.0, (ONE,), cushion=CushionId.HEAD)
    assert select([a, b], after(a)) == ()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": EventKind.BALL_BALL, "balls": (CUE,)}, "names 2 ball"),
        ({"kind": EventKind.BALL_BALL, "balls": (ONE, ONE)}, "cannot touch itself"),
        ({"kind": EventKind.BALL_CUSHION, "balls": (ONE,)}, "needs its cushion"),
        ({"kind": EventKind.POCKETED, "balls": (ONE,)}, "needs its pocket"),
        ({"kind": EventKind.ALL_AT_REST, "balls": (ONE,)}, "names 0 ball"),
        ({"kind": EventKind.CUE_STRIKE, "balls": (CUE,), "confidence": 1.5}, "confidence"),
        ({"kind": EventKind.CUE_STRIKE, "balls": (CUE,), "time_uncertainty": -1}, "uncertainty"),
    ],
)
def test_malformed_events_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ShotEvent(time=0.0, **kwargs)


def test_other_ball_of_a_contact() -> None:
    contact = ShotEvent(EventKind.BALL_BALL, 0.1, (CUE, ONE))
    assert contact.other(CUE) is ONE and contact.other(ONE) is CUE
    with pytest.raises(ValueError):
        contact.other(TWO)
    with pytest.raises(ValueError):
        _ = contact.ball
