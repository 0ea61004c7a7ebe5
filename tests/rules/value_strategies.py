"""Hypothesis strategies for the referee's auxiliary value types (shot clock, lag, rack checks,
14.1 re-rack, match), merged into the codec round-trip test's STRATEGIES."""

from __future__ import annotations

from hypothesis import strategies as st

from calibration.table import TableSpec
from rules.balls import BallId
from rules.lag import LagEvidence, LagFault, LagLoss, LagResult, judge_lag
from rules.match import BreakOrder, Match, MatchConfig, MatchUnit, RackRecord, TimeOutTaken
from rules.rack import RackCheck, RackCheckConfig, RackProblem, RackProblemKind, check_rack
from rules.rerack import KitchenSpot, RerackPlan, plan_rerack
from rules.shot import Layout
from rules.shot_clock import Announcement, AnnouncementKind, ShotClock, ShotClockConfig
from rules.table import RackShape

balls = st.sampled_from(list(BallId))
times = st.floats(min_value=0, max_value=1e4, allow_nan=False)
players = st.sampled_from(["A", "B"])

clock_configs = st.sampled_from(
    [ShotClockConfig(), ShotClockConfig.wpa_regulation(), ShotClockConfig(30.0, 5.0, 20.0, 2)]
)


@st.composite
def shot_clocks(draw) -> ShotClock:
    """A clock driven through a random run of events."""
    clock = ShotClock.create(draw(clock_configs))
    t = 0.0
    for _ in range(draw(st.integers(0, 8))):
        t += draw(st.floats(0, 20))
        op = draw(st.sampled_from(["complete", "hand", "taken", "spotted", "down", "strike"]))
        if op == "complete":
            clock = clock.shot_complete(t, draw(players), after_break=draw(st.booleans()))
        elif op == "hand":
            clock = clock.shot_complete(t, draw(players), ball_in_hand=True, spotting=True)
        elif op == "taken":
            clock = clock.cue_ball_taken(t)
        elif op == "spotted":
            clock = clock.spotting_done(t)
        elif op == "down":
            clock = clock.observe_down(t, draw(st.booleans()))
        else:
            clock = clock.strike(t)
    return clock


@st.composite
def lag_evidence(draw, player: str = "A", side: int = 1) -> LagEvidence:
    """Any consistent lag ball."""
    gone = draw(st.sampled_from(["pocketed", "off_table", None]))
    final = None if gone else (draw(st.floats(-1300, 1300)), draw(st.floats(-600, 600)))
    return LagEvidence(
        player,
        (draw(st.floats(-1200, -700)), side * draw(st.floats(50, 600))),
        draw(st.booleans()),
        draw(st.integers(0, 3)),
        draw(st.booleans()),
        gone == "pocketed",
        gone == "off_table",
        final,
        draw(st.booleans()),
    )


lag_results = st.builds(
    lambda a, b: judge_lag(a, b, TableSpec.standard("9ft")),
    lag_evidence("A", 1),
    lag_evidence("B", -1),
)


@st.composite
def rack_checks(draw) -> RackCheck:
    """The check of a correct 9-ball rack with a few balls moved or removed."""
    table = TableSpec.standard("9ft")
    order = ("1", "2", "3", "4", "9", "5", "6", "7", "8")
    slots = table.rack_slots(RackShape.DIAMOND)
    positions = {}
    for ball, (x, y) in zip(order, slots, strict=True):
        if draw(st.integers(0, 9)) == 0:
            continue
        dx, dy = draw(st.sampled_from([(0.0, 0.0), (3.0, 0.0), (40.0, -10.0)]))
        positions[BallId(ball)] = (x + dx, y + dy)
    return check_rack(Layout.of(positions), draw(st.sampled_from(["9-ball", "14.1"])), table)


table_points = st.tuples(st.floats(-1200, 1200), st.floats(-600, 600))
rerack_plans = st.builds(
    lambda cue, ball, at: plan_rerack(
        Layout.of({BallId.CUE: cue} if at is None else {BallId.CUE: cue, ball: at}),
        TableSpec.standard("9ft"),
    ),
    table_points,
    balls.filter(lambda b: b is not BallId.CUE),
    st.none() | table_points,
)


match_configs = st.builds(
    MatchConfig,
    st.integers(1, 11),
    st.just(MatchUnit.RACKS),
    st.sampled_from(list(BreakOrder)),
    st.none() | st.integers(1, 3),
    st.integers(0, 2),
    st.floats(1, 600),
) | st.just(MatchConfig(race_to=150, unit=MatchUnit.POINTS))


@st.composite
def matches(draw) -> Match:
    """A match played some way, with a time-out perhaps."""
    config = draw(match_configs)
    match = Match.start(config, ("A", "B"), draw(players), draw(st.booleans()))
    for _ in range(draw(st.integers(0, 12))):
        if match.is_over:
            break
        if config.unit is MatchUnit.POINTS:
            match = match.record_points(draw(players), draw(st.integers(-18, 30)))
        elif draw(st.integers(0, 5)) == 0 and match.time_outs_left(match.breaker):
            match = match.take_time_out(match.breaker, 10.0).end_time_out(70.0)
        else:
            match = match.begin_rack().record_rack(draw(players))
    return match


AUX_STRATEGIES: dict[type, st.SearchStrategy] = {
    ShotClockConfig: clock_configs,
    ShotClock: shot_clocks(),
    LagEvidence: lag_evidence(),
    LagFault: st.builds(LagFault, players, st.sampled_from(list(LagLoss))),
    LagResult: lag_results,
    RackProblem: st.builds(
        RackProblem,
        st.sampled_from(list(RackProblemKind)),
        st.sampled_from(["4.3", "5.2", "1.16.5"]),
        st.lists(balls, max_size=3).map(tuple),
        st.text(max_size=20),
        st.none() | st.floats(0, 100),
    ),
    RackCheckConfig: st.builds(
        RackCheckConfig, st.floats(0, 10), st.floats(0, 30), st.floats(0, 3)
    ),
    RackCheck: rack_checks(),
    RerackPlan: rerack_plans,
    KitchenSpot: st.builds(
        KitchenSpot, st.lists(balls, min_size=1, max_size=3).map(tuple), table_points
    ),
    MatchConfig: match_configs,
    RackRecord: st.builds(RackRecord, st.integers(0, 4), players, st.none() | players),
    TimeOutTaken: st.builds(
        TimeOutTaken, players, st.just(5.0), st.none() | st.floats(5, 400), st.booleans()
    ),
    Match: matches(),
    Announcement: st.builds(
        Announcement, st.sampled_from(list(AnnouncementKind)), times, st.none() | players
    ),
}
