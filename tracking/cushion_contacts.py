"""Cushion contacts, for the segmenter: rebounds off a cushion nose or a pocket's jaw, judged a
few frames behind the newest from lines fitted to the ball's distance to the nose each side
(and again on a longer window for soft rebounds), and crawls into a cushion; when those show
none, a ball struck into a cushion it reaches within a frame (its line out alone), and a
rebound off the point where a jaw meets its nose (`tracking.jaw_points`)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np
from numba import njit

from rules.events import EventKind, ShotEvent
from rules.table import CushionId
from tracking.fits import fit_line
from tracking.geometry import Wall
from tracking.jaw_points import point_rebound
from tracking.model import BALLS

CUSHION_K = 4
"""Frames each side of a cushion rebound used for its chord velocities."""

SLOW_K = 12
"""Frames each side for a soft rebound: a slow ball's, or a fast one grazing the nose, whose
normal velocity is tens of mm/s, which four frames of 0.7 mm noise cannot measure (20 mm/s);
twelve can (3.5 mm/s)."""

_SLOW_MIN_TURN = 40.0
"""Smallest normal-velocity turn (mm/s) counted as a rebound on the long window."""

REACH_MM = 120.0
"""How far from a nose a sampled centre may be at a rebound between frames (a 7 m/s ball at
60 fps); the fitted lines then decide whether it touched."""

SIGMA_CAP = 8.0
"""The largest position sigma (mm) `_cushion_event` allows a sample to sit off its closest
approach by (it uses 2 sigma); the pre-check uses it so it never skips what the test keeps."""

REPEAT_S = 0.15
"""Within this of a rebound off the same cushion, another is the same one seen again unless the
ball came off the nose in between (`_came_off`)."""

_APART_MM = 2.0
"""The least rise off the nose (mm) between two rebounds that makes them two: vision places a
ball by a cushion to a millimetre (the truth counts two when the ball parted by 1 mm)."""

_SOFT_MM_S = 100.0
"""A rebound whose ball comes in or goes off slower than this across the nose is soft: the
short window's lines time it to a frame or two, the long window's (`SLOW_K`) much better, so
it waits for the long window's."""

_STRUCK_SLACK_S = 1 / 60
"""A ball's contact with another within this of a rebound may be the one that pressed it into
the cushion then (`BallContacts._pressed`): only one further from both rebounds makes a second.
Half of it finds the same rebounds on the 300 benchmark shots."""

_FRAME_SLACK_S = 1 / 60
"""How far from a rebound's time a frame may be and still show where the ball was at it."""

_CRAWL_GAP_MM = 2.0
"""A ball that crawls to a nose and lies this close to it (centre past one radius, the median
of a fifth of a second of sightings) came to rest against it; one stopping 3 mm short reads
2.5-3 mm. A crawl is put up for review (`_CRAWL_CONFIDENCE`): vision places a ball by a
cushion to a millimetre or two."""

_CRAWL_STILL_MM_S = 50.0
"""A crawl's ball lies still after it: its way over the frames after, end to end, is slower
than this (a ball crawling to rest moves 10-25 mm/s at the end; noise adds a little)."""

_CRAWL_CONFIDENCE = 0.7
"""A crawl into a cushion is less sure than a rebound: under the referee's review threshold."""

_CRAWL_MOST_S = 0.3
"""The most a crawl's time is taken to be uncertain by (its line in's time at the nose, for a
ball crawling in at a few mm/s)."""


@dataclass(frozen=True, slots=True)
class Timing:
    """How a rebound test timed a rebound.

    Attributes:
        time: When, clipped into the window's centre range (its samples each side of the centre).
        uncertainty: Its uncertainty, s.
        crawled: A crawl into the nose (`_crawled_in`), not a rebound.
        offset: How far the lines' time lies from the window's centre frame, s: the window
            centred on a rebound times it best.
        spread: How far apart the lines in and out put it, s.
        soft: Slower than `_SOFT_MM_S` across the nose, in or out.
        came: When the line in reaches the nose (nan for a crawl).
        left: When the line out leaves it (nan for a crawl).
    """

    time: float
    uncertainty: float
    crawled: bool = False
    offset: float = 0.0
    spread: float = 0.0
    soft: bool = False
    came: float = math.nan
    left: float = math.nan

    @property
    def doubt(self) -> float:
        """How little to trust the time, s: the lines' spread, and twice how far off its
        window's centre it lies."""
        return self.spread + 2 * self.offset


@dataclass(frozen=True, slots=True)
class HeldRebound:
    """A rebound found but not yet given out: a later window may time it better.

    Attributes:
        event: The rebound, as timed so far.
        timing: How that window timed it.
        until: The newest frame's time from which it is given out as it stands.
    """

    event: ShotEvent
    timing: Timing
    until: float

    def replaced_by(self, timing: Timing, dt: float) -> bool:
        """Whether another window's sight of the same rebound (within two frames ``dt``: a
        ball pinned by others rebounds again within a tenth of a second) times it better, with
        less doubt (`Timing.doubt`)."""
        near = abs(timing.time - self.timing.time) <= 2 * dt
        return near and timing.doubt < self.timing.doubt


class CushionContacts:
    """The segmenter's cushion contacts: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the newest frames, the config, the table, what was found so far)."""

    def _cushion_contacts(self) -> list[ShotEvent]:
        """Rebounds off a cushion nose or a pocket's jaw, judged at the frame K back from the
        newest (and again on a long window, for soft rebounds).

        A window of K frames each side gives fitted velocities that survive real tracking noise
        (a single frame's velocity is too noisy at 30 Hz). The ball must come closest to one nose at
        the centre frame, within touching distance, and its normal velocity must turn from into
        the cushion to out of it. The time is where the incoming and outgoing lines, carried on,
        put the centre one radius from the nose; their disagreement is the uncertainty.
        """
        events = self._rebounds_seen(CUSHION_K, self.config.min_rebound_mm_s)
        events += self._arrivals(CUSHION_K)
        events += self._rebounds_seen(SLOW_K, _SLOW_MIN_TURN)
        now = float(self._window.times[-1])
        for key, held in list(self._held_rebounds.items()):
            if now >= held.until:
                del self._held_rebounds[key]
                events.append(held.event)
        return events

    def _rebounds_seen(self, k: int, min_turn: float) -> list[ShotEvent]:
        """Rebounds at the frame ``k`` back from the newest, from ``k`` frames each side.

        A soft rebound (`Timing.soft`) is held (`HeldRebound`, by ball and cushion) until the
        long window has passed over it: the sight of it with the least doubt times it."""
        if len(self._frames) < 2 * k + 1:
            return []
        span = slice(-(2 * k + 1), None)
        before, centre, after = (self._frames[-k - i] for i in (2, 1, 0))
        # A ball that drops a frame or two after glancing off a jaw is judged on the frames it
        # was seen on the table (the wall test wants two each side).
        live = centre.on_table & before.on_table & after.on_table
        live &= centre.moving | before.moving | after.moving
        if not live.any():
            return []
        stack = self._window
        seen = stack.seen[span]
        live &= (seen[:k].sum(axis=0) >= 2) & (seen[k + 1 :].sum(axis=0) >= 2)
        events = []
        reach = self._d / 2 + self.config.touch_tolerance_mm + REACH_MM
        rows, sigmas = _rebound_rows(
            stack.edge_gaps[span], stack.at_mouth[span], live, stack.measured_sigma[span], reach
        )
        times = stack.times[span]
        dt = float(times[-1] - times[-2])
        for r, sigma in zip(rows.tolist(), sigmas.tolist(), strict=True):
            pts = stack.points[span, r]
            found = self._cushion_event(r, times, sigma, pts, seen[:, r], min_turn)
            if found is None:
                continue
            event, timing = found
            key = (int(r), event.cushion)
            held = self._held_rebounds.pop(key, None)
            again = held is not None and not timing.crawled and held.replaced_by(timing, dt)
            # A ball struck back into the cushion it had just reached shows as one rebound
            # whose lines in and out reach the nose far apart: two touches.
            stale = held.event.time if again else None
            event, first = self._split_rebound(int(r), event, timing, dt, sigma, stale)
            events += first
            # One rebound per cushion is seen from several centre frames; a corner is two. A
            # ball pinned by others bounces off the same cushion again within a tenth of a
            # second: a repeat counts when the ball came off the nose in between.
            if self._new_rebound(int(r), event.cushion, event.time, sigma):
                if held is not None:
                    events.append(held.event)  # another rebound: the held one stands
            elif again:
                self._note_rebound(key, event.time, held.event.time)  # the held one, retimed
            else:
                if held is not None:
                    self._held_rebounds[key] = held
                continue
            if timing.soft:
                self._hold(key, event, timing, dt)
            else:
                events.append(event)
        return events

    def _hold(self, key, event: ShotEvent, timing: Timing, dt: float) -> None:
        """Hold a soft rebound (`HeldRebound`) until the long window centred two frames past
        it has been judged."""
        self._held_rebounds[key] = HeldRebound(event, timing, event.time + (SLOW_K + 2) * dt)

    def _new_rebound(self, r: int, cushion: CushionId, t: float, sigma: float) -> bool:
        """Whether ball ``r``'s rebound off ``cushion`` at ``t`` is not one already found, seen
        again (`REPEAT_S`, `_struck_between`, `_came_off`); a new one is noted as the ball's
        last off it."""
        key = (r, cushion)
        last = self._cushion_last.get(key, -math.inf)
        if t - last < REPEAT_S and not self._apart(r, cushion, last, t, sigma):
            return False
        self._note_rebound(key, t)
        return True

    def _apart(self, r: int, cushion: CushionId, t0: float, t1: float, sigma: float) -> bool:
        """Whether ball ``r``'s rebounds off ``cushion`` found at ``t0`` and later at ``t1``
        are two: struck between them (`_struck_between`), seen coming off the nose between
        (`_came_off`), or the first an arrival (`tracking.arrivals`) at least a frame before the
        second with the strike that followed it between them (a strike found a little early
        still counts, as the arrival's own test put it after the ball reached the nose)."""
        dt = float(self._window.times[-1] - self._window.times[-2])
        arrival = t0 in self._arrived.get((r, cushion), ())
        # (A strike found at the very time of the touch it drove the ball into still counts.)
        if arrival and t1 - t0 >= dt and self._struck_between(r, t0 - dt, t1 + 1e-6, slack=0.0):
            return True
        return self._struck_between(r, t0, t1) or self._came_off(r, cushion, t0, t1, sigma)

    def _note_rebound(
        self, key: tuple[int, CushionId], t: float, replacing: float | None = None
    ) -> None:
        """Note ball and cushion ``key``'s rebound at ``t`` (the one found at ``replacing``
        timed again): its last, and among its recent ones (an arrival is judged against all of
        them, as it may come before the last)."""
        recent = [u for u in self._cushion_times.get(key, ()) if t - REPEAT_S < u != replacing]
        self._cushion_times[key] = [*recent, t]
        # A held rebound retimed may come before one found since: the later stays the last.
        self._cushion_last[key] = max(self._cushion_times[key])

    def _struck_between(self, r: int, t0: float, t1: float, slack: float = _STRUCK_SLACK_S) -> bool:
        """Whether a contact with another ball struck ball ``r`` between two rebounds found at
        ``t0`` and ``t1`` (more than ``slack`` from each): a ball in a cluster against a
        cushion, struck into it again, comes off the nose too little to see in between."""
        return any(t0 + slack < t < t1 - slack for t in self._contacts_of(r))

    def _contacts_of(self, r: int) -> list[float]:
        """The times of ball ``r``'s contacts with other balls found so far, confirmed or
        pending."""
        times = [t for t, pair in self._contact_times if r in pair]
        return times + [p.event.time for p in self._pending if r in p.pair]

    def _came_off(self, r: int, cushion: CushionId, t0: float, t1: float, sigma: float) -> bool:
        """Whether ball ``r`` came visibly off ``cushion``'s nose between two rebounds found at
        ``t0`` and ``t1``: its distance to the nose rose between them, above where it was at
        both, by `_APART_MM` or three ``sigma``. A ball pinned against the rubber by others
        touches it again and again within a tenth of a second; one rebound seen from several
        window centres (or from both window lengths) never shows such a rise."""
        stack = self._window
        times = stack.times
        between = (times > t0) & (times < t1)
        at_first = np.abs(times - t0) <= _FRAME_SLACK_S
        at_second = np.abs(times - t1) <= _FRAME_SLACK_S
        if not (between.any() and at_first.any() and at_second.any()):
            return False
        nose = self._geo.nose(cushion)
        gaps = (stack.points[:, r] - nose.start) @ nose.normal
        rise = np.nanmax(gaps[between], initial=-math.inf) - max(
            np.nanmin(gaps[at_first], initial=math.inf),
            np.nanmin(gaps[at_second], initial=math.inf),
        )
        return bool(rise > max(_APART_MM, 3 * sigma))

    def _cushion_event(
        self,
        r: int,
        times: np.ndarray,
        sigma: float,
        pts: np.ndarray,
        seen: np.ndarray,
        min_turn: float,
    ) -> tuple[ShotEvent, Timing] | None:
        """Ball ``r``'s rebound at the centre of the window whose frame ``times``, typical
        measurement ``sigma`` (`median_sigma`), centres ``pts`` and ``seen`` flags are given,
        and how it was timed (`Timing`); or None."""
        k = len(times) // 2
        walls = self._walls_near(pts, sigma)
        whole = (np.flatnonzero(seen[:k]), k + 1 + np.flatnonzero(seen[k + 1 :]))
        free = self._free_sides(r, times, seen)
        same = all(np.array_equal(a, b) for a, b in zip(free, whole, strict=True))
        found = None
        for before, after in (whole,) if same else (free, whole):
            if len(before) < 2 or len(after) < 2 or not walls:
                continue
            best = self._nose_crossing(walls, pts, times, before, after, sigma, min_turn)
            if best is not None:
                found = best[1:]
                break
        else:
            found = self._kicked_in(r, walls, pts, times, seen, sigma, min_turn)
        if found is None:
            found = self._jaw_point(pts, times, free, sigma, min_turn)
        if found is None:
            return None
        cushion, timing = found
        event = ShotEvent(
            EventKind.BALL_CUSHION,
            timing.time,
            (BALLS[r],),
            cushion=cushion,
            confidence=_CRAWL_CONFIDENCE if timing.crawled else 0.95,
            time_uncertainty=timing.uncertainty,
        )
        return event, timing

    def _jaw_point(self, pts, times, sides, sigma, min_turn):
        """(cushion, `Timing`) of a rebound off a jaw's point (`jaw_points.point_rebound`) at
        the window's centre frame, the ball then at its closest to the point; or None."""
        k = len(times) // 2
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        gaps = np.hypot(*(pts[:, None, :] - self._geo.jaw_points[None]).transpose(2, 0, 1))
        near = gaps[k] - rad <= tol + REACH_MM
        near &= gaps[k] <= np.nanmin(gaps, axis=0) + 2 * min(sigma, SIGMA_CAP)
        limits = (sigma, min_turn, self.config.noise_sigmas)
        for j in np.flatnonzero(near):
            wall = self._geo.walls[self._geo.jaw_walls[j]]
            slate = wall.on_slate(pts)
            if not slate[k]:
                continue
            on = (sides[0][slate[sides[0]]], sides[1][slate[sides[1]]])
            hit = point_rebound(times, pts, on, self._geo.jaw_points[j], (rad, tol), limits)
            if hit is not None and self._beside_the_point(wall, hit[2]):
                return wall.cushion, Timing(hit[0], hit[1], came=hit[0], left=hit[0])
        return None

    def _beside_the_point(self, jaw: Wall, centre: np.ndarray) -> bool:
        """Whether a ball centred at ``centre`` lies along neither ``jaw``'s face nor its
        cushion's nose, short of both: only the point between them is there to touch (the
        faces' own rebound test judges a ball beside one)."""
        nose = self._geo.nose(jaw.cushion)
        s = float((centre - nose.start) @ nose.along) / float(nose.along @ nose.along)
        return not 0.0 <= s <= 1.0 and float((centre - jaw.start) @ jaw.along) < 0.0

    def _kicked_in(self, r, walls, pts, times, seen, sigma, min_turn):
        """(cushion, `Timing`) of a rebound off one of ``walls`` by ball ``r`` struck into it
        by another ball within the window, before its centre frame, too soon before the
        rebound for a line in (a ball kicked into a cushion a frame before it gets there); or
        None. The ball's line out, carried back to the strike, lies past the nose: it came
        from the strike in to the rubber and back out."""
        k = len(times) // 2
        contacts = self._contacts_of(r)
        kick = max((t for t in contacts if times[0] < t <= times[k]), default=None)
        if kick is None:
            return None
        upcoming = min((t for t in contacts if t > times[k]), default=math.inf)
        after = k + 1 + np.flatnonzero(seen[k + 1 :] & (times[k + 1 :] < upcoming))
        if len(after) == 1 and seen[k] and times[k] > kick:
            after = np.insert(after, 0, k)
        if len(after) < 2:
            return None
        rad, decel = self._d / 2, self.config.rolling_decel
        for wall, dist in walls:
            outs = after[wall.on_slate(pts[after])]
            if len(outs) < 2:
                continue
            line_out = rolled_line(times[outs], dist[outs], pts[outs], sigma, times[outs[0]], decel)
            turn = max(min_turn, self.config.noise_sigmas * line_out[1])
            span = (kick, float(times[outs[0]]))
            found = _struck_rebound(line_out, len(outs), sigma, turn, rad, span)
            if found is not None:
                return wall.cushion, found
        return None

    def _free_sides(self, r: int, times: np.ndarray, seen: np.ndarray):
        """The seen frames each side of the centre free of the ball's contacts with other
        balls: a line fitted across a contact bends and misses the nose (a ball kicked into a
        cushion a frame before it gets there comes in far faster than the frames before the
        kick say). When one frame is left on a side, the centre frame joins it."""
        k = len(times) // 2
        contacts = self._contacts_of(r)
        if self._touching_newest(r):
            # A contact in the newest interval is judged only with the next frame.
            contacts.append(float(self._window.times[-2]))
        before, after = sides_between(times, seen, contacts)
        if len(before) == 1 and seen[k]:
            before = np.append(before, k)
        elif len(after) == 1 and seen[k]:
            after = np.insert(after, 0, k)
        return before, after

    def _touching_newest(self, r: int) -> bool:
        """Whether ball ``r`` came within touching distance of another ball over the newest
        frame interval (their relative motion taken as straight across it)."""
        pts = self._window.points
        reach = self._d + self.config.touch_tolerance_mm
        return nearest_over_step(pts[-2], pts[-1], r) <= reach

    def _walls_near(self, pts: np.ndarray, sigma: float) -> list[tuple[Wall, np.ndarray]]:
        """The walls (cushion noses, jaw faces) the centre of the window ``pts`` may have
        touched, each with the ball's distance to it over the window: the centre frame within
        reach of the wall and (nearly) at its closest to it."""
        k = len(pts) // 2
        along = self._geo.walls_along(pts[k])
        dists = np.einsum(
            "fwi,wi->fw",
            pts[:, None, :] - self._geo.wall_starts[along],
            self._geo.wall_normals[along],
        )
        near = dists[k] - self._d / 2 <= self.config.touch_tolerance_mm + REACH_MM
        near &= dists[k] <= dists.min(axis=0) + 2 * min(sigma, SIGMA_CAP)
        return [(self._geo.walls[along[i]], dists[:, i]) for i in np.flatnonzero(near)]

    def _nose_crossing(self, walls, pts, times, before, after, sigma, min_turn):
        """(distance at the centre, cushion, time, uncertainty) of the rebound the fitted lines
        show off the nearest of ``walls`` (`_walls_near`), or None. Behind a jaw only the frames
        on the slate count: a ball past a pocket's shelf is falling."""
        k = len(times) // 2
        best = None
        for wall, dist in walls:
            slate = wall.on_slate(pts)
            if not slate[k]:
                continue
            ins, outs = before[slate[before]], after[slate[after]]
            found = self._sides_rebound(dist, pts, times, (ins, outs), sigma, min_turn)
            if found is None and k == CUSHION_K:
                # The next wall of a corner bends a side: the frames nearest the nose alone.
                near = (
                    straight_side(ins[::-1], times, dist, sigma)[::-1],
                    straight_side(outs, times, dist, sigma),
                )
                if len(near[0]) < len(ins) or len(near[1]) < len(outs):
                    found = self._sides_rebound(dist, pts, times, near, sigma, min_turn)
            if found is None:
                continue
            if best is not None and best[1] == wall.cushion:
                # A nose and its jaw, both near: the nearer names it, the surer times it.
                sure = min(found, best[2], key=lambda timing: timing.doubt)
                best = (min(dist[k], best[0]), wall.cushion, sure)
            elif best is None or dist[k] < best[0]:
                best = (dist[k], wall.cushion, found)
        return best

    def _sides_rebound(self, dist, pts, times, sides, sigma, min_turn) -> Timing | None:
        """The `Timing` of a rebound the lines through the ball's distance to a nose ``dist``
        on ``sides`` (the frames before the window's centre and after it) show, or None."""
        ins, outs = sides
        if len(ins) < 2 or len(outs) < 2:
            return None
        k = len(times) // 2
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        decel = self.config.rolling_decel
        line_in = rolled_line(times[ins], dist[ins], pts[ins], sigma, times[ins[-1]], decel)
        line_out = rolled_line(times[outs], dist[outs], pts[outs], sigma, times[outs[0]], decel)
        turn = max(min_turn, self.config.noise_sigmas * math.hypot(line_in[1], line_out[1]))
        span = (times[ins[-1]], times[k], times[outs[0]])
        found = _rebound(line_in, line_out, turn, rad, tol, span)
        if found is None and k == SLOW_K and _lay_still(pts[outs], times[outs]):
            # A ball creeping in at 10-20 mm/s stops against the nose: its line in, over
            # the long window, shows it coming by the noise sigmas all the same.
            clear = max(0.25 * min_turn, self.config.noise_sigmas * line_in[1])
            found = _crawled_in(line_in, line_out, clear, dist[outs] - rad, rad)
        return found


def rolled_line(times, dist, pts, sigma: float, t_ref: float, decel: float):
    """`fit_line` of a ball's distance to a nose over one side of a rebound, the cloth's rolling
    resistance taken out: a line through the distances of a ball slowing at ``decel`` mm/s^2
    along its path has its mean slope, which a slow ball does not have at the nose (one coming
    in at 55 mm/s and off at 25 seems there a frame or two early). The line returned is the
    tangent at ``t_ref``, the side's sample nearest the rebound. A ball that stops within the
    side keeps the plain line."""
    line = fit_line(times, dist, sigma)
    tc = times - line[2]
    ss = float(tc @ tc)
    if ss <= 0:
        return line
    speed = math.hypot(*((tc @ pts) / ss))  # the fitted velocity's (tc sums to nought)
    if speed - decel * float(tc[-1]) <= 0:
        return line
    along = -decel * line[0] / speed  # the deceleration's part along the nose's normal
    return fit_line(times, dist - 0.5 * along * (times - t_ref) ** 2, sigma)


def _rebound(line_in, line_out, turn, rad, tol, span) -> Timing | None:
    """The `Timing` of a rebound off a nose, from the fitted lines (`fit_line`) of the ball's
    distance to it before and after; ``span``: the times of the last sample before, the centre
    frame and the first sample after. None when the lines do not turn by ``turn`` mm/s there."""
    lo, centre, hi = span
    vn_in, _, t_in0, d_in0 = line_in
    vn_out, _, t_out0, d_out0 = line_out
    if vn_in >= -0.5 * turn or vn_out <= 0.25 * turn or vn_out - vn_in < turn:
        return None
    # When the centre was one radius from the nose, by each fitted line carried on. Between
    # frames a fast ball gets closer than any sample shows: the incoming and outgoing lines
    # must meet within touching distance of the nose.
    t_meet = (d_out0 - d_in0 + vn_in * t_in0 - vn_out * t_out0) / (vn_in - vn_out)
    if d_in0 + vn_in * (t_meet - t_in0) - rad > tol:
        return None
    tin = t_in0 + (d_in0 - rad) / -vn_in
    tout = t_out0 - (d_out0 - rad) / vn_out
    t = 0.5 * (tin + tout)
    half = (hi - lo) / 2
    uncertainty = float(np.clip(abs(tin - tout) / 2, 0.25 * half, half))
    return Timing(
        float(np.clip(t, lo, hi)),
        uncertainty,
        offset=abs(t - centre),
        spread=abs(tin - tout),
        came=float(tin),
        left=float(tout),
        soft=min(-vn_in, vn_out) < _SOFT_MM_S,
    )


_KICK_DOUBT_S = 0.004
"""How far a strike found in a bunch may lie from its true time, s."""


def _struck_rebound(line_out, n: int, sigma: float, turn: float, rad: float, span):
    """The `Timing` of a rebound by a ball struck at ``span[0]`` toward a nose, from the fitted
    line (`fit_line`, over ``n`` samples of noise ``sigma``) of its distance to the nose after
    it, whose first sample is at ``span[1]``: the line, carried back to the strike, lies past
    the nose by more than its own spread there and the strike's doubt. None when it does not
    leave the nose by ``turn`` mm/s or does not lie past it."""
    kick, first = span
    vn_out, slope_sigma, t0, d0 = line_out
    if vn_out < turn:
        return None
    at_kick = d0 + vn_out * (kick - t0) - rad
    spread = math.hypot(sigma / math.sqrt(n), slope_sigma * (t0 - kick))
    if at_kick > -(3 * spread + vn_out * _KICK_DOUBT_S):
        return None
    t = t0 - (d0 - rad) / vn_out
    return Timing(
        float(np.clip(t, kick, first)),
        max(0.5 * (first - kick), 1e-3),
        soft=vn_out < _SOFT_MM_S,
        came=float(t),
        left=float(t),
    )


_BENT_SIGMAS = 4.0
"""A side's frames lie on one line to this many sigmas of their noise ..."""

_BENT_MM = 1.5
"""... and this (a struck ball slides, curving its way by a fraction of a millimetre)."""


def straight_side(side: np.ndarray, times: np.ndarray, dist: np.ndarray, sigma: float):
    """The frames of one side of a rebound (``side``, nearest the rebound first) that one line
    of the ball's distance to the nose explains, from the nearest on: a ball off one cushion of
    a corner meets the other a frame or two later, and a line through the bend misses both."""
    keep = side
    while len(keep) > 2:
        t, y = times[keep], dist[keep]
        slope, _, t_mean, y_mean = fit_line(t, y, sigma)
        if np.abs(y - y_mean - slope * (t - t_mean)).max() <= _BENT_SIGMAS * sigma + _BENT_MM:
            break
        keep = keep[:-1]
    return keep


def sides_between(times: np.ndarray, usable: np.ndarray, contacts: list[float]):
    """The ``usable`` frames of a window before its centre frame and after it, between the last
    of ``contacts`` (times) at or before the centre and the first after it."""
    k = len(times) // 2
    last = max((t for t in contacts if t <= times[k]), default=-math.inf)
    upcoming = min((t for t in contacts if t > times[k]), default=math.inf)
    before = np.flatnonzero(usable[:k] & (times[:k] > last))
    after = k + 1 + np.flatnonzero(usable[k + 1 :] & (times[k + 1 :] < upcoming))
    return before, after


def median_sigma(sigmas: np.ndarray) -> float:
    """The median of a ball's measured sigmas over a window, 2 mm if it was never measured."""
    finite = sigmas[np.isfinite(sigmas)]
    return statistics.median(finite.tolist()) if len(finite) else 2.0


def _lay_still(pts: np.ndarray, times: np.ndarray) -> bool:
    """Whether a ball sampled at ``pts`` over ``times`` all but stopped (a crawl ends at rest;
    a ball rolling on along the cushion came off it, and the rebound test judges that)."""
    way = float(np.hypot(*(pts[-1] - pts[0])))
    return way < _CRAWL_STILL_MM_S * max(float(times[-1] - times[0]), 1e-9)


def _crawled_in(line_in, line_out, clear: float, gaps: np.ndarray, rad: float) -> Timing | None:
    """The `Timing` of a ball that came in along ``line_in`` faster than ``clear`` mm/s and
    then lay against the nose (``gaps``: its distances past ``rad``, one radius, fitted as
    ``line_out``): it crawled into the cushion and came back too slowly to see turn.
    None when it came in too slowly, went on in, or lay off the nose. The time is where the
    line in gets to the nose, or to where the ball lay if that is nearer the rubber: a ball
    that crawls in and comes back at a few mm/s lies a millimetre or two off the nose, and
    the line in gets there tens of milliseconds before the touch."""
    vn_in, _, t_in0, d_in0 = line_in
    if vn_in > -clear or line_out[0] < 0.25 * vn_in:
        return None
    gap = float(np.median(gaps))
    if gap > _CRAWL_GAP_MM:
        return None
    t = t_in0 + (d_in0 - min(line_out[3], rad)) / -vn_in
    return Timing(float(t), min(_CRAWL_GAP_MM / -vn_in, _CRAWL_MOST_S), crawled=True)


@njit(cache=True, nogil=True)
def nearest_over_step(p0: np.ndarray, p1: np.ndarray, r: int) -> float:
    """The closest any other ball came to ball ``r`` between two frames' centres ``p0`` and
    ``p1`` (16, 2), each pair's relative motion taken as straight (nan centres: none)."""
    nearest = math.inf
    for j in range(p0.shape[0]):
        if j == r:
            continue
        x0, y0 = p0[j, 0] - p0[r, 0], p0[j, 1] - p0[r, 1]
        dx, dy = p1[j, 0] - p1[r, 0] - x0, p1[j, 1] - p1[r, 1] - y0
        length2 = dx * dx + dy * dy
        s = -(x0 * dx + y0 * dy) / length2 if length2 > 1e-9 else 0.0
        s = min(max(s, 0.0), 1.0)
        gap = math.hypot(x0 + s * dx, y0 + s * dy)
        if gap < nearest:
            nearest = gap
    return nearest


@njit(cache=True, nogil=True)
def _rebound_rows(
    gaps: np.ndarray, at_mouth: np.ndarray, live: np.ndarray, sigmas: np.ndarray, reach: float
) -> tuple[np.ndarray, np.ndarray]:
    """The ``live`` balls that may be rebounding at a window's centre frame, and each one's
    `median_sigma`: inside a pocket's mouth (where the nose lines say little: the jaw faces
    decide), or within ``reach`` of a cushion line and at their closest to it in the window,
    to twice their sigma (at most `SIGMA_CAP`). ``gaps``: (frames, 16, 4) the window's
    `FrameWindow.edge_gaps`; ``at_mouth`` and ``sigmas``: (frames, 16)."""
    frames, balls, walls = gaps.shape
    k = frames // 2
    rows = np.empty(balls, dtype=np.int64)
    out = np.empty(balls)
    count = 0
    for r in range(balls):
        if not live[r]:
            continue
        finite = sigmas[:, r][np.isfinite(sigmas[:, r])]
        sigma = np.median(finite) if len(finite) else 2.0
        keep = at_mouth[k, r]
        margin = 2 * min(sigma, SIGMA_CAP)
        for w in range(walls):
            at = gaps[k, r, w]
            closest = np.nan
            for f in range(frames):
                g = gaps[f, r, w]
                if closest != closest or g < closest:  # (np.fmin: nan only when all are)
                    closest = g
            if at <= reach and at <= closest + margin:
                keep = True
        if keep:
            rows[count] = r
            out[count] = sigma
            count += 1
    return rows[:count], out[:count]
