"""End to end: whole virtual-table racks through `railbird watch` (the virtual camera, the
simulated pocket-sensor board through a pty, the live loop, the recording, the web console),
judged against the scenario's truth.

Each rack is the truth's shots folded by the same referee (with the same calls): per shot the
live ruling should agree on foul or legal, on who fouled, and on the balls pocketed. What must
hold is asserted exactly (every shot found and judged, the break, what was shown is what was
recorded); the share of shots judged fully right is printed and held to its floor today, so a
regression fails while the tracker's remaining identity errors are worked on.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from hardware.sim.scenarios import ScenarioRun, run_scenario
from railbird.recording import RecordingReader
from rules.balls import BallId
from rules.inputs import CallShot
from rules.log import GameLog, replay
from rules.referee import Referee
from rules.ruling import Ruling
from rules.shot import Shot
from tests.factories import TABLE_9FT
from tests.railbird.watch_process import WatchProcess

STRIKE_MATCH_S = 1.0
"""A live shot is the truth's shot when their cue strikes are this close (shots are seconds
apart; how close the live strike times come is measured in bench/, not here)."""


@dataclass(frozen=True)
class Call:
    """What a shot was judged: foul or not, who fouled, which balls went in."""

    foul: bool
    fouler: int | None
    pocketed: frozenset[str]

    @classmethod
    def of(cls, shot: Shot, ruling: Ruling) -> Call:
        foul = ruling.foul is not None
        return cls(foul, ruling.shooter if foul else None, frozenset(map(str, shot.pocketed)))


@dataclass(frozen=True)
class Rack:
    """One rack watched live, and its truth."""

    run: ScenarioRun
    recording: Path
    watch: WatchProcess
    exit_code: int
    log: GameLog
    truth: list[Call]
    calls: dict[int, CallShot]


def _judged(log: GameLog) -> list[tuple[Shot, Ruling]]:
    shots = {e.item.index: e.item for e in log.entries if isinstance(e.item, Shot)}
    rulings = replay(log, TABLE_9FT).rulings
    return [(shots[r.shot_index], r) for r in rulings if r.shot_index in shots]


def _truth_calls(run: ScenarioRun, game: str) -> tuple[list[Call], dict[int, CallShot]]:
    """The truth's shots folded by the referee; in 8-ball each shot that pots a ball of the
    shooter's (or the 8) gets it called in its pocket, as the operator would enter it."""
    referee = Referee.new(game, ("Player 1", "Player 2"), TABLE_9FT)
    calls: dict[int, CallShot] = {}
    for shot in run.truth.shots:
        call = _call_for(referee, shot) if game == "8-ball" and shot.index > 0 else None
        if call is not None:
            calls[shot.index] = call
            referee.record(call, shot.strike_time - 0.5)
        referee.record(shot, shot.strike_time)
    return [Call.of(shot, ruling) for shot, ruling in _judged(referee.log)], calls


def _call_for(referee: Referee, shot: Shot) -> CallShot | None:
    state = referee.state
    made = [b for b in shot.pocketed if b.is_object_ball]
    group = state.groups[state.shooter] if state.groups else None
    wanted = (
        [BallId.EIGHT] if BallId.EIGHT in made else [b for b in made if group in (None, b.group)]
    )
    if not wanted or (pocket := shot.pocket_of(wanted[0])) is None:
        return None
    return CallShot(wanted[0], pocket)


def _watch_rack(tmp: Path, scenario: str, seed: int, game: str) -> Rack:
    run = run_scenario(scenario, seed, TABLE_9FT)
    truth, calls = _truth_calls(run, game)
    config = tmp / "match.toml"
    config.write_text(f'[referee]\ngame = "{game}"\n')
    rec = tmp / "rec"
    web = ["--port", "0"] if calls else ["--no-web"]
    # A clean render (no sensor noise, no JPEG) keeps a whole rack within minutes on a
    # loaded machine; the frames are still drawn, detected and tracked as a camera's.
    args = ["--virtual-table", scenario, "--seed", str(seed), "--clean", "--config", str(config)]
    watch = WatchProcess(*args, "--record", str(rec), *web)
    if calls:
        _enter_calls(watch, calls, len(run.truth.shots))
    code = watch.finish()
    log = RecordingReader(rec).game_log()
    assert log is not None, watch.tail()
    return Rack(run, rec, watch, code, log, truth, calls)


def _enter_calls(watch: WatchProcess, calls: dict[int, CallShot], shots: int) -> None:
    """Each call is entered on the console once the shot before it is ruled on."""
    watch.wait_for(lambda lines: any(line.startswith("console token:") for line in lines))
    url = watch.value_after("scoreboard:").rstrip("/") + "/api/input"
    token = watch.value_after("console token:")
    refused = _post(url, {"kind": "call-shot", "ball": "1", "pocket": "foot-left"}, None)
    assert refused == 401  # no token, no change to the match
    for index in range(1, shots):
        watch.wait_for(lambda lines, i=index: _done_with(lines, i - 1) or _ended(watch))
        if index in calls and not _ended(watch):
            call = calls[index]
            status = _post(
                url, {"kind": "call-shot", "ball": str(call.ball), "pocket": call.pocket}, token
            )
            assert status == 200, watch.tail()


def _done_with(lines: list[str], index: int) -> bool:
    """The monitor has ruled on (or refused) shot ``index`` or a later one."""
    for line in lines:
        for mark in (" RULING shot ", " NOT JUDGED shot "):
            if mark in line and int(line.split(mark)[1].split(":")[0]) >= index:
                return True
    return False


def _ended(watch: WatchProcess) -> bool:
    return watch.proc.poll() is not None


def _post(url: str, body: dict[str, str], token: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


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
    live = _judged(rack.log)
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
    for shot, _ in _judged(rack.log):
        assert min(abs(shot.strike_time - t) for t in truth_strikes) <= STRIKE_MATCH_S
    assert summary["rulings"] + len(_not_judged(rack)) == summary["shots"]
    # What the monitor showed is what it recorded: one RULING line per ruling of the log.
    shown = [line.split("RULING shot ")[1].split(":")[0] for line in rack.watch.rulings()]
    assert shown == [str(r.shot_index) for _, r in _judged(rack.log)]


@pytest.fixture(scope="module")
def nine_ball(tmp_path_factory: pytest.TempPathFactory) -> Rack:
    return _watch_rack(tmp_path_factory.mktemp("nine"), "rack-9ball", 0, "9-ball")


@pytest.fixture(scope="module")
def eight_ball(tmp_path_factory: pytest.TempPathFactory) -> Rack:
    return _watch_rack(tmp_path_factory.mktemp("eight"), "rack-8ball", 1, "8-ball")


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


# Today's figures (2026-11-29), held as floors: a regression fails, an improvement raises them.
# The 9-ball figures came out the same in three runs (lockstep makes the frames the same); the
# 8-ball ones keep one shot of margin for the moment the console's calls and the sensor bytes
# land. The misses are the tracker's: in the 9-ball rack the 3 is taken for the 6 where they
# meet at the foot-left pocket on the break, so the referee believes the 3 is still up and
# calls later shots fouls. In the 8-ball rack the break's balls were taken for still moving at
# the next strike until the detector's changes of 2026-11-29 night (leftovers read only where
# the frame changed, among others; which one did it is not isolated): every shot is judged now.
# Naming only the game's balls (no stripes in a 9-ball rack) raised the 9-ball figures from
# pocketed 6, whole 2.
NINE_BALL_FLOOR = Agreement(shots=9, foul=4, pocketed=8, whole=3)
EIGHT_BALL_FLOOR = Agreement(shots=16, foul=11, pocketed=14, whole=11)
