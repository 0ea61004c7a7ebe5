from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.codec import from_jsonable
from rules.errors import ConfigError
from rules.match import (
    BreakOrder,
    Match,
    MatchConfig,
    MatchError,
    MatchUnit,
    TimeOutTaken,
)

PLAYERS = ("Ann", "Bob")


def race(n: int = 3, order: BreakOrder = BreakOrder.WINNER, **config) -> Match:
    return Match.start(MatchConfig(race_to=n, break_order=order, **config), PLAYERS, "Ann")


def play(match: Match, *winners: str) -> Match:
    for winner in winners:
        match = match.begin_rack().record_rack(winner)
    return match


def breakers(match: Match) -> list[str]:
    return [r.breaker for r in match.racks]


def test_the_lag_winner_breaks_or_gives_the_break_away_rule_3_7() -> None:
    config = MatchConfig()
    assert Match.start(config, PLAYERS, "Bob").next_breaker == "Bob"
    assert Match.start(config, PLAYERS, "Bob", lag_winner_breaks=False).next_breaker == "Ann"
    with pytest.raises(MatchError, match="'Eve' does not play"):
        Match.start(config, PLAYERS, "Eve")


def test_the_winner_of_a_rack_breaks_the_next_by_default_rule_3_36() -> None:
    match = play(race(5), "Bob", "Bob", "Ann")
    assert breakers(match) == ["Ann", "Bob", "Bob"]
    assert match.next_breaker == "Ann"


def test_players_may_alternate_the_break_rule_4_4_a() -> None:
    match = play(race(5, BreakOrder.ALTERNATE), "Ann", "Ann", "Ann")
    assert breakers(match) == ["Ann", "Bob", "Ann"]
    assert match.next_breaker == "Bob"
    assert BreakOrder.ALTERNATE.rule == "3.36(a)"


def test_the_loser_may_break_rule_5_3_b() -> None:
    match = play(race(5, BreakOrder.LOSER), "Ann", "Bob")
    assert breakers(match) == ["Ann", "Bob"]
    assert match.next_breaker == "Ann"


def test_the_player_behind_may_break_and_a_tie_goes_to_the_winner_rule_3_36_c() -> None:
    match = play(race(5, BreakOrder.BEHIND), "Ann", "Ann")
    assert match.next_breaker == "Bob"
    tied = play(match, "Bob", "Bob")
    assert breakers(tied) == ["Ann", "Bob", "Bob", "Bob"]
    assert tied.next_breaker == "Bob", "2-2: the option is silent, the winner breaks"


def test_a_race_to_n_racks_ends_with_the_nth_rack_rule_3_36() -> None:
    match = play(race(3), "Ann", "Bob", "Ann")
    assert (match.is_over, match.winner) == (False, None)
    match = play(match, "Ann")
    assert (match.is_over, match.winner, match.racks_won("Ann"), match.racks_won("Bob")) == (
        True,
        "Ann",
        3,
        1,
    )
    with pytest.raises(MatchError, match="the match is over, 'Ann' won"):
        match.begin_rack()


def test_a_replayed_rack_keeps_its_breaker_and_counts_for_nobody_rule_4_21() -> None:
    match = race(3).begin_rack().replay_rack()
    assert match.next_breaker == "Ann"
    assert match.racks_won("Ann") == match.racks_won("Bob") == 0
    assert match.racks[-1].winner is None


def test_sets_are_won_by_racks_and_the_match_by_sets_rule_3_36() -> None:
    match = race(2, sets_to=2)
    match = play(match, "Ann", "Ann")
    assert match.sets == ("Ann",) and match.racks_won("Ann") == 0
    match = play(match, "Bob", "Bob")
    assert match.deciding_set and not match.is_over
    match = play(match, "Bob", "Ann", "Bob")
    assert (match.winner, match.sets) == ("Bob", ("Ann", "Bob", "Bob"))


def test_a_14_1_match_is_a_race_to_points_which_may_go_negative_rule_6_13() -> None:
    config = MatchConfig(race_to=150, unit=MatchUnit.POINTS)
    match = Match.start(config, PLAYERS, "Ann").record_points("Bob", -1).record_points("Bob", -1)
    match = match.record_points("Ann", 149)
    assert (match.points_of("Ann"), match.points_of("Bob"), match.is_over) == (149, -2, False)
    match = match.record_points("Ann", 1)
    assert (match.winner, match.points) == ("Ann", (150, -2))
    with pytest.raises(MatchError, match="counts points"):
        Match.start(config, PLAYERS, "Ann").record_rack("Ann")
    with pytest.raises(MatchError, match="counts racks"):
        race().record_points("Ann", 1)


def test_one_time_out_per_player_per_match_at_most_five_minutes_rule_1_13() -> None:
    match = play(race(5), "Ann").take_time_out("Ann", 100.0)
    assert match.running_time_out == TimeOutTaken("Ann", 100.0)
    assert match.time_out_remaining(160.0) == pytest.approx(240.0)
    assert match.time_out_remaining(500.0) == 0.0
    with pytest.raises(MatchError, match="end it before the rack begins"):
        match.begin_rack()
    with pytest.raises(MatchError, match="no rack can have been played"):
        match.record_rack("Bob")
    match = match.end_time_out(250.0)
    assert match.time_outs == (TimeOutTaken("Ann", 100.0, 250.0),)
    assert match.time_outs_left("Ann") == 0 and match.time_outs_left("Bob") == 1
    match = play(match, "Ann")
    with pytest.raises(MatchError, match="'Ann' has no time-out left"):
        match.take_time_out("Ann", 900.0)


def test_a_time_out_only_between_racks_at_the_players_turn_rule_1_13() -> None:
    match = race(5)
    with pytest.raises(MatchError, match="during a rack"):
        match.begin_rack().take_time_out("Ann", 1.0)
    with pytest.raises(MatchError, match="only at his turn"):
        match.take_time_out("Bob", 1.0)
    with pytest.raises(MatchError, match="already under way"):
        match.take_time_out("Ann", 1.0).take_time_out("Ann", 2.0)
    with pytest.raises(MatchError, match="no time-out is under way"):
        match.end_time_out(3.0)
    with pytest.raises(MatchError, match="no time-out left"):
        race(5, time_outs=0).take_time_out("Ann", 1.0)


def test_the_deciding_set_gives_each_player_one_more_time_out_rule_1_13() -> None:
    match = race(1, sets_to=2).take_time_out("Ann", 0.0).end_time_out(60.0)
    match = play(match, "Ann", "Bob")  # one set each: the third decides
    assert match.deciding_set
    assert match.next_breaker == "Bob"
    assert match.time_outs_left("Bob") == match.time_outs_left("Ann") == 1
    match = match.take_time_out("Bob", 500.0)
    assert match.running_time_out is not None and match.running_time_out.deciding_set


def test_settings_are_checked_and_load_strictly_rule_1_13() -> None:
    with pytest.raises(ValueError, match="race_to must be 1 or more"):
        MatchConfig(race_to=0)
    with pytest.raises(ValueError, match="not played in sets"):
        MatchConfig(unit=MatchUnit.POINTS, sets_to=2)
    with pytest.raises(ConfigError, match=r"match\.break_order: 'random' is not one of"):
        from_jsonable(MatchConfig, {"break_order": "random"}, where="match", error=ConfigError)


@given(
    st.integers(1, 9),
    st.sampled_from(list(BreakOrder)),
    st.lists(st.sampled_from(PLAYERS), min_size=40, max_size=40),
)
def test_a_race_ends_after_at_most_2n_minus_1_racks_with_n_for_the_winner_rule_3_36(
    n: int, order: BreakOrder, winners: list[str]
) -> None:
    match = race(n, order)
    for winner in winners:
        if match.is_over:
            break
        assert match.next_breaker in PLAYERS
        match = match.begin_rack().record_rack(winner)
    assert match.is_over
    assert len(match.racks) <= 2 * n - 1
    assert match.winner is not None and match.racks_won(match.winner) == n
    if order is BreakOrder.ALTERNATE:
        assert all(a != b for a, b in zip(breakers(match), breakers(match)[1:], strict=False))
