"""Shots of the tracking corpus that once went wrong, seen through the bench's noise model
(`bench._virtual_table.noisy_detections`) as the corpus sees them."""

from __future__ import annotations

import pytest

from bench._virtual_table import Seen, board_signals, noisy_detections
from bench.pipeline import track_shots
from hardware.sim.scenarios import run_scenario
from rules.balls import BallId
from rules.events import EventKind

pytestmark = pytest.mark.slow


def _events(name: str, seed: int):
    run = run_scenario(name, seed)
    detections, _ = noisy_detections(run, seed)
    return track_shots(Seen(run, detections, board_signals(run, seed)), True)[1]


def test_balls_creeping_to_rest_after_a_break_were_not_touched_rule_3_21() -> None:
    # After the 14.1 break of seed 1003 the 2 and the 13 crawl to rest at 1-7 cm/s: the rest
    # test calls each still for a frame or two, then a noisy sample (9 mm off) or the crawl
    # sets it moving again. Neither was touched: each was never left still.
    events = _events("break-14.1", 1003)
    assert any(e.kind is EventKind.CUE_STRIKE for e in events)
    assert [e for e in events if e.kind is EventKind.BALL_DISTURBED] == []


def test_a_soft_hit_kicking_neither_ball_past_the_noise_is_the_first_contact_rule_3_18() -> None:
    # no-cushion, seed 1004: the cue ball reaches the 9 at 0.2 m/s and sends it off at 0.16;
    # neither velocity changes by more than one frame's noise, and the tracker sees the 9 leave
    # rest three frames later. The cue ball was touching it then: it hit the 9.
    events = _events("no-cushion", 1004)
    contacts = [e for e in events if e.kind is EventKind.BALL_BALL]
    assert [e.balls for e in contacts] == [(BallId.CUE, BallId.NINE)]
    assert contacts[0].time == pytest.approx(0.760, abs=2 / 60)


def test_a_cue_ball_jumping_clean_over_a_ball_did_not_touch_it_rule_3_18() -> None:
    # jump-shot, seed 1005: the cue ball flies over the 4 to hit the 15. Seen from above the
    # two overlap for four frames, which balls on the cloth cannot; the cue ball's picture did
    # not grow enough to be flagged in the air, and its filtered velocity wavers.
    events = _events("jump-shot", 1005)
    contacts = [e for e in events if e.kind is EventKind.BALL_BALL]
    assert contacts and contacts[0].balls == (BallId.CUE, BallId.FIFTEEN)
    assert not [e for e in contacts if BallId.FOUR in e.balls and e.time < 1.0]
