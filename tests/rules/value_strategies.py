"""Hypothesis strategies for the referee's auxiliary value types (shot clock, lag, rack checks,
14.1 re-rack, match), merged into the codec round-trip test's STRATEGIES."""

from __future__ import annotations

from hypothesis import strategies as st

from calibration.table import TableSpec
from rules.lag import LagEvidence, LagFault, LagLoss, LagResult, judge_lag
from rules.shot_clock import Announcement, AnnouncementKind, ShotClock, ShotClockConfig

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


AUX_STRATEGIES: dict[type, st.SearchStrategy] = {
    ShotClockConfig: clock_configs,
    ShotClock: shot_clocks(),
    LagEvidence: lag_evidence(),
    LagFault: st.builds(LagFault, players, st.sampled_from(list(LagLoss))),
    LagResult: lag_results,
    Announcement: st.builds(
        Announcement, st.sampled_from(list(AnnouncementKind)), times, st.none() | players
    ),
}
