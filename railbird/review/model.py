"""What a review knows about a match: its shots with their rulings, flags and video times.

Built from the replay's outputs (``shots.jsonl``, ``rulings.jsonl``, ``summary.json``), the
recording's frame list and what the video could give, so every later stage (video, diagrams,
report, exports) reads one model and none re-derives a call.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from railbird.recording import FrameTime
from railbird.replay import iter_lines
from rules.codec import from_jsonable
from rules.errors import RecordError
from rules.ruling import FoulKind, Ruling
from rules.shot import Shot


class Flag(StrEnum):
    """Why a shot is listed first for a human to look at."""

    DOUBLE_HIT = "double-hit"
    """Double-hit evidence was measured (2.20, 3.23)."""
    PUSH = "push"
    """Push-shot evidence was measured (3.24)."""
    SPLIT_HIT = "split-hit"
    """Two balls were hit too close together to separate (first contact, 3.18)."""
    JUMP = "jump"
    """The cue ball left the cloth (3.26, 3.27)."""
    REVIEW = "review"
    """The referee marked the ruling for review (uncertain evidence, 2.14)."""
    NOT_JUDGED = "not-judged"
    """The referee could not judge the shot."""


_FOUL_FLAGS = {FoulKind.DOUBLE_HIT: Flag.DOUBLE_HIT, FoulKind.PUSH_SHOT: Flag.PUSH}
_RULE_FLAGS = {
    "2.20": Flag.DOUBLE_HIT,
    "3.23": Flag.DOUBLE_HIT,
    "3.24": Flag.PUSH,
    "3.26": Flag.JUMP,
    "3.27": Flag.JUMP,
}
"""Reviews (by rule number) that a slow-motion look settles."""

SLOW_MOTION_FLAGS = frozenset({Flag.DOUBLE_HIT, Flag.PUSH, Flag.SPLIT_HIT, Flag.JUMP})
"""Flags whose evidence is worth a slow-motion excerpt around the contact."""


@dataclass(frozen=True, slots=True)
class ReviewShot:
    """One shot as the review shows it.

    Attributes:
        number: Shot number for people, from 1 (the Shot's index plus one).
        shot: The shot record.
        ruling: The referee's ruling, or None when it could not judge the shot.
        refused: Why it could not, when it could not.
        rack: Rack number, from 1.
        shooter: The shooter's name ("" when unknown).
        shot_time_s: Time from the previous shot coming to rest to this strike (None for the
            first shot of the recording).
    """

    number: int
    shot: Shot
    ruling: Ruling | None
    refused: str | None
    rack: int
    shooter: str
    shot_time_s: float | None

    @property
    def flags(self) -> tuple[Flag, ...]:
        """Why a human should look at this shot, in `Flag` order.

        Evidence alone does not flag a shot (every strike near a ball measures a double-hit
        gap): the referee's call or review on it does, as does a split first contact or an
        airborne cue ball.
        """
        shot, ruling = self.shot, self.ruling
        found = set()
        first = shot.first_contact
        if first is not None and first.is_split:
            found.add(Flag.SPLIT_HIT)
        if shot.jump is not None and shot.jump.airborne:
            found.add(Flag.JUMP)
        if ruling is None:
            found.add(Flag.NOT_JUDGED)
        else:
            found.update(_FOUL_FLAGS[f.kind] for f in ruling.fouls if f.kind in _FOUL_FLAGS)
            found.update(_RULE_FLAGS[r.rule] for r in ruling.reviews if r.rule in _RULE_FLAGS)
            if ruling.needs_review:
                found.add(Flag.REVIEW)
        return tuple(f for f in Flag if f in found)

    @property
    def call(self) -> str:
        """The call in a few words, with the rule number of a foul."""
        ruling = self.ruling
        if ruling is None:
            return "not judged"
        if ruling.foul is not None:
            text = f"foul: {ruling.foul.kind} (rule {ruling.foul.rule})"
        else:
            text = "legal"
        if ruling.game_over:
            text += "; rack over"
        return text

    @property
    def rule(self) -> str:
        """The rule number of the foul called, "" when none."""
        foul = self.ruling.foul if self.ruling is not None else None
        return foul.rule if foul is not None else ""

    @property
    def end_time(self) -> float:
        """When the shot ended (its strike when it never came to rest)."""
        shot = self.shot
        return shot.end_time if shot.end_time is not None else shot.strike_time


@dataclass(frozen=True, slots=True)
class VideoGap:
    """Recorded frames the video could not give.

    Attributes:
        first_frame: First missing frame index.
        last_frame: Last missing frame index.
        start: Session time of the first.
        end: Session time of the last.
    """

    first_frame: int
    last_frame: int
    start: float
    end: float

    @property
    def frames(self) -> int:
        """How many frames are missing."""
        return self.last_frame - self.first_frame + 1

    def describe(self) -> str:
        """One line for people."""
        return (
            f"no video for frames {self.first_frame}-{self.last_frame} "
            f"({self.frames} frames, {self.start:.2f}-{self.end:.2f} s): those moments are "
            "judged without pictures, and the annotated video shows a blank there"
        )


class VideoClock:
    """Maps session times to times in the annotated video (one video frame per recorded frame).

    Args:
        frame_times: The recording's frames (all of them, gaps included).
        fps: The recording's frame rate.
        first: Index into ``frame_times`` of the annotated video's first frame.
        count: How many frames the annotated video holds.
    """

    def __init__(self, frame_times: Sequence[FrameTime], fps: float, first: int, count: int):
        self.frame_times = list(frame_times)
        self.fps = fps
        self.first = first
        self.count = count
        self._times = [t.time for t in self.frame_times]

    def video_time(self, time: float) -> float:
        """Seconds into the annotated video of the frame shown at session time ``time``."""
        i = bisect.bisect_left(self._times, time) - self.first
        return min(max(i, 0), max(self.count - 1, 0)) / self.fps

    def frames(self) -> list[FrameTime]:
        """The recorded frames the annotated video shows, in order."""
        return self.frame_times[self.first : self.first + self.count]


def load_shots(replay_dir: Path, players: Sequence[str]) -> list[ReviewShot]:
    """The replay's shots with their rulings, numbered, racked and timed.

    Raises:
        RecordError: a replay output is missing or does not decode.
    """
    try:
        shot_lines = list(iter_lines(replay_dir / "shots.jsonl"))
        ruling_lines = list(iter_lines(replay_dir / "rulings.jsonl"))
    except (OSError, ValueError) as exc:
        raise RecordError(f"{replay_dir}: cannot read the replay's outputs: {exc}") from exc
    if len(shot_lines) != len(ruling_lines):
        raise RecordError(f"{replay_dir}: {len(shot_lines)} shots but {len(ruling_lines)} rulings")
    out: list[ReviewShot] = []
    rack, previous_end = 1, None
    for n, (shot_data, ruling_data) in enumerate(zip(shot_lines, ruling_lines, strict=True)):
        where = f"{replay_dir}/shots.jsonl:{n + 1}"
        shot = from_jsonable(Shot, shot_data, where=where)
        ruling = None
        if "ruling" in ruling_data:
            where = f"{replay_dir}/rulings.jsonl:{n + 1}"
            ruling = from_jsonable(Ruling, ruling_data["ruling"], where=where)
        shooter = players[ruling.shooter] if ruling is not None else ""
        shot_time = None if previous_end is None else max(0.0, shot.strike_time - previous_end)
        review = ReviewShot(
            shot.index + 1, shot, ruling, ruling_data.get("error"), rack, shooter, shot_time
        )
        out.append(review)
        previous_end = review.end_time
        if ruling is not None and ruling.game_over:
            rack += 1
    return out


def video_gaps(frame_times: Sequence[FrameTime], replayed: Sequence[int]) -> list[VideoGap]:
    """Runs of recorded frames that the replay never got a picture of."""
    seen = set(int(f) for f in replayed)
    gaps: list[VideoGap] = []
    run: list[FrameTime] = []
    for t in [*frame_times, None]:
        if t is not None and t.index not in seen:
            run.append(t)
            continue
        if run:
            gaps.append(VideoGap(run[0].index, run[-1].index, run[0].time, run[-1].time))
            run = []
    return gaps


def parse_shot_range(text: str) -> tuple[int, int]:
    """``"12-18"`` (or ``"12"``) as shot numbers (from 1, both ends included).

    Raises:
        ConfigError: the text is not such a range.
    """
    from rules.errors import ConfigError

    parts = text.split("-")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        numbers = []
    if len(numbers) == 1:
        numbers *= 2
    if len(numbers) != 2 or numbers[0] < 1 or numbers[1] < numbers[0]:
        raise ConfigError(
            f"--shots {text!r}: give shot numbers FIRST-LAST counted from 1, e.g. 12-18 or 7"
        )
    return numbers[0], numbers[1]
