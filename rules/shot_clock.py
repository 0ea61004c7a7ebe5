"""The shot clock (rules 1.11, 2.25): the model and the value displays read.

`ShotClock` is a pure, immutable model fed with session times and events (shot complete, cue
ball taken, spotting done, strike, shooter down on the shot, extension); it produces a
`ClockReading` and the timekeeper's calls. Displays (`hardware`) and the web scoreboard
(`railbird`) only show a `ClockReading`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.errors import RailbirdError
from rules.table import Point


class ClockPhase(StrEnum):
    """Where the shot clock is."""

    IDLE = "idle"
    """Not counting: balls still moving, or waiting for ball in hand to be taken."""
    RUNNING = "running"
    """Counting down, more than the warning time left."""
    WARNING = "warning"
    """Counting down inside the last 10 s ("time" has been or will be called, rule 1.11)."""
    STOPPED = "stopped"
    """Stopped by the cue strike."""
    EXPIRED = "expired"
    """Time ran out before the strike: a foul (rules 1.11, 2.25)."""


@dataclass(frozen=True, slots=True)
class ClockReading:
    """One look at the shot clock.

    Attributes:
        phase: Where the clock is.
        remaining_s: Seconds left on the shot (0 once expired; the limit while idle).
        limit_s: The time allowed for this shot, including an extension if one was taken.
        extension_used: The shooter has used the extension for this rack.
    """

    phase: ClockPhase
    remaining_s: float
    limit_s: float
    extension_used: bool = False

    def __post_init__(self) -> None:
        if self.remaining_s < 0 or self.limit_s <= 0 or self.remaining_s > self.limit_s:
            raise ValueError(
                f"a shot clock cannot show {self.remaining_s} s left of {self.limit_s} s"
            )


DOWN_ON_SHOT_REACH_MM = 60.0
"""How near the cue ball something over the table must come to count as the shooter down on
the shot: the cue tip addresses the ball from a few centimetres."""


def down_on_shot(
    cue_ball: Point,
    occluders: Iterable[Sequence[Point]],
    reach_mm: float = DOWN_ON_SHOT_REACH_MM,
) -> bool:
    """Vision's evidence that the shooter is down on the shot (rule 1.11): an occluder (cue,
    bridge hand, arm; outlines in table mm seen from above) covers the cue ball or comes within
    ``reach_mm`` of its centre. Debouncing over frames is the caller's job.
    """
    return any(_distance_to_polygon(cue_ball, tuple(p)) <= reach_mm for p in occluders if p)


def _distance_to_polygon(p: Point, polygon: tuple[Point, ...]) -> float:
    inside = False
    edges = list(zip(polygon, polygon[1:] + polygon[:1], strict=True))
    for (ax, ay), (bx, by) in edges:
        if (ay > p[1]) != (by > p[1]) and p[0] < ax + (p[1] - ay) * (bx - ax) / (by - ay):
            inside = not inside
    if inside:
        return 0.0
    return min(_distance_to_segment(p, a, b) for a, b in edges)


def _distance_to_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = max(0.0, min(1.0, t))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


# The model ------------------------------------------------------------------------------------


class ShotClockError(RailbirdError):
    """The shot clock was asked something impossible: time running backwards, an extension
    the player no longer has, or an extension asked for by the player not at the table."""


@dataclass(frozen=True, slots=True)
class ShotClockConfig:
    """Shot-clock settings (rule 1.11, referred to by 2.25).

    The defaults are the 1999 text: at most 35 s between shots, "time" called 10 s before the
    end, one extension per player per rack equal to the limit in force. The later WPA shot-clock
    regulation (25 s, a longer allowance for the shot after the break) is `wpa_regulation`.

    Attributes:
        limit_s: Time allowed for a shot.
        warning_s: "Time" is called this long before the end (1.11: 10 s).
        extension_s: Time one extension adds; None means equal to ``limit_s`` (1.11).
        extensions_per_rack: Extensions each player may ask for in one rack (1.11: one).
        after_break_limit_s: Time allowed for the first shot after the break; None means
            ``limit_s``.
    """

    limit_s: float = 35.0
    warning_s: float = 10.0
    extension_s: float | None = None
    extensions_per_rack: int = 1
    after_break_limit_s: float | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.warning_s < self.limit_s:
            raise ValueError(
                f"shot clock: warning_s {self.warning_s} must be 0 or more and under "
                f"limit_s {self.limit_s}"
            )
        if self.after_break_limit_s is not None and self.after_break_limit_s <= self.warning_s:
            raise ValueError(
                f"shot clock: after_break_limit_s {self.after_break_limit_s} must exceed "
                f"warning_s {self.warning_s}"
            )
        if self.extension_s is not None and self.extension_s <= 0:
            raise ValueError(f"shot clock: extension_s {self.extension_s} must be positive")
        if self.extensions_per_rack < 0:
            raise ValueError("shot clock: extensions_per_rack cannot be negative")

    @classmethod
    def wpa_1999(cls) -> ShotClockConfig:
        """Rule 1.11 as written in 1999: 35 s, "time" at 10 s, one extension of 35 s."""
        return cls()

    @classmethod
    def wpa_regulation(cls) -> ShotClockConfig:
        """The later WPA shot-clock regulation: 25 s a shot, 60 s for the shot after the
        break, one extension per player per rack equal to the limit."""
        return cls(limit_s=25.0, after_break_limit_s=60.0)

    @property
    def extension(self) -> float:
        """Seconds one extension adds: the limit in force unless set (rule 1.11)."""
        return self.limit_s if self.extension_s is None else self.extension_s

    def shot_limit(self, after_break: bool = False) -> float:
        """Time allowed for a shot, before any extension."""
        if after_break and self.after_break_limit_s is not None:
            return self.after_break_limit_s
        return self.limit_s


class ShotClockStatus(StrEnum):
    """What the clock model is doing (finer than the displayed `ClockPhase`)."""

    IDLE = "idle"
    """No shot timed yet (before the first `shot_complete` or `new_rack`)."""
    WAITING = "waiting"
    """Inning starts with ball in hand or spotting: waits for the cue ball and the spotting."""
    RUNNING = "running"
    """Counting down."""
    HELD = "held"
    """Held at the warning time: the shooter was down on the shot at the warning mark (1.11)."""
    STOPPED = "stopped"
    """The cue tip struck the cue ball."""
    EXPIRED = "expired"
    """Time ran out after the warning: a foul (1.11)."""


class AnnouncementKind(StrEnum):
    """What the timekeeper says aloud (rule 1.11)."""

    TIME = "time"
    """The "time" call: the warning before the end."""
    EXPIRED = "expired"
    """The limit ran out after a "time" call: a foul for the game to apply."""


@dataclass(frozen=True, slots=True)
class Announcement:
    """One call of the timekeeper (rule 1.11).

    Attributes:
        kind: What is called.
        time: Session time the call is due.
        shooter: The player at the table.
    """

    kind: AnnouncementKind
    time: float
    shooter: str | None = None

    @property
    def rule(self) -> str:
        """The rule that makes the call."""
        return "1.11"


_COUNTING = (ShotClockStatus.RUNNING, ShotClockStatus.HELD)


@dataclass(frozen=True, slots=True)
class ShotClock:
    """The shot clock as an immutable value fed with session times (rules 1.11, 2.25).

    It has no clock of its own: every method takes the session time ``t`` and returns a new
    `ShotClock`; time between calls is accounted lazily, so a "time" call or an expiry that fell
    between two calls is dated when it was due, not when it was noticed. Times must not go back.

    Lifecycle: `shot_complete` (the previous shot ended, all balls at rest, rule 3.15) starts
    the count, or waits for `cue_ball_taken` / `spotting_done` when the inning starts with ball
    in hand or with balls to spot; `strike` stops it. "Time" is called ``warning_s`` before the
    end; a shooter down on the shot at that mark is not warned and the clock holds at
    ``warning_s`` until he stands up, when "time" is called and the last ``warning_s`` run
    (1.11: a limit is only exceeded after a "time" call ``warning_s`` earlier). Expiry is
    reported (`expired`, an `AnnouncementKind.EXPIRED` call); the game makes it a foul.

    Build one with `ShotClock.create`.

    Attributes:
        config: The settings.
        status: What the clock is doing.
        shooter: The player whose shot is timed.
        limit_s: Time allowed for this shot, extension included.
        counted_s: Time counted against this shot up to ``now``.
        now: Session time the state is current at; None before the first event.
        warned: "Time" has been called for the current end of the shot.
        waiting_for_cue_ball: The inning starts with ball in hand, the cue ball not yet taken.
        waiting_for_spotting: Balls are still being spotted or racked.
        down_seen: Vision sees the shooter down on the shot (an arm or cue over the cue ball).
        down_override: The operator's word on it, which beats vision; None defers to vision.
        extensions_used: One entry per extension taken this rack, by player.
        announcements: The calls made for this shot, in order.
        paused: The referee suspended play (1.12, 2.27): nothing is counted until resumed.
    """

    config: ShotClockConfig
    status: ShotClockStatus = ShotClockStatus.IDLE
    shooter: str | None = None
    limit_s: float = 35.0
    counted_s: float = 0.0
    now: float | None = None
    warned: bool = False
    waiting_for_cue_ball: bool = False
    waiting_for_spotting: bool = False
    down_seen: bool = False
    down_override: bool | None = None
    extensions_used: tuple[str, ...] = ()
    announcements: tuple[Announcement, ...] = ()
    paused: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.counted_s <= self.limit_s:
            raise ValueError(
                f"shot clock: counted {self.counted_s} s is outside the limit {self.limit_s} s"
            )

    @classmethod
    def create(cls, config: ShotClockConfig | None = None) -> ShotClock:
        """An idle clock with the given settings (the 1999 rule 1.11 by default)."""
        config = config or ShotClockConfig()
        return cls(config, limit_s=config.limit_s)

    # Queries -----------------------------------------------------------------------------------

    @property
    def down_on_shot(self) -> bool:
        """The shooter is taken to be down on the shot: the operator's word, else vision's."""
        return self.down_seen if self.down_override is None else self.down_override

    @property
    def expired(self) -> bool:
        """Time ran out before the strike: a foul under rule 1.11 (as of ``now``)."""
        return self.status is ShotClockStatus.EXPIRED

    def extensions_left(self, player: str) -> int:
        """Extensions ``player`` may still ask for in this rack (rule 1.11)."""
        return max(0, self.config.extensions_per_rack - self.extensions_used.count(player))

    def reading(self, t: float) -> ClockReading:
        """What the display shows at session time ``t`` (not before ``now``)."""
        return self.advance(t)._reading()

    def due(self, t: float) -> tuple[Announcement, ...]:
        """Calls that fall due between ``now`` and ``t``, in order (not yet made)."""
        return self.advance(t).announcements[len(self.announcements) :]

    # Time and events ---------------------------------------------------------------------------

    def advance(self, t: float) -> ShotClock:
        """The clock at ``t`` with nothing else happening: the "time" call, a hold at the
        warning mark (shooter down) and expiry are applied at the moment they fell due.

        Raises:
            ShotClockError: ``t`` is before ``now``.
        """
        if self.now is not None and t < self.now:
            raise ShotClockError(f"shot clock: time went back from {self.now} s to {t} s")
        if self.status is not ShotClockStatus.RUNNING or self.now is None or self.paused:
            return replace(self, now=t)
        clock = self
        remaining = self.limit_s - self.counted_s
        if not self.warned:
            mark = self.now + max(0.0, remaining - self.config.warning_s)
            if mark <= t:
                if self.down_on_shot:
                    held = self.limit_s - self.config.warning_s
                    return replace(self, status=ShotClockStatus.HELD, counted_s=held, now=t)
                clock = clock._announce(AnnouncementKind.TIME, mark, warned=True)
        end = self.now + remaining
        if end <= t:
            clock = clock._announce(AnnouncementKind.EXPIRED, end)
            return replace(clock, status=ShotClockStatus.EXPIRED, counted_s=self.limit_s, now=t)
        return replace(clock, counted_s=self.counted_s + (t - self.now), now=t)

    def shot_complete(
        self,
        t: float,
        shooter: str,
        *,
        ball_in_hand: bool = False,
        spotting: bool = False,
        after_break: bool = False,
    ) -> ShotClock:
        """The previous shot is complete (every ball at rest, spinning ones too, rule 3.15):
        time the next shot of ``shooter``.

        Args:
            t: When the last ball stopped.
            shooter: The player at the table for the next shot.
            ball_in_hand: The inning starts with ball in hand: the count starts once the
                player has the cue ball (`cue_ball_taken`).
            spotting: Balls are to be spotted or racked first: the count starts once that is
                done (`spotting_done`).
            after_break: The next shot is the first after the break (its own limit if set).
        """
        clock = self.advance(t)
        waiting = ball_in_hand or spotting
        return replace(
            clock,
            status=ShotClockStatus.WAITING if waiting else ShotClockStatus.RUNNING,
            shooter=shooter,
            limit_s=self.config.shot_limit(after_break),
            counted_s=0.0,
            warned=False,
            waiting_for_cue_ball=ball_in_hand,
            waiting_for_spotting=spotting,
            down_seen=False,
            down_override=None,
            announcements=(),
        )

    def new_rack(self, t: float, breaker: str) -> ShotClock:
        """A new rack: extensions are given back (1.11, one per player per rack) and the break
        is timed once the breaker has the cue ball and the rack is set."""
        fresh = replace(self.advance(t), extensions_used=())
        return fresh.shot_complete(t, breaker, ball_in_hand=True, spotting=True)

    def cue_ball_taken(self, t: float) -> ShotClock:
        """The player has the cue ball in hand (1.11: the count of a ball-in-hand inning starts
        once he has it and the spotting is done)."""
        return replace(self.advance(t), waiting_for_cue_ball=False)._start_if_ready()

    def spotting_done(self, t: float) -> ShotClock:
        """Spotted balls are on the long string or the rack is set (1.11)."""
        return replace(self.advance(t), waiting_for_spotting=False)._start_if_ready()

    def strike(self, t: float) -> ShotClock:
        """The cue tip touched the cue ball: the count stops (1.11). After an expiry the clock
        stays expired: the foul stands."""
        clock = self.advance(t)
        if clock.status is ShotClockStatus.EXPIRED:
            return clock
        return replace(clock, status=ShotClockStatus.STOPPED)

    def observe_down(self, t: float, down: bool) -> ShotClock:
        """Vision's observation from ``t`` on: the shooter is (not) down on the shot.

        The evidence is something over the cue ball (the bridge hand, the cue) while the
        balls are at rest; debouncing it is the observer's job.
        """
        return replace(self.advance(t), down_seen=down)._after_down_change(t)

    def override_down(self, t: float, down: bool | None) -> ShotClock:
        """The operator says the shooter is (not) down on the shot; None hands back to vision."""
        return replace(self.advance(t), down_override=down)._after_down_change(t)

    def extend(self, t: float, player: str) -> ShotClock:
        """``player`` asks for an extension of this shot (1.11: once per rack, equal to the
        limit in force). A "time" call already made is made again before the new end.

        Raises:
            ShotClockError: no shot is being timed, ``player`` is not the shooter, or he has
                no extension left this rack.
        """
        clock = self.advance(t)
        if clock.status not in (*_COUNTING, ShotClockStatus.WAITING):
            raise ShotClockError(f"shot clock: no shot is being timed ({clock.status}) at {t} s")
        if player != clock.shooter:
            raise ShotClockError(
                f"shot clock: {player!r} asked for an extension but {clock.shooter!r} is shooting"
            )
        if clock.extensions_left(player) == 0:
            raise ShotClockError(f"shot clock: {player!r} has used his extension in this rack")
        limit = clock.limit_s + self.config.extension
        waiting = clock.status is ShotClockStatus.WAITING
        return replace(
            clock,
            status=ShotClockStatus.WAITING if waiting else ShotClockStatus.RUNNING,
            limit_s=limit,
            warned=clock.warned and limit - clock.counted_s <= self.config.warning_s,
            extensions_used=(*clock.extensions_used, player),
        )

    def pause(self, t: float) -> ShotClock:
        """The referee suspends play (a protest 2.26, a suspension 2.27, interference 3.35):
        the count stops where it is, warnings and expiry included, until `resume`."""
        return replace(self.advance(t), paused=True)

    def resume(self, t: float) -> ShotClock:
        """Play resumes: the count goes on from where it was paused."""
        return replace(self.advance(t), paused=False)

    # Internals ---------------------------------------------------------------------------------

    def _announce(self, kind: AnnouncementKind, at: float, **changes: object) -> ShotClock:
        call = Announcement(kind, at, self.shooter)
        return replace(self, announcements=(*self.announcements, call), **changes)

    def _start_if_ready(self) -> ShotClock:
        ready = not (self.waiting_for_cue_ball or self.waiting_for_spotting)
        if self.status is ShotClockStatus.WAITING and ready:
            return replace(self, status=ShotClockStatus.RUNNING)
        return self

    def _after_down_change(self, t: float) -> ShotClock:
        if self.status is ShotClockStatus.HELD and not self.down_on_shot:
            # He stood up after the mark: warn now, and the last warning_s run (1.11).
            return self._announce(
                AnnouncementKind.TIME, t, status=ShotClockStatus.RUNNING, warned=True
            )
        return self

    def _reading(self) -> ClockReading:
        used = self.shooter is not None and self.shooter in self.extensions_used
        remaining = self.limit_s - self.counted_s
        phase = {
            ShotClockStatus.IDLE: ClockPhase.IDLE,
            ShotClockStatus.WAITING: ClockPhase.IDLE,
            ShotClockStatus.HELD: ClockPhase.WARNING,
            ShotClockStatus.STOPPED: ClockPhase.STOPPED,
            ShotClockStatus.EXPIRED: ClockPhase.EXPIRED,
        }.get(self.status)
        if phase is None:
            phase = ClockPhase.WARNING if remaining <= self.config.warning_s else ClockPhase.RUNNING
        return ClockReading(phase, max(0.0, remaining), self.limit_s, used)
