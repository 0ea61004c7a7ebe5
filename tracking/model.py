"""The tracker's values: its configuration, each ball's status, and one `TrackFrame` per frame."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from rules.balls import BallId
from rules.events import EventKind, EvidenceSource
from rules.table import CushionId, PocketId

BALLS: tuple[BallId, ...] = tuple(BallId)
"""Row order of every per-ball array in a `TrackFrame` (the same as `Detections.identity`)."""

CUE_ROW = 0


class BallStatus(StrEnum):
    """Where a ball is, as far as the tracker knows."""

    UNSEEN = "unseen"
    """Never seen yet (not racked, or not found)."""
    AT_REST = "at-rest"
    """On the table and still; held still by the filter."""
    MOVING = "moving"
    """On the table and rolling or sliding."""
    HIDDEN = "hidden"
    """On the table but not seen this frame (under an arm, or a missed detection): kept."""
    POCKETED = "pocketed"
    """Dropped into a pocket (with evidence: a pocket signal or vision seeing it enter)."""
    OFF_TABLE = "off-table"
    """Gone over a cushion: seen beyond it, or lost running into it and not seen back."""

    @property
    def on_table(self) -> bool:
        """True while the ball is on the playing surface (seen or not)."""
        return self in ON_TABLE


ON_TABLE = frozenset({BallStatus.AT_REST, BallStatus.MOVING, BallStatus.HIDDEN})
"""The statuses of a ball on the playing surface (`BallStatus.on_table`), for loops that ask
every ball every frame."""


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    """Settings of the tracker (one frozen config per stage, DESIGN.md).

    Attributes:
        max_speed: Fastest a ball can go, mm/s (a hard break is about 11 m/s): the gate.
        rolling_decel: Rolling resistance of the cloth, mm/s^2 (mu_r g, about 0.01 x 9.81 m/s^2).
        accel_noise: Standard deviation of unmodelled acceleration while moving, mm/s^2.
        contact_noise: The same near a ball or cushion, where a contact may turn the ball.
        rest_noise: The same for a ball at rest: tiny, so noise does not move it.
        start_sigmas: A resting ball has moved when it is this many position sigmas away.
        start_min_mm: ... and at least this far.
        rest_window: A ball is at rest once a straight line fitted to its positions over this
            long (s) moves slower than `rest_speed` (rule 3.15). It came to rest when the
            cloth stopped it: the window's middle, plus the fitted speed over
            `rolling_decel` (`Tracker._stopped_at`).
        rest_speed: 15 mm/s: the cloth stops a ball that slow within about 0.15 s, and the fit
            over 0.25 s at 60 fps measures speed to about 5 mm/s with 1.5 mm position noise.
        reseed_nis: Normalised innovation squared above which a moving ball's filter is
            re-seeded from its measurements (a contact turned it; chi2 2-dof p = 0.0003).
        signal_window: How long (s) a pocket signal waits for vision to lose a ball near its
            pocket before it is dropped with a warning.
        vision_pocket_delay: How long (s) a ball last seen inside a pocket opening must stay
            unseen before vision alone calls it pocketed.
        sensors: True when pocket sensors are fitted: then vision alone needs the whole
            `signal_window` before it calls a ball pocketed, and does so with lower confidence.
        respawn_after: A pocketed or off-table ball seen again (re-spotted) after this long (s)
            gets its track back.
        airborne_growth: A ball whose apparent radius is this much over its radius on the cloth
            is off the cloth (nearer the camera): it can pass over other balls. Passing over a
            ball needs the centre 3 radii up, 1.023x seen from 2.6 m; the detector's radius
            wanders a few percent where balls touch, so only clearly bigger counts.
    """

    max_speed: float = 12000.0
    rolling_decel: float = 100.0
    accel_noise: float = 3000.0
    contact_noise: float = 30000.0
    rest_noise: float = 1.0
    start_sigmas: float = 4.0
    start_min_mm: float = 4.0
    rest_window: float = 0.25
    rest_speed: float = 15.0
    reseed_nis: float = 16.0
    signal_window: float = 1.0
    vision_pocket_delay: float = 0.15
    sensors: bool = True
    respawn_after: float = 2.0
    airborne_growth: float = 1.03


@dataclass(frozen=True, slots=True)
class Departure:
    """A ball that left play in this frame: into a pocket or off the table.

    Attributes:
        ball: Which ball.
        kind: `EventKind.POCKETED` or `EventKind.LEFT_TABLE`.
        time: When it went (the pocket signal's time when fused).
        time_uncertainty: Half-width of the interval it surely went in.
        pocket: The pocket, for a pocketed ball.
        cushion: The cushion crossed, for a ball that left the table.
        source: Vision alone, the sensor alone, or both.
        confidence: 0-1.
        rested_for: How long the ball had rested before it went (s); 0 when it was moving.
    """

    ball: BallId
    kind: EventKind
    time: float
    time_uncertainty: float
    pocket: PocketId | None = None
    cushion: CushionId | None = None
    source: EvidenceSource = EvidenceSource.VISION
    confidence: float = 1.0
    rested_for: float = 0.0


@dataclass(frozen=True, slots=True)
class Displacement:
    """A resting ball found moved after something hid it (a hand, rule 3.22 / 3.21); or a ball
    hidden from the first frame, seen rolling out from under it clear of every ball.

    Attributes:
        ball: Which ball.
        time: Middle of the span it may have moved in.
        time_uncertainty: Half that span.
        rolling: Seen rolling clear of the others (the second kind), while they may roll too.
    """

    ball: BallId
    time: float
    time_uncertainty: float
    rolling: bool = False


_FLAGS: dict[tuple[BallStatus, ...], tuple[np.ndarray, np.ndarray]] = {}
"""`_status_flags` by statuses: they change a few times a shot, and the frames come 60 a
second."""


_CHECKED_ROWS = ("positions", "velocities", "sigma", "seen", "radius_px", "rest_since", "measured")
"""The `TrackFrame` per-ball arrays its construction checks and makes read-only ..."""

_BALL_ROWS = (*_CHECKED_ROWS, "measured_sigma", "growth", "airborne")
"""... and all of them: one row per ball, in `BALLS` order."""


def _status_flags(status: tuple[BallStatus, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(16,) on the table and (16,) moving for these statuses: read-only arrays, shared by
    every frame with the same statuses."""
    flags = _FLAGS.get(status)
    if flags is None:
        on = np.array([s in ON_TABLE for s in status])
        moving = np.array([s is BallStatus.MOVING for s in status])
        on.setflags(write=False)
        moving.setflags(write=False)
        if len(_FLAGS) >= 1024:
            _FLAGS.clear()
        flags = _FLAGS[status] = (on, moving)
    return flags


@dataclass(frozen=True, slots=True, eq=False)
class TrackFrame:
    """Every ball's state at one frame time: 16 rows in `BALLS` order.

    Attributes:
        frame: Frame index.
        time: Session seconds.
        status: Per-ball status.
        positions: (16, 2) filtered centres in mm (nan for balls never seen).
        velocities: (16, 2) filtered velocities in mm/s (zero at rest).
        sigma: (16,) position standard deviation, mm.
        seen: (16,) True where a detection was matched this frame.
        radius_px: (16,) apparent radius of the matched detection (nan when unseen).
        rest_since: (16,) time each resting ball came to rest (nan when not at rest).
        measured: (16, 2) the matched detection's position this frame (nan when unseen).
        measured_sigma: (16,) that detection's position sigma, mm (nan when unseen).
        departures: Balls that left play in this frame.
        growth: (16,) the matched detection's radius over the ball's radius on the cloth (nan
            when unseen).
        airborne: (16,) True where that growth is over `TrackerConfig.airborne_growth`: the
            ball is in the air (it can pass over balls without touching them).
        displaced: Resting balls found, in this frame, moved while they were out of sight.
        renamed: (was, now) for each track renamed in this frame: the ball earlier frames show
            as ``was`` is ``now`` (vision misnamed it when it was first seen).
    """

    frame: int
    time: float
    status: tuple[BallStatus, ...]
    positions: np.ndarray = field(repr=False)
    velocities: np.ndarray = field(repr=False)
    sigma: np.ndarray = field(repr=False)
    seen: np.ndarray = field(repr=False)
    radius_px: np.ndarray = field(repr=False)
    rest_since: np.ndarray = field(repr=False)
    measured: np.ndarray = field(repr=False)
    measured_sigma: np.ndarray = field(repr=False)
    departures: tuple[Departure, ...] = ()
    growth: np.ndarray | None = field(default=None, repr=False)
    airborne: np.ndarray | None = field(default=None, repr=False)
    displaced: tuple[Displacement, ...] = ()
    renamed: tuple[tuple[BallId, BallId], ...] = ()
    _on_table: np.ndarray = field(init=False, repr=False)
    _moving: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.status) != len(BALLS):
            raise ValueError(f"track frame {self.frame}: {len(self.status)} statuses, want 16")
        for name in _CHECKED_ROWS:
            a = getattr(self, name)
            if a.shape[0] != len(BALLS):
                raise ValueError(f"track frame {self.frame}: {name} has {a.shape[0]} rows")
            a.setflags(write=False)
        for name, empty in (("growth", np.nan), ("airborne", False)):
            a = getattr(self, name)
            if a is None:
                a = np.full(len(BALLS), empty)
                object.__setattr__(self, name, a)
            elif a.shape[0] != len(BALLS):
                raise ValueError(f"track frame {self.frame}: {name} has {a.shape[0]} rows")
            a.setflags(write=False)
        status = self.status
        hidden_status = BallStatus.HIDDEN
        on, moving = _status_flags(status)
        if hidden_status in status:
            hidden = np.array([s is hidden_status for s in status])
            speed = np.hypot(self.velocities[:, 0], self.velocities[:, 1])
            moving = moving | (hidden & (speed > 0))
            moving.setflags(write=False)
        object.__setattr__(self, "_on_table", on)
        object.__setattr__(self, "_moving", moving)

    def swapped(self, was: BallId, now: BallId) -> TrackFrame:
        """This frame as it reads once the track it shows as ``was`` is known to be ``now``'s
        (`renamed`): the two balls' rows exchanged in every per-ball array."""
        order = np.arange(len(BALLS))
        a, b = self.row(was), self.row(now)
        order[[a, b]] = order[[b, a]]
        rows = {name: getattr(self, name)[order] for name in _BALL_ROWS}
        status = tuple(self.status[i] for i in order)
        return dataclasses.replace(self, status=status, renamed=(), **rows)

    def row(self, ball: BallId) -> int:
        """The array row of ``ball``."""
        return BALLS.index(BallId(ball))

    def status_of(self, ball: BallId) -> BallStatus:
        """One ball's status."""
        return self.status[self.row(ball)]

    def position_of(self, ball: BallId) -> tuple[float, float]:
        """One ball's filtered centre."""
        p = self.positions[self.row(ball)]
        return (float(p[0]), float(p[1]))

    @property
    def on_table(self) -> np.ndarray:
        """(16,) True for balls on the playing surface."""
        return self._on_table

    @property
    def moving(self) -> np.ndarray:
        """(16,) True for balls moving (or hidden while they were moving)."""
        return self._moving
