from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.codec import from_jsonable
from rules.errors import ConfigError
from rules.shot_clock import (
    AnnouncementKind,
    ClockPhase,
    ClockReading,
    ShotClock,
    ShotClockConfig,
    ShotClockError,
    ShotClockStatus,
    down_on_shot,
)
from tests.factories import running_clock

TIME = AnnouncementKind.TIME
EXPIRED = AnnouncementKind.EXPIRED


def calls(clock: ShotClock) -> list[tuple[AnnouncementKind, float]]:
    return [(a.kind, a.time) for a in clock.announcements]


def test_a_reading_cannot_show_more_than_its_limit_or_less_than_zero_rule_1_11() -> None:
    assert ClockReading(ClockPhase.RUNNING, 20.0, 35.0).remaining_s == 20.0
    for remaining, limit in ((-1.0, 35.0), (36.0, 35.0), (0.0, 0.0)):
        with pytest.raises(ValueError, match="cannot show"):
            ClockReading(ClockPhase.RUNNING, remaining, limit)


def test_the_count_starts_when_the_previous_shot_is_complete_rule_1_11() -> None:
    idle = ShotClock.create()
    assert idle.reading(3.0) == ClockReading(ClockPhase.IDLE, 35.0, 35.0)
    clock = idle.shot_complete(10.0, "A")
    assert clock.reading(10.0) == ClockReading(ClockPhase.RUNNING, 35.0, 35.0)
    assert clock.reading(20.0).remaining_s == pytest.approx(25.0)


def test_time_is_called_ten_seconds_before_the_end_rule_1_11() -> None:
    clock = running_clock(t=5.0)
    assert clock.due(29.9) == ()
    (call,) = clock.due(31.0)
    assert (call.kind, call.time, call.shooter, call.rule) == (TIME, 30.0, "A", "1.11")
    reading = clock.reading(31.0)
    assert reading.phase is ClockPhase.WARNING
    assert reading.remaining_s == pytest.approx(9.0)


def test_running_out_after_the_time_call_is_reported_as_expired_rule_1_11() -> None:
    clock = running_clock(t=0.0).advance(20.0).advance(34.0)
    assert not clock.expired
    clock = clock.advance(36.0)
    assert clock.expired
    assert calls(clock) == [(TIME, 25.0), (EXPIRED, 35.0)]
    assert clock.reading(40.0) == ClockReading(ClockPhase.EXPIRED, 0.0, 35.0)
    assert clock.strike(41.0).expired, "a late strike does not undo the foul"


def test_calls_that_fell_between_updates_are_dated_when_due_rule_2_25() -> None:
    clock = running_clock(t=100.0).advance(200.0)
    assert calls(clock) == [(TIME, 125.0), (EXPIRED, 135.0)]


def test_due_only_lists_calls_not_yet_made_rule_1_11() -> None:
    clock = running_clock().advance(26.0)
    assert clock.due(30.0) == ()
    assert [a.kind for a in clock.due(35.0)] == [EXPIRED]


def test_the_cue_strike_stops_the_count_rule_1_11() -> None:
    clock = running_clock(t=0.0).strike(12.0)
    for t in (12.0, 50.0, 500.0):
        assert clock.reading(t) == ClockReading(ClockPhase.STOPPED, 23.0, 35.0)
    assert not clock.advance(500.0).announcements


def test_a_ball_in_hand_inning_waits_for_the_cue_ball_and_the_spotting_rule_1_11() -> None:
    clock = ShotClock.create().shot_complete(0.0, "B", ball_in_hand=True, spotting=True)
    assert clock.reading(30.0).phase is ClockPhase.IDLE
    clock = clock.cue_ball_taken(4.0)
    assert clock.reading(9.0) == ClockReading(ClockPhase.IDLE, 35.0, 35.0)
    clock = clock.spotting_done(10.0)
    assert clock.status is ShotClockStatus.RUNNING
    assert clock.reading(20.0).remaining_s == pytest.approx(25.0)


def test_spotting_done_before_the_cue_ball_is_taken_still_waits_rule_1_11() -> None:
    clock = ShotClock.create().shot_complete(0.0, "B", ball_in_hand=True, spotting=True)
    clock = clock.spotting_done(2.0)
    assert clock.status is ShotClockStatus.WAITING
    assert clock.cue_ball_taken(6.0).reading(16.0).remaining_s == pytest.approx(25.0)


def test_a_shooter_down_on_the_shot_at_the_mark_is_not_warned_rule_1_11() -> None:
    clock = running_clock(t=0.0).observe_down(20.0, True)
    held = clock.advance(300.0)
    assert held.announcements == ()
    assert not held.expired
    assert held.reading(300.0) == ClockReading(ClockPhase.WARNING, 10.0, 35.0)
    assert held.strike(301.0).reading(302.0) == ClockReading(ClockPhase.STOPPED, 10.0, 35.0)


def test_a_shooter_who_stands_up_is_warned_then_and_the_count_resumes_rule_1_11() -> None:
    clock = running_clock(t=0.0).observe_down(20.0, True).observe_down(40.0, False)
    assert calls(clock) == [(TIME, 40.0)]
    assert clock.reading(45.0).remaining_s == pytest.approx(5.0)
    assert calls(clock.advance(51.0)) == [(TIME, 40.0), (EXPIRED, 50.0)]


def test_standing_up_before_the_mark_changes_nothing_rule_1_11() -> None:
    clock = running_clock(t=0.0).observe_down(10.0, True).observe_down(20.0, False)
    assert calls(clock.advance(36.0)) == [(TIME, 25.0), (EXPIRED, 35.0)]


def test_getting_down_after_the_time_call_does_not_stop_the_count_rule_1_11() -> None:
    clock = running_clock(t=0.0).advance(27.0).observe_down(27.0, True)
    assert calls(clock.advance(36.0)) == [(TIME, 25.0), (EXPIRED, 35.0)]


def test_the_operator_overrides_vision_on_down_on_the_shot_rule_1_11() -> None:
    seen_down = running_clock(t=0.0).observe_down(5.0, True)
    overruled = seen_down.override_down(6.0, False)
    assert calls(overruled.advance(26.0)) == [(TIME, 25.0)]
    told_down = running_clock(t=0.0).override_down(5.0, True).observe_down(6.0, False)
    assert told_down.advance(100.0).status is ShotClockStatus.HELD
    handed_back = told_down.advance(100.0).override_down(101.0, None)
    assert calls(handed_back) == [(TIME, 101.0)]


def test_one_extension_per_player_per_rack_equal_to_the_limit_rule_1_11() -> None:
    clock = running_clock(t=0.0).advance(30.0).extend(30.0, "A")
    reading = clock.reading(30.0)
    assert reading == ClockReading(ClockPhase.RUNNING, 40.0, 70.0, extension_used=True)
    assert calls(clock.advance(71.0)) == [(TIME, 25.0), (TIME, 60.0), (EXPIRED, 70.0)]
    with pytest.raises(ShotClockError, match="'A' has used his extension"):
        clock.strike(40.0).shot_complete(45.0, "A").extend(50.0, "A")
    next_rack = clock.strike(40.0).new_rack(60.0, "A").cue_ball_taken(61.0).spotting_done(62.0)
    assert next_rack.extensions_left("A") == 1
    assert next_rack.extend(63.0, "A").reading(63.0).limit_s == 70.0


def test_each_player_has_his_own_extension_rule_1_11() -> None:
    clock = running_clock(t=0.0, shooter="A").extend(1.0, "A").strike(2.0)
    clock = clock.shot_complete(5.0, "B").extend(6.0, "B")
    assert clock.extensions_left("A") == 0
    assert clock.extensions_left("B") == 0
    assert clock.reading(6.0).limit_s == 70.0


def test_an_extension_releases_a_hold_and_the_warning_comes_again_rule_1_11() -> None:
    held = running_clock(t=0.0).observe_down(20.0, True).advance(50.0)
    clock = held.extend(50.0, "A")
    assert clock.reading(50.0) == ClockReading(ClockPhase.RUNNING, 45.0, 70.0, True)
    clock = clock.observe_down(60.0, False)
    assert calls(clock.advance(96.0)) == [(TIME, 85.0), (EXPIRED, 95.0)]


def test_only_the_shooter_may_ask_for_an_extension_while_a_shot_is_timed_rule_1_11() -> None:
    with pytest.raises(ShotClockError, match="'B' asked for an extension but 'A' is shooting"):
        running_clock(shooter="A").extend(1.0, "B")
    with pytest.raises(ShotClockError, match="no shot is being timed"):
        running_clock().strike(3.0).extend(4.0, "A")
    with pytest.raises(ShotClockError, match="no shot is being timed"):
        running_clock().advance(40.0).extend(40.0, "A")


def test_the_later_regulation_allows_longer_after_the_break_rule_2_25() -> None:
    config = ShotClockConfig.wpa_regulation()
    clock = ShotClock.create(config).new_rack(0.0, "A").cue_ball_taken(1.0).spotting_done(1.0)
    assert clock.reading(1.0).limit_s == 25.0
    after_break = clock.strike(2.0).shot_complete(8.0, "A", after_break=True)
    assert after_break.reading(8.0).limit_s == 60.0
    assert calls(after_break.advance(60.0)) == [(TIME, 58.0)]
    following = after_break.strike(20.0).shot_complete(25.0, "A")
    assert following.reading(25.0).limit_s == 25.0
    assert following.extend(26.0, "A").reading(26.0).limit_s == 50.0


def test_time_cannot_run_backwards_rule_1_11() -> None:
    with pytest.raises(ShotClockError, match=r"time went back from 10\.0 s to 9\.0 s"):
        running_clock(t=10.0).reading(9.0)


def test_settings_are_checked_and_loaded_strictly_rule_1_11() -> None:
    with pytest.raises(ValueError, match=r"warning_s 35\.0 must be 0 or more and under"):
        ShotClockConfig(limit_s=35.0, warning_s=35.0)
    with pytest.raises(ConfigError, match=r"shot_clock\.extension_s: expected float"):
        from_jsonable(
            ShotClockConfig, {"extension_s": "long"}, where="shot_clock", error=ConfigError
        )
    loaded = from_jsonable(ShotClockConfig, {"limit_s": 25, "after_break_limit_s": 60})
    assert loaded == ShotClockConfig.wpa_regulation()


# Properties ------------------------------------------------------------------------------------

operations = st.lists(
    st.tuples(
        st.floats(min_value=0.0, max_value=15.0),
        st.sampled_from(
            ["tick", "down", "up", "override-down", "override-up", "vision", "extend", "pause"]
        ),
    ),
    max_size=25,
)


def _apply(clock: ShotClock, t: float, op: str) -> ShotClock:
    if op == "down":
        return clock.observe_down(t, True)
    if op == "up":
        return clock.observe_down(t, False)
    if op.startswith("override"):
        return clock.override_down(t, op == "override-down")
    if op == "vision":
        return clock.override_down(t, None)
    if op == "pause":
        return clock.resume(t) if clock.paused else clock.pause(t)
    timed = clock.advance(t).status in (ShotClockStatus.RUNNING, ShotClockStatus.HELD)
    if op == "extend" and timed and clock.extensions_left("A"):
        return clock.extend(t, "A")
    return clock.advance(t)


@settings(max_examples=150, deadline=None)
@given(operations, st.sampled_from([ShotClockConfig(), ShotClockConfig.wpa_regulation()]))
def test_remaining_time_never_grows_but_by_an_extension_nor_goes_negative_rule_1_11(
    ops: list[tuple[float, str]], config: ShotClockConfig
) -> None:
    clock = ShotClock.create(config).shot_complete(0.0, "A")
    t = 0.0
    before = clock.reading(t)
    for step, op in ops:
        t += step
        extensions = len(clock.extensions_used)
        clock = _apply(clock, t, op)
        after = clock.reading(t)
        granted = config.extension * (len(clock.extensions_used) - extensions)
        assert 0.0 <= after.remaining_s <= after.limit_s
        assert after.remaining_s <= before.remaining_s + granted + 1e-9
        if after.phase is ClockPhase.EXPIRED:
            assert [a.kind for a in clock.announcements][-1] is EXPIRED
            assert TIME in [a.kind for a in clock.announcements]
        before = after


@settings(max_examples=100, deadline=None)
@given(operations)
def test_expiry_always_follows_a_time_call_by_at_least_the_warning_time_rule_1_11(
    ops: list[tuple[float, str]],
) -> None:
    clock = running_clock()
    t = 0.0
    for step, op in ops:
        t += step
        clock = _apply(clock, t, op)
    clock = clock.advance(t + 1000.0)
    if clock.expired:
        *_, last_time, expiry = clock.announcements
        assert (last_time.kind, expiry.kind) == (TIME, EXPIRED)
        gap = expiry.time - last_time.time
        if any(op == "pause" for _, op in ops):  # a suspension of play only lengthens it
            assert gap >= clock.config.warning_s - 1e-9
        else:
            assert gap == pytest.approx(clock.config.warning_s)


def test_an_extension_asked_before_the_count_starts_applies_once_it_starts_rule_1_11() -> None:
    waiting = ShotClock.create().shot_complete(0.0, "A", ball_in_hand=True).extend(1.0, "A")
    assert waiting.status is ShotClockStatus.WAITING
    clock = waiting.cue_ball_taken(5.0)
    assert clock.reading(5.0) == ClockReading(ClockPhase.RUNNING, 70.0, 70.0, True)


def test_something_over_the_cue_ball_is_the_shooter_down_on_the_shot_rule_1_11() -> None:
    cue_ball = (-400.0, 100.0)
    cue_stick = [(-1400.0, 95.0), (-430.0, 95.0), (-430.0, 108.0), (-1400.0, 108.0)]
    assert down_on_shot(cue_ball, [cue_stick])
    arm_over_ball = [(-420.0, 50.0), (-380.0, 50.0), (-380.0, 150.0), (-420.0, 150.0)]
    assert down_on_shot(cue_ball, [arm_over_ball])
    far_hand = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)]
    assert not down_on_shot(cue_ball, [far_hand, []])
    assert not down_on_shot(cue_ball, [cue_stick], reach_mm=10.0)
    assert not down_on_shot(cue_ball, [])


def test_a_suspension_of_play_stops_the_count_until_play_resumes_rule_2_25() -> None:
    clock = running_clock(t=0.0).pause(20.0)
    assert clock.reading(500.0) == ClockReading(ClockPhase.RUNNING, 15.0, 35.0)
    assert clock.advance(500.0).announcements == ()
    resumed = clock.resume(500.0)
    assert calls(resumed.advance(516.0)) == [(TIME, 505.0), (EXPIRED, 515.0)]
