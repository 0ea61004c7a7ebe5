"""Hypothesis strategies for the referee's value types (rulings, states, inputs, logs)."""

from __future__ import annotations

from hypothesis import strategies as st

from rules.balls import BallGroup, BallId
from rules.games.straight_pool import Penalty
from rules.general import Findings, ShotContext
from rules.inputs import (
    CallShot,
    Decision,
    Extension,
    Interference,
    InterferenceOutcome,
    OperatorFoul,
    Override,
    PushOut,
    RackReady,
    Safety,
    ShotInputs,
    Stalemate,
    TimeOut,
    Undo,
    WarningGiven,
)
from rules.log import Entry, GameLog, Timeline
from rules.ruling import (
    Alert,
    AlertKind,
    BallInHand,
    Choice,
    Foul,
    FoulKind,
    Review,
    Ruling,
    ScoreChange,
    Spot,
)
from rules.state import GameOptions, GameState, Phase
from rules.table import PocketId
from tests.rules.value_strategies import match_configs, matches

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
unit = st.floats(min_value=0, max_value=1)
text = st.text(max_size=20)
reason = st.text(min_size=1, max_size=20).filter(lambda s: s.strip() != "")
balls = st.sampled_from(list(BallId))
object_balls = st.sampled_from([b for b in BallId if b.is_object_ball])
player = st.integers(0, 1)
rule = st.sampled_from(["3.18", "3.20", "5.8", "5.13", "4.20", "6.7.5"])


def ball_tuples(max_size: int = 4):
    return st.lists(balls, unique=True, max_size=max_size).map(tuple)


fouls = st.builds(Foul, st.sampled_from(list(FoulKind)), rule, text, st.none() | balls)
alerts = st.builds(
    Alert, st.sampled_from(list(AlertKind)), rule, text, st.none() | player, st.none() | balls
)
reviews = st.builds(Review, rule, text)
spots = st.builds(Spot, balls, st.tuples(finite, finite))
score_changes = st.builds(ScoreChange, player, st.integers(-18, 15), rule, text)


@st.composite
def rulings(draw) -> Ruling:
    seen = tuple(draw(st.lists(fouls, max_size=3)))
    applied = draw(st.sampled_from(seen)) if seen else None
    choices = tuple(draw(st.lists(st.sampled_from(list(Choice)), unique=True, max_size=2)))
    winner = draw(st.none() | player)
    return Ruling(
        shot_index=draw(st.none() | st.integers(0, 500)),
        shooter=draw(player),
        fouls=seen,
        foul=applied,
        next_player=draw(player),
        ball_in_hand=draw(st.sampled_from(list(BallInHand))),
        pocketed=draw(ball_tuples()),
        off_table=draw(ball_tuples(2)),
        credited=draw(ball_tuples()),
        spots=tuple(draw(st.lists(spots, max_size=2))),
        restores=tuple(draw(st.lists(spots, max_size=2))),
        score=tuple(draw(st.lists(score_changes, max_size=2))),
        warnings=tuple(draw(st.lists(alerts, max_size=2))),
        choices=choices,
        chooser=draw(player) if choices else None,
        game_over=winner is not None or draw(st.booleans()),
        winner=winner,
        reviews=tuple(draw(st.lists(reviews, max_size=2))),
        notes=tuple(draw(st.lists(text, max_size=2))),
        push_out=draw(st.booleans()),
        safety=draw(st.booleans()),
        groups=draw(st.sampled_from([(), (BallGroup.STRIPES, BallGroup.SOLIDS)])),
        cushion_safety=draw(st.none() | object_balls),
    )


options = st.builds(GameOptions, player, st.booleans(), unit, st.booleans(), st.integers(1, 300))


@st.composite
def states(draw) -> GameState:
    phase = draw(st.sampled_from(list(Phase)))
    on_table = tuple(
        sorted(draw(st.lists(object_balls, unique=True, max_size=15)), key=lambda b: b.number)
    )
    choices = tuple(draw(st.lists(st.sampled_from(list(Choice)), unique=True, max_size=2)))
    pairs = st.tuples(st.integers(0, 3), st.integers(0, 3))
    return GameState(
        game=draw(st.sampled_from(["9-ball", "8-ball", "14.1"])),
        players=(draw(text), draw(text)),
        options=draw(options),
        phase=phase,
        shooter=draw(player),
        breaker=draw(player),
        on_table=on_table,
        ball_in_hand=draw(st.sampled_from(list(BallInHand))),
        fouls_in_a_row=draw(pairs),
        warned=draw(st.tuples(st.booleans(), st.booleans())),
        scores=draw(st.tuples(st.integers(-50, 150), st.integers(-50, 150))),
        choices=choices,
        chooser=draw(player) if choices else None,
        groups=draw(st.sampled_from([(), (BallGroup.SOLIDS, BallGroup.STRIPES)])),
        winner=draw(player) if phase is Phase.OVER else None,
        shots=draw(st.integers(0, 100)),
        innings=draw(st.integers(1, 100)),
        extensions_used=draw(st.tuples(st.booleans(), st.booleans())),
        cushion_safety_ball=draw(st.tuples(st.none() | object_balls, st.none() | object_balls)),
        cushion_safeties=draw(pairs),
    )


contexts = st.builds(
    ShotContext,
    ball_tuples(2),
    st.sampled_from(list(BallInHand)),
    st.booleans(),
    st.booleans(),
    unit,
    st.booleans(),
)
findings = st.builds(
    Findings,
    st.lists(fouls, max_size=2).map(tuple),
    st.lists(alerts, max_size=2).map(tuple),
    st.lists(reviews, max_size=2).map(tuple),
    st.lists(spots, max_size=2).map(tuple),
    st.lists(text, max_size=2).map(tuple),
)
call_shots = st.builds(CallShot, object_balls, st.sampled_from(list(PocketId)))
operator_fouls = st.builds(
    OperatorFoul, st.sampled_from(list(FoulKind)), player, st.none() | st.integers(0, 99), text
)
interferences = st.builds(
    Interference, st.sampled_from(list(InterferenceOutcome)), st.integers(0, 99), text
)
undos = st.builds(Undo, st.integers(0, 99), reason)
overrides = st.builds(
    Override, st.integers(0, 99), reason, st.none() | st.lists(fouls, max_size=2).map(tuple)
)
inputs = st.one_of(
    call_shots,
    st.just(Safety()),
    st.just(PushOut()),
    st.builds(Decision, st.sampled_from(list(Choice))),
    operator_fouls,
    st.builds(WarningGiven, player),
    interferences,
    st.builds(Extension, player),
    st.builds(TimeOut, player, st.floats(0, 5)),
    undos,
    overrides,
    st.builds(Stalemate, text),
    st.builds(RackReady, text),
)
shot_inputs = st.builds(
    ShotInputs,
    st.none() | call_shots,
    st.booleans(),
    st.booleans(),
    st.lists(fouls, max_size=2).map(tuple),
    st.none() | overrides,
)
entries = st.builds(Entry, st.integers(0, 99), finite, inputs)


@st.composite
def logs(draw) -> GameLog:
    items = draw(st.lists(inputs.filter(lambda i: not isinstance(i, Undo)), max_size=3))
    log = GameLog(
        draw(st.sampled_from(["9-ball", "8-ball", "14.1"])),
        ("Ann", "Bob"),
        draw(options),
        match=draw(st.none() | match_configs),
    )
    for t, item in enumerate(items):
        log = log.record(item, float(t))
    return log


penalties = st.builds(
    Penalty,
    st.lists(score_changes, max_size=2).map(tuple),
    st.sampled_from(list(BallInHand)),
    st.lists(st.sampled_from(list(Choice)), unique=True, max_size=2).map(tuple),
)

timelines = st.builds(
    Timeline,
    states(),
    st.lists(rulings(), max_size=1).map(tuple),
    st.lists(text, max_size=2).map(tuple),
    st.none() | matches(),
)

STRATEGIES = {
    Foul: fouls,
    Alert: alerts,
    Review: reviews,
    Spot: spots,
    ScoreChange: score_changes,
    Ruling: rulings(),
    GameOptions: options,
    GameState: states(),
    ShotContext: contexts,
    Findings: findings,
    CallShot: call_shots,
    Safety: st.just(Safety()),
    PushOut: st.just(PushOut()),
    Decision: st.builds(Decision, st.sampled_from(list(Choice))),
    OperatorFoul: operator_fouls,
    WarningGiven: st.builds(WarningGiven, player),
    Interference: interferences,
    Extension: st.builds(Extension, player),
    TimeOut: st.builds(TimeOut, player, st.floats(0, 5)),
    Undo: undos,
    Override: overrides,
    Stalemate: st.builds(Stalemate, text),
    RackReady: st.builds(RackReady, text),
    ShotInputs: shot_inputs,
    Entry: entries,
    GameLog: logs(),
    Timeline: timelines,
    Penalty: penalties,
}
"""Round-trip strategies for tests/rules/test_codec.py."""
