"""The annotated video: the recording with what the referee saw drawn over every frame.

One output frame per recorded frame, at the recording's rate, so a time in the video is a
time in the match: ball ids, a trail behind each moving ball, a ring where two balls touched
(at the moment they touched), the cushion segment flashed when a ball hits it, pocketed and
off-table balls marked, the ruling as a caption with its rule number, and the shot clock.
Frames the recording lost are kept as blank frames that say so, so the timing never slips.

The video is H.264 in MP4, written through ffmpeg (`railbird.review.encoder`): what browsers
play, and fast enough to review an hour's match in a fraction of the hour's time.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.file import Calibration
from hardware.frames import Frame
from railbird.recording import FrameTime
from railbird.review.encoder import SUFFIX, VideoFile
from railbird.review.model import SLOW_MOTION_FLAGS, ReviewShot, VideoClock, VideoGap
from railbird.review.tracks import BallPaths
from rules.balls import BallId
from rules.events import EventKind
from rules.shot_clock import ClockPhase, ShotClock
from tracking.model import BALLS

log = logging.getLogger(__name__)

TRAIL_S = 1.5
FLASH_S = 0.4
SLOW_FACTOR = 4
SLOW_BEFORE_S = 0.5
SLOW_AFTER_S = 1.0

_ID = (255, 255, 255)
_TRAIL = (0, 255, 255)
_CONTACT = (255, 0, 255)
_CUSHION = (0, 165, 255)
_POCKETED = (80, 220, 80)
_OFF = (60, 60, 255)
_CAPTION_LEGAL = (60, 160, 60)
_CAPTION_FOUL = (40, 40, 200)


@dataclass(frozen=True, slots=True)
class SlowMotion:
    """A slow-motion excerpt of one flagged shot.

    Attributes:
        shot: The shot number.
        path: The video file.
        start: Session time of its first frame.
        end: Session time of its last frame.
        factor: How many times slower than life.
    """

    shot: int
    path: Path
    start: float
    end: float
    factor: int


class Annotator:
    """Draws the review's overlays on recorded frames.

    Args:
        calibration: The camera over the table (table mm to image pixels).
        shots: The reviewed shots, in order.
        paths: The tracked ball paths.
        gaps: Frames the video lacks.
    """

    def __init__(
        self,
        calibration: Calibration,
        shots: list[ReviewShot],
        paths: BallPaths,
        gaps: list[VideoGap],
    ) -> None:
        self._camera = calibration.camera
        self._table = calibration.table
        self.shots = shots
        self._strikes = [s.shot.strike_time for s in shots]
        self._paths = paths
        self._gaps = gaps
        self._clock_states = _clock_states(shots)
        self._z = self._table.ball_diameter / 2
        self._nose_z = self._table.cushion_nose_height

    def draw(
        self, frame_time: FrameTime, image: np.ndarray | None, size: tuple[int, int]
    ) -> np.ndarray:
        """The annotated picture of one recorded frame (``image`` None: the video lost it)."""
        out = self._blank(frame_time, size) if image is None else image.copy()
        t = frame_time.time
        shot = self._shot_at(t)
        row = self._paths.row_of_frame(frame_time.index)
        if shot is not None:
            self._draw_shot(out, shot, t)
        if row is not None:
            self._draw_balls(out, row)
        self._draw_caption(out, shot, t)
        self._draw_clock(out, t)
        return out

    # ------------------------------------------------------------------------------------------

    def _shot_at(self, t: float) -> ReviewShot | None:
        """The shot being played or last played at ``t``."""
        i = bisect.bisect_right(self._strikes, t) - 1
        return self.shots[i] if i >= 0 else None

    def _draw_balls(self, image: np.ndarray, row: int) -> None:
        on_table = self._paths.on_table(row)
        rows = np.flatnonzero(on_table)
        if len(rows) == 0:
            return
        xy = self._paths.positions[row, rows].astype(np.float64)
        pts = self._camera.project(np.column_stack([xy, np.full(len(rows), self._z)]))
        radius = self._radius_px(xy[0])
        for k, p in zip(rows, pts, strict=True):
            centre = _px(p)
            cv2.circle(image, centre, radius + 2, _ID, 1, cv2.LINE_AA)
            label = "C" if BALLS[k] is BallId.CUE else str(BALLS[k])
            _outlined(image, label, (centre[0] + radius + 3, centre[1] - radius), 0.5, _ID)

    def _draw_shot(self, image: np.ndarray, review: ReviewShot, t: float) -> None:
        shot = review.shot
        end = review.end_time
        if t <= end + FLASH_S:
            for ball in {b for e in shot.events for b in e.balls}:
                trail = self._paths.path(ball, max(shot.strike_time, t - TRAIL_S), t)
                if len(trail) >= 2:
                    pts = self._camera.project(np.array([(*p, self._z) for p in trail]))
                    poly = np.round(pts * 16).astype(np.int32)
                    cv2.polylines(image, [poly], False, _TRAIL, 2, cv2.LINE_AA, shift=4)
        dropped: dict[str, int] = {}  # balls already shown in each pocket, to stack the labels
        for event in shot.events:
            since = t - event.time
            if event.kind is EventKind.BALL_BALL and 0 <= since < FLASH_S:
                where = self._paths.position_at(event.balls[0], event.time)
                other = self._paths.position_at(event.balls[1], event.time)
                if where is not None and other is not None:
                    mid = ((where[0] + other[0]) / 2, (where[1] + other[1]) / 2)
                    p = _px(self._camera.project(np.array([(*mid, self._z)]))[0])
                    cv2.circle(image, p, 2 * self._radius_px(mid), _CONTACT, 3, cv2.LINE_AA)
                    text = f"{event.balls[0]}-{event.balls[1]}"
                    _outlined(image, text, (p[0] + 12, p[1] + 24), 0.6, _CONTACT)
            elif event.kind is EventKind.BALL_CUSHION and 0 <= since < FLASH_S:
                assert event.cushion is not None
                seg = self._table.cushion(event.cushion)
                ends = np.array([(*seg.start, self._nose_z), (*seg.end, self._nose_z)])
                a, b = self._camera.project(ends)
                cv2.line(image, _px(a), _px(b), _CUSHION, 6, cv2.LINE_AA)
            elif event.kind is EventKind.POCKETED and since >= 0:
                assert event.pocket is not None
                centre = self._table.pocket(event.pocket).centre
                p = _px(self._camera.project(np.array([(*centre, 0.0)]))[0])
                k = dropped[event.pocket] = dropped.get(event.pocket, -1) + 1
                cv2.circle(image, p, 18, _POCKETED, 3, cv2.LINE_AA)
                label_at = (p[0] - 40, p[1] - 24 + (22 * k if p[1] < 100 else -22 * k))
                _outlined(image, f"{event.ball} pocketed", label_at, 0.55, _POCKETED)
            elif event.kind is EventKind.LEFT_TABLE and since >= 0:
                where = self._paths.position_at(event.ball, event.time)
                if where is not None:
                    p = _px(self._camera.project(np.array([(*where, self._z)]))[0])
                    cv2.drawMarker(image, p, _OFF, cv2.MARKER_TILTED_CROSS, 30, 3, cv2.LINE_AA)
                    _outlined(image, f"{event.ball} off the table", (p[0] + 12, p[1]), 0.55, _OFF)

    def _draw_caption(self, image: np.ndarray, review: ReviewShot | None, t: float) -> None:
        height, width = image.shape[:2]
        gap = next((g for g in self._gaps if g.start <= t <= g.end), None)
        if review is None:
            text, colour = "before the first shot", (80, 80, 80)
        elif t < review.end_time:
            text = f"Shot {review.number}  {review.shooter}: in play"
            colour = (80, 80, 80)
        else:
            text = f"Shot {review.number}  {review.shooter}: {review.call}"
            colour = _CAPTION_LEGAL if review.rule == "" else _CAPTION_FOUL
        if gap is not None:
            text += "  [no video here]"
        bar = max(28, height // 16)
        cv2.rectangle(image, (0, height - bar), (width, height), colour, -1)
        scale = bar / 45
        _outlined(image, text, (8, height - bar // 3), scale, (255, 255, 255))

    def _draw_clock(self, image: np.ndarray, t: float) -> None:
        i = bisect.bisect_right([s for s, _ in self._clock_states], t) - 1
        if i < 0:
            return
        reading = self._clock_states[i][1].reading(t)
        if reading.phase is ClockPhase.IDLE:
            return
        width = image.shape[1]
        text = f"shot clock {reading.remaining_s:4.0f} s"
        if reading.phase is ClockPhase.STOPPED:
            text = f"shot clock {reading.remaining_s:4.0f} s (stopped)"
        colour = (0, 0, 255) if reading.phase in (ClockPhase.WARNING, ClockPhase.EXPIRED) else _ID
        scale = max(0.5, width / 1600)
        (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
        _outlined(image, text, (width - w - 10, int(30 * scale / 0.6)), scale, colour)

    def _blank(self, frame_time: FrameTime, size: tuple[int, int]) -> np.ndarray:
        width, height = size
        out = np.full((height, width, 3), 40, np.uint8)
        gap = next(g for g in self._gaps if g.first_frame <= frame_time.index <= g.last_frame)
        lines = ["NO VIDEO", f"frames {gap.first_frame}-{gap.last_frame} are missing"]
        for n, line in enumerate(lines):
            _outlined(out, line, (20, height // 2 + 40 * n), 1.0, (200, 200, 255))
        return out

    def _radius_px(self, at: tuple[float, float] | np.ndarray) -> int:
        x, y = float(at[0]), float(at[1])
        pts = self._camera.project(np.array([(x, y, self._z), (x + self._z, y, self._z)]))
        return max(3, round(float(np.linalg.norm(pts[1] - pts[0]))))


def annotate(
    frames: Iterable[Frame],
    clock: VideoClock,
    annotator: Annotator,
    out: Path,
    size: tuple[int, int],
    slow_motion: bool = True,
    progress: Callable[[Iterator[FrameTime]], Iterator[FrameTime]] = lambda it: it,
) -> tuple[VideoFile, list[SlowMotion]]:
    """Write the annotated video of the frames ``clock`` shows to ``out``, plus a slow-motion
    excerpt beside it for each flagged shot.

    Args:
        frames: The recording's decoded frames in order (missing ones simply absent).
        clock: Which recorded frames the video shows, and at what rate.
        annotator: The overlays.
        out: The video file to write.
        size: (width, height) of the recording.
        slow_motion: Write the slow-motion excerpts.
        progress: Wraps the frame loop (a progress bar).

    Raises:
        RecordError: a video cannot be written.
    """
    excerpts = _excerpts(annotator, out) if slow_motion else []
    shown = clock.frames()
    first_index = shown[0].index if shown else 0
    decoded = (f for f in frames if f.index >= first_index)
    writers: dict[int, VideoFile] = {}
    # On success every file is finished; on any error each ffmpeg is stopped, none left behind.
    with ExitStack() as files:
        video = files.enter_context(VideoFile(out, clock.fps, size))
        pending = next(decoded, None)
        for frame_time in progress(iter(shown)):
            while pending is not None and pending.index < frame_time.index:
                pending = next(decoded, None)
            image = (
                pending.image if pending is not None and pending.index == frame_time.index else None
            )
            picture = annotator.draw(frame_time, image, size)
            video.write(picture)
            for n, excerpt in enumerate(excerpts):
                if excerpt.start <= frame_time.time <= excerpt.end:
                    if n not in writers:
                        # Each frame once at a quarter of the rate: as slow, a quarter the work.
                        rate = clock.fps / excerpt.factor
                        writers[n] = files.enter_context(VideoFile(excerpt.path, rate, size))
                    writers[n].write(picture)
                elif frame_time.time > excerpt.end and n in writers:
                    writers[n].close()  # done: its ffmpeg need not wait for the whole match
    return video, [e for n, e in enumerate(excerpts) if n in writers]


def _excerpts(annotator: Annotator, out: Path) -> list[SlowMotion]:
    excerpts = []
    for review in annotator.shots:
        if not set(review.flags) & SLOW_MOTION_FLAGS:
            continue
        first = review.shot.first_contact
        at = first.time if first is not None else review.shot.strike_time
        path = out.with_name(f"slowmo-shot-{review.number:03d}{SUFFIX}")
        excerpts.append(
            SlowMotion(review.number, path, at - SLOW_BEFORE_S, at + SLOW_AFTER_S, SLOW_FACTOR)
        )
    return excerpts


def _clock_states(shots: list[ReviewShot]) -> list[tuple[float, ShotClock]]:
    """The shot clock after each strike and each shot's end (rules 1.11, 2.25)."""
    states: list[tuple[float, ShotClock]] = []
    clock = ShotClock.create()
    for n, review in enumerate(shots):
        if n > 0 and review.shot.strike_time >= (clock.now or 0.0):
            clock = clock.strike(review.shot.strike_time)
            states.append((review.shot.strike_time, clock))
        if n + 1 < len(shots):
            end = review.end_time
            nxt = shots[n + 1]
            if (clock.now or end) <= end <= nxt.shot.strike_time:
                clock = clock.shot_complete(end, nxt.shooter or "player")
                states.append((end, clock))
    return states


def _px(p: np.ndarray) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))


def _outlined(
    image: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]
) -> None:
    # OpenCV's fonts draw ASCII only. The outline is the text shifted by a pixel each way: a
    # thicker stroke is not one, as OpenCV 5 widens the letters' advance with the thickness.
    text = text.encode("ascii", "replace").decode("ascii")
    thickness = max(1, round(scale * 2))
    font = cv2.FONT_HERSHEY_SIMPLEX
    x, y = org
    for dx, dy in ((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 2), (2, 0), (0, -2), (-2, 0)):
        cv2.putText(image, text, (x + dx, y + dy), font, scale, (0, 0, 0), thickness, cv2.LINE_AA)
    cv2.putText(image, text, org, font, scale, colour, thickness, cv2.LINE_AA)
