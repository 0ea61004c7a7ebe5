"""How balls' motions end, for the segmenter: pocketed (and bounced back out), off the table
(over a cushion or touching the lamp), settled into a pocket on their own, and all at rest (the
shot's end, rule 3.15)."""

from __future__ import annotations

import math

import numpy as np

from calibration.table import Pocket
from rules.balls import BallId
from rules.events import EventKind, EvidenceSource, ShotEvent
from tracking.cushion_contacts import CUSHION_K, REACH_MM, SLOW_K
from tracking.fits import fit_line
from tracking.geometry import Wall
from tracking.model import BALLS, BallStatus, TrackFrame

_GLANCE_MM = 6.0
"""The least a ball's last sighting may lie off the line it came in on, pushed out from a wall,
to show it glanced off that wall: several times a sighting's noise."""

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
            if dep.kind is EventKind.POCKETED and (glance := self._last_glance(dep.ball)):
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

    def _last_glance(self, ball: BallId) -> ShotEvent | None:
        """The cushion contact of a ball that glanced off a jaw (or a nose by a pocket) and
        dropped before two more frames showed it: its last sighting on the slate lies off the
        line it came in on, pushed back out from a wall that line would have reached by then.
        Nothing else turns a ball there (a ball it hit would have been a contact)."""
        r = BALLS.index(ball)
        window = self._window
        n = len(window)
        times, seen = window.times[-n:], window.seen[-n:, r]
        pts = window.measured[-n:, r]
        idx = np.flatnonzero(seen)
        if len(idx) < 3:
            return None
        last = int(idx[-1])
        contacts = [t for t, pair in self._contact_times if r in pair]
        since = max((t for t in contacts if t < times[last]), default=-math.inf)
        before = idx[:-1][times[idx[:-1]] > since][-CUSHION_K:]
        if len(before) < 2:
            return None
        opening = self._slate_opening(pts[last])
        if opening is False:
            return None
        sigma = float(np.nanmedian(window.measured_sigma[-n:, r][idx]))
        vx, _, t0, x0 = fit_line(times[before], pts[before, 0], sigma)
        vy, noise, _, y0 = fit_line(times[before], pts[before, 1], sigma)
        velocity, start = np.array([vx, vy]), np.array([x0, y0])
        off_line = pts[before] - (start + np.outer(times[before] - t0, velocity))
        if np.max(np.hypot(off_line[:, 0], off_line[:, 1])) > self.config.noise_sigmas * sigma:
            return None  # it came in on no straight line (a bad sighting, or a turn): no judging
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
        the ball back out from it by at least ``push_least`` (the most, of several)."""
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        best, best_push = None, push_least
        for w in self._geo.walls_along(seen):
            wall = self._geo.walls[w]
            into = float(velocity @ wall.normal) <= -self.config.min_rebound_mm_s
            reached = float((predicted - wall.start) @ wall.normal) - rad <= tol
            pushed = float(deviation @ wall.normal)
            if into and reached and pushed >= best_push:
                best, best_push = wall, pushed
        return best

    def _slate_opening(self, p: np.ndarray) -> Pocket | bool | None:
        """Where a centre seen at ``p`` lies: on the cloth (None), in a pocket's opening short
        of the drop (that pocket), or past the drop (False: a falling ball's picture slides
        with nothing touched). A ball at the drop is seen less well (the jaw hides part of it):
        a sighting up to the touch tolerance past the edge still counts as on the shelf."""
        pocket = self._geo.pocket_at(float(p[0]), float(p[1]))
        if pocket is None:
            return None
        spec = self.table.pocket(pocket)
        depth = spec.depth_of((float(p[0]), float(p[1])))
        return spec if depth < spec.shelf + self.config.touch_tolerance_mm else False

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
        moving within reach of a cushion line."""
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
