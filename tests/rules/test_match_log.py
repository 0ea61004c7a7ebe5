"""The match folded from the game log: racks won, who breaks next, rack ready, time-outs."""

from __future__ import annotations

import pytest

from rules.codec import from_jsonable, to_jsonable
from rules.errors import RecordError
from rules.inputs import RackReady, Stalemate, TimeOut, Undo
from rules.log import GameLog, replay
from rules.match import BreakOrder, MatchConfig, MatchUnit
from rules.referee import Referee
from rules.shot import Shot
from rules.state import GameOptions
from rules.table import PocketId
from tests.factories import TABLE_9FT, break_shot, shot_at
from tests.rules.test_straight_pool import call, opening_break, pot

ANN, BOB = 0, 1
PLAYERS = ("Ann", "Bob")
FL, FR = PocketId.FOOT_LEFT, PocketId.FOOT_RIGHT


def match_referee(
    race_to: int = 3, order: BreakOrder = BreakOrder.WINNER, breaker: int = ANN
) -> Referee:
    config = MatchConfig(race_to=race_to, break_order=order)
    return Referee.new("9-ball", PLAYERS, TABLE_9FT, GameOptions(breaker=breaker), config)


def next_index(ref: Referee) -> int:
    return sum(1 for e in ref.log.entries if isinstance(e.item, Shot))


def win_rack(ref: Referee, winner: int, t: float) -> None:
    """The rack's winner pockets the 9: on the break when he breaks, else by a combination
    after the breaker's dry break."""
    index = next_index(ref)
    if ref.state.breaker == winner:
        ref.record(break_shot(index=index, pocket=(("9", FL),)), t)
    else:
        ref.record(break_shot(index=index), t)
        ref.record(shot_at("1", index=index + 1, pocket=FL, also=(("9", FR),)), t + 1)
    assert ref.state.over and ref.state.winner == winner


def test_a_won_rack_counts_at_once_and_the_next_waits_for_rack_ready_rule_3_36() -> None:
    ref = match_referee()
    win_rack(ref, ANN, 1.0)
    match = ref.match
    assert match is not None and match.racks_won("Ann") == 1 and match.racks_won("Bob") == 0
    assert match.next_breaker == "Ann" and not match.is_over
    with pytest.raises(RecordError, match="already over"):
        ref.record(shot_at("1", index=1), 5.0)
    ref.record(RackReady(), 6.0)
    assert not ref.state.over and ref.state.breaker == ANN and ref.state.shooter == ANN
    assert len(ref.state.on_table) == 9
    win_rack(ref, BOB, 7.0)
    assert ref.match is not None
    assert (ref.match.racks_won("Ann"), ref.match.racks_won("Bob")) == (1, 1)
    assert [r.breaker for r in ref.match.racks] == ["Ann", "Ann"]
    assert ref.match.next_breaker == "Bob"


@pytest.mark.parametrize(
    ("order", "second_breaker", "third_breaker"),
    [
        (BreakOrder.WINNER, "Ann", "Bob"),
        (BreakOrder.ALTERNATE, "Bob", "Ann"),
        (BreakOrder.LOSER, "Bob", "Ann"),
        (BreakOrder.BEHIND, "Bob", "Bob"),  # tied 1-1: the 3.36 default, the winner
    ],
)
def test_the_break_order_names_the_next_breaker_rule_3_36(
    order: BreakOrder, second_breaker: str, third_breaker: str
) -> None:
    ref = match_referee(order=order)
    win_rack(ref, ANN, 1.0)
    ref.record(RackReady(), 5.0)
    assert PLAYERS[ref.state.breaker] == second_breaker
    win_rack(ref, BOB, 6.0)
    assert ref.match is not None and ref.match.next_breaker == third_breaker
    ref.record(RackReady(), 9.0)
    assert PLAYERS[ref.state.breaker] == third_breaker


def test_the_race_ends_the_match_and_no_rack_follows_rule_3_36() -> None:
    ref = match_referee(race_to=2)
    win_rack(ref, BOB, 1.0)
    ref.record(RackReady(), 5.0)
    win_rack(ref, BOB, 6.0)
    assert ref.match is not None and ref.match.is_over and ref.match.winner == "Bob"
    before = ref.log
    with pytest.raises(RecordError, match="match is over: Bob won"):
        ref.record(RackReady(), 9.0)
    assert ref.log == before


def test_rack_ready_during_a_rack_is_refused() -> None:
    ref = match_referee()
    ref.record(break_shot(index=0), 1.0)
    with pytest.raises(RecordError, match="not over"):
        ref.record(RackReady(), 2.0)
    single = Referee.new("9-ball", PLAYERS, TABLE_9FT)
    single.record(break_shot(index=0, pocket=(("9", FL),)), 1.0)
    with pytest.raises(RecordError, match="single game"):
        single.record(RackReady(), 2.0)


def test_undoing_the_winning_shot_takes_the_rack_back() -> None:
    ref = match_referee()
    win_rack(ref, ANN, 1.0)
    ref.record(RackReady(), 5.0)
    ref.record(Undo(1, "rack ready by mistake"), 6.0)
    assert ref.state.over
    ref.record(Undo(0, "the 9 was on the lip, not in"), 7.0)
    assert ref.match is not None and ref.match.racks == () and not ref.state.over


def test_a_time_out_between_racks_ends_at_the_next_break_rule_1_13() -> None:
    ref = match_referee()
    win_rack(ref, ANN, 1.0)
    with pytest.raises(RecordError, match="only at his turn"):
        ref.record(TimeOut(BOB), 2.0)
    ref.record(TimeOut(ANN), 3.0)
    assert ref.match is not None and ref.match.running_time_out is not None
    ref.record(RackReady(), 100.0)
    ref.record(break_shot(index=1), 200.0)
    taken = ref.match.time_outs
    assert len(taken) == 1 and taken[0].ended_at == 200.0
    assert ref.match.rack_in_progress and ref.match.time_outs_left("Ann") == 0
    with pytest.raises(RecordError, match="during a rack"):
        ref.record(TimeOut(ANN), 201.0)


def test_a_stalemate_replays_the_rack_without_a_winner_rule_4_21() -> None:
    ref = match_referee()
    ref.record(break_shot(index=0), 1.0)
    ref.record(Stalemate("nobody can play"), 2.0)
    assert ref.match is not None and ref.match.racks[-1].winner is None
    assert ref.match.next_breaker == "Ann" and not ref.state.over
    win_rack(ref, BOB, 3.0)
    assert (ref.match.racks_won("Ann"), ref.match.racks_won("Bob")) == (0, 1)


def straight_game(ref: Referee, breaker: int, index: int, t: float) -> None:
    """A 14.1 game to 2: a safe opening break, then the other player runs two called balls."""
    assert ref.state.breaker == breaker
    ref.record(opening_break(index=index), t)
    for n, ball in enumerate(("3", "4"), start=1):
        ref.record(call(ball, FL), t + n)
        ref.record(pot(ball, FL, index + n), t + n + 0.5)
    assert ref.state.over and ref.state.winner == 1 - breaker


def test_a_finished_14_1_game_adds_its_points_to_the_match_rule_6_1() -> None:
    config = MatchConfig(race_to=4, unit=MatchUnit.POINTS)
    options = GameOptions(breaker=ANN, target_points=2)
    ref = Referee.new("14.1", PLAYERS, TABLE_9FT, options, config)
    straight_game(ref, ANN, 0, 1.0)
    assert ref.match is not None and ref.match.points == (0, 2) and not ref.match.is_over
    ref.record(RackReady(), 10.0)
    assert ref.state.scores == (0, 0) and ref.state.breaker == BOB
    straight_game(ref, BOB, 3, 11.0)
    assert ref.match.points == (2, 2) and ref.match.next_breaker == "Ann"


def test_a_match_log_keeps_its_config_through_the_codec() -> None:
    ref = match_referee(race_to=5, order=BreakOrder.LOSER)
    win_rack(ref, BOB, 1.0)
    ref.record(RackReady(), 4.0)
    back = from_jsonable(GameLog, to_jsonable(ref.log))
    assert back == ref.log
    timeline = replay(back, TABLE_9FT)
    assert timeline.match == ref.match and timeline.state == ref.state


def test_a_rack_over_cannot_be_replayed_instead_of_racking_the_next_rule_4_21() -> None:
    ref = match_referee()
    win_rack(ref, ANN, 1.0)
    with pytest.raises(RecordError, match="nothing to replay"):
        ref.record(Stalemate(), 2.0)


def test_a_race_to_points_is_only_for_14_1_rule_6_1() -> None:
    config = MatchConfig(race_to=100, unit=MatchUnit.POINTS)
    with pytest.raises(RecordError, match=r"only 14\.1 scores"):
        Referee.new("9-ball", PLAYERS, TABLE_9FT, match=config)
