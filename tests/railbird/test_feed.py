"""The scoreboard feed: the shot clock follows the live loop, states reach the hub."""

from __future__ import annotations

from calibration.table import TableSpec
from railbird.feed import ScoreboardFeed
from railbird.live import LiveUpdate
from railbird.web.hub import Hub
from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from rules.referee import Referee
from rules.shot_clock import ClockPhase
from tests.factories import break_shot

T9 = TableSpec.standard("9ft")


def test_strike_stops_the_clock_and_the_ruling_starts_the_next_count_rule_1_11() -> None:
    referee = Referee.new("9-ball", ("Ann", "Bob"), T9)
    hub = Hub()
    feed = ScoreboardFeed(referee, hub)
    feed.update(LiveUpdate(0.0, 0.01, event=ShotEvent(EventKind.CUE_STRIKE, 0.0, (BallId.CUE,))))
    shot = break_shot()
    timeline = referee.record(shot, shot.strike_time)
    feed.update(
        LiveUpdate(shot.end_time, shot.end_time + 0.05, shot=shot, ruling=timeline.rulings[-1])
    )
    reading = feed.shot_clock.reading(shot.end_time + 5.0)
    assert reading.phase is ClockPhase.RUNNING and reading.remaining_s == 30.0
    feed.tick(shot.end_time + 26.0)
    version, state = hub.latest()
    assert version >= 3 and state is not None
    assert state.clock is not None and state.clock.phase is ClockPhase.WARNING


def test_ticks_publish_about_ten_times_a_second() -> None:
    hub = Hub()
    feed = ScoreboardFeed(Referee.new("9-ball", ("Ann", "Bob"), T9), hub)
    for k in range(100):
        feed.tick(k / 100)  # one second of frames at 100 fps
    version, _ = hub.latest()
    assert 9 <= version <= 11
