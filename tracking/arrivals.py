"""Arrivals at a cushion, for the segmenter: a ball that reaches a nose and is struck by another
ball a frame or two later, before any frame shows it coming off, has no outgoing motion for the
rebound test (`tracking.cushion_contacts`) to see. In a break a ball followed into a cushion by
another is struck back into it this way: it touches the cushion, is struck, and touches it again
(the second touch the rebound test, the joint fit or a press finds). The first touch is found
from the ball's line in: where it reaches the nose, with the strike clearly after that. A ball
not struck whose way out is cut short by the next wall (a corner, a pocket's other jaw) is
found the same way, when a sighting after shows the line in would have run into the rubber;
so is a ball a dead rubber holds on its nose, rolling on along it with no way out to see."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from rules.events import EventKind, ShotEvent
from rules.table import CushionId
from tracking.cushion_contacts import (
    REACH_MM,
    REPEAT_S,
    Timing,
    median_sigma,
    nearest_over_step,
    rolled_line,
)
from tracking.model import BALLS

ARRIVAL_SLACK_S = 0.004
"""How long before the strike that follows it a ball must reach a nose, by its line in, for
that to be a touch of its own: a strike is timed to a few milliseconds."""

_MIN_FRAMES = 3
"""The frames a ball's line in needs: the arrival rests on carrying it on, with nothing coming
out to check it against."""

_ALONG_FRAMES = 3
"""The sightings on the nose after its line in ran into the rubber that show a ball held on
the cushion, rolling along it (`Arrivals._held_on`) ..."""

_HELD_MM_S = 100.0
"""... and the least normal speed it came in at: a slower ball's line in, carried on a few
frames, misses by more than the noise where it slows more than a rolling ball (a creep, a
ball sliding to a roll)."""

_BOUNCE_RESTITUTIONS = (0.5, 0.7, 0.9)
"""The shares of its normal speed a live rubber gives back that a held ball's sightings are
weighed against (`_bounced_instead`)."""

_LATE_SPEEDS = (0.5, 0.75, 1.0)
"""... and the shares of the line's normal speed it may have come in at, reaching the nose
later than the line says."""

_BOUNCE_CHI2 = 4.0
"""How much better (chi-square, in noise units) a late bounce must explain the sightings on the
nose than the ball held there for them to be a bounce: two sigmas."""

_ARRIVAL_CONFIDENCE = 0.8
"""Found from the way in alone, an arrival is less sure than a rebound seen both ways."""

_SPLIT_FRAMES = (1.0, 3.0)
"""How far apart (in frames) a rebound's lines in and out must reach the nose, with the ball
struck between, for the rebound to be two touches (`Arrivals._split_rebound`): one frame's
noise never puts them that far apart at the speeds of a break; three frames and more is a
slow ball's line, not two touches."""


@dataclasses.dataclass(frozen=True, slots=True)
class _WayIn:
    """A ball's straight way into a nose over a window, as `Arrivals._arrival` fitted it.

    Attributes:
        ins: The frames it was fitted through.
        after: The frames seen after it reached the nose.
        vn: Its normal speed (negative: into the cushion), mm/s.
        vn_sigma: The fit's uncertainty of ``vn``, mm/s.
        t_a: When it put the centre one radius from the nose.
        gaps: (frames,) each frame's distance of the centre beyond one radius from the nose.
        slate: (frames,) whether each frame's centre was over the slate.
        margin: The noise a frame may lie off the line, mm.
    """

    ins: np.ndarray
    after: np.ndarray
    vn: float
    vn_sigma: float
    t_a: float
    gaps: np.ndarray
    slate: np.ndarray
    margin: float


class Arrivals:
    """The segmenter's arrivals at a cushion: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the newest frames, the contacts found, the rebounds noted)."""

    def _arrivals(self, k: int) -> list[ShotEvent]:
        """Arrivals at a nose between the frames either side of the frame ``k`` back from the
        newest, of the balls struck from the frame before it to two frames after it."""
        if len(self._frames) < 2 * k + 1:
            return []
        span = slice(-(2 * k + 1), None)
        stack = self._window
        times = stack.times[span]
        hits = [(t, pair) for t, pair in self._contact_times]
        hits += [(p.event.time, p.pair) for p in self._pending]
        struck: dict[int, float] = {}
        for t, pair in hits:
            # A strike found at a frame's time may have been put there for want of an earlier
            # one in its interval: it may come after the arrival all the same.
            if times[k - 1] <= t <= times[k + 2]:
                for r in pair:
                    struck[r] = min(struck.get(r, math.inf), t)
        events = []
        for r in self._arriving(k, span, struck):
            seen = stack.seen[span, r]
            if not seen[k]:
                continue
            turns = [u for (b, _), us in self._cushion_times.items() if b == r for u in us]
            turns += [t for t, pair in hits if r in pair]
            last = max((u for u in turns if u < times[k - 1]), default=-math.inf)
            before = np.flatnonzero(seen[:k] & (times[:k] > last))
            sigma = median_sigma(stack.measured_sigma[span, r])
            event = self._arrival(r, span, before, struck.get(r), sigma)
            if event is not None and self._new_arrival(r, event.cushion, event.time, sigma):
                events.append(event)
        return events

    def _arriving(self, k: int, span: slice, struck: dict[int, float]) -> list[int]:
        """The balls that may reach a nose beside the window's centre frame: those struck
        there, and those moving within reach of a cushion line at it."""
        stack = self._window
        centre = -(k + 1)
        reach = self._d / 2 + self.config.touch_tolerance_mm + REACH_MM
        # (A ball never seen has nan gaps: it is not near.)
        near = stack.on_table[centre] & (np.fmin.reduce(stack.edge_gaps[centre], axis=1) <= reach)
        moving = self._frames[centre].moving
        return sorted(set(struck) | set(np.flatnonzero(near & moving).tolist()))

    def _arrival(
        self, r: int, span: slice, before: np.ndarray, struck: float | None, sigma: float
    ) -> ShotEvent | None:
        """Ball ``r``'s arrival at a nose, from a straight line in through the window's
        (``span``) frames ``before`` (seen and free of its last turn), struck at ``struck``
        (None: not struck); or None. The line must run into the nose, within its length,
        between the frames either side of the centre, explain every frame up to there, and
        miss the first frame after it (the ball turned). The strike must come clearly after
        (`ARRIVAL_SLACK_S`), or else a second touch of the same cushion be known a frame or
        more later; a ball not struck must show the cushion turned it (`_turned_back`). Of
        two walls the line runs into (in a corner), the first it reaches."""
        stack = self._window
        times, seen, pts = stack.times[span], stack.seen[span, r], stack.points[span, r]
        k = len(times) // 2
        rad, margin = self._d / 2, max(2.0, 3 * sigma)
        found = None
        for w in self._geo.walls_along(pts[k]):
            wall = self._geo.walls[w]
            dist = (pts - self._geo.wall_starts[w]) @ self._geo.wall_normals[w]
            if dist[k] - rad > self.config.touch_tolerance_mm + REACH_MM:
                continue
            slate = wall.on_slate(pts)
            ins = before[slate[before]]
            if not slate[k] or len(ins) < _MIN_FRAMES:
                continue
            decel = self.config.rolling_decel
            vn, vn_sigma, t0, d0 = rolled_line(
                times[ins], dist[ins], pts[ins], sigma, times[ins[-1]], decel
            )
            if vn > -max(self.config.min_rebound_mm_s, self.config.noise_sigmas * vn_sigma):
                continue
            t_a = t0 + (d0 - rad) / -vn
            if not times[k - 1] < t_a <= times[k + 1]:
                continue
            if found is not None and found[0] <= t_a:
                continue
            at = pts[np.argmin(np.abs(times - t_a))] - self._geo.wall_starts[w]
            if not 0.0 <= at @ wall.along <= self._geo.wall_lengths_sq[w]:
                continue  # past the wall's end: into a pocket's mouth, or onto the next wall
            off_line = dist - (d0 + vn * (times - t0))
            upto = np.flatnonzero(seen & (times >= times[ins[0]]) & (times < t_a))
            after = np.flatnonzero(seen & (times > t_a))
            if np.any(np.abs(off_line[upto]) > margin) or not len(after):
                continue
            turned = off_line[after[0]] > margin
            if struck is None:
                way = _WayIn(ins, after, vn, vn_sigma, t_a, dist - rad, slate, margin)
                if not (self._bounced_off(r, span, way) or self._held_on(r, span, way, sigma)):
                    continue
            else:
                later = self._touched_again(r, wall.cushion, t_a)
                if not (t_a < struck - ARRIVAL_SLACK_S or (turned and later)):
                    continue
            found = (t_a, wall)
        if found is None:
            return None
        t_a, wall = found
        return ShotEvent(
            EventKind.BALL_CUSHION,
            float(t_a),
            (BALLS[r],),
            cushion=wall.cushion,
            confidence=_ARRIVAL_CONFIDENCE,
            time_uncertainty=0.25 * float(times[k + 1] - times[k]),
        )

    def _bounced_off(self, r: int, span: slice, way: _WayIn) -> bool:
        """Whether ball ``r``, not struck, came back off the nose its line in ran into: the
        first sighting half a frame or more after the touch (one just after shows little),
        where the line carried on runs into the rubber by more than the noise, lies off the
        nose by more than the noise, no faster than it came in (a kick would send it
        faster), and no ball came near on the way (`_turned_back`)."""
        times = self._window.times[span]
        k = len(times) // 2
        after = way.after
        shown = after[times[after] - way.t_a >= 0.5 * (times[k + 1] - times[k])][:1]
        if len(shown) == 0 or shown[0] > after[min(1, len(after) - 1)]:
            return False
        b = int(shown[0])
        past = -way.vn * (times[b] - way.t_a)
        off_line = way.gaps[b] + past
        if not (past > way.margin and off_line > way.margin and way.slate[b]):
            return False
        if not self._turned_back(r, span, [int(way.ins[-1]), *after[after <= b].tolist()]):
            return False
        return way.margin < way.gaps[b] <= past + way.margin

    def _held_on(self, r: int, span: slice, way: _WayIn, sigma: float) -> bool:
        """Whether ball ``r``, not struck, was held on the nose its line in ran into, rolling
        along it (a rubber keeps little of a slow ball's normal speed): come in at
        `_HELD_MM_S` or more, `_ALONG_FRAMES` or more sightings after the touch all on the
        nose within the noise, on average within their mean's, level (a ball curving in
        comes down to the nose later), where the line carried on (at the slowest its fit
        allows) runs into the rubber by twice the noise by the last, and they are not better a
        late bounce (`_bounced_instead`); no ball came near on the way."""
        times = self._window.times[span]
        along = way.after[way.slate[way.after]]
        if -way.vn < _HELD_MM_S or len(along) < _ALONG_FRAMES:
            return False
        gaps = way.gaps[along]
        # A slow ball's speed in is known to tens of mm/s: it must run in at the least of it.
        past = (-way.vn - 2 * way.vn_sigma) * (times[along[-1]] - way.t_a)
        on_nose = bool(np.all(np.abs(gaps) <= way.margin))
        on_nose &= abs(float(np.mean(gaps))) <= 2 * sigma / math.sqrt(len(along))
        level = abs(float(gaps[-1] - gaps[0])) <= way.margin
        if not (on_nose and level and past > 2 * way.margin):
            return False
        if _bounced_instead(times[along] - way.t_a, gaps, -way.vn, sigma):
            return False
        return self._turned_back(r, span, [int(way.ins[-1]), *along.tolist()])

    def _turned_back(self, r: int, span: slice, frames: list[int]) -> bool:
        """Whether nothing but a cushion can have turned ball ``r`` over the window's
        (``span``) ``frames`` (in order): no other ball came within touching distance of it
        on any step between them."""
        pts = self._window.points[span]
        reach = self._d + self.config.touch_tolerance_mm
        steps = itertools.pairwise(frames)
        return all(nearest_over_step(pts[i], pts[j], r) > reach for i, j in steps)

    def _split_rebound(
        self,
        r: int,
        event: ShotEvent,
        timing: Timing,
        dt: float,
        sigma: float,
        stale: float | None = None,
    ) -> tuple[ShotEvent, list[ShotEvent]]:
        """A rebound the rebound test found for ball ``r`` (``event``, timed by ``timing``)
        split in two when its line in reaches the nose a frame or more before its line out
        leaves it (`_SPLIT_FRAMES`) and the ball was struck between (within a frame: a strike
        in a bunch is found a little early or late): the ball touched the cushion, was struck
        back into it and touched it again. Returns the rebound (the second touch, when split)
        and the first touch when it is new (`_new_arrival`)."""
        shortest, longest = _SPLIT_FRAMES
        if not shortest * dt <= timing.left - timing.came <= longest * dt:
            return event, []
        if not any(timing.came - dt < t < timing.left + dt for t in self._contacts_of(r)):
            return event, []
        if not self._new_arrival(r, event.cushion, timing.came, sigma, stale):
            return event, []
        first = dataclasses.replace(
            event, time=timing.came, time_uncertainty=0.25 * dt, confidence=_ARRIVAL_CONFIDENCE
        )
        return dataclasses.replace(event, time=timing.left, time_uncertainty=0.25 * dt), [first]

    def _touched_again(self, r: int, cushion: CushionId, t: float) -> bool:
        """Whether ball ``r`` is known to touch ``cushion`` again a frame or more after ``t``."""
        dt = float(self._window.times[-1] - self._window.times[-2])
        later = self._cushion_times.get((r, cushion), ())
        return any(dt <= u - t < REPEAT_S for u in later)

    def _new_arrival(
        self, r: int, cushion: CushionId, t: float, sigma: float, stale: float | None = None
    ) -> bool:
        """Whether ball ``r``'s arrival at ``cushion`` at ``t`` is a touch not found yet: apart
        (`_apart`) from each of its recent rebounds off it but ``stale``, which may come before
        or after it. A new one is noted without making an earlier time the last."""
        key = (r, cushion)
        # Only the recent ones are judged against: a match's worth is not kept.
        arrived = [u for u in self._arrived.get(key, ()) if abs(u - t) < REPEAT_S]
        self._arrived[key] = arrived
        arrived.append(t)
        for u in self._cushion_times.get(key, ()):
            if (
                u != stale
                and abs(u - t) < REPEAT_S
                and not self._apart(r, cushion, min(u, t), max(u, t), sigma)
            ):
                arrived.remove(t)
                return False
        last = self._cushion_last.get(key, -math.inf)
        self._note_rebound(key, t)
        self._cushion_last[key] = max(t, last)
        return True


def _bounced_instead(after: np.ndarray, gaps: np.ndarray, speed: float, sigma: float) -> bool:
    """Whether sightings at ``gaps`` off the nose, ``after`` s after a line in at ``speed``
    reached it, are better a ball that came in later and bounced off a live rubber
    (`_BOUNCE_RESTITUTIONS`) than one held on the nose, by `_BOUNCE_CHI2`: a noisy line in
    dates the touch early, and its first sightings after, still coming in, and last, going
    out, lie within the noise of the nose."""
    held = float(np.sum(gaps**2))
    touches = np.linspace(0.0, float(after[-1]), 25)[:, None, None, None]
    coming = speed * np.array(_LATE_SPEEDS)[None, :, None, None]
    going = speed * np.array(_BOUNCE_RESTITUTIONS)[None, None, :, None]
    bounce = np.maximum(coming * (touches - after), going * (after - touches))
    best = float(np.min(np.sum((gaps - bounce) ** 2, axis=3)))
    return (held - best) / sigma**2 > _BOUNCE_CHI2
