"""`railbird review RECORDING --out DIR`: everything a referee or player needs after a match.

The recording is replayed through the monitor's own pipeline (`railbird.replay`, whose JSON
Lines outputs land in DIR unchanged), the tracker's ball paths are kept on the way, and then::

    annotated.mp4           the recording with ids, trails, contacts, calls and the shot clock
    slowmo-shot-NNN.mp4     slow-motion excerpts of shots flagged double hit, push, split, jump
    diagrams/shot-NNN.png   each shot from above: paths, numbered contacts, start and rest
    report.html             the match report (open it in a browser)
    shots.csv               one row per shot
    events.jsonl, shots.jsonl, rulings.jsonl, summary.json   the replay's outputs
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from calibration.file import load
from railbird.recording import FrameTime, RecordingReader
from railbird.replay import ReplayOptions, parse_players, replay
from railbird.review.annotate import SUFFIX, Annotator, SlowMotion, annotate
from railbird.review.diagram import DiagramModel, build_diagram, write_diagram
from railbird.review.export import write_shots_csv
from railbird.review.model import (
    ReviewShot,
    VideoClock,
    VideoGap,
    load_shots,
    parse_shot_range,
    video_gaps,
)
from railbird.review.report import MatchReport, write_report
from railbird.review.stats import player_stats
from railbird.review.tracks import TrackLog
from rules.errors import ConfigError, RecordError

log = logging.getLogger(__name__)

VIDEO_NAME = "annotated" + SUFFIX
REPORT_NAME = "report.html"
CSV_NAME = "shots.csv"
DIAGRAMS = "diagrams"
CONTEXT_S = 2.0
"""A partial review's video starts this long before its first strike and ends this long after."""


@dataclass(frozen=True, slots=True)
class ReviewOptions:
    """What to review and how.

    Attributes:
        replay: The replay's options (game, players, sensors, calibration, progress bar).
        shots: First and last shot number to review (from 1); None: the whole match.
        video: Write the annotated video.
        slow_motion: Write slow-motion excerpts of flagged shots.
    """

    replay: ReplayOptions = field(default_factory=ReplayOptions)
    shots: tuple[int, int] | None = None
    video: bool = True
    slow_motion: bool = True


@dataclass(frozen=True, slots=True)
class ReviewResult:
    """What a review wrote.

    Attributes:
        report: The HTML report.
        shots: The reviewed shots.
        diagrams: The diagram files, by shot number.
        models: What each diagram shows, by shot number.
        video: The annotated video, or None.
        video_frames: Frames written to it.
        slow_motion: The slow-motion excerpts.
        gaps: Recorded frames the video lacked.
        problems: What the recording lost.
    """

    report: Path
    shots: list[ReviewShot]
    diagrams: dict[int, Path]
    models: dict[int, DiagramModel]
    video: Path | None
    video_frames: int
    slow_motion: list[SlowMotion]
    gaps: list[VideoGap]
    problems: list[str]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``review`` subcommand's options."""
    parser.add_argument("recording", type=Path, help="a recording folder")
    parser.add_argument("--out", type=Path, required=True, help="folder for the review")
    parser.add_argument("--shots", help="review only these shots, e.g. 12-18 (counted from 1)")
    parser.add_argument("--game", help="the game played (default: the recording's config)")
    parser.add_argument("--players", help="two names, comma-separated (default: the recording's)")
    parser.add_argument("--no-sensors", action="store_true", help="ignore the sensor log")
    parser.add_argument("--calibration", type=Path, help="calibration file to use")
    parser.add_argument("--no-video", action="store_true", help="skip the annotated video")
    parser.add_argument("--no-slow-motion", action="store_true", help="no slow-motion excerpts")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_review(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``railbird review RECORDING --out DIR``.

    Raises:
        ConfigError: bad options (players, shot range).
        RecordError: the recording cannot be read or the review cannot be written.
    """
    options = ReviewOptions(
        ReplayOptions(
            args.game,
            parse_players(args.players),
            not args.no_sensors,
            args.calibration,
            progress=not args.no_progress,
        ),
        shots=parse_shot_range(args.shots) if args.shots else None,
        video=not args.no_video,
        slow_motion=not args.no_slow_motion,
    )
    result = review(args.recording, args.out, options)
    lines = [
        f"{args.recording}: {len(result.shots)} shots reviewed -> {result.report}",
        *(f"  gap: {g.describe()}" for g in result.gaps),
        *(f"  lost: {p}" for p in result.problems),
    ]
    if out is not None:
        print("\n".join(lines), file=out)
    return 0


def review(recording: Path, out: Path, options: ReviewOptions) -> ReviewResult:
    """Review ``recording`` into the folder ``out``.

    Raises:
        ConfigError: the shot range goes past the match's shots.
        RecordError: the recording cannot be read, or the review cannot be written.
        CalibrationError: no usable calibration.
    """
    if not recording.is_dir():
        raise RecordError(f"{recording}: not a recording folder")
    reader = RecordingReader(recording)
    frame_times = reader.frame_times()
    tracks = TrackLog()
    summary = replay(recording, out, options.replay, on_track=tracks.add)
    paths = tracks.paths()
    players = tuple(summary["state"]["players"])
    all_shots = load_shots(out, players)
    shots = _select(all_shots, options.shots)
    gaps = video_gaps(frame_times, paths.frames.tolist())
    problems = [p for p in summary["problems"] if not _about_video(p)]
    calibration = load(options.replay.calibration or recording / "calibration.json", reader.size)

    try:
        (out / DIAGRAMS).mkdir(exist_ok=True)
    except OSError as exc:
        raise RecordError(f"{out / DIAGRAMS}: cannot create: {exc}") from exc
    models = {s.number: build_diagram(s, paths) for s in shots}
    diagrams = {
        n: write_diagram(model, calibration.table, out / DIAGRAMS / f"shot-{n:03d}.png")
        for n, model in models.items()
    }
    clock = _video_clock(frame_times, reader.fps, shots, options.shots is not None)
    video_path, video_frames, slow = None, 0, []
    if options.video and clock.count:
        annotator = Annotator(calibration, shots, paths, gaps)
        video, slow = annotate(
            RecordingReader(recording),
            clock,
            annotator,
            out / VIDEO_NAME,
            reader.size,
            slow_motion=options.slow_motion,
            progress=_progress(options, clock.count, "annotating"),
        )
        video_path, video_frames = video.path, video.frames
    write_shots_csv(shots, clock if video_path else None, out / CSV_NAME)
    state = summary["state"]
    report = MatchReport(
        title=recording.name,
        game=str(state.get("game", "")),
        players=tuple(players),
        result=_result(all_shots, players),
        racks=len({s.rack for s in shots}),
        shots=shots,
        stats=player_stats(shots, tuple(players)),
        gaps=gaps,
        problems=problems,
        video=VIDEO_NAME if video_path else None,
        clock=clock if video_path else None,
        diagrams={n: f"{DIAGRAMS}/{p.name}" for n, p in diagrams.items()},
        slow_motion=slow,
        shot_range=f"shots {options.shots[0]}-{options.shots[1]}" if options.shots else "",
    )
    path = write_report(report, out / REPORT_NAME)
    _note(out, summary, gaps)
    return ReviewResult(
        path, shots, diagrams, models, video_path, video_frames, slow, gaps, problems
    )


def _select(shots: list[ReviewShot], wanted: tuple[int, int] | None) -> list[ReviewShot]:
    if wanted is None:
        return shots
    first, last = wanted
    if last > len(shots):
        raise ConfigError(
            f"--shots {first}-{last}: the recording has {len(shots)} shot(s), numbered 1-"
            f"{len(shots)}"
        )
    return [s for s in shots if first <= s.number <= last]


def _video_clock(
    frame_times: list[FrameTime], fps: float, shots: list[ReviewShot], partial: bool
) -> VideoClock:
    """The whole recording, or the frames around the reviewed shots."""
    if not partial or not shots or not frame_times:
        return VideoClock(frame_times, fps, 0, len(frame_times))
    start = shots[0].shot.strike_time - CONTEXT_S
    end = shots[-1].end_time + CONTEXT_S
    inside = [i for i, t in enumerate(frame_times) if start <= t.time <= end]
    if not inside:
        return VideoClock(frame_times, fps, 0, 0)
    return VideoClock(frame_times, fps, inside[0], inside[-1] - inside[0] + 1)


def _result(shots: list[ReviewShot], players: tuple[str, ...]) -> str:
    """Who won each finished rack, and whether the last one is unfinished."""
    parts = []
    for s in shots:
        ruling = s.ruling
        if ruling is not None and ruling.game_over:
            who = players[ruling.winner] if ruling.winner is not None else "nobody (re-rack)"
            parts.append(f"rack {s.rack}: {who} won (shot {s.number})")
    if not shots or not (shots[-1].ruling and shots[-1].ruling.game_over):
        parts.append("the last rack is unfinished in the recording")
    return "; ".join(parts)


def _about_video(problem: str) -> bool:
    # The reader's lost-video lines are restated as gaps, with the frames and times concerned.
    return "/video/" in problem or "\\video\\" in problem


def _progress(
    options: ReviewOptions, total: int, what: str
) -> Callable[[Iterator[FrameTime]], Iterator[FrameTime]]:
    if not options.replay.progress:
        return lambda it: it
    return lambda it: tqdm(it, total=total, unit="frame", desc=what)


def _note(out: Path, summary: dict[str, Any], gaps: list[VideoGap]) -> None:
    """Add the gaps to the replay's summary.json, so a machine reads them too."""
    summary = dict(summary, video_gaps=[g.describe() for g in gaps])
    try:
        (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        raise RecordError(f"{out}: cannot write summary.json: {exc}") from exc
