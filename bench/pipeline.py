"""End to end on the virtual table: scenarios rendered, detected, tracked, judged, against truth.

Each scenario is recorded as `railbird sim` records it (1280x720, 60 fps, noise and JPEG, sensors
on) and its frames run through the detector (cached: `bench/_virtual_table.py`); the tracker,
segmenter and assembler then run on those detections with the recorded pocket signals, and again
with the sensors off. The Shot records are compared with the scenario's exact ones:

- events: first object ball (a flagged split hit counts when the truth is among its candidates),
  cushion contacts and ball-ball contacts (F1, matched by balls and cushion within 2 frames;
  the truth's contacts as a camera can count them: a repeat of the same pair or ball and
  cushion within a frame, or one whose pair never came `APART_MM` apart since, is the same
  contact; the ball-ball errors counted by kind, `bench._contact_errors`),
  the set of pocketed balls, balls touched with no contact;
- rulings: each shot, tracked and exact, is judged by the same game from the same state, the
  state the scenario's truth describes (a break scenario from the break, a single shot in
  ordinary play with the object balls it has, ball in hand in the kitchen when the truth placed
  the cue ball by hand, a whole rack shot by shot from the state the exact rulings lead to), and
  the applied fouls are compared per rule.

Rendering and detecting costs about 50 ms of CPU a frame, so the full run scores a default
selection of scenarios (`DEFAULT`: one for each way a shot is ruled or seen differently, about
4,200 frames) and ``--all`` (``python -m bench --all``) every single-shot scenario (29, about
10,000 frames); whole racks only when named. The scenarios are rendered, detected and scored
over a pool of worker processes (`bench._pool`); the tracking milliseconds are each worker's
own CPU time.

    PYTHONPATH=. python -m bench --only pipeline [--quick] [--all]
    PYTHONPATH=. python -m bench.pipeline [--quick | --all | SCENARIO ...]
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from bench._contact_errors import false_kinds, miss_kinds
from bench._options import whole_corpus
from bench._pool import Task, parallel_map
from bench._virtual_table import CAMERA_HEIGHT_MM, Seen, cache_dir, seen, truth_frames
from hardware.sim.scenarios import LIGHT_HEIGHT_MM, list_scenarios, run_scenario
from rules.balls import BALL_DIAMETER_MM, BallId
from rules.errors import RecordError
from rules.events import EventKind, ShotEvent
from rules.games import game_for
from rules.general import CHALK_WIDTH_MM
from rules.inputs import ShotInputs
from rules.ruling import BallInHand, Ruling
from rules.shot import Shot
from rules.state import GameOptions, GameState, Phase
from tests.tracking.helpers import came_apart, exact_position, observable, unmatched
from tracking.assembler import ShotAssembler
from tracking.model import BALLS, TrackerConfig, TrackFrame
from tracking.segmenter import Segmenter, SegmenterConfig
from tracking.tracker import Tracker
from vision.detections import Detections

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "pipeline.json"
QUICK = ("cut-shot", "miss")
DEFAULT = (
    "break-9ball",
    "break-8ball",
    "cut-shot",
    "bank-shot",
    "scratch",
    "miss",
    "wrong-ball-first",
    "no-cushion",
    "jump-off-table-rail",
    "double-hit",
    "push-shot",
    "ball-disturbed",
    "ball-in-hand-outside-kitchen",
    "arm-and-cue",
)
"""The full run's scenarios: two breaks (nine and sixteen balls scattering), a pot, a bank, and
one for each foul the picture must show (scratch, no contact, wrong ball first, no cushion,
off the table, double hit, push, a touched ball, ball in hand placed wrong), and an arm and cue
hiding balls. The other single-shot scenarios are in ``--all``."""
SKIP = ("lag",)
"""The lag shoots two cue balls at once; its truth is per lane, not per ball."""
SKIP_KINDS = ("game",)
"""Whole racks (91-287 s of play each) take hours to render on a shared machine; name them to
include them (``python -m bench.pipeline rack-9ball``)."""
FPS = 60.0
WINDOW_S = 2 / FPS
PLAYERS = ("A", "B")


@dataclass
class Tally:
    """Counts over shots and events, for one sensor setting."""

    shots_truth: int = 0
    shots_seen: int = 0
    first_right: int = 0
    split_truth: int = 0
    split_flagged: int = 0
    split_flagged_right: int = 0
    pocketed_right: int = 0
    touched_truth: int = 0
    touched_found: int = 0
    touched_false: int = 0
    cushion: list[int] = field(default_factory=lambda: [0, 0, 0])
    ball: list[int] = field(default_factory=lambda: [0, 0, 0])
    calls_judged: int = 0
    calls_right: int = 0
    per_rule: Counter = field(default_factory=Counter)
    ball_misses: Counter = field(default_factory=Counter)
    ball_false: Counter = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    end_errors: list[float] = field(default_factory=list)
    runs_with_swap: int = 0
    strokes_faulty: int = 0
    strokes_faulty_flagged: int = 0
    clean_strokes: int = 0
    clean_strokes_flagged: int = 0
    near_frozen_clean: int = 0
    near_frozen_clean_flagged: int = 0

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these (lists of counts element by element, lists of
        items one after the other)."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name in ("cushion", "ball"):
                setattr(self, f.name, [a + b for a, b in zip(mine, theirs, strict=True)])
            elif isinstance(mine, Counter):
                mine.update(theirs)
            elif isinstance(mine, list):
                mine.extend(theirs)
            else:
                setattr(self, f.name, mine + theirs)


def track_shots(
    sn: Seen,
    sensors: bool,
    timings: list[float] | None = None,
    frames: list[TrackFrame] | None = None,
) -> tuple[list[Shot], list[ShotEvent]]:
    """Run tracker, segmenter and assembler over a scenario's detections.

    Args:
        sn: The scenario as seen.
        sensors: Feed the pocket signals (and tell the tracker sensors are fitted).
        timings: Filled with tracker + segmenter CPU ms per frame, when given.
        frames: Filled with the track frames, when given.
    """
    table = sn.run.truth.table
    tracker = Tracker(table, TrackerConfig(sensors=sensors))
    # The virtual table's camera (noise model and recordings alike) and its lamp.
    venue = SegmenterConfig(camera_height_mm=CAMERA_HEIGHT_MM, light_height_mm=LIGHT_HEIGHT_MM)
    segmenter, assembler = Segmenter(table, venue), ShotAssembler(table)
    queue = sorted(sn.signals, key=lambda s: s.time) if sensors else []
    shots: list[Shot] = []
    events: list[ShotEvent] = []
    i = 0
    for det in _with_still_tail(sn.detections):
        j = i
        while j < len(queue) and queue[j].time <= det.time:
            j += 1
        t0 = time.process_time()
        frame = tracker.update(det, queue[i:j])
        found = segmenter.update(frame)
        if timings is not None:
            timings.append((time.process_time() - t0) * 1e3)
        i = j
        if frames is not None:
            frames.append(frame)
        events += found
        shots += assembler.update(frame, found)
    final = segmenter.finish()
    events += final
    shots += assembler.finish(final)
    return shots, events


def _with_still_tail(detections: list[Detections]) -> list[Detections]:
    """The detections and then a second more of the last one: the recordings stop half a
    second after the last ball stops, sooner than the rest test (a quarter-second fit) and the
    one-frame-behind segmenter may need; a live table would go on showing the same balls."""
    if not detections:
        return detections
    last = detections[-1]
    tail = [
        Detections.of(
            last.frame + k,
            last.time + k / FPS,
            last.positions,
            sigma=last.sigma,
            identity=last.identity,
            radius_px=last.radius_px,
        )
        for k in range(1, int(FPS) + 1)
    ]
    return [*detections, *tail]


def _game_name(scenario: str) -> str:
    if "14.1" in scenario:
        return "14.1"
    return "8-ball" if "8ball" in scenario else "9-ball"


def _start(game, sn: Seen, first: Shot) -> GameState:
    state = game.start(PLAYERS, GameOptions())
    if sn.run.scenario.kind in ("break", "game"):
        return state
    objects = (b for b in first.at_strike if b.is_object_ball)
    on_table = tuple(sorted(objects, key=lambda b: b.number))
    in_hand = BallInHand.KITCHEN if first.placement is not None else BallInHand.NONE
    return state.replace(phase=Phase.PLAY, on_table=on_table, ball_in_hand=in_hand)


def _foul_rule(game, state: GameState, shot: Shot) -> tuple[str | None, object]:
    ruling = game.judge(state, shot, ShotInputs())
    return (ruling.foul.rule if ruling.foul else None), ruling


def _pair(truth: tuple[Shot, ...], found: list[Shot]) -> list[tuple[Shot, Shot | None]]:
    """Each true shot with the tracked shot struck nearest it (within half a second)."""
    out = []
    for t in truth:
        best = min(found, key=lambda s: abs(s.strike_time - t.strike_time), default=None)
        if best is not None and abs(best.strike_time - t.strike_time) > 0.5:
            best = None
        out.append((t, best))
    return out


SPLIT_S = 0.004
"""Two balls the cue ball touches this close in time are a split hit: 60 fps cannot order them."""


def _is_split(shot: Shot) -> bool:
    """Whether the cue ball's first two contacts in the truth, of two balls, are a split hit."""
    contacts = shot.cue_ball_contacts
    return (
        len(contacts) > 1
        and contacts[1].other(BallId.CUE) != contacts[0].other(BallId.CUE)
        and contacts[1].time - contacts[0].time <= SPLIT_S
    )


def _as_refereed(shot: Shot) -> Shot:
    """The true shot as a referee can call it: the exact order of a split hit's two contacts
    is beyond any eye or camera, so its first contact carries both candidates and the rules
    decide it for the shooter (2.10, 1.16.4)."""
    if not _is_split(shot):
        return shot
    first = shot.cue_ball_contacts[0]
    widened = dataclasses.replace(first, time_uncertainty=max(first.time_uncertainty, SPLIT_S))
    return dataclasses.replace(
        shot, events=tuple(widened if e is first else e for e in shot.events)
    )


def _first_right(t: Shot, r: Shot | None, tally: Tally) -> bool:
    t_first = t.first_contact
    r_first = r.first_contact if r is not None else None
    split = _is_split(t)
    tally.split_truth += split
    if r_first is not None and r_first.is_split:
        tally.split_flagged += 1
        tally.split_flagged_right += split
        return t_first is not None and t_first.ball in r_first.candidates
    return (t_first.ball if t_first else None) == (r_first.ball if r_first else None)


def _touched(shot: Shot) -> set[BallId]:
    """Balls set moving with no contact: in the shot (3.21) or while the cue ball was placed
    before it (3.22). Which of the two records an event placed before the strike joins differs
    between the truth and the tracker; the set of balls is what counts."""
    placed = shot.placement.touched if shot.placement is not None else ()
    return set(shot.disturbed) | set(placed)


STROKE_RULES = frozenset({"2.20", "3.23", "3.24"})
"""The rules of a faulty stroke: a double hit (2.20, 3.23) and a push (3.24)."""


def _tally_stroke(t: Shot, ruling: Ruling, tally: Tally) -> None:
    """Count the true shot ``t``'s faulty stroke (a double hit or push in the truth) as flagged
    when the ruling on the tracked shot calls or reviews one; a clean shot (and among them one
    with the cue ball within a chalk width of a ball) as flagged falsely the same way."""
    flagged = any(foul.rule in STROKE_RULES for foul in ruling.fouls) or any(
        review.rule in STROKE_RULES for review in ruling.reviews
    )
    if t.double_hit is not None or t.push is not None:
        tally.strokes_faulty += 1
        tally.strokes_faulty_flagged += flagged
        return
    tally.clean_strokes += 1
    tally.clean_strokes_flagged += flagged
    if _near_frozen(t):
        tally.near_frozen_clean += 1
        tally.near_frozen_clean_flagged += flagged


def _near_frozen(t: Shot) -> bool:
    """The cue ball lay within a chalk width of an object ball at the strike (2.20)."""
    if BallId.CUE not in t.at_strike:
        return False
    cue = t.at_strike[BallId.CUE]
    return any(
        math.dist(cue, p) - BALL_DIAMETER_MM < CHALK_WIDTH_MM
        for b, p in t.at_strike.positions
        if b is not BallId.CUE
    )


def _judge(sn: Seen, pairs: list[tuple[Shot, Shot | None]], tally: Tally) -> None:
    name = sn.run.truth.scenario
    game = game_for(_game_name(name), sn.run.truth.table)
    state = _start(game, sn, pairs[0][0])
    for k, (t, r) in enumerate(pairs):
        try:
            expected, ruling = _foul_rule(game, state, _as_refereed(t))
        except (RecordError, ValueError) as exc:
            log.info("%s shot %d: the exact shot cannot be judged here (%s)", name, k, exc)
            break
        called, tracked = None, None
        if r is not None:
            try:
                called, tracked = _foul_rule(game, state, r)
            except (RecordError, ValueError) as exc:
                log.info("%s shot %d: the tracked shot was refused (%s)", name, k, exc)
                called = "refused"
        if tracked is not None:
            _tally_stroke(t, tracked, tally)
        tally.calls_judged += 1
        if called == expected:
            tally.calls_right += 1
            tally.per_rule[f"{expected or 'legal'}:right"] += 1
        else:
            tally.per_rule[f"{expected or 'legal'}:missed"] += 1
            tally.per_rule[f"{called or 'legal'}:false"] += 1
            tally.wrong.append(
                f"{name}#{k}: truth {expected or 'legal'}, called {called or 'legal'}"
            )
        if ruling.game_over:
            break
        try:
            state = game.advance(state, ruling)
        except (RecordError, ValueError):
            break
        if state.choices:
            break  # the next shot depends on a choice the truth does not record


def swapped_frames(sn: Seen, frames: list[TrackFrame], tolerance_mm: float = 30.0) -> int:
    """Frames in which a seen ball's track is not where that ball truly is (an id swap)."""
    truth = truth_frames(sn.run, FPS)
    rows = np.array([BALLS.index(b) for b in sn.run.result.balls])
    bad = 0
    for frame in frames:
        if not 0 <= frame.frame < len(truth):
            continue
        tf = truth[frame.frame]
        check = tf.on_table & frame.seen[rows]
        error = np.hypot(*(frame.positions[rows] - tf.positions[:, :2]).T)
        bad += int(np.any(check & (error > tolerance_mm)))
    return bad


def score(sn: Seen, sensors: bool, tally: Tally, timings: list[float] | None = None) -> None:
    """Track one scenario run and add how it compares with the truth to ``tally``."""
    truth = sn.run.truth
    frames: list[TrackFrame] = []
    found, events = track_shots(sn, sensors, timings, frames)
    tally.runs_with_swap += swapped_frames(sn, frames) > 0
    tally.shots_truth += len(truth.shots)
    tally.shots_seen += len(found)
    pairs = _pair(truth.shots, found)
    for t, r in pairs:
        right = _first_right(t, r, tally)
        tally.first_right += right
        if not right:
            found = r.first_contact if r is not None else None
            tally.wrong.append(
                f"{truth.scenario}/{sn.run.seed}: first contact truth "
                f"{t.first_contact.ball if t.first_contact else None} found "
                f"{found.candidates if found else None}"
            )
        if r is not None and t.end_time is not None and r.end_time is not None:
            tally.end_errors.append(abs(r.end_time - t.end_time))
        tally.pocketed_right += r is not None and set(t.pocketed) == set(r.pocketed)
        touched = _touched(t)
        got = _touched(r) if r is not None else set()
        tally.touched_truth += len(touched)
        tally.touched_found += len(touched & got)
        tally.touched_false += len(got - touched)
        if r is not None and set(t.pocketed) != set(r.pocketed):
            tally.wrong.append(
                f"{truth.scenario}: pocketed truth {sorted(map(str, t.pocketed))} "
                f"found {sorted(map(str, r.pocketed))}"
            )
    span = (truth.shots[0].strike_time - 0.1, truth.end_time + 0.1) if truth.shots else (0, 0)
    contacts = {}
    for kind, key in ((EventKind.BALL_CUSHION, "cushion"), (EventKind.BALL_BALL, "ball")):
        t_ev = [e for e in truth.events if e.kind is kind and span[0] <= e.time <= span[1]]
        t_ev = observable(t_ev, 1 / FPS, came_apart(sn.run))
        f_ev = [e for e in events if e.kind is kind and span[0] <= e.time <= span[1]]
        missed, false = unmatched(t_ev, f_ev, WINDOW_S)
        counts = (len(t_ev) - len(missed), len(false), len(missed))
        setattr(tally, key, [a + b for a, b in zip(getattr(tally, key), counts, strict=True)])
        contacts[key] = (t_ev, missed, false)
    _tally_ball_errors(sn, contacts, tally)
    if pairs:
        _judge(sn, pairs, tally)


def _tally_ball_errors(sn: Seen, contacts: dict, tally: Tally) -> None:
    """Add the kinds of the ball-ball contacts missed and found falsely (`_contact_errors`)
    to ``tally``; ``contacts``: key -> (true contacts, missed, false)."""
    truth_ball, missed, false = contacts["ball"]
    truth = truth_ball + contacts["cushion"][0]
    tally.ball_misses.update(miss_kinds(missed, truth, exact_position(sn.run)))
    tally.ball_false.update(false_kinds(false, truth_ball))


def _f1(tp: int, fp: int, fn: int) -> float:
    return round(2 * tp / max(2 * tp + fp + fn, 1), 4)


def figures(tally: Tally) -> dict:
    """The tally as figures: accuracies, F1s, counts, and what went wrong."""
    shots = max(tally.shots_truth, 1)
    ends = tally.end_errors
    return {
        "shots_truth": tally.shots_truth,
        "shots_seen": tally.shots_seen,
        "first_contact_accuracy": round(tally.first_right / shots, 4),
        "split_hits_truth": tally.split_truth,
        "split_hits_flagged": tally.split_flagged,
        "split_hits_truth_flagged": tally.split_flagged_right,
        "pocketed_set_accuracy": round(tally.pocketed_right / shots, 4),
        "cushion_f1": _f1(*tally.cushion),
        "cushion_tp_fp_fn": "/".join(map(str, tally.cushion)),
        "ball_ball_f1": _f1(*tally.ball),
        "ball_ball_tp_fp_fn": "/".join(map(str, tally.ball)),
        "ball_ball_missed_by_kind": dict(sorted(tally.ball_misses.items())),
        "ball_ball_false_by_kind": dict(sorted(tally.ball_false.items())),
        "touched_found": f"{tally.touched_found}/{tally.touched_truth}",
        "touched_false": tally.touched_false,
        "foul_call_agreement": round(tally.calls_right / max(tally.calls_judged, 1), 4),
        "foul_calls_judged": tally.calls_judged,
        "shot_end_error_s_median": round(statistics.median(ends), 3) if ends else None,
        "shot_end_within_0.3s": round(sum(e <= 0.3 for e in ends) / max(len(ends), 1), 4),
        "runs_with_id_swap": tally.runs_with_swap,
        "faulty_strokes_flagged": f"{tally.strokes_faulty_flagged}/{tally.strokes_faulty}",
        "clean_strokes_flagged": f"{tally.clean_strokes_flagged}/{tally.clean_strokes}",
        "near_frozen_clean_flagged": f"{tally.near_frozen_clean_flagged}/{tally.near_frozen_clean}",
        "per_rule": dict(sorted(tally.per_rule.items())),
        "wrong_count": len(tally.wrong),
        "wrong": "; ".join(tally.wrong[:30]),
    }


def corpus(quick: bool, every: bool | None = None) -> tuple[str, ...]:
    """The scenarios a run scores: `QUICK`, `DEFAULT`, or (``every``, default ``--all``) every
    single-shot scenario."""
    if quick:
        return QUICK
    if not (whole_corpus() if every is None else every):
        return DEFAULT
    return tuple(
        s.name for s in list_scenarios() if s.kind not in SKIP_KINDS and s.name not in SKIP
    )


@dataclass
class Scored:
    """One scenario scored, sensors on and off, with its tracking CPU ms per frame."""

    tallies: dict[str, Tally]
    timings: list[float]


def score_scenario(name: str, seed: int = 1) -> Scored:
    """Render and detect scenario ``name`` (or take it from the cache) and score it."""
    sn = seen(name, seed)
    scored = Scored({"sensors": Tally(), "vision_only": Tally()}, [])
    score(sn, True, scored.tallies["sensors"], scored.timings)
    score(sn, False, scored.tallies["vision_only"])
    return scored


def frames_to_render(name: str, seed: int = 1) -> float:
    """About how many frames scenario ``name`` renders (0 when its detections are cached)."""
    if (cache_dir() / f"{name}-{seed}.pickle").is_file():
        return 0.0
    truth = run_scenario(name, seed).truth
    return (truth.end_time + 0.5 - truth.start_time) * FPS


def prepare(quick: bool) -> list[Task]:
    """The scenarios' renders and detections not in the cache yet, for the harness's pool."""
    tasks = []
    for name in corpus(quick):
        frames = frames_to_render(name)
        if frames:
            tasks.append(Task(functools.partial(_cache_seen, name), f"pipeline {name}", frames))
    return tasks


def _cache_seen(name: str) -> None:
    seen(name, seed=1)  # the detections land in the cache; the workers send nothing back


def run(quick: bool, names: Sequence[str] | None = None) -> dict:
    """Score the scenarios of `corpus` (or ``names``), sensors on and off, over the pool."""
    names = tuple(names) if names else corpus(quick)
    done = parallel_map(score_scenario, names, cost=frames_to_render)
    tallies = {"sensors": Tally(), "vision_only": Tally()}
    timings: list[float] = []
    for item in done:
        for key, tally in item.value.tallies.items():
            tallies[key].add(tally)
        timings += item.value.timings
    moving = sorted(timings)
    out = {
        "scenarios": len(names),
        "scenario_names": ", ".join(names),
        **{k: figures(v) for k, v in tallies.items()},
        "track_segment_ms_median": round(statistics.median(timings), 3) if timings else None,
        "track_segment_ms_p90": round(moving[int(0.9 * (len(moving) - 1))], 3) if moving else None,
        "quick": quick,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    quick = "--quick" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    chosen = tuple(args) or corpus(quick, every="--all" in sys.argv)
    print(json.dumps(run(quick, chosen), indent=2))
