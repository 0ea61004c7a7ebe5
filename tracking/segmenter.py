"""The shot-event segmenter: TrackFrame -> list[ShotEvent], one frame at a time.

It works one frame behind the tracker, so that every frame interval (t0, t1] it judges has a clean
velocity on each side: before = the step into t0, after = the step out of t1. A contact is a pair
of balls (or a ball and a cushion nose) that reach touching distance inside the interval and whose
velocities change there. The time is solved inside the interval: when the two centres, carried on
with their incoming velocities, are one diameter apart (and, from the outgoing side, carried back);
for a cushion, when the centre is one radius from the nose line. Each event's time_uncertainty is
honest about the frame interval and the position noise.

The cue strike is the cue ball leaving rest with no ball contact to explain it; it is never a
ball-ball contact. A ball leaving rest with nothing near it is disturbed (rule 3.21). All balls at
rest ends the shot (rule 3.15): the tracker's rest test (`TrackerConfig.rest_window`) decides a
ball is still, and the event's time is when the last ball stopped.

The work is split by kind of event, one part of the `Segmenter` class per module over the state
set up here: `tracking.ball_contacts`, `tracking.rack_contacts` (a rack or a pack hit),
`tracking.soft_contacts`, `tracking.cushion_contacts`, `tracking.arrivals` (a touch seen by the
line in alone), `tracking.chains` (touches a replay of the balls shows), `tracking.presses` (a
ball struck into a cushion), `tracking.starts` (strike, disturbances) and `tracking.endings`
(pockets, departures, rest).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from calibration.table import TableSpec
from rules.balls import BallId
from rules.events import ShotEvent
from tracking.arrivals import Arrivals
from tracking.ball_contacts import GAP_K, BallContacts, PendingContact
from tracking.chains import Chains
from tracking.cushion_contacts import CUSHION_K, SLOW_K, CushionContacts, HeldRebound
from tracking.endings import Endings
from tracking.geometry import TableCache
from tracking.model import BALLS, Displacement, TrackerConfig, TrackFrame
from tracking.presses import Press, Presses
from tracking.rack_contacts import RackContacts, RackHit
from tracking.soft_contacts import SoftContacts
from tracking.starts import Starts
from tracking.window import FrameWindow


@dataclass(frozen=True, slots=True)
class SegmenterConfig:
    """Settings of the segmenter.

    Attributes:
        touch_tolerance_mm: Extra centre distance, beyond one diameter (ball-ball) or one radius
            (cushion), still counted as touching: measurement noise plus cushion compression.
        min_turn_mm_s: Smallest velocity change (mm/s) counted as a contact's kick, on top of
            the noise of a velocity measured over one frame.
        min_rebound_mm_s: Smallest change of the velocity across a cushion counted as a
            rebound: lower than a ball-ball kick, as a rebound's normal velocity is fitted over
            several frames each side (a ball creeping into a cushion at 5 cm/s comes back at 3).
        noise_sigmas: The velocity change must also exceed this many noise standard deviations
            (with the velocity before a contact fitted over a few frames, four lost more true
            contacts than it spared false ones).
        disturb_clearance_mm: A ball that starts moving with no other ball within this gap
            (surface to surface) was disturbed, not hit.
        camera_height_mm: The camera's optical centre above the cloth (from the calibration):
            how much nearer a ball in the air is, from how much bigger it looks.
        light_height_mm: The lamp's underside above the cloth, when the venue gives it: a ball
            whose top gets there touched the lamp, and is off the table even though it comes
            back (3.28). None: no lamp is watched.
        rolling_decel: The cloth's rolling resistance, mm/s^2 (the tracker's): a slow ball's
            distance to a cushion bends with it over a rebound test's frames.
        sliding_decel: How fast a sliding ball slows, mm/s^2 (mu_s g: 0.2 x 9.81 m/s^2 on
            a usual cloth): a racked ball leaves the rack sliding, and a line through its next
            few centres gives its velocity some 60 mm/s under its launch's
            (`fits.launch_velocity`).
        ball_restitution: How much of a ball-ball contact's compression comes back (phenolic
            resin balls: 0.92-0.98): how a rack shares out a blow (`rack_contacts.shared_out`).
    """

    touch_tolerance_mm: float = 12.0
    min_turn_mm_s: float = 120.0
    min_rebound_mm_s: float = 60.0
    noise_sigmas: float = 3.5
    disturb_clearance_mm: float = 25.0
    camera_height_mm: float | None = None
    light_height_mm: float | None = None
    rolling_decel: float = TrackerConfig().rolling_decel
    sliding_decel: float = 1960.0
    ball_restitution: float = 0.95


class Segmenter(
    BallContacts,
    RackContacts,
    Presses,
    SoftContacts,
    Starts,
    CushionContacts,
    Arrivals,
    Chains,
    Endings,
):
    """Turns the tracker's frames into shot events: each kind of event is decided by one of
    its parts (ball-ball and cushion contacts, starts, endings), over the state kept here."""

    def __init__(self, table: TableSpec, config: SegmenterConfig | None = None) -> None:
        self.table = table
        self.config = config or SegmenterConfig()
        self._frames: deque[TrackFrame] = deque(maxlen=2 * max(CUSHION_K, GAP_K, SLOW_K) + 1)
        self._geo = TableCache(table)
        self._window = FrameWindow(self._frames.maxlen or 1, self._geo, table.ball_diameter)
        self._pending: list[PendingContact] = []
        self._presses: list[Press] = []
        self._ready: list[ShotEvent] = []
        self._unchecked: list[ShotEvent] = []  # marginal contacts held for `_checked`
        self._contact_times: list[tuple[float, tuple[int, int]]] = []
        self._touched: dict[int, float] = {}
        self._clusters: list[RackHit] = []
        self._scene: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            np.zeros(0, dtype=int),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
        )
        self._held: dict[int, float] = {}
        self._packed: dict[int, float] = {}  # balls of a pack hit, until it is solved
        self._rack_pairs: dict[tuple[int, int], float] = {}  # frozen pair -> held until
        self._in_shot = False
        self._pair_last: dict[tuple[int, int], float] = {}
        self._overlapped: dict[tuple[int, int], float] = {}  # pair -> when last seen overlapping
        self._cushion_last: dict[tuple[int, object], float] = {}
        self._in_pocket: dict[int, object] = {}
        self._rest_reported: set[int] = set()
        self._disturbed_last: dict[int, float] = {}
        # Balls found moved out of sight, with when: judged a few frames on (`_displaced`).
        self._displacements: list[tuple[float, Displacement]] = []
        self._spot_crossed: dict[int, float] = {}  # ball -> when a ball ran over its spot
        self._in_view_since: dict[int, float] = {}
        self._first_time = math.nan
        self._lamp_touched: set[int] = set()
        self._cushion_times: dict[tuple[int, object], list[float]] = {}
        self._arrived: dict[tuple[int, object], list[float]] = {}
        self._held_rebounds: dict[tuple[int, object], HeldRebound] = {}
        self._chained: set[tuple[float, tuple[int, ...]]] = set()  # contacts, touches replayed
        self._strike_time = -math.inf
        self._last_departure = -math.inf
        self._d = table.ball_diameter
        self._cushions = self._geo.cushions

    @property
    def in_shot(self) -> bool:
        """True between a cue strike and all balls at rest."""
        return self._in_shot

    def update(self, frame: TrackFrame) -> list[ShotEvent]:
        """Fold one track frame; return the events decided with it, in time order."""
        events: list[ShotEvent] = []
        for was, now in frame.renamed:
            events += self._rename(was, now)
        self._frames.append(frame)
        self._window.push(frame)
        self._note_arrivals(frame)
        events += self._departures(frame)
        events += self._lamp_touches(frame)
        events += self._displaced(frame)
        if len(self._frames) >= 3:
            f0, f1, f2 = self._frames[-3], self._frames[-2], self._frames[-1]
            contacts = self._ball_contacts(f0, f1, f2)
            starts = self._starts(f0, f1, f2, contacts)
            # Contacts are emitted once decided (`_confirmed`): the ones the strike moves are
            # replaced there.
            timed = self._after_strike(contacts, starts, f0)
            moved = dict(zip(map(id, contacts), timed, strict=True))
            self._ready = [moved.get(id(e), e) for e in self._ready]
            events += starts
        events += self._confirmed()
        events += self._pressed_later(frame)
        events += self._cushion_contacts()
        events += self._chain_touches()
        events += self._soft_contacts()
        events += self._checked()
        if len(self._frames) >= 3:
            events += self._rebounds(f1)
        events += self._rest(frame)
        events.sort(key=lambda e: e.time)
        return events

    def _rename(self, was: BallId, now: BallId) -> list[ShotEvent]:
        """The track the frames kept show as ``was`` is ``now``'s (`TrackFrame.renamed`): read
        them, and what was noted of each ball, so. A cue ball misnamed in the still frames
        before its strike is renamed only once it moves, maybe after its start was judged as
        another ball's: the strike is then found in the frames kept (`_late_strike`)."""
        frames = [f.swapped(was, now) for f in self._frames]
        self._frames.clear()
        self._frames.extend(frames)
        a, b = BALLS.index(was), BALLS.index(now)
        self._window.swap_rows(a, b)
        swap = {a: b, b: a}
        for rows in (self._in_view_since, self._disturbed_last, self._touched, self._spot_crossed):
            moved = {swap.get(r, r): t for r, t in rows.items()}
            rows.clear()
            rows.update(moved)
        for times in (self._cushion_last, self._cushion_times):
            moved = {(swap.get(r, r), c): t for (r, c), t in times.items()}
            times.clear()
            times.update(moved)
        return self._late_strike() if now is BallId.CUE else []

    def _note_arrivals(self, frame: TrackFrame) -> None:
        """When each ball came into view: the tracker takes a ball it first sees for a ball at
        rest until it moves."""
        if math.isnan(self._first_time):
            self._first_time = frame.time
        before = self._frames[-2].on_table if len(self._frames) > 1 else False
        for r in np.flatnonzero(frame.on_table & ~before):
            self._in_view_since[int(r)] = frame.time

    def finish(self) -> list[ShotEvent]:
        """The input ended: a shot whose balls all rest ends now. No more frames will come for
        the long-window rebound test, so the shot does not wait for it."""
        if not self._frames:
            return []
        soft = [h.event for h in self._held_rebounds.values()]
        self._held_rebounds.clear()
        # No more frames will come to check the marginal contacts held: they stand.
        held, self._unchecked = self._unchecked, []
        last = self._frames[-1]
        touched = self._displaced(last, final=True)
        return touched + held + soft + self._rest(last, final=True)
