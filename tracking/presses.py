"""Balls struck into a cushion, for the segmenter: a ball hit while against a cushion, or a
little way off it, rebounds within a frame or two of the hit, with no incoming motion for the
rebound test (`tracking.cushion_contacts`) to see. Its cushion contact is found from the push:
along the line from the striking ball, into the cushion, and the ball seen coming back out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.events import EventKind, ShotEvent
from rules.table import CushionId
from tracking.model import BALLS, TrackFrame

_FROZEN_MM = 4.0
"""A ball resting this close to a cushion nose is frozen to it as far as the camera can tell (a
resting ball is placed to a millimetre or two): struck into the cushion, it touches it at once.
One further off, driven in at a shallow angle, may take a third of a second to get there."""


@dataclass(frozen=True, slots=True)
class Press:
    """A ball struck toward a cushion a little way off, still going in at the newest frame:
    the next frame shows whether the cushion turned it back.

    Attributes:
        row: The ball.
        cushion: The cushion it was driven at.
        normal: That cushion's unit normal (toward the table).
        struck: When it was struck.
        seen_at: The newest frame's time, when it was still going in ...
        at: ... and where it was then.
        noise: Its velocity noise over one frame, mm/s.
    """

    row: int
    cushion: CushionId
    normal: np.ndarray
    struck: float
    seen_at: float
    at: np.ndarray
    noise: float


class Presses:
    """The segmenter's cushion contacts of struck balls: a part of `Segmenter`, working on the
    state its ``__init__`` sets up (the newest frames, the config, the cushions, the presses
    waiting for a frame)."""

    def _pressed(self, live, a, b, p0, v_before, v_out, noise, event, dt) -> list[ShotEvent]:
        """The cushion contacts of the two balls of a contact that were struck into a cushion."""
        out = []
        for k, other in ((a, b), (b, a)):
            pressed = self._pressed_into_cushion(
                live[k], p0[k], p0[other], v_before[k], v_out[k], noise[k], event.time, dt
            )
            if pressed is not None:
                out.append(pressed)
        return out

    def _pressed_into_cushion(self, r, p, other, v_before, v_out, noise, t, dt):
        """A ball struck while against a cushion, driven into it, rebounds at once: its
        cushion contact shares the frame interval of the ball-ball contact, with no incoming
        motion for `_cushion_contacts` to see. It is found by the push: along the line from the
        striking ball, into the cushion, and the ball not going on into it."""
        rad, tol = self._d / 2, self.config.touch_tolerance_mm
        if float(np.hypot(*v_before)) >= self.config.min_turn_mm_s:
            return None  # it was rolling: the rebound test sees its way in and out
        push = (p - other) / max(float(np.hypot(*(p - other))), 1e-9)
        leave = max(self.config.min_turn_mm_s, self.config.noise_sigmas * noise)
        for seg in self._cushions:
            n = np.array(seg.normal)
            start = np.array(seg.start)
            along = np.array(seg.end) - start
            if not 0.0 <= float((p - start) @ along / (along @ along)) <= 1.0:
                continue
            gap = float((p - start) @ n) - rad
            if float(push @ n) > -0.1 or gap > tol + 2 * dt * float(np.hypot(*v_out)):
                continue
            # Pushed into a cushion it is touching, it reaches it: a ball frozen there barely
            # moves at first (the cushion takes the push). One a little off must be seen coming
            # back out by the next frame, against the push (only the cushion can turn it so).
            back = float(v_out @ n)
            frozen = gap <= _FROZEN_MM
            if frozen and back < -0.5 * leave:
                continue
            clear = max(self.config.min_turn_mm_s, 1.5 * noise)
            if not frozen and back < clear:
                if back <= -clear:  # clearly still going in: the next frame may show it back
                    self._press_on(int(r), seg.id, n, t, noise)
                continue
            key = (int(r), seg.id)
            self._note_rebound(key, t)
            return ShotEvent(
                EventKind.BALL_CUSHION,
                t,
                (BALLS[r],),
                cushion=seg.id,
                confidence=0.8,
                time_uncertainty=dt,
            )
        return None

    def _press_on(self, r: int, cushion: CushionId, normal: np.ndarray, t: float, noise: float):
        """Ball ``r``, struck toward ``cushion`` at ``t``, is still going in at the newest
        frame: judge it on the next (`_pressed_later`). It may already have touched and be on
        its way back (ball, cushion and ball again within a frame or two)."""
        newest = self._frames[-1]
        if newest.seen[r]:
            at = newest.measured[r].copy()
            self._presses.append(Press(r, cushion, normal, t, newest.time, at, noise))

    def _pressed_later(self, frame: TrackFrame) -> list[ShotEvent]:
        """The cushion contacts of struck balls (`_press_on`) that this frame shows coming back
        out, against the push: only the cushion turns a ball so. A ball that met another ball
        on the cushion side of it may have come back off that one instead: not judged."""
        presses, self._presses = self._presses, []
        events = []
        for press in presses:
            r = press.row
            if press.seen_at >= frame.time:
                self._presses.append(press)
                continue
            dt = frame.time - press.seen_at
            if not frame.seen[r] or dt > 2.5 * (frame.time - self._frames[-2].time):
                continue
            back = float((frame.measured[r] - press.at) @ press.normal) / dt
            if back < max(self.config.min_turn_mm_s, 1.5 * press.noise):
                continue
            if self._ball_toward(r, press.at, press.normal, frame):
                continue
            if not self._new_rebound(r, press.cushion, frame.time, float(frame.measured_sigma[r])):
                continue
            events.append(
                ShotEvent(
                    EventKind.BALL_CUSHION,
                    0.5 * (press.struck + frame.time),
                    (BALLS[r],),
                    cushion=press.cushion,
                    confidence=0.7,
                    time_uncertainty=0.5 * (frame.time - press.struck),
                )
            )
        return events

    def _ball_toward(self, r: int, at: np.ndarray, normal: np.ndarray, frame: TrackFrame) -> bool:
        """Whether another ball lies within a ball width and a half of ``at``, on the cushion
        side of it (toward -``normal``)."""
        others = np.flatnonzero(frame.on_table)
        others = others[others != r]
        offset = frame.positions[others] - at
        near = np.hypot(offset[:, 0], offset[:, 1]) < 1.5 * self._d
        return bool(np.any(near & (offset @ normal < 0)))
