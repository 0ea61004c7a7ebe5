"""Soft ball-ball contacts, for the segmenter: two slow balls that meet and part with a kick too
small for one frame's velocities (their noise is 70 mm/s; a contact after a break often gives a
ball 40-150 mm/s), judged `SLOW_K` frames behind the newest from lines fitted to the two balls'
relative position each side, as the cushion rebound test does for a ball and a nose."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from tracking.cushion_contacts import SIGMA_CAP, SLOW_K, median_sigma, sides_between
from tracking.fits import fit_line, knot_time, line_change
from tracking.model import BALLS, CUE_ROW

_SOFT_MIN_KICK = 40.0
"""Smallest change (mm/s) of two balls' relative velocity, along their line of centres, counted
as a soft contact: twice what rolling resistance alone changes it by across the two windows."""

_ACROSS = 0.5
"""A contact pushes along the line of centres: the change across it may be at most this part of
the change along it (throw and the curve of a ball set sliding), plus the noise."""

_MIN_SIDE = 4
"""Frames each side the relative position must be seen on, free of the two balls' other
contacts, to fit its lines."""

_CHECK_BELOW = 0.95
"""A held contact with a ball at rest (`SoftContacts._judged`) found by a kick this near the
one-frame test's threshold (its confidence under this) is dropped when the long windows show
no turn: a slow ball rolling by a resting one within a few millimetres sets the one-frame test
off on noise. A clearer kick is dropped only when the pair's relative velocity did not change
at all: one centre seen 3 mm off kicks one frame's velocity by 180 mm/s, while a change
not along the line of centres may be a contact not found yet (a cushion's, a frame before)."""

_RETIME_FRAMES = 8
"""At most how many frames earlier than the one-frame test found it a held contact is moved
(`SoftContacts._retimed`)."""

_SAME_S = 0.05
"""A contact noted within this of a held event, for the same pair, is that event."""

_PARTED_MM = 3.0
"""A pair's gap this much (plus the noise) over touching has visibly opened: a ball that
followed the one it hit through (a follow-through re-contact leaves a true gap of 4-9 mm)."""

_PARTED_FRAMES = 2
"""Frames the gap must be seen open for, so that one bad detection does not part a pair."""

_CLOSEST_RANK = 1
"""The centre is the pair's closest when within the noise of this-ranked (from 0) smallest gap
of the window: the second smallest, so one detection pulled a few millimetres towards the other
ball does not hide a true contact."""

_CONFIDENCE = 0.75
"""A soft contact is less sure than a clear kick: under the referee's review threshold."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Turn:
    """How a pair's relative velocity changed about a time (`SoftContacts._turn`)."""

    turned: bool
    """As a contact turns it: along the line of centres, the two closing."""
    unchanged: bool
    """It changed by less than a soft kick and the noise, in any direction."""
    lines_in: list[tuple[float, float, float, float]]
    """The lines (`fit_line`) of the relative position's x and y coming in."""
    before: np.ndarray
    """The frames of the window the lines in were fitted over ..."""
    after: np.ndarray
    """... and the lines out."""


class SoftContacts:
    """The segmenter's soft ball-ball contacts: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the frame window, the contacts found so far)."""

    def _soft_contacts(self) -> list[ShotEvent]:
        """Contacts of two balls at the frame `SLOW_K` back from the newest: there they are
        within touching distance and at their closest, their relative velocity fitted over
        `SLOW_K` frames each side turned along the line of centres, from closing to parting,
        and no contact of theirs was found near it already."""
        stack, k = self._window, SLOW_K
        if len(stack) < 2 * k + 1:
            return []
        span = slice(-(2 * k + 1), None)
        centre = self._frames[-k - 1]
        rows = np.flatnonzero(centre.on_table & centre.seen)
        moving = centre.moving[rows]
        if len(rows) < 2 or not moving.any():
            return []
        pts = stack.points[span]
        at = pts[k, rows]
        gaps = np.hypot(*(at[:, None, :] - at[None, :, :]).transpose(2, 0, 1))
        near = (gaps <= self._d + self.config.touch_tolerance_mm) & (
            moving[:, None] | moving[None, :]
        )
        a, b = np.nonzero(np.triu(near, 1))
        if len(a) == 0:
            return []
        ra, rb = rows[a], rows[b]
        # Only pairs at (about) their closest at the centre go on to the fits.
        rel = pts[:, rb] - pts[:, ra]
        dist = np.hypot(rel[..., 0], rel[..., 1])
        closest = dist[k] <= np.fmin.reduce(dist, axis=0) + 2 * SIGMA_CAP
        events = []
        for r0, r1 in zip(ra[closest], rb[closest], strict=True):
            event = self._soft_pair(int(r0), int(r1), span)
            if event is not None:
                events.append(event)
        return events

    def _held_for_check(self, ready: list[ShotEvent]) -> list[ShotEvent]:
        """The ``ready`` events to emit now; contacts with a ball at rest (all the ready
        ball-ball contacts) are held for `_checked`."""
        now = []
        for event in ready:
            if event.kind is EventKind.BALL_BALL:
                self._unchecked.append(event)
            else:
                now.append(event)
        return now

    def _checked(self) -> list[ShotEvent]:
        """The held contacts whose time the window's centre has reached, judged on the long
        windows (`_judged`)."""
        stack, k = self._window, SLOW_K
        if not self._unchecked or len(stack) < 2 * k + 1:
            return []
        span = slice(-(2 * k + 1), None)
        centre = stack.times[-k - 1]
        kept, waiting = [], []
        for event in self._unchecked:
            if event.time > centre:
                waiting.append(event)
                continue
            if event.time <= stack.times[-k - 2]:
                # The centre passed it before the window was full (the recording had just
                # begun): no window is centred on it, so the one-frame test stands.
                kept.append(event)
                continue
            judged = self._judged(event, span)
            if judged is not event:
                key = _pair_of(event)
                self._contact_times = [
                    (t, pair) for t, pair in self._contact_times if not _same(event, t, pair, key)
                ]
            if judged is not None:
                if judged is not event:
                    self._contact_times.append((judged.time, _pair_of(judged)))
                    self._pair_last[_pair_of(judged)] = judged.time
                kept.append(judged)
        self._unchecked = waiting
        return kept

    def _judged(self, event: ShotEvent, span: slice) -> ShotEvent | None:
        """A held contact with a ball at rest, on the long windows: None when its balls'
        relative velocity clearly did not turn there and it was marginal, or did not change
        at all (`_CHECK_BELOW`: a slow ball rolling by a resting one within millimetres sets
        the one-frame test off on noise); re-timed where the line in puts the two a diameter
        apart, when that is over a frame earlier (a slow kick shows in one frame's velocities
        only frames after the touch); else as it was. Too few free frames to judge the turn:
        only re-timed (when a line in and two frames after remain). A ball in the air: as it
        was."""
        ra, rb = (BALLS.index(b) for b in event.balls)
        stack = self._window
        if not (stack.on_table[span, ra].all() and stack.on_table[span, rb].all()):
            return event
        if self._in_the_air(ra, rb):
            return event
        sigma = math.hypot(
            median_sigma(stack.measured_sigma[span, ra]),
            median_sigma(stack.measured_sigma[span, rb]),
        )
        turn = self._turn(ra, rb, span, sigma, ignore=event)
        if turn is None:
            # Too few frames to judge the turn; a line in and the bend can still time it.
            times, seen = stack.times[span], stack.seen[span]
            before, after = self._free_of_others(ra, rb, times, seen, ignore=event)
            if len(before) < _MIN_SIDE or len(after) < 2:
                return event
            return self._retimed(event, ra, rb, span, sigma, before, after)
        if not turn.turned:
            return None if event.confidence < _CHECK_BELOW or turn.unchanged else event
        return self._retimed(event, ra, rb, span, sigma, turn.before, turn.after)

    def _retimed(self, event, ra, rb, span, sigma, before, after) -> ShotEvent:
        """``event`` at the time the pair's line in puts them a diameter apart, when that is
        more than a frame earlier and after the strike; else ``event`` (`_touch_time`: the
        event is late, so some of ``before`` are past the touch)."""
        times = self._window.times[span]
        step = float(times[-1] - times[-2])
        t = self._touch_time(ra, rb, span, sigma, before, after)
        late = event.time - t
        if not (step < late <= _RETIME_FRAMES * step) or t <= self._strike_time:
            return event
        return dataclasses.replace(event, time=float(t), time_uncertainty=min(step, late))

    def _touch_time(self, ra, rb, span, sigma, before, after) -> float:
        """When the pair's line in puts them a diameter apart (`_soft_time`), the line fitted
        over the ``before`` frames ahead of the bend in their relative position (`knot_time`
        over ``before`` and ``after``): some of ``before`` may be past the touch, and a line
        fitted across it times the touch later still. A line in that never comes so near
        (a slow graze, its closing lost in the noise) leaves the bend as the touch."""
        stack = self._window
        times = stack.times[span]
        rel = stack.points[span, rb] - stack.points[span, ra]
        step = float(times[-1] - times[-2])
        both = np.concatenate([before, after])
        bend = knot_time(times[both], rel[both], times[before[0]], times[after[-1]], step / 8)
        earlier = before[times[before] < bend] if math.isfinite(bend) else before
        if len(earlier) >= _MIN_SIDE:
            before = earlier
        return self._soft_time(
            [fit_line(times[before], rel[before, i], sigma) for i in (0, 1)], bend
        )

    def _soft_pair(self, ra: int, rb: int, span: slice) -> ShotEvent | None:
        """The soft contact of balls ``ra`` and ``rb`` at the window's centre, or None: not at
        their closest there, a contact of theirs already found within the window that this one
        is (`_seen_here`), one of them in the air (passing over the other), or no clear turn of
        their relative velocity."""
        stack, k = self._window, SLOW_K
        times = stack.times[span]
        key = (min(ra, rb), max(ra, rb))
        reach = k * (times[1] - times[0])
        if times[k] - self._overlapped.get(key, -math.inf) <= 2 * reach:
            return None
        rel = stack.points[span, rb] - stack.points[span, ra]
        dist = np.hypot(rel[:, 0], rel[:, 1])
        sigma = math.hypot(
            median_sigma(stack.measured_sigma[span, ra]),
            median_sigma(stack.measured_sigma[span, rb]),
        )
        if self._seen_here(ra, rb, dist, times, sigma):
            return None
        if not self._closest_here(dist, sigma):
            return None  # not at their closest here
        if any(p.pair == key for p in self._pending) or self._in_the_air(ra, rb):
            return None
        turn = self._turn(ra, rb, span, sigma)
        if turn is None or not turn.turned:
            return None
        lines_in, before, after = turn.lines_in, turn.before, turn.after
        if len(before) >= _MIN_SIDE and len(after) >= _MIN_SIDE:
            # (A knotted fit's line in leans on frames past other contacts: a line over its
            # few free frames alone would time the touch worse.)
            t = self._touch_time(ra, rb, span, sigma, before, after)
        else:
            t = self._soft_time(lines_in)
        if t > times[k + 1]:
            return None  # the touch is later: judged when its frame is the centre
        t = max(t, float(times[k - 1]))
        self._pair_last[key] = t
        self._contact_times.append((t, key))
        a, b = BALLS[ra], BALLS[rb]
        if b is BallId.CUE:
            a, b = b, a
        half = 0.5 * (times[after[0]] - times[before[-1]])
        return ShotEvent(
            EventKind.BALL_BALL,
            t,
            (a, b),
            confidence=_CONFIDENCE,
            time_uncertainty=half,
        )

    def _closest_here(self, dist: np.ndarray, sigma: float) -> bool:
        """Whether the pair is at its closest at the window's centre, within the noise."""
        seen = np.sort(dist[np.isfinite(dist)])
        if not len(seen):
            return False
        return bool(dist[SLOW_K] <= seen[min(_CLOSEST_RANK, len(seen) - 1)] + 2 * sigma)

    def _parted(self, dist: np.ndarray, times: np.ndarray, last: float, sigma: float) -> bool:
        """Whether the pair's gap visibly opened between its contact at ``last`` and the
        window's centre (either side): then a turn at the centre is another contact of theirs
        (a ball that followed the one it hit, and caught it again), not that one seen again."""
        lo, hi = sorted((last, float(times[SLOW_K])))
        between = (times > lo) & (times < hi)
        opened = dist[between] > self._d + _PARTED_MM + 2 * sigma
        return int(np.count_nonzero(opened)) >= _PARTED_FRAMES

    def _turn(
        self, ra: int, rb: int, span: slice, sigma: float, ignore: ShotEvent | None = None
    ) -> _Turn | None:
        """The `_Turn` of the pair's relative position about the window's centre, or None
        when too few frames each side are free of the two balls' other contacts (``ignore``:
        the contact judged, if any; for a soft contact, one fit bending at each of those
        contacts, `_knotted`, may still judge it). Turned: the two were closing (a held
        contact, judged at its touch, was by construction), and their relative velocity changed
        along the line of centres by more than `_SOFT_MIN_KICK` and the noise, and little
        across it. (How fast they closed is not compared with the change: at speed, a few
        milliseconds' error in the touch's time turns the line of centres by degrees, and a
        graze's closing speed with it.)"""
        stack, k = self._window, SLOW_K
        times = stack.times[span]
        seen = stack.seen[span, ra] & stack.seen[span, rb]
        others = self._their_other_contacts(ra, rb, ignore)
        before, after = sides_between(times, seen, others)
        rel = stack.points[span, rb] - stack.points[span, ra]
        if len(before) >= _MIN_SIDE and len(after) >= _MIN_SIDE:
            fitted = line_change(
                (times[before], rel[before], sigma), (times[after], rel[after], sigma), _MIN_SIDE
            )
        elif ignore is None:
            fitted = _knotted(times, rel, seen, sigma, others, before, after)
        else:
            fitted = None
        if fitted is None:
            return None
        lines_in, change, noise = fitted
        v_in = np.array([line[0] for line in lines_in])
        # The line of centres when they touched: where the line in puts the pair then (a fast
        # pair has turned about each other by the centre frame). A held contact is judged where
        # its line in comes a diameter near, or nearest (`_soft_time`), not at its own time: a
        # fraction of a frame late, a fast ball grazing a resting one is already past it, and
        # the line of centres then is turned by tens of degrees. There the pair is closing, or
        # at its closest, by construction.
        t = times[k]
        if ignore is not None:
            touch = self._soft_time(lines_in)
            t = touch if math.isfinite(touch) else ignore.time
        at = np.array([line[3] + line[0] * (t - line[2]) for line in lines_in])
        normal = at / max(float(np.hypot(*at)), 1e-9)
        along = float(change @ normal)
        across = abs(float(change[0] * normal[1] - change[1] * normal[0]))
        closing = -float(v_in @ normal)
        least = max(_SOFT_MIN_KICK, self.config.noise_sigmas * noise)
        turned = (
            along >= least
            and across <= _ACROSS * along + 3 * noise
            and (closing > 0 or ignore is not None)
        )
        return _Turn(turned, float(np.hypot(*change)) < least, lines_in, before, after)

    def _soft_time(self, lines_in, otherwise: float = math.nan) -> float:
        """When the relative position, carried on along its line in, is one diameter long; or,
        if that line never gets so close (noise, a graze), ``otherwise`` when given (the bend
        in the relative position, `knot_time`), else when the line is shortest."""
        (vx, _, t0, x0), (vy, _, _, y0) = lines_in
        # |p + v s| = d, with p the relative position at t0 and s = t - t0.
        pv, vv, pp = x0 * vx + y0 * vy, vx * vx + vy * vy, x0 * x0 + y0 * y0
        if vv <= 0:
            return math.inf
        disc = pv * pv - vv * (pp - self._d * self._d)
        if disc >= 0:
            return float(t0 + (-pv - math.sqrt(disc)) / vv)
        return otherwise if math.isfinite(otherwise) else float(t0 - pv / vv)

    def _seen_here(self, ra: int, rb: int, dist: np.ndarray, times: np.ndarray, sigma: float):
        """Whether a contact of the pair found within the window's reach of its centre is the
        one there: they never visibly parted since (`_parted`), and neither touched a third body
        between (`_turned_between`)."""
        key = (min(ra, rb), max(ra, rb))
        centre = float(times[SLOW_K])
        reach = SLOW_K * (times[1] - times[0])
        found = [t for t, pair in self._contact_times if pair == key]
        found.append(self._pair_last.get(key, -math.inf))
        return any(
            abs(t - centre) <= reach
            and not self._parted(dist, times, t, sigma)
            and not self._turned_between(ra, rb, t, centre)
            for t in found
        )

    def _turned_between(self, ra: int, rb: int, t0: float, t1: float) -> bool:
        """Whether either ball had a contact with a third body (a ball or a cushion) between
        ``t0`` and ``t1`` (either order): only then can the pair touch twice so close in time,
        without a visible gap between (a ball sandwiched against a cushion, or one that hit a
        third ball and was caught by the one that hit it)."""
        key = (min(ra, rb), max(ra, rb))
        lo, hi = min(t0, t1), max(t0, t1)
        times = [t for t, pair in self._contact_times if pair != key and (ra in pair or rb in pair)]
        times += [
            p.event.time for p in self._pending if p.pair != key and (ra in p.pair or rb in p.pair)
        ]
        times += [t for (r, _), t in self._cushion_last.items() if r in (ra, rb)]
        return any(lo < t < hi for t in times)

    def _in_the_air(self, ra: int, rb: int) -> bool:
        """Whether either ball was seen in the air in the window (it may have passed over)."""
        frames = list(self._frames)[-(2 * SLOW_K + 1) :]
        return any(f.airborne is not None and (f.airborne[ra] or f.airborne[rb]) for f in frames)

    def _free_of_others(self, ra, rb, times: np.ndarray, seen: np.ndarray, ignore=None):
        """The frames each side of the window's centre on which both balls were seen and
        neither was in another contact (`_their_other_contacts`) since or until."""
        contacts = self._their_other_contacts(ra, rb, ignore)
        return sides_between(times, seen[:, ra] & seen[:, rb], contacts)

    def _their_other_contacts(
        self, ra: int, rb: int, ignore: ShotEvent | None = None
    ) -> list[float]:
        """The times of either ball's other contacts: with a ball (found or pending), a cushion
        (the last off each), the cue or a hand (``ignore``: the contact judged, if any)."""
        judged = None if ignore is None else _pair_of(ignore)
        contacts = [
            t
            for t, pair in self._contact_times
            if (ra in pair or rb in pair) and not (judged and _same(ignore, t, pair, judged))
        ]
        contacts += [p.event.time for p in self._pending if ra in p.pair or rb in p.pair]
        contacts += [t for (r, _), t in self._cushion_last.items() if r in (ra, rb)]
        # The cue's strike and a hand's touch set a ball moving too.
        contacts += [self._disturbed_last.get(r, -math.inf) for r in (ra, rb)]
        if CUE_ROW in (ra, rb):
            contacts.append(self._strike_time)
        return contacts


def _knotted(times, rel, seen, sigma: float, others: list[float], before, after):
    """(lines in, change of the relative velocity at the centre, its noise) from one fit of a
    pair's relative position ``rel`` over the frames both were ``seen`` on, bending at the
    centre and at each of the two balls' ``others`` contacts (times): in a dense sequence the
    frames free of those leave too few each side for `_turn`'s two lines, but positions run on
    through a contact and the frames past it still pin the lines next to the centre. None when
    no frame next to the centre is free on either side, or either side has under `_MIN_SIDE`
    frames. Two of ``others`` with no frame between them (one ball's cushion contact and the
    other's contact with a third ball, a few milliseconds apart) cannot be told apart: their
    two bends give the frames after them a line of their own, a step from the line before,
    whatever the velocity was between."""
    k = SLOW_K
    both = np.flatnonzero(seen)
    if not len(before) or not len(after):
        return None
    if np.count_nonzero(both < k) < _MIN_SIDE or np.count_nonzero(both > k) < _MIN_SIDE:
        return None
    t = times[both]
    centre = float(times[k])
    inside = [c for c in others if t[0] < c < t[-1] and c != centre]
    knots = sorted({*inside, centre})
    bends = [np.maximum(t - c, 0.0) for c in knots]
    design = np.stack([np.ones_like(t), t - centre, *bends], axis=1)
    coef = np.linalg.lstsq(design, rel[both], rcond=None)[0]
    cov = np.linalg.pinv(design.T @ design) * sigma * sigma
    at = 2 + knots.index(centre)
    # The slope coming in is the first slope plus every bend before the centre's.
    slope_in = np.zeros(len(coef))
    slope_in[1:at] = 1.0
    t0 = float(times[before[-1]])
    row = np.array([1.0, t0 - centre, *(max(t0 - c, 0.0) for c in knots)])
    v_in, y0 = slope_in @ coef, row @ coef
    v_sigma = math.sqrt(float(slope_in @ cov @ slope_in))
    lines_in = [(float(v_in[i]), v_sigma, t0, float(y0[i])) for i in (0, 1)]
    return lines_in, coef[at], math.sqrt(float(cov[at, at]))


def _pair_of(event: ShotEvent) -> tuple[int, int]:
    """The rows of a ball-ball contact's two balls, lower first (the segmenter's pair key)."""
    ra, rb = sorted(BALLS.index(b) for b in event.balls)
    return ra, rb


def _same(event: ShotEvent, t: float, pair: tuple[int, int], key: tuple[int, int]) -> bool:
    """Whether a noted contact time of ``pair`` is ``event`` (of pair ``key``): the strike's
    timing may have moved the event off the time first noted, by under a frame or two."""
    return pair == key and abs(t - event.time) <= _SAME_S
