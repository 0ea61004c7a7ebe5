"""Ball-ball contacts, for the segmenter: a pair of balls that reach touching distance inside a
frame interval and whose velocities change there, along their line of centres.

Contacts with a resting ball are decided at once; those between two moving balls once the frames
after show the gap opening (`BallContacts._gap_opened`); those inside a rack hit at rest all
together (`tracking.rack_contacts`). A ball struck against a cushion rebounds at once
(`tracking.presses`). Pairs the pair test turns down are fitted again with every other contact
of their balls in the same interval (`tracking.shared_impulses`): a ball's velocity change there
is the sum of several impulses."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2

from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from rules.table import CushionId
from tracking.fits import fit_line, kick_time, line_change, straight_velocities
from tracking.geometry import closest_distance, closest_time, touch_roots
from tracking.model import BALLS, CUE_ROW, TrackFrame
from tracking.shared_impulses import Interval, Limits, shared_contacts

GAP_K = 4
"""Frames each side of a contact between two moving balls used to fit how fast the gap between
them closed and opened: one frame's velocity is too noisy to tell a contact from two balls
rolling on together after the break, touching."""

_PASS_OVER_MM = 12.0
"""Two balls whose centres are seen this much closer than a diameter overlap: one is in the air
(vision's error on a ball is a few millimetres)."""

_UPPER = np.triu(np.ones((len(BALLS), len(BALLS)), dtype=bool), 1)
"""Each pair of balls once (row < column)."""

_LOOKBACK = 10
"""Frames back a contact of two parting balls is looked for (`Segmenter._closest_before`)."""

_FIT_BEFORE = 4
"""Frames up to f0 through which a moving ball's velocity before a contact is fitted."""

_STRAIGHT_CHI2 = np.array(
    [math.inf] * 3 + [chi2.ppf(0.99, 2 * (n - 2)) for n in range(3, _FIT_BEFORE + 1)]
)
"""By number of frames, the chi-square (p = 0.01) over which a line does not explain a ball's
centres on them: it turned inside the window, or one centre is off. (Two frames always fit.)"""

_OPENED_MM = 3.0
"""How much the gap between a moving ball and a resting one must have opened since their
closest approach for that to have been their contact (a gap's noise is about 1 mm)."""

_PARTED_MM = 1.0
"""How far two balls' gap must rise above where it was at two contacts found between them for
those to be two touches, not one seen twice (`BallContacts._came_apart`): a camera counts a
second touch once the balls part by a millimetre."""

_PARTED_SIGMAS = 3.0
"""... and by this many sigmas of the gap's noise (two centres' noise)."""

_RELATIVE_KEEP = 3
"""The fewest frames a side's relative line keeps when it leaves a stray centre out."""

_SAME_TOUCH_S = 0.1
"""A pair's closest approach within this after a contact found between them is that touch,
unless the two came visibly apart in between (`BallContacts._came_apart`)."""

_KICK_SIGMAS = 2.0
"""How many of its sigmas outside the interval a ball's kick, timed by its own step across it
(`BallContacts._kicked_inside`), may fall and still be in it. A kick from just before the
interval (a ball off a cushion, its velocity coming in stale) or just after it (the next
contact, inside the step after) times to the interval's edge, give or take the noise. Two
sigmas drop the false ones the noise places well outside and lose few inside (on the 300
benchmark shots: 3 more contacts found, 7 fewer false)."""


@dataclass(frozen=True, slots=True)
class PendingContact:
    """A contact between two moving balls, waiting for the frames after it."""

    event: ShotEvent
    pair: tuple[int, int]
    t0: float
    t1: float
    previous: float | None


class BallContacts:
    """The segmenter's ball-ball contacts: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the newest frames, the config, the table, what was found so far)."""

    @staticmethod
    def _since(times: dict[int, float], rows: np.ndarray, t: float, strict: bool = True):
        """Which ``rows`` have a time in ``times`` after ``t`` (or at it, if not ``strict``);
        a row with none has not."""
        if not times:
            return np.zeros(len(rows), dtype=bool)
        by_row = np.full(len(BALLS), -math.inf)
        by_row[list(times)] = list(times.values())
        return by_row[rows] > t if strict else by_row[rows] >= t

    def _velocity_noise(self, f0: TrackFrame, f1: TrackFrame, rows: np.ndarray) -> np.ndarray:
        dt = max(f1.time - f0.time, 1e-6)
        sig = f1.sigma[rows]
        sig = np.where(np.isnan(sig), 5.0, sig)
        return np.sqrt(2.0) * sig / dt

    def _kicked(self, v_in: np.ndarray, v_out: np.ndarray, noise: float) -> float:
        """How clearly a velocity changed: the change over its threshold (>1 is a kick)."""
        change = float(np.hypot(*(v_out - v_in)))
        threshold = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        return change / threshold

    def _ball_contacts(self, f0: TrackFrame, f1: TrackFrame, f2: TrackFrame) -> list[ShotEvent]:
        """Contacts inside (f0.time, f1.time], judged with the step f1 -> f2 as 'after'."""
        dt = f1.time - f0.time
        dt_after = f2.time - f1.time
        if dt <= 0 or dt_after <= 0:
            return []
        live = np.flatnonzero(f0.on_table & f1.on_table & ~np.isnan(f1.positions[:, 0]))
        # A contact inside (f0, f1] needs one of the two moving by f1.
        moving = f0.moving[live] | f1.moving[live]
        if len(live) < 2 or not moving.any():
            return []
        p0, p1, p2 = f0.positions[live], f1.positions[live], f2.positions[live]
        p2 = np.where(np.isnan(p2), p1, p2)
        v_in = (p1 - p0) / dt
        # The filter's velocity at f0 for balls that were moving; a line through their last
        # centres for those near another ball (`_fitted_before`).
        v_before = np.where(f0.moving[live][:, None], f0.velocities[live], 0.0)
        # ... except just after a contact, which the filter has not caught up with yet.
        just_hit = self._since(self._touched, live, f0.time - dt)
        v_out = (p2 - p1) / dt_after
        noise = self._velocity_noise(f1, f2, live)
        reach = self._d + self.config.touch_tolerance_mm + np.hypot(*v_in.T) * dt
        events = []
        gaps = np.hypot(*(p0[:, None, :] - p0[None, :, :]).transpose(2, 0, 1))
        upper = _UPPER[: len(live), : len(live)]
        overlap = (gaps < self._d - _PASS_OVER_MM) & upper
        if overlap.any():
            for a, b in zip(*np.nonzero(overlap), strict=True):
                self._overlapped[(min(live[a], live[b]), max(live[a], live[b]))] = f0.time
        near = (gaps <= reach[:, None] + reach[None, :]) & (moving[:, None] | moving[None, :])
        paired = (near & upper).any(axis=0) | (near & upper).any(axis=1)
        fit = paired & f0.moving[live]
        if fit.any():
            v_before[fit] = self._fitted_before(live[fit], f0)
        self._left_the_rack(live, p0, v_before, f0)
        # A contact kicks one of the two: pairs where neither velocity changed are skipped
        # before the pair test (which asks the same with the larger of the two noises).
        change = np.hypot(*(v_out - v_before).T)
        kicked = change >= np.maximum(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        if f1.displaced or f2.displaced:
            # Found moved after lying out of sight: its jump from where it lay, in or after
            # the interval, is no kick (a ball that struck it shows its own).
            jumped = [f1.row(d.ball) for d in (*f1.displaced, *f2.displaced)]
            kicked[np.isin(live, jumped)] = False
        near &= kicked[:, None] | kicked[None, :]
        self._scene = (live, p0, v_before)
        cluster = self._cluster_hit(live, f0, f1, p0, v_before, gaps, kicked, reach)
        if cluster is None:
            cluster = self._pack_hit(live, f0, f1, p0, v_before, gaps, kicked)
        racked = self._since(self._held, live, f0.time, strict=False)
        held = racked | self._since(self._packed, live, f0.time, strict=False)
        found: set[tuple[int, int]] = set()
        for a, b in zip(*np.nonzero(near & upper), strict=True):
            key = (min(live[a], live[b]), max(live[a], live[b]))
            if self._in_rack_solve(key, cluster, f0.time):
                continue
            before = self._pair_last.get(key)
            event = self._pair_contact(
                live[a],
                live[b],
                f0,
                (p0[a], p0[b]),
                (p1[a], p1[b]),
                (v_before[a], v_before[b]),
                (v_out[a], v_out[b]),
                dt,
                (noise[a], noise[b]),
                just_hit[a] or just_hit[b],
            )
            if event is not None:
                found.add((a, b))
                events.append(event)
                self._record(event, live, a, b, f0, f1, before, (p0, v_before, v_out, noise))
                if cluster is not None and (held[a] != held[b]):
                    cluster.time.append(event.time)
        # A rack being solved keeps its balls out of the shared fit as well.
        free = near & upper & ~(held[:, None] | held[None, :])
        scene = Interval(
            p0, p1, v_before, v_out, noise, dt, just_hit, self._struck_in(live, f0, f1)
        )
        # A moving ball kicked that touches no other ball in the interval: only cushions turned
        # it. In a rattle the jaws turn it every frame or two, and a ball followed into a
        # cushion by another is struck back into it a frame after its rebound: too often for
        # the rebound test's windows.
        alone = np.flatnonzero(kicked & f0.moving[live] & ~racked)
        if len(alone):
            speed = np.hypot(*v_before[alone].T)
            wall_reach = self._d / 2 + self.config.touch_tolerance_mm + speed * dt
            alone = alone[self._geo.near_edge(p0[alone], wall_reach)]
        events += self._shared_contacts(live, f0, f1, scene, free, found, alone)
        return events

    def _shared_contacts(
        self, live, f0, f1, scene: Interval, free, found, alone
    ) -> list[ShotEvent]:
        """The contacts in (f0, f1] the pair test turned down that the impulses of each group
        of linked balls, fitted together (`shared_impulses`), show: a ball's two contacts
        within one interval, and a ball pinned against a cushion (that cushion contact too);
        and the cushion contacts of the kicked balls ``alone``. A pair found in the interval
        before is not found again at once: a ball hit then has a stale velocity coming in."""
        events = []
        limits = Limits(
            self._d,
            self.config.touch_tolerance_mm,
            self.config.min_turn_mm_s,
            self.config.noise_sigmas,
        )
        shared = shared_contacts(scene, free, found, self._geo, limits, alone)
        for a, b, tau in shared.pairs:
            key = (min(live[a], live[b]), max(live[a], live[b]))
            if f0.time - self._pair_last.get(key, -math.inf) < 2 * scene.dt:
                continue
            first, second = BALLS[live[a]], BALLS[live[b]]
            if second is BallId.CUE:
                first, second = second, first
            event = ShotEvent(
                EventKind.BALL_BALL,
                f0.time + tau,
                (first, second),
                confidence=0.7,
                time_uncertainty=0.5 * scene.dt,
            )
            before = self._pair_last.get(key)
            self._pair_last[key] = event.time
            events.append(event)
            kept = (scene.p0, scene.v_before, scene.v_out, scene.noise)
            self._record(event, live, a, b, f0, f1, before, kept)
        for k, w, tau in shared.walls:
            cushion = self._geo.walls[w].cushion
            self._shared_cushion(int(live[k]), cushion, f0.time + tau, f1, scene.dt)
        return events

    def _struck_in(self, live: np.ndarray, f0: TrackFrame, f1: TrackFrame) -> np.ndarray:
        """When in (f0, f1] each of ``live`` was first struck by a contact found so far, s
        after f0 (inf: not struck there)."""
        struck = np.full(len(live), math.inf)
        for k, r in enumerate(live.tolist()):
            inside = [t for t in self._contacts_of(r) if f0.time < t <= f1.time]
            if inside:
                struck[k] = min(inside) - f0.time
        return struck

    def _shared_cushion(self, r: int, cushion: CushionId, t: float, f1: TrackFrame, dt: float):
        """Keep ball ``r``'s cushion contact that the joint fit found, unless the rebound test
        already has it (it is judged frames later, and then finds it already known)."""
        sigma = float(np.nan_to_num(f1.sigma[r], nan=2.0))
        if self._new_rebound(r, cushion, t, sigma):
            self._ready.append(
                ShotEvent(
                    EventKind.BALL_CUSHION,
                    t,
                    (BALLS[r],),
                    cushion=cushion,
                    confidence=0.7,
                    time_uncertainty=0.5 * dt,
                )
            )

    def _fitted_before(self, balls: np.ndarray, f0: TrackFrame) -> np.ndarray:
        """The velocity at f0 of each of ``balls`` (rows; moving, near another ball) from a
        line through its measured centres on the last frames up to f0 since its last contact:
        the longest run of them, up to `_FIT_BEFORE`, that a straight line explains
        (`_STRAIGHT_CHI2`). Near another ball the filter follows each measurement closely (its
        process noise is raised there, to follow a contact), so its own velocity is little
        better than one frame's step, overshooting; it is kept only for a ball with fewer than
        two frames since its last contact."""
        w = self._window
        frames = slice(max(w.size - 2 - _FIT_BEFORE, w.size - len(w)), w.size - 2)
        return straight_velocities(
            w.times[frames],
            w.seen[frames],
            w.measured[frames],
            w.measured_sigma[frames],
            balls,
            self._last_turns()[balls],
            f0.velocities[balls],
            _STRAIGHT_CHI2,
        )

    def _last_turns(self) -> np.ndarray:
        """(16,) when each ball was last turned by something found: a contact (found or
        pending), a cushion, the cue, a hand."""
        since = np.full(len(BALLS), -math.inf)
        for t, pair in self._contact_times:
            for r in pair:
                since[r] = max(since[r], t)
        for p in self._pending:
            for r in p.pair:
                since[r] = max(since[r], p.event.time)
        for (r, _), t in self._cushion_last.items():
            since[r] = max(since[r], t)
        for times in (self._disturbed_last, self._touched):
            for r, t in times.items():
                since[r] = max(since[r], t)
        since[CUE_ROW] = max(since[CUE_ROW], self._strike_time)
        return since

    def _record(self, event, live, a, b, f0, f1, before, scene) -> None:
        """Keep a contact found between ``live[a]`` and ``live[b]`` in (f0, f1]: ready at once
        when one of them was at rest, else pending until the gap is seen opening."""
        p0, v_before, v_out, noise = scene
        key = (min(live[a], live[b]), max(live[a], live[b]))
        for r in (live[a], live[b]):
            if f0.moving[r]:
                # The filter's velocity of a moving ball lags behind a contact.
                self._touched[int(r)] = event.time
        if f0.moving[live[a]] and f0.moving[live[b]]:
            self._pending.append(PendingContact(event, key, f0.time, f1.time, before))
        else:
            self._ready.append(event)
            self._contact_times.append((event.time, key))
            dt = f1.time - f0.time
            self._ready += self._pressed(live, a, b, p0, v_before, v_out, noise, event, dt)

    def _touching_since(self, pair: tuple[int, int], t: float) -> bool:
        """Whether the two balls of ``pair`` were found touching within `_SAME_TOUCH_S` before
        ``t`` and have not come visibly apart since (`_came_apart`): a contact at ``t`` is that
        touch still, a blow passed through them (the truth, like a referee, counts a second
        touch once the two part)."""
        found = [u for u, key in self._contact_times if key == pair and u < t]
        last = max([self._pair_last.get(pair, -math.inf), *found])
        return 0.0 < t - last <= _SAME_TOUCH_S and not self._came_apart(pair, last, t)

    def _came_apart(self, pair: tuple[int, int], t0: float, t1: float) -> bool:
        """Whether the two balls of ``pair`` came visibly apart between contacts found at
        ``t0`` and ``t1`` (either order): their gap rose between them above where it was at
        both by `_PARTED_MM` and `_PARTED_SIGMAS` of its noise. True when the frames kept cannot
        tell."""
        lo, hi = min(t0, t1), max(t0, t1)
        w = self._window
        rows = slice(w.size - len(w), None)
        times = w.times[rows]
        rel = w.points[rows, pair[1]] - w.points[rows, pair[0]]
        gaps = np.hypot(rel[:, 0], rel[:, 1])
        step = float(np.median(np.diff(times))) if len(times) > 1 else math.inf
        between = (times > lo) & (times < hi)
        at_lo, at_hi = np.abs(times - lo) <= step, np.abs(times - hi) <= step
        if not (between.any() and at_lo.any() and at_hi.any()):
            return True
        # One centre far off (vision's errors have heavy tails) opens no gap: the second
        # widest counts when there are three or more.
        wide = np.sort(gaps[between][np.isfinite(gaps[between])])[::-1]
        if not len(wide):
            return True
        widest = wide[1] if len(wide) >= 3 else wide[0]
        rise = widest - max(np.nanmin(gaps[at_lo]), np.nanmin(gaps[at_hi]))
        sigmas = w.measured_sigma[rows][:, list(pair)]
        sigma = float(np.nanmedian(sigmas)) if np.isfinite(sigmas).any() else 1.0
        return bool(rise > max(_PARTED_MM, _PARTED_SIGMAS * math.sqrt(2.0) * sigma))

    def _confirmed(self) -> list[ShotEvent]:
        """The contacts decided now: those between a resting and a moving ball at once, those
        between two moving balls once `GAP_K` frames after them show the gap opening."""
        out, self._ready = self._held_for_check(self._ready), []
        frames = list(self._frames)
        times = [f.time for f in frames]
        waiting = []
        for p in self._pending:
            i1 = times.index(p.t1) if p.t1 in times else -1
            if i1 < 0:
                continue  # the frames are gone (a gap in the input): not judged
            if i1 + GAP_K > len(frames):
                waiting.append(p)
            elif self._gap_opened(p, frames, i1):
                out.append(p.event)
                self._contact_times.append((p.event.time, p.pair))
            elif i1 + 1 + GAP_K > len(frames):
                waiting.append(p)  # judged again with one more frame (`_opened_next`)
            elif (later := self._opened_next(p, frames, i1)) is not None:
                out.append(later)
                self._contact_times.append((later.time, p.pair))
                newest = max(self._pair_last.get(p.pair, -math.inf), later.time)
                self._pair_last[p.pair] = newest
            elif p.previous is None:
                self._pair_last.pop(p.pair, None)
            else:
                self._pair_last[p.pair] = p.previous
        self._pending = waiting
        out += self._solved_racks(frames)
        horizon = times[0]
        self._contact_times = [(t, k) for t, k in self._contact_times if t >= horizon]
        return out

    def _gap_opened(self, p: PendingContact, frames: list[TrackFrame], i1: int) -> bool:
        """Two moving balls touched when the gap between them, fitted over a few frames each
        side of the contact, turns from closing to opening faster than the noise: a contact's
        impulse pushes along the line of centres. Two balls rolling on side by side after the
        break, touching, keep their gap, however noisy one frame's velocities are. The windows
        stop at either ball's other contacts."""
        before, after = self._gap_windows(self._other_contacts(p), p.t0, p.t1, frames, i1)
        if len(before) < 2 or len(after) < 2:
            return True  # too crowded to fit: the one-frame test stands
        if not self._gap_turned(self._gap_line(*p.pair, before), self._gap_line(*p.pair, after)):
            return False
        return self._relative_turned(*p.pair, before, after)

    def _relative_turned(self, ra: int, rb: int, before, after) -> bool:
        """Whether the two balls' relative velocity changed across a contact, by lines through
        their relative position on the frames ``before`` and ``after`` it (a stray centre left
        out, `trimmed_lines`): two balls passing close at speed have a gap that closes and
        opens as a contact's does, but their relative velocity does not change."""
        _, change, noise = line_change(
            _relative_positions(ra, rb, before), _relative_positions(ra, rb, after), _RELATIVE_KEEP
        )
        threshold = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        return float(np.hypot(*change)) >= threshold

    def _other_contacts(self, p: PendingContact) -> list[float]:
        """The times of the other contacts found of either ball of ``p``."""
        ra, rb = p.pair
        others = [t for t, k in self._contact_times if k != p.pair and (ra in k or rb in k)]
        return others + [t for t, k in self._contact_times if k == p.pair and t != p.event.time]

    @staticmethod
    def _gap_windows(others: list[float], t0: float, t1: float, frames, split: int):
        """The frames (up to `GAP_K`) before ``split`` and from it that the balls' other
        contacts (``others``, times) leave free: after the last of them by ``t0``, before the
        first after ``t1``."""
        start = max((t for t in others if t <= t0), default=-math.inf)
        stop = min((t for t in others if t > t1), default=math.inf)
        before = [f for f in frames[max(0, split - GAP_K) : split] if f.time >= start]
        after = [f for f in frames[split : split + GAP_K] if f.time < stop]
        return before, after

    def _gap_turned(self, closing, opening) -> bool:
        """Whether the gap opens over the ``opening`` line (`_gap_line`) faster than over the
        ``closing`` one by more than the kick threshold and the noise."""
        noise = math.hypot(closing[1], opening[1])
        threshold = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        return opening[0] - closing[0] >= threshold

    def _opened_next(self, p: PendingContact, frames: list[TrackFrame], i1: int):
        """The contact ``p``, moved into the next interval, when the gap turns there instead:
        the step after a contact there, judged with the interval before, makes it look a
        frame early (the balls are still closing at its end). Its time is where the lines
        fitted to the gap each side meet, within touching distance. None if the gap does not
        turn there either, if another contact of either ball in that interval may have turned
        it, or if the frames around it are too few to tell."""
        t0, t1 = frames[i1].time, frames[i1 + 1].time
        ra, rb = p.pair
        others = self._other_contacts(p)
        others += [q.event.time for q in self._pending if q is not p and set(q.pair) & {ra, rb}]
        if any(t0 < t <= t1 for t in others):
            return None
        before, after = self._gap_windows(others, t0, t1, frames, i1 + 1)
        if len(before) < 2 or len(after) < 2:
            return None
        if not all(f.on_table[ra] and f.on_table[rb] for f in after):
            return None
        closing, opening = self._gap_line(ra, rb, before), self._gap_line(ra, rb, after)
        if not self._gap_turned(closing, opening) or not self._relative_turned(
            ra, rb, before, after
        ):
            return None
        turn = closing[0] - opening[0]
        time = opening[3] - closing[3] + closing[0] * closing[2] - opening[0] * opening[2]
        time = float(np.clip(time / turn, t0, t1))
        gap = closing[3] + closing[0] * (time - closing[2]) - self._d
        if abs(gap) > self.config.touch_tolerance_mm:
            return None
        return dataclasses.replace(p.event, time=time, time_uncertainty=0.5 * (t1 - t0))

    @staticmethod
    def _gap_line(ra: int, rb: int, frames: list[TrackFrame]):
        """The line fitted to the centre distance of two balls over ``frames``: its slope, the
        slope's sigma, and the point (time, distance) it passes through."""
        t, rel, sigma = _relative_positions(ra, rb, frames)
        return fit_line(t, np.hypot(rel[:, 0], rel[:, 1]), sigma)

    def _pair_contact(self, ra, rb, f0, p0, p1, v_before, v_out, dt, noise, stale=False):
        d, tol = self._d, self.config.touch_tolerance_mm
        key = (min(ra, rb), max(ra, rb))
        if f0.time - self._pair_last.get(key, -math.inf) < 3 * dt:
            return None
        rel_p0 = p0[0] - p0[1]
        rel_v = v_before[0] - v_before[1]
        rel_p1 = p1[0] - p1[1]
        rel_vo = v_out[0] - v_out[1]
        late = 0.15 * dt
        # Touch time by carrying the incoming motion forward from f0 ...
        roots = touch_roots(rel_p0, rel_v, d)
        tau_in = None
        if roots:
            if roots[0] > dt + late:
                return None  # the touch belongs to the next interval, judged on the next frame
            if roots[1] < -late:
                roots = ()  # already apart before f0 by this motion: not a touch here
            else:
                tau_in = float(np.clip(roots[0], 0.0, dt))
        bounced = None
        if tau_in is None:
            closest_t = closest_time(rel_p0, rel_v, -math.inf, math.inf)
            if closest_t > dt + late:
                return None
            closest = min(
                closest_distance(rel_p0, rel_v, 0.0, dt),
                closest_distance(rel_p0, (rel_p1 - rel_p0) / dt, 0.0, dt),
            )
            if closest > d + tol:
                turned = self._geo.bounced_touch(np.array(p0), np.array(v_before), dt, tol)
                if turned is None:
                    return None
                bounced = turned[0]
        # ... and by carrying the outgoing motion back from f1 (when it parts in the interval).
        back = touch_roots(rel_p1 - rel_vo * dt, rel_vo, d)
        tau_out = back[1] if back and -late <= back[1] <= dt + late else None
        if tau_in is not None and self._blocked(ra, rb, tau_in):
            # Carried on, one of them would have had to pass through a third ball to touch
            # the other: the third ball stopped it first.
            return None
        if stale and tau_out is None:
            # One of them was hit in the last interval: its velocity before is stale, and only
            # the motion after, carried back, can show that they touched here.
            return None
        # Each ball's kick against its own velocity noise: a ball missed in the frame after the
        # contact (its position only predicted) must not hide the other's clean turn. A ball in
        # the air passing over the other is no evidence of a touch: only the other's kick is.
        # The size of a ball's picture is noisy, so only a pair seen overlapping in the last few
        # frames, which two balls on the cloth cannot do, is taken to be one passing over the
        # other (the filter's velocity of the one in the air wavers for a few frames after).
        over = (
            np.hypot(*(p1[0] - p1[1])) < d - _PASS_OVER_MM
            or f0.time - self._overlapped.get(key, -math.inf) <= GAP_K * dt
        )
        flying = [bool(f0.airborne[r]) for r in (ra, rb)]
        if over and not any(flying):
            # Seen overlapping, one of them was in the air though its picture did not look big
            # enough to say so: the one that came over, the faster.
            flying[int(np.argmax([np.hypot(*v) for v in v_before]))] = True
        grounded = [k for k in (0, 1) if not (over and flying[k])]
        kick = max((self._kicked(v_before[k], v_out[k], noise[k]) for k in grounded), default=0.0)
        if kick < 1.0 or not self._along_centres(p0, v_before, v_out, tau_in or 0.0, noise):
            return None
        both_moving = f0.moving[ra] and f0.moving[rb]
        if both_moving and not self._kicked_inside(p0, p1, v_before, v_out, noise, dt, grounded):
            return None
        taus = [t for t in (tau_in, tau_out) if t is not None]
        if bounced is not None:
            taus = [bounced]
        if not taus:
            # Never quite one diameter apart (noise, a graze): the moment of closest approach.
            taus = [closest_time(rel_p0, rel_v, 0.0, dt)]
        tau = float(np.clip(np.mean(taus), 0.0, dt))
        speed = max(float(np.hypot(*rel_v)), float(np.hypot(*rel_vo)), 1.0)
        sigma = float(np.nanmax([f0.sigma[ra], f0.sigma[rb], 1.0]))
        uncertainty = min(dt, 0.4 * dt + 2 * math.sqrt(2) * sigma / speed)
        if len(taus) == 2:
            uncertainty = min(dt, max(uncertainty, abs(taus[0] - taus[1]) / 2))
        elif tau_in is None:
            uncertainty = 0.5 * dt
        time = f0.time + tau
        past = self._closest_before(ra, rb, f0) if tau_in is None else None
        if past is not None:
            previous = self._pair_last.get(key, -math.inf)
            if abs(past[0] - previous) <= 2 * dt:
                return None  # parting since the contact already found
            if past[0] - previous <= _SAME_TOUCH_S and not self._came_apart(key, previous, past[0]):
                return None  # closest again since that contact, never apart: the same touch
            if f0.moving[ra] != f0.moving[rb]:
                time, uncertainty = past
        if self._touching_since(key, time):
            return None  # pressed together since that touch: a blow passed through them
        self._pair_last[key] = time
        a, b = BALLS[ra], BALLS[rb]
        if b is BallId.CUE:
            a, b = b, a
        confidence = float(min(0.99, 0.6 + 0.2 * min(kick, 2.0)))
        return ShotEvent(
            EventKind.BALL_BALL,
            time,
            (a, b),
            confidence=confidence,
            time_uncertainty=uncertainty,
        )

    def _kicked_inside(self, p0, p1, v_before, v_out, noise, dt, grounded) -> bool:
        """Whether a kicked ball of the pair took its kick inside the interval, timed by its
        own step across it (`fits.kick_time`). Both balls moving, one's kick may be another
        contact's: a cushion's just before f0 (the velocity coming in is stale), or the next
        contact's, inside the step after f1."""
        for k in grounded:
            if self._kicked(v_before[k], v_out[k], noise[k]) < 1.0:
                continue
            step = p1[k] - p0[k]
            tau, sigma = kick_time(step, v_before[k], v_out[k], dt, noise[k])
            if -_KICK_SIGMAS * sigma <= tau <= dt + _KICK_SIGMAS * sigma:
                return True
        return False

    def _closest_before(self, ra: int, rb: int, f0: TrackFrame):
        """(time, uncertainty) of a contact of two balls already parting at f0: their
        closest approach over the last `_LOOKBACK` frames, when the gap then was within
        touching distance and has clearly opened since; else None. A ball barely touched
        creeps off, and is seen moving only frames after the other came closest to it and
        left; and two balls parting after a contact already found kick each other no more."""
        window = self._window
        rows = slice(max(window.size - len(window), window.size - _LOOKBACK - 2), None)
        times = window.times[rows]
        since = np.nanmax([f0.rest_since[ra], f0.rest_since[rb], -math.inf])
        keep = (times <= f0.time) & (times >= since)
        keep &= window.on_table[rows, ra] & window.on_table[rows, rb]
        times = times[keep]
        rel = window.points[rows, rb][keep] - window.points[rows, ra][keep]
        gaps = np.hypot(rel[:, 0], rel[:, 1]) - self._d
        if len(gaps) < 3 or not np.isfinite(gaps).all():
            return None
        k = int(np.argmin(gaps))
        if k == len(gaps) - 1 or gaps[k] > self.config.touch_tolerance_mm:
            return None
        if gaps[-1] - gaps[k] < _OPENED_MM:
            return None
        step = times[k] - times[k - 1] if k else 0.5 * (times[1] - times[0])
        return float(times[k]), float(step)

    def _blocked(self, ra: int, rb: int, tau: float) -> bool:
        """Whether, carried on from f0 for ``tau`` s, ``ra`` or ``rb`` overlaps another ball
        (by more than the touch tolerance): its path to the other went through that ball."""
        live, p0, v = self._scene
        carried = p0 + v * tau
        for r in (ra, rb):
            i = int(np.searchsorted(live, r))
            if not v[i].any():
                continue
            dist = np.hypot(*(carried - carried[i]).T)
            dist[i] = np.inf
            dist[live == (rb if r == ra else ra)] = np.inf
            if np.any(dist < self._d - self.config.touch_tolerance_mm):
                return True
        return False

    def _along_centres(self, p0, v_before, v_out, tau, noise) -> bool:
        """A contact pushes along the line of centres (friction throws only a few degrees), each
        ball away from the other: at least one of the two balls must have changed velocity
        mostly so. Two balls kicked side by side by a third are not touching each other, and a
        ball whose noisy velocity jumps toward the ball ahead of it has not hit it."""
        at_touch = (p0[1] + v_before[1] * tau) - (p0[0] + v_before[0] * tau)
        n = at_touch / max(float(np.hypot(*at_touch)), 1e-9)
        for k, away in ((0, -n), (1, n)):
            change = v_out[k] - v_before[k]
            size = float(np.hypot(*change))
            if size > self.config.noise_sigmas * noise[k] and float(change @ away) >= 0.8 * size:
                return True
        return False


def _relative_positions(ra: int, rb: int, frames: list[TrackFrame]):
    """Ball ``rb``'s centre less ball ``ra``'s on ``frames`` (measured where seen, else the
    filter's): their times, the (n, 2) relative positions and the noise of one (two centres'
    noise, the median over the frames)."""
    t = np.array([f.time for f in frames])
    rel = np.empty((len(frames), 2))
    sigmas = []
    for k, f in enumerate(frames):
        pa = f.measured[ra] if f.seen[ra] else f.positions[ra]
        pb = f.measured[rb] if f.seen[rb] else f.positions[rb]
        rel[k] = pb - pa
        for r in (ra, rb):
            sig = f.measured_sigma[r] if f.seen[r] else f.sigma[r]
            sigmas.append(float(np.nan_to_num(sig, nan=2.0)))
    return t, rel, math.sqrt(2.0) * float(np.median(sigmas))
