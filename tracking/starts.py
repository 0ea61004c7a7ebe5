"""Balls set moving, for the segmenter: the cue strike (the cue ball leaving rest with no ball
contact to explain it, never a ball-ball contact), balls disturbed with nothing near them (rule
3.21), balls found moved while out of sight, and balls already moving at the strike."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from rules.balls import BallId
from rules.events import EventKind, ShotEvent
from tracking.model import BALLS, CUE_ROW, BallStatus, TrackFrame

_SOFT_APPROACH = 0.2
"""The least cosine between a ball's way in and the line to a resting ball for it to have hit
that ball softly (a cut as thin as 78 degrees)."""

_SOFT_LOOKBACK = 3
"""Frames back over which a soft hitter's way in is measured."""

_SOFT_MIN_WAY_MM = 3.0
"""The least way in (mm) over those frames that shows a direction above the noise."""

_AFTER_STRIKE_S = 2e-4
"""How long after the strike a ball (nearly) frozen to the cue ball is touched: the cue ball
covers a fraction of a millimetre first."""

_RESTART_S = 0.5
"""A cue ball leaving rest this soon after it stopped, in a shot still going on, was never still:
players do not strike a ball that has just stopped rolling."""

_PLACING_S = 0.5
"""A cue ball put on the table this recently is still in the hand's reach: no stroke yet."""

_DISPLACED_WAIT_S = 0.05
"""How long after a ball is found moved out of sight its displacement is judged: the contacts
of the frames it came back in are found a frame or two later."""

_CROSSED_D = 0.8
"""A ball whose centre comes within this (in ball diameters) of the spot of a ball lying out of
sight ran over that spot: the two would have met. (A ball put down touching it, or rolling past
it within the noise, comes to a diameter.)"""

_SEEN_STILL_S = 0.25
"""How long a ball must be seen still before it counts as having been at rest: the tracker's
rest window (a line fitted over it measures a speed to about 5 mm/s)."""


class Starts:
    """The segmenter's strikes and disturbances: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the newest frames, the config, the table, what was found so far)."""

    def _moving_when_found(self, r: int, f0: TrackFrame) -> bool:
        """Ball ``r`` moved off the spot where it came into view before it could be seen
        still: it was moving already (the recording began, or it was put back on the table,
        mid-motion), not set moving now."""
        since = self._in_view_since.get(r, -math.inf)
        return f0.rest_since[r] <= since and f0.time - since < _SEEN_STILL_S

    def _starts(self, f0, f1, f2, contacts: list[ShotEvent]) -> list[ShotEvent]:
        """Balls that left rest in (f0, f1]: the cue strike, or a disturbance. A ball found
        moved as it comes back into sight left rest out of sight: `_displaced` judges it."""
        events = []
        found_moved = {d.ball for d in f1.displaced}
        started = [
            r
            for r in range(len(BALLS))
            if f0.status[r] in (BallStatus.AT_REST, BallStatus.HIDDEN)
            and not math.isnan(f0.rest_since[r])
            and f1.status[r] is BallStatus.MOVING
            and BALLS[r] not in found_moved
        ]
        # A ball set moving by a contact was hit by a ball that was already moving (or by the
        # cue ball, once it is struck in this very interval).
        moving_before = {BALLS[r] for r in np.flatnonzero(f0.moving)}
        if CUE_ROW in started and self._creeping_since_strike(f0):
            # Struck through a ball frozen to it, the cue ball follows at a crawl the tracker
            # takes for rest; its start now is that strike's, not a new one.
            started.remove(CUE_ROW)
        if CUE_ROW in started and BallId.CUE not in self._explained(
            contacts, moving_before, f0, f1
        ):
            moving_before.add(BallId.CUE)
            started = [CUE_ROW] + [r for r in started if r != CUE_ROW]
        explained = self._explained(contacts, moving_before - {BallId.CUE}, f0, f1)
        explained_others = self._explained(contacts, moving_before, f0, f1) - {BallId.CUE}
        explained = (explained & {BallId.CUE}) | explained_others
        for r in started:
            ball = BALLS[r]
            if ball in explained or self._held.get(r, -math.inf) >= f0.time:
                continue  # set moving by a contact, or a ball of a rack that was hit
            t, unc = self._start_time(r, f0, f1, f2)
            if r == CUE_ROW:
                # A ball frozen to the cue ball is touched just after the strike, never before.
                cue_contacts = [e.time for e in contacts if BallId.CUE in e.balls]
                if cue_contacts:
                    t = max(f0.time, min(t, min(cue_contacts) - 1e-4))
                events.append(self._strike(t, unc, f0))
            elif self._frozen_to_cue(r, f0) and self._cue_just_placed(f0):
                # The hand that put the cue ball down beside it nudged it: nobody strikes a
                # cue ball the moment it is put down (3.22).
                if abs(t - self._disturbed_last.get(r, -math.inf)) >= 1.0:
                    events.append(self._disturbance(r, t, unc))
            elif self._frozen_to_cue(r, f0):
                # Struck through a ball frozen to it, the cue ball hardly moves: the frozen
                # ball's start is the strike, and the contact follows it.
                touch = [e for e in contacts if set(e.balls) == {BallId.CUE, ball}]
                if touch:
                    t = max(f0.time, min(t, touch[0].time - 1e-4))
                else:
                    events.append(
                        ShotEvent(
                            EventKind.BALL_BALL,
                            t + 1e-4,
                            (BallId.CUE, ball),
                            confidence=0.8,
                            time_uncertainty=unc,
                        )
                    )
                    self._pair_last[(CUE_ROW, r)] = t
                events.append(self._strike(t, unc, f0))
            elif (soft := self._soft_contact(r, f0, f1, f2)) is not None:
                # Timed by one frame's step, it waits for the long windows (`_checked`), as
                # the pair test's contacts with a resting ball do.
                self._unchecked.append(soft)
            elif (
                self._clear_of_others(r, f0)
                and not self._moving_when_found(r, f0)
                and not self._vision_jump(r, f0, f1, f2)
                and not self._still_going(r, f0)
                and t - self._disturbed_last.get(r, -math.inf) >= 1.0
            ):
                events.append(self._disturbance(r, t, unc))
        return events

    def _late_strike(self) -> list[ShotEvent]:
        """The cue strike in the frames kept, judged already, when none was found since: the
        cue ball leaving rest there, under another ball's name then (`Segmenter._rename`)."""
        frames = list(self._frames)
        if self._in_shot:
            return []
        for f0, f1, f2 in zip(frames, frames[1:], frames[2:], strict=False):
            left_rest = f0.status[CUE_ROW] in (BallStatus.AT_REST, BallStatus.HIDDEN)
            left_rest &= not math.isnan(f0.rest_since[CUE_ROW])
            if left_rest and f1.status[CUE_ROW] is BallStatus.MOVING:
                return [self._strike(*self._start_time(CUE_ROW, f0, f1, f2), f0)]
        return []

    def _disturbance(self, r: int, t: float, unc: float) -> ShotEvent:
        """Ball ``r`` set moving at ``t`` by nothing on the table (3.21, 3.22), noted so the
        same disturbance is not reported twice."""
        self._disturbed_last[r] = t
        return ShotEvent(
            EventKind.BALL_DISTURBED, t, (BALLS[r],), confidence=0.8, time_uncertainty=unc
        )

    def _after_strike(
        self, contacts: list[ShotEvent], starts: list[ShotEvent], f0: TrackFrame
    ) -> list[ShotEvent]:
        """A contact with a ball frozen or nearly frozen to the cue ball, solved at (or a
        rounding before) the strike found in the same interval, moved just after it: the cue ball
        touches that ball only once struck, and the strike itself never counts as a contact
        (rule 3.18)."""
        strikes = [e.time for e in starts if e.kind is EventKind.CUE_STRIKE]
        if not strikes:
            return contacts
        strike = strikes[0]
        out = []
        for e in contacts:
            if BallId.CUE in e.balls and e.time <= strike:
                other = f0.row(e.other(BallId.CUE))
                if self._frozen_to_cue(other, f0):
                    e = dataclasses.replace(e, time=strike + _AFTER_STRIKE_S)
            out.append(e)
        return out

    def _creeping_since_strike(self, f0: TrackFrame) -> bool:
        """True when the cue ball, in the shot still going on, never truly stopped: not seen to
        leave rest since before the strike (it crawled after a ball frozen to it), or at rest
        only a moment (a slow rebound or a crawl fooled the rest test)."""
        rest_since = float(f0.rest_since[CUE_ROW])
        return self._in_shot and (
            rest_since <= self._strike_time or f0.time - rest_since < _RESTART_S
        )

    def _still_going(self, r: int, f0: TrackFrame) -> bool:
        """True when a ball leaving rest was never left alone: at rest only a moment in the
        shot still going on (a crawl or a noisy sample fooled the rest test), or touched by a
        ball or a cushion since it came to rest (a ball frozen to a cushion, struck into it,
        comes off it slowly, frames after the contact)."""
        rest_since = float(f0.rest_since[r])
        if self._in_shot and f0.time - rest_since < _RESTART_S:
            return True
        pairs = (t for (ra, rb), t in self._pair_last.items() if r in (ra, rb))
        cushions = (t for (rc, _), t in self._cushion_last.items() if rc == r)
        return any(t >= rest_since for t in (*pairs, *cushions))

    def _explained(self, contacts, moving_before, f0, f1) -> set[BallId]:
        """Balls whose start a contact with an already moving ball explains."""
        explained = {
            b
            for e in contacts
            for b in e.balls
            if any(o in moving_before for o in e.balls if o != b)
        }
        recent_window = f0.time - 2 * (f1.time - f0.time)
        for (ra, rb), t in self._pair_last.items():
            if t >= recent_window:
                if BALLS[rb] in moving_before or BALLS[rb] in explained:
                    explained.add(BALLS[ra])
                if BALLS[ra] in moving_before or BALLS[ra] in explained:
                    explained.add(BALLS[rb])
        return explained

    def _strike(self, t: float, unc: float, f0: TrackFrame) -> ShotEvent:
        self._in_shot = True
        self._strike_time = t
        self._rest_reported.clear()
        self._lamp_touched.clear()
        return ShotEvent(
            EventKind.CUE_STRIKE, t, (BallId.CUE,), confidence=0.95, time_uncertainty=unc
        )

    def _start_time(self, r, f0, f1, f2) -> tuple[float, float]:
        """Solve when the ball left its rest spot: carry its first velocity back to it."""
        dt = f1.time - f0.time
        rest = f0.positions[r]
        p1, p2 = f1.positions[r], f2.positions[r]
        v = (p2 - p1) / max(f2.time - f1.time, 1e-6)
        speed = float(np.hypot(*v))
        if speed <= 0 or np.isnan(speed):
            return f1.time - dt / 2, dt / 2
        back = float(np.hypot(*(p1 - rest))) / speed
        t = float(np.clip(f1.time - back, f0.time, f1.time))
        return t, min(dt / 2, dt / 4 + float(np.nan_to_num(f1.sigma[r], nan=2.0)) / speed)

    def _cue_just_placed(self, f0: TrackFrame) -> bool:
        """The cue ball was put on the table (came into view after the first frame) less than
        `_PLACING_S` ago."""
        since = self._in_view_since.get(CUE_ROW, -math.inf)
        return since > self._first_time and f0.time - since < _PLACING_S

    def _frozen_to_cue(self, r: int, f0: TrackFrame) -> bool:
        if not f0.on_table[CUE_ROW] or f0.moving[CUE_ROW]:
            return False
        gap = float(np.hypot(*(f0.positions[r] - f0.positions[CUE_ROW]))) - self._d
        return gap <= self.config.touch_tolerance_mm

    def _vision_jump(self, r: int, f0: TrackFrame, f1: TrackFrame, f2: TrackFrame) -> bool:
        """A resting ball measured a step away and then still there: vision moved, not the ball.

        Once set moving, a ball only slows (until something hits it), and the cloth cannot
        stop in one frame a ball that covered centimetres in the one before. A big step from
        the rest spot followed by no motion at all is a detection that jumped (a ghost, a
        mis-centred outline), not a ball touched.
        """
        before = f0.positions[r]  # the rest spot
        if not (f1.seen[r] and f2.seen[r]) or np.isnan(before).any():
            return False
        first = float(np.hypot(*(f1.measured[r] - before)))
        second = float(np.hypot(*(f2.measured[r] - f1.measured[r])))
        sigma = float(np.nanmax([f1.measured_sigma[r], f2.measured_sigma[r], 1.0]))
        # A slow ball is confirmed moving only frames after it left, so its first step spans
        # several frames: it must also have stopped dead after it to be a jump.
        return first > 2.0 * second + 4.0 * sigma and second < 2.0 * sigma

    def _soft_contact(self, r: int, f0, f1, f2) -> ShotEvent | None:
        """A resting ball that left rest with a moving ball touching it was hit by that ball,
        even when neither velocity changed by more than one frame's noise: a slow ball nudging
        another (a few cm/s each) kicks it too softly for the pair test, and the tracker sees
        it leave rest frames later. The time is carried back from the struck ball's motion."""
        rest = f0.positions[r]
        reach = self._d + self.config.touch_tolerance_mm
        # Only a ball already rolling, and rolling at it, can have hit it (two balls set off
        # together, touching side by side, did not).
        movers = np.flatnonzero(f0.moving & f0.on_table)
        movers = movers[movers != r]
        if len(movers) == 0:
            return None
        to_rest = rest - f0.positions[movers]
        # Its way here over the last frames: one frame's filtered velocity near a ball is noisy.
        earlier = self._frames[max(0, len(self._frames) - 3 - _SOFT_LOOKBACK)]
        way = f0.positions[movers] - earlier.positions[movers]
        closing = np.einsum("mi,mi->m", to_rest, way)
        closing /= np.maximum(np.hypot(*to_rest.T) * np.hypot(*way.T), 1e-9)
        closing[np.hypot(*way.T) < _SOFT_MIN_WAY_MM] = 0.0
        gaps = np.minimum(np.hypot(*to_rest.T), np.hypot(*(f1.positions[movers] - rest).T))
        gaps[closing < _SOFT_APPROACH] = np.inf
        if np.nanmin(gaps) > reach:
            return None
        hitter = int(movers[int(np.nanargmin(gaps))])
        key = (min(r, hitter), max(r, hitter))
        dt = f1.time - f0.time
        v = (f2.positions[r] - f1.positions[r]) / max(f2.time - f1.time, 1e-6)
        speed = float(np.hypot(*v))
        back = float(np.hypot(*(f1.positions[r] - rest))) / speed if speed > 0 else dt / 2
        t = float(np.clip(f1.time - back, f0.time - 4 * dt, f1.time))
        # The time is carried back up to four frames: one found near it is this one (a ball
        # nudged this softly may be taken for at rest again, and leave rest twice).
        if abs(t - self._pair_last.get(key, -math.inf)) < 3 * dt:
            return None
        self._pair_last[key] = t
        self._contact_times.append((t, key))
        a, b = BALLS[hitter], BALLS[r]
        if b is BallId.CUE:
            a, b = b, a
        return ShotEvent(EventKind.BALL_BALL, t, (a, b), confidence=0.7, time_uncertainty=dt)

    def _clear_of_others(self, r: int, f0: TrackFrame) -> bool:
        p = f0.positions[r]
        others = f0.on_table.copy()
        others[r] = False
        d = np.hypot(*(f0.positions[others] - p).T)
        return bool(np.all(d > self._d + self.config.disturb_clearance_mm))

    def _note_crossed(self, frame: TrackFrame) -> None:
        """Note when a rolling ball ran over the spot of a ball lying out of sight: had it still
        lain there, they would have met, so a ball found moved from there may have been
        struck there (both out of sight, its striker's turn unseen)."""
        if BallStatus.HIDDEN not in frame.status:
            return
        for r, status in enumerate(frame.status):
            if status is BallStatus.HIDDEN and not math.isnan(frame.rest_since[r]):
                # (Balls rolling, in sight or not: a ball at rest runs over nothing.)
                others = frame.on_table & np.isnan(frame.rest_since)
                gaps = np.hypot(*(frame.positions[others] - frame.positions[r]).T)
                if np.any(gaps < _CROSSED_D * self._d):
                    self._spot_crossed[r] = frame.time

    def _displaced(self, frame: TrackFrame, final: bool = False) -> list[ShotEvent]:
        """Resting balls the tracker found moved while out of sight (a hand over them): with
        no contact found with them meanwhile, and no ball run over their spot, touched (rules
        3.21, 3.22). Each is judged a few frames after it is reported (`_DISPLACED_WAIT_S`),
        when the contacts of the frames it came back in are found. A ball seen rolling out
        from under a hand clear of every ball (`Displacement.rolling`) needs no such check.
        ``final``: no frame follows ``frame`` (already folded): every one still waiting is
        judged now."""
        if not final:
            self._note_crossed(frame)
            self._displacements += [(frame.time, d) for d in frame.displaced]
        wait = 0.0 if final else _DISPLACED_WAIT_S
        due = [x for x in self._displacements if x[0] + wait <= frame.time]
        if not due:
            return []
        self._displacements = self._displacements[len(due) :]
        events = []
        for reported, d in due:
            r = frame.row(d.ball)
            span = (d.time - d.time_uncertainty - _DISPLACED_WAIT_S, reported + _DISPLACED_WAIT_S)
            struck = any(span[0] <= t <= span[1] for t in self._contacts_of(r))
            struck |= span[0] <= self._spot_crossed.get(r, -math.inf)
            if (struck and not d.rolling) or d.time - self._disturbed_last.get(r, -math.inf) < 1.0:
                continue
            self._disturbed_last[r] = d.time
            events.append(
                ShotEvent(
                    EventKind.BALL_DISTURBED,
                    d.time,
                    (d.ball,),
                    confidence=0.7,
                    time_uncertainty=d.time_uncertainty,
                )
            )
        return events
