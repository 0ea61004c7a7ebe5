"""How balls' motions end, for the segmenter: pocketed (and bounced back out), off the table
(over a cushion or touching the lamp), settled into a pocket on their own, and all at rest (the
shot's end, rule 3.15)."""

from __future__ import annotations

import math

import numpy as np

from calibration.table import Pocket
from rules.balls import BallId
from rules.events import EventKind, EvidenceSource, ShotEvent
from rules.table import PocketId
from tracking.cushion_contacts import CUSHION_K, REACH_MM, SLOW_K
from tracking.fits import fit_line
from tracking.geometry import Wall, touch_roots
from tracking.model import BALLS, BallStatus, TrackFrame

_GLANCE_MM = 6.0
"""The least a ball's last sighting may lie off the line it came in on, pushed out from a wall,
to show it glanced off that wall: several times a sighting's noise."""

_LEAVE_ONE_FROM = CUSHION_K + 1
"""The fewest sightings a line in (`Endings._straight_in`) may leave one of out: the rest are
as many as a line in is fitted to otherwise."""

_LAMP_REACH_MM = 15.0
"""How far below the lamp a ball's top may be seen and still have touched it: a 1 % error in
its apparent size is 10 mm of height at the lamp."""

SETTLE_REST_S = 5.0
"""A ball that drops after resting this long dropped on its own (second rule 3.21)."""


class Endings:
    """The segmenter's pockets, departures and rest: a part of `Segmenter`, working on the state its
    ``__init__`` sets up (the newest frames, the config, the table, what was found so far)."""

    def _departures(self, frame: TrackFrame) -> list[ShotEvent]:
        events = []
        for dep in frame.departures:
            kind = dep.kind
            if kind is EventKind.POCKETED and dep.rested_for >= SETTLE_REST_S:
                kind = EventKind.SETTLED_INTO_POCKET
            events.append(
                ShotEvent(
                    kind,
                    dep.time,
                    (dep.ball,),
                    cushion=dep.cushion,
                    pocket=dep.pocket,
                    confidence=dep.confidence,
                    time_uncertainty=dep.time_uncertainty,
                    source=dep.source,
                )
            )
            self._in_pocket.pop(BALLS.index(dep.ball), None)
            self._last_departure = max(self._last_departure, dep.time)
            if dep.kind is not EventKind.POCKETED:
                continue
            # Sightings up to the latest the ball can have dropped are of it on the slate; a
            # line in must reach the rubber before the likeliest drop, as a line reaching it
            # inside the drop's doubt is as likely to have met it after the fall.
            glance = self._last_glance(
                dep.ball, dep.time + dep.time_uncertainty
            ) or self._ran_into_jaw(dep.ball, dep.pocket, dep.time)
            if glance is not None:
                events.append(glance)
        return events

    def _lamp_touches(self, frame: TrackFrame) -> list[ShotEvent]:
        """Balls seen in the air as high as the lamp: off the table at that moment (3.28)."""
        camera, lamp = self.config.camera_height_mm, self.config.light_height_mm
        if camera is None or lamp is None or not self._in_shot:
            return []
        rows = np.flatnonzero(frame.airborne & frame.seen)
        if len(rows) == 0:
            return []
        rad = self._d / 2
        # The picture of a ball scales as one over its distance from the camera.
        top = camera - (camera - rad) / frame.growth[rows] + rad
        events = []
        for r in rows[top >= lamp - _LAMP_REACH_MM]:
            if int(r) in self._lamp_touched:
                continue
            self._lamp_touched.add(int(r))
            events.append(
                ShotEvent(
                    EventKind.LEFT_TABLE,
                    frame.time,
                    (BALLS[r],),
                    confidence=0.8,
                    time_uncertainty=frame.time - self._frames[-2].time,
                    source=EvidenceSource.VISION,
                )
            )
        return events

    def _last_glance(self, ball: BallId, dropped: float) -> ShotEvent | None:
        """The cushion contact of a ball that glanced off a jaw (or a nose by a pocket) and
        dropped (by ``dropped`` at the latest) before two more frames showed it: its last
        sighting on the slate lies off the line it came in on, pushed back out from a wall that
        line would have reached by then. Nothing else turns a ball there (a ball it hit would
        have been a contact). Sightings past the shelf, or after the drop (a pocket's sensor
        times it), do not count: a falling ball's picture drifts with nothing touched."""
        r = BALLS.index(ball)
        window = self._window
        n = len(window)
        times, seen = window.times[-n:], window.seen[-n:, r]
        pts = window.measured[-n:, r]
        idx = np.flatnonzero(seen & (times <= dropped))
        while len(idx) >= 3 and self._past_shelf(pts[idx[-1]]):
            idx = idx[:-1]
        if len(idx) < 3:
            return None
        last = int(idx[-1])
        before = idx[:-1][times[idx[:-1]] > self._last_ball_contact(r)][-CUSHION_K:]
        if len(before) < 2:
            return None
        opening = self._slate_opening(pts[last])
        sigma = float(np.nanmedian(window.measured_sigma[-n:, r][idx]))
        line = self._straight_in(times, pts, before, sigma)
        if opening is False or line is None:
            return None
        velocity, start, t0, noise = line
        predicted = start + velocity * (times[last] - t0)
        deviation = pts[last] - predicted
        if opening is not None:
            # At the drop a ball is seen badly along the pocket (the jaw hides part of it, and
            # past the edge it falls away): only its way across the pocket counts.
            axis = np.array(opening.axis)
            deviation -= (deviation @ axis) * axis
        # The prediction's noise: the line's centre, and its slope carried forward.
        ahead = math.hypot(sigma / math.sqrt(len(before)), noise * (times[last] - t0))
        push_least = max(_GLANCE_MM, self.config.noise_sigmas * ahead)
        wall = self._pushed_off(pts[last], predicted, deviation, velocity, push_least)
        if wall is None:
            return None
        # When the line it came in on put its centre one radius from the wall.
        vn = float(velocity @ wall.normal)
        t = t0 + (float((start - wall.start) @ wall.normal) - self._d / 2) / -vn
        t = float(np.clip(t, times[before[-1]], times[last]))
        if not self._new_rebound(r, wall.cushion, t, sigma):
            return None
        return ShotEvent(
            EventKind.BALL_CUSHION,
            t,
            (ball,),
            cushion=wall.cushion,
            confidence=0.8,
            time_uncertainty=0.5 * (times[last] - times[before[-1]]),
        )

    def _ran_into_jaw(
        self, ball: BallId, pocket: PocketId | None, dropped: float
    ) -> ShotEvent | None:
        """The cushion contact of a ball whose straight line in, carried on, reaches a wall (a
        jaw's face or point, or a nose by the pocket) before the drop (where the line crosses
        the shelf, or ``dropped``, when a sensor says it fell sooner): it cannot have passed
        through the rubber, so it glanced off it on the way in, too late for any sighting on
        the slate to show the turn."""
        if pocket is None:
            return None
        spec = self.table.pocket(pocket)
        r = BALLS.index(ball)
        window = self._window
        n = len(window)
        times, pts = window.times[-n:], window.measured[-n:, r]
        idx = np.flatnonzero(window.seen[-n:, r])
        mouth, axis = np.asarray(spec.mouth_centre), np.asarray(spec.axis)
        on_slate = idx[
            (times[idx] > self._last_ball_contact(r)) & ((pts[idx] - mouth) @ axis < spec.shelf)
        ]
        if len(on_slate) < 3:
            return None
        sigma = float(np.nanmedian(window.measured_sigma[-n:, r][idx]))
        # The last sighting on the slate may already be past the glance, a little off the line;
        # one a little further back may be one of the detector's few far-off centres.
        runs = (on_slate[-CUSHION_K:], on_slate[-CUSHION_K - 1 : -1], on_slate[-CUSHION_K - 2 : -1])
        for run in runs:
            line = self._straight_in(times, pts, run, sigma)
            if line is not None:
                break
        else:
            return None
        velocity, start, t0, _ = line
        inward = float(velocity @ axis)
        if inward <= 0:
            return None
        t_drop = min(t0 + (spec.shelf - float((start - mouth) @ axis)) / inward, dropped)
        hit = self._first_wall_hit(
            spec, pts[run[-1]], (velocity, start, t0), times[run[-2]], t_drop
        )
        if hit is None or not self._new_rebound(r, hit[1].cushion, hit[0], sigma):
            return None
        return ShotEvent(
            EventKind.BALL_CUSHION,
            hit[0],
            (ball,),
            cushion=hit[1].cushion,
            confidence=0.7,
            time_uncertainty=0.5 * (t_drop - times[run[-1]]),
        )

    def _first_wall_hit(self, spec: Pocket, at: np.ndarray, line, t_from: float, t_drop: float):
        """(time, wall) of the first wall a ball moving along ``line`` (velocity, a point on it,
        that point's time) from near ``at`` touches between ``t_from`` and ``t_drop``: a face of
        the pocket's jaws or a nose along ``at``, or a jaw's point; None if it touches none."""
        velocity, start, t0 = line
        rad = self._d / 2
        mouth = np.asarray(spec.mouth_centre)
        jaws = [w for w in self._geo.walls if w.mouth is not None and np.allclose(w.mouth, mouth)]
        along = [self._geo.walls[w] for w in self._geo.walls_along(at)]
        hits = []
        for wall in {id(w): w for w in jaws + along}.values():
            vn = float(velocity @ wall.normal)
            dist0 = float((start - wall.start) @ wall.normal)
            if vn > -self.config.min_rebound_mm_s or dist0 + vn * (t_drop - t0) > rad:
                continue  # not going into it, or clear of it all the way to the drop
            t = t0 + (dist0 - rad) / -vn
            s = float((start + velocity * (t - t0) - wall.start) @ wall.along)
            if 0.0 <= s <= float(wall.along @ wall.along):
                hits.append((t, wall))
        for wall in jaws:
            # The jaw's point, where its face meets the nose: a ball can strike it square.
            roots = touch_roots(start - wall.start, velocity, rad)
            if roots:
                hits.append((t0 + roots[0], wall))
        hits = [h for h in hits if t_from <= h[0] < t_drop]
        return min(hits, key=lambda h: h[0], default=None)

    def _straight_in(self, times, pts, run, sigma: float):
        """(velocity, a point on the line, that point's time, the velocity's noise) of a line
        through the sightings ``run`` of a ball, or None when they lie on no straight line (a
        turn among them). One sighting of four or more may be left out: a fast ball's centre
        is found a few millimetres off now and then (the detector's tail), and one such
        sighting bends the line too far to carry it on to a jaw."""
        most = self.config.noise_sigmas * sigma
        line, worst = _line_through(times, pts, run, sigma)
        if worst <= most or len(run) < _LEAVE_ONE_FROM:
            return line if worst <= most else None
        line, worst = min(
            (_line_through(times, pts, np.delete(run, k), sigma) for k in range(len(run))),
            key=lambda fit: fit[1],
        )
        return line if worst <= most else None

    def _last_ball_contact(self, r: int) -> float:
        """When ball ``r`` last touched another ball (-inf: not in the frames kept)."""
        return max((t for t, pair in self._contact_times if r in pair), default=-math.inf)

    def _pushed_off(
        self,
        seen: np.ndarray,
        predicted: np.ndarray,
        deviation: np.ndarray,
        velocity: np.ndarray,
        push_least: float,
    ) -> Wall | None:
        """The wall a ball seen at ``seen``, where its line in put it at ``predicted``, was
        pushed off: one the ball was rolling into and that line reached, ``deviation`` pushing
        the ball back out from it by at least ``push_least`` (the most, of several). A rubber
        gives back no more than it took: the push is at most twice the line's run into the
        rubber, give or take ``push_least`` (a line stopping short of it pushes nothing)."""
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        best, best_push = None, push_least
        # (Of two noses on one line, pushing alike, the one the ball is beside comes first and
        # names the touch: `walls_along` orders them so.)
        for w in self._geo.walls_along(seen):
            wall = self._geo.walls[w]
            into = float(velocity @ wall.normal) <= -self.config.min_rebound_mm_s
            run_in = rad - float((predicted - wall.start) @ wall.normal)
            pushed = float(deviation @ wall.normal)
            reached = run_in >= -tol
            given_back = pushed <= 2 * run_in + push_least
            stronger = pushed >= push_least and (best is None or pushed > best_push)
            if into and reached and given_back and stronger:
                best, best_push = wall, pushed
        return best

    def _past_shelf(self, p: np.ndarray) -> bool:
        """Whether a centre seen at ``p`` lies past a pocket's drop, with no slack."""
        return self._slate_opening(p, slack=0.0) is False

    def _slate_opening(self, p: np.ndarray, slack: float | None = None) -> Pocket | bool | None:
        """Where a centre seen at ``p`` lies: on the cloth (None), in a pocket's opening short
        of the drop (that pocket), or past the drop (False: a falling ball's picture slides
        with nothing touched). A ball at the drop is seen less well (the jaw hides part of it):
        a sighting up to ``slack`` (default: the touch tolerance) past the edge still counts as
        on the shelf."""
        pocket = self._geo.pocket_at(float(p[0]), float(p[1]))
        if pocket is None:
            return None
        spec = self.table.pocket(pocket)
        depth = spec.depth_of((float(p[0]), float(p[1])))
        slack = self.config.touch_tolerance_mm if slack is None else slack
        return spec if depth < spec.shelf + slack else False

    def _rebounds(self, f1: TrackFrame) -> list[ShotEvent]:
        """A ball whose centre went inside a pocket opening and came back onto the table."""
        events = []
        # Only a centre within a ball width of a nose line can be in an opening (`pocket_at`).
        edge = self._geo.near_edge(f1.positions, self._geo.d)
        for r in np.flatnonzero(f1.on_table & f1.seen & (edge | bool(self._in_pocket))):
            p = f1.positions[r]
            pocket = self._geo.pocket_at(float(p[0]), float(p[1])) if edge[r] else None
            if pocket is not None:
                self._in_pocket[int(r)] = (pocket, f1.time)
            elif int(r) in self._in_pocket and self.table.on_playing_surface((p[0], p[1])):
                pocket_id, since = self._in_pocket.pop(int(r))
                events.append(
                    ShotEvent(
                        EventKind.POCKET_REBOUND,
                        f1.time,
                        (BALLS[r],),
                        pocket=pocket_id,
                        confidence=0.8,
                        time_uncertainty=max(f1.time - since, 0.0),
                        source=EvidenceSource.VISION,
                    )
                )
        return events

    def _slow_rebound_pending(self) -> bool:
        """True while a frame the long-window rebound test has still to judge shows a slow ball
        moving within reach of a cushion line, or a soft rebound found waits for it
        (`HeldRebound`): the shot's events are all out before it ends."""
        if self._held_rebounds:
            return True
        reach = self._d / 2 + self.config.touch_tolerance_mm + REACH_MM
        half = np.array([self._geo.hx, self._geo.hy])
        for f in list(self._frames)[-SLOW_K - 1 :]:
            rows = f.moving & f.on_table
            if rows.any():
                p = f.positions[rows]
                gap = np.minimum(half - p, half + p)
                if np.any(gap <= reach):
                    return True
        return False

    def _rest(self, frame: TrackFrame, final: bool = False) -> list[ShotEvent]:
        if not self._in_shot:
            return []
        events = []
        on = frame.on_table
        resting = ~np.isnan(frame.rest_since)
        for r in np.flatnonzero(on & resting):
            if int(r) not in self._rest_reported and frame.rest_since[r] > self._strike_time:
                self._rest_reported.add(int(r))
                events.append(
                    ShotEvent(
                        EventKind.BALL_AT_REST,
                        float(frame.rest_since[r]),
                        (BALLS[r],),
                        time_uncertainty=0.1,
                    )
                )
        # A slow rebound is judged SLOW_K frames late: the shot stays open until that is done
        # for any ball that was moving near a cushion.
        if (
            np.all(resting[on])
            and not any(
                s is BallStatus.HIDDEN and frame.moving[i] for i, s in enumerate(frame.status)
            )
            and (final or not self._slow_rebound_pending())
        ):
            times = frame.rest_since[on & resting]
            latest = max(self._strike_time, self._last_departure)
            end = float(max(np.max(times), latest)) if len(times) else latest
            events.append(ShotEvent(EventKind.ALL_AT_REST, end, time_uncertainty=0.1))
            self._in_shot = False
        return events


def _line_through(times, pts, run, sigma: float):
    """`Endings._straight_in`'s line through every sighting of ``run``, and the farthest any
    lies off it."""
    vx, _, t0, x0 = fit_line(times[run], pts[run, 0], sigma)
    vy, noise, _, y0 = fit_line(times[run], pts[run, 1], sigma)
    velocity, start = np.array([vx, vy]), np.array([x0, y0])
    off_line = pts[run] - (start + np.outer(times[run] - t0, velocity))
    return (velocity, start, t0, noise), float(np.max(np.hypot(*off_line.T)))
