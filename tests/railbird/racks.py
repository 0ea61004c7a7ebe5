"""Whole virtual-table racks watched live through `railbird watch`, and their truth: shared by
the end-to-end tests of the monitor and of the review (which reviews what the monitor recorded).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

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


def judged(log: GameLog) -> list[tuple[Shot, Ruling]]:
    shots = {e.item.index: e.item for e in log.entries if isinstance(e.item, Shot)}
    rulings = replay(log, TABLE_9FT).rulings
    return [(shots[r.shot_index], r) for r in rulings if r.shot_index in shots]


def truth_calls(run: ScenarioRun, game: str) -> tuple[list[Call], dict[int, CallShot]]:
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
    return [Call.of(shot, ruling) for shot, ruling in judged(referee.log)], calls


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


def watch_rack(tmp: Path, scenario: str, seed: int, game: str) -> Rack:
    run = run_scenario(scenario, seed, TABLE_9FT)
    truth, calls = truth_calls(run, game)
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
