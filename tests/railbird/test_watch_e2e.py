"""End to end: whole virtual-table racks through `railbird watch` (the virtual camera, the
simulated pocket-sensor board through a pty, the live loop, the recording, the web console),
judged against the scenario's truth.

Each rack is the truth's shots folded by the same referee (with the same calls): per shot the
live ruling should agree on foul or legal, on who fouled, and on the balls pocketed. What must
hold is asserted exactly (every shot found and judged, the break, what was shown is what was
recorded); the share of shots judged fully right is printed and held to its floor: every shot
of the 9-ball rack, every shot but one of the 8-ball rack (whose console calls and sensor bytes
land at moments the machine's load decides).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from railbird.recording import RecordingReader
from rules.inputs import CallShot
from tests.railbird.racks import STRIKE_MATCH_S, Call, Rack, judged


@dataclass(frozen=True)
class Agreement:
    """How many of the truth's shots the live monitor judged as the truth did."""

    shots: int
    foul: int
    """Foul or legal, and who fouled."""
    pocketed: int
    """The balls that went in."""
    whole: int
    """Both."""


def _compare(rack: Rack) -> tuple[list[Call | None], Agreement]:
    """The live call matched to each truth shot (None when no live shot matches), and the
    agreement."""
    live = judged(rack.log)
    matched: list[Call | None] = []
    for truth_shot in rack.run.truth.shots:
        found = [
            Call.of(shot, ruling)
            for shot, ruling in live
            if abs(shot.strike_time - truth_shot.strike_time) <= STRIKE_MATCH_S
        ]
        matched.append(found[0] if len(found) == 1 else None)
    pairs = list(zip(matched, rack.truth, strict=True))
    return matched, Agreement(
        len(pairs),
        sum(1 for got, want in pairs if got and (got.foul, got.fouler) == (want.foul, want.fouler)),
        sum(1 for got, want in pairs if got and got.pocketed == want.pocketed),
        sum(1 for got, want in pairs if got == want),
    )


def _report(name: str, rack: Rack, matched: list[Call | None], agreement: Agreement) -> None:
    a = agreement
    print(
        f"\n{name}: of {a.shots} shots, foul/legal and fouler right {a.foul}, pocketed balls "
        f"right {a.pocketed}, both {a.whole}"
    )
    for i, (got, want) in enumerate(zip(matched, rack.truth, strict=True)):
        flag = "ok " if got == want else "BAD"
        print(f"  {flag} shot {i}: live {got} truth {want}")


def _summary(rack: Rack) -> dict[str, float]:
    lines = rack.watch.lines
    start = len(lines) - 1 - lines[::-1].index("{")  # the run's figures close the output
    return json.loads("\n".join(line for line in lines[start:] if not line[:4].isdigit()))


def _not_judged(rack: Rack) -> list[str]:
    return [line for line in rack.watch.lines if " NOT JUDGED shot " in line]


def _check_what_must_hold(rack: Rack) -> None:
    assert rack.exit_code == 0, rack.watch.tail()
    summary = _summary(rack)
    assert summary["frames_dropped"] == 0 and summary["frames_unusable"] == 0
    # Every shot of the rack is found once, and nothing else is taken for a shot.
    assert summary["shots"] == len(rack.run.truth.shots), rack.watch.tail()
    truth_strikes = [s.strike_time for s in rack.run.truth.shots]
    for shot, _ in judged(rack.log):
        assert min(abs(shot.strike_time - t) for t in truth_strikes) <= STRIKE_MATCH_S
    assert summary["rulings"] + len(_not_judged(rack)) == summary["shots"]
    # What the monitor showed is what it recorded: one RULING line per ruling of the log.
    shown = [line.split("RULING shot ")[1].split(":")[0] for line in rack.watch.rulings()]
    assert shown == [str(r.shot_index) for _, r in judged(rack.log)]


@pytest.mark.slow
def test_a_9_ball_rack_through_watch_is_found_and_judged_shot_by_shot(nine_ball: Rack) -> None:
    matched, agreement = _compare(nine_ball)
    _report("9-ball rack, seed 0", nine_ball, matched, agreement)
    _check_what_must_hold(nine_ball)
    assert not _not_judged(nine_ball), nine_ball.watch.tail()
    assert matched[0] is not None and not matched[0].foul  # the break is legal
    assert agreement.foul >= NINE_BALL_FLOOR.foul
    assert agreement.pocketed >= NINE_BALL_FLOOR.pocketed
    assert agreement.whole >= NINE_BALL_FLOOR.whole


@pytest.mark.slow
def test_an_8_ball_rack_with_calls_from_the_console_is_judged_shot_by_shot(
    eight_ball: Rack,
) -> None:
    matched, agreement = _compare(eight_ball)
    _report("8-ball rack, seed 1", eight_ball, matched, agreement)
    _check_what_must_hold(eight_ball)
    entered = [e.item for e in eight_ball.log.entries if isinstance(e.item, CallShot)]
    assert entered == list(eight_ball.calls.values())  # every call went in, and only those
    recorded = RecordingReader(eight_ball.recording).inputs()
    assert [i.kind for i in recorded] == ["call-shot"] * len(entered)
    assert agreement.foul >= EIGHT_BALL_FLOOR.foul
    assert agreement.pocketed >= EIGHT_BALL_FLOOR.pocketed
    assert agreement.whole >= EIGHT_BALL_FLOOR.whole


@pytest.mark.slow
def test_every_shot_of_the_8_ball_rack_is_judged(eight_ball: Rack) -> None:
    assert not _not_judged(eight_ball), eight_ball.watch.tail()


# Today's figures (2026-11-29): every shot of both racks judged as the truth has it. They were
# 3/9 and 12/16 until the detector looked again where it had lost a ball (the 6, green on green
# cloth, melted into it on the 9-ball break and stayed lost), a pocket signal waited for the
# ball seen rolling into its pocket, and a contact was judged on each ball's own velocity noise.
# The 8-ball floor keeps one shot of margin for the moment the console's calls and the sensor
# bytes land.
NINE_BALL_FLOOR = Agreement(shots=9, foul=9, pocketed=9, whole=9)
EIGHT_BALL_FLOOR = Agreement(shots=16, foul=15, pocketed=15, whole=15)
