"""JSON round-trip of every value type, and strict reading with errors that say where."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calibration
import rules
from calibration.align import Alignment
from calibration.balls import BallLook
from calibration.calibrate import DriftReport
from calibration.camera import CameraModel
from calibration.colour import BallColour, BallPixels, ColourModel, default_colour_model
from calibration.config import TableConfig
from calibration.file import Calibration
from calibration.solve import IntrinsicsSource, PoseSolution
from calibration.table import CushionSegment, JawFace, Pocket, TableSpec
from calibration.table_finder import TableFinding
from rules.balls import BallId
from rules.codec import dumps, from_jsonable, loads, to_jsonable
from rules.config import RefereeConfig
from rules.errors import ConfigError, RecordError
from rules.events import EventKind, ShotEvent
from rules.shot import (
    DoubleHitEvidence,
    FirstContact,
    Frozen,
    JumpEvidence,
    Layout,
    NearCushion,
    Placement,
    PushEvidence,
    Shot,
)
from rules.shot_clock import ClockPhase, ClockReading
from rules.signals import PocketSignal
from rules.table import CushionId, PocketId
from tests.rules.strategies import STRATEGIES as REFEREE_STRATEGIES
from tests.rules.value_strategies import AUX_STRATEGIES

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
unit_interval = st.floats(min_value=0, max_value=1)
balls = st.sampled_from(list(BallId))
points = st.tuples(finite, finite)


@st.composite
def layouts(draw) -> Layout:
    chosen = draw(st.lists(balls, unique=True, max_size=16))
    return Layout(tuple((b, draw(points)) for b in chosen))


@st.composite
def events(draw) -> ShotEvent:
    kind = draw(st.sampled_from(list(EventKind)))
    count = {EventKind.BALL_BALL: 2, EventKind.ALL_AT_REST: 0}.get(kind, 1)
    chosen = tuple(draw(st.lists(balls, unique=True, min_size=count, max_size=count)))
    needs_pocket = kind in (
        EventKind.POCKETED,
        EventKind.POCKET_REBOUND,
        EventKind.SETTLED_INTO_POCKET,
    )
    return ShotEvent(
        kind,
        draw(finite),
        chosen,
        cushion=CushionId.HEAD if kind is EventKind.BALL_CUSHION else draw(st.none()),
        pocket=draw(st.sampled_from(list(PocketId))) if needs_pocket else None,
        confidence=draw(unit_interval),
        time_uncertainty=draw(st.floats(min_value=0, max_value=1)),
    )


@st.composite
def shots(draw) -> Shot:
    evs = tuple(sorted(draw(st.lists(events(), max_size=12)), key=lambda e: e.time))
    strike = draw(finite)
    return Shot(
        index=draw(st.integers(0, 10_000)),
        strike_time=strike,
        end_time=draw(st.one_of(st.none(), st.just(strike + 1.0))),
        at_strike=draw(layouts()),
        at_rest=draw(layouts()),
        events=evs,
        moving_at_strike=tuple(draw(st.lists(balls, unique=True, max_size=3))),
        frozen=(
            Frozen(BallId.ONE, 0.2, cushion=CushionId.FOOT),
            Frozen(BallId.CUE, 0.0, other=BallId.TWO),
        ),
        near_cushion=(NearCushion(BallId.THREE, CushionId.LEFT_HEAD, 30.0),),
        double_hit=draw(
            st.one_of(st.none(), st.builds(DoubleHitEvidence, balls, finite, finite, unit_interval))
        ),
        push=draw(st.one_of(st.none(), st.builds(PushEvidence, finite, unit_interval))),
        jump=draw(st.one_of(st.none(), st.builds(JumpEvidence, st.booleans(), finite))),
        placement=draw(st.one_of(st.none(), st.builds(Placement, points, st.booleans(), finite))),
    )


STRATEGIES = {
    ShotEvent: events(),
    Shot: shots(),
    Layout: layouts(),
    FirstContact: st.builds(FirstContact, balls, finite, st.tuples(balls)),
    Frozen: st.builds(Frozen, balls, finite, st.sampled_from(list(CushionId))),
    NearCushion: st.builds(NearCushion, balls, st.sampled_from(list(CushionId)), finite),
    DoubleHitEvidence: st.builds(DoubleHitEvidence, balls, finite, finite, unit_interval),
    PushEvidence: st.builds(PushEvidence, finite, unit_interval),
    JumpEvidence: st.builds(JumpEvidence, st.booleans(), finite, st.tuples(balls)),
    Placement: st.builds(Placement, points, st.booleans(), finite, st.tuples(balls)),
    TableSpec: st.sampled_from([TableSpec.standard(n) for n in ("9ft", "8ft", "7ft")]),
    Pocket: st.sampled_from(TableSpec.standard("8ft").pockets),
    CushionSegment: st.sampled_from(TableSpec.standard("7ft").cushions),
    JawFace: st.sampled_from(TableSpec.standard("9ft").jaw_faces()),
    BallLook: st.sampled_from(calibration.BALL_SET),
    ClockReading: st.builds(
        ClockReading,
        st.sampled_from(list(ClockPhase)),
        st.floats(0, 10),
        st.floats(10, 60),
        st.booleans(),
    ),
    TableFinding: st.builds(
        TableFinding,
        st.tuples(points, points, points, points),
        st.tuples(points, points, points, points),
        st.tuples(finite, finite, finite),
        unit_interval,
    ),
    PocketSignal: st.builds(
        PocketSignal, st.sampled_from(list(PocketId)), finite, unit_interval, st.integers(0, 2**31)
    ),
    PoseSolution: st.builds(
        PoseSolution,
        st.just(CameraModel.overhead(TableSpec.standard("9ft"))),
        st.tuples(points, points, points, points),
        finite,
        finite,
        st.sampled_from(list(IntrinsicsSource)),
        st.one_of(st.none(), unit_interval),
    ),
    Calibration: st.builds(
        Calibration,
        st.just(1),
        st.sampled_from([TableSpec.standard(n) for n in ("9ft", "7ft")]),
        st.just(CameraModel.overhead(TableSpec.standard("9ft"))),
        st.sampled_from(list(IntrinsicsSource)),
        st.tuples(points, points, points, points),
        finite,
        finite,
        st.one_of(st.none(), st.tuples(finite, finite, finite)),
        unit_interval,
        st.text(max_size=20),
        st.text(max_size=20),
        st.one_of(st.none(), st.builds(lambda: default_colour_model())),
    ),
    ColourModel: st.builds(
        lambda cloth, gain, source: default_colour_model(cloth).with_shading(
            [[gain, 1.0, gain], [1.0, 1.0, 1.0]]
        ),
        st.tuples(*(st.floats(0, 255),) * 3),
        st.floats(0.05, 4.0),
        st.text(max_size=10),
    ),
    BallColour: st.builds(BallColour, balls, st.tuples(finite, finite, finite), unit_interval),
    BallPixels: st.builds(
        BallPixels,
        unit_interval,
        unit_interval,
        st.one_of(st.none(), st.tuples(finite, finite, finite)),
        unit_interval,
        st.one_of(st.none(), st.tuples(finite, finite, finite)),
    ),
    Alignment: st.builds(
        Alignment,
        st.just(CameraModel.overhead(TableSpec.standard("9ft"))),
        finite,
        st.integers(0, 1000),
        st.integers(0, 1000),
    ),
    DriftReport: st.builds(
        DriftReport, st.booleans(), st.tuples(finite, finite, finite, finite), finite
    ),
    TableConfig: st.sampled_from([TableConfig(), TableConfig("custom", 3000.0, 1500.0)]),
    CameraModel: st.builds(
        CameraModel,
        st.tuples(st.integers(1, 4096), st.integers(1, 4096)),
        st.floats(1, 1e4),
        st.floats(1, 1e4),
        finite,
        finite,
        st.tuples(finite, finite, finite, finite, finite),
        st.tuples(finite, finite, finite),
        st.tuples(finite, finite, finite),
    ),
    RefereeConfig: st.builds(RefereeConfig, st.sampled_from(["9-ball", "8-ball", "14.1"])),
    **AUX_STRATEGIES,
    **REFEREE_STRATEGIES,
}


def _value_types(package) -> set[type]:
    found = set()
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if dataclasses.is_dataclass(obj) and obj.__module__ == info.name:
                found.add(obj)
    return found


def test_every_value_type_has_a_round_trip_strategy() -> None:
    missing = (_value_types(rules) | _value_types(calibration)) - set(STRATEGIES)
    assert not missing, f"add round-trip strategies for {sorted(t.__name__ for t in missing)}"


@pytest.mark.parametrize("tp", list(STRATEGIES), ids=lambda t: t.__name__)
def test_json_round_trip(tp: type) -> None:
    @settings(deadline=None)  # a loaded machine (six helpers on two cores) is not a failure
    @given(STRATEGIES[tp])
    def check(value) -> None:
        text = dumps(value)
        json.loads(text)  # plain JSON
        assert loads(tp, text) == value

    check()


def test_unknown_key_is_named_with_its_path() -> None:
    data = to_jsonable(ShotEvent(EventKind.CUE_STRIKE, 0.0, (BallId.CUE,)))
    data["spin"] = 3
    with pytest.raises(RecordError, match=r"shot\.events\[0\]: unknown key\(s\) spin"):
        from_jsonable(ShotEvent, data, where="shot.events[0]")


def test_missing_key_wrong_type_and_bad_enum_say_where() -> None:
    good = to_jsonable(ShotEvent(EventKind.CUE_STRIKE, 0.0, (BallId.CUE,)))
    with pytest.raises(RecordError, match=r"\$: missing key 'time'"):
        from_jsonable(ShotEvent, {k: v for k, v in good.items() if k != "time"})
    with pytest.raises(RecordError, match=r"\$\.time: expected float, got 'soon'"):
        from_jsonable(ShotEvent, {**good, "time": "soon"})
    with pytest.raises(RecordError, match=r"\$\.balls\[0\]: 'ghost' is not one of"):
        from_jsonable(ShotEvent, {**good, "balls": ["ghost"]})
    with pytest.raises(RecordError, match=r"\$\.time: expected float, got True"):
        from_jsonable(ShotEvent, {**good, "time": True})


def test_value_checks_of_the_type_become_record_errors() -> None:
    bad = to_jsonable(ShotEvent(EventKind.CUE_STRIKE, 0.0, (BallId.CUE,)))
    bad["confidence"] = 2.0
    with pytest.raises(RecordError, match="confidence must be within 0-1"):
        from_jsonable(ShotEvent, bad)


def test_the_error_class_is_the_callers_choice() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        from_jsonable(TableConfig, {"sise": "9ft"}, error=ConfigError)


def test_loads_refuses_text_that_is_not_json() -> None:
    with pytest.raises(RecordError, match=r"shot\.json: not valid JSON"):
        loads(Shot, "{", where="shot.json")


def test_encoding_an_unknown_type_fails_loudly() -> None:
    with pytest.raises(TypeError, match="cannot encode"):
        to_jsonable(object())
