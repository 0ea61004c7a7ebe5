"""What the live loop shows: the referee's timeline and the shot clock, fed to the scoreboard.

The feed follows the live loop's updates: the cue strike stops the shot clock, a ruling (all
balls at rest, rule 3.15) starts the next shooter's count, an operator input re-derives the
state. It publishes a `ScoreboardState` to the web hub on every change and about ten times a
second while the clock runs, and never blocks the loop (the hub keeps only the newest state).
"""

from __future__ import annotations

from collections.abc import Callable

from railbird.live import LiveUpdate
from railbird.web.hub import Hub
from railbird.web.scoreboard import scoreboard_state
from rules.events import EventKind
from rules.referee import Referee
from rules.shot_clock import ShotClock, ShotClockConfig

TICK_S = 0.1


class ScoreboardFeed:
    """Publishes the match to a hub as the live loop finds things.

    Args:
        referee: The game being refereed (its timeline is the scoreboard).
        hub: Where states go.
        clock_config: The shot clock's settings (rules 1.11, 2.25).
        status: Returns the (sensors, camera) status strings to show.
    """

    def __init__(
        self,
        referee: Referee,
        hub: Hub,
        clock_config: ShotClockConfig | None = None,
        status: Callable[[], tuple[str, str]] = lambda: ("ok", "ok"),
    ) -> None:
        self._referee = referee
        self._hub = hub
        self._status = status
        self._clock = ShotClock.create(clock_config)
        self._published_at: float | None = None

    @property
    def shot_clock(self) -> ShotClock:
        """The shot clock now."""
        return self._clock

    def update(self, update: LiveUpdate) -> None:
        """Follow one update of the live loop, then publish."""
        if update.event is not None and update.event.kind is EventKind.CUE_STRIKE:
            self._clock = self._clock.strike(update.event.time)
        if update.ruling is not None:
            rested = update.shot.end_time if update.shot and update.shot.end_time else update.time
            state = self._referee.state
            if state.winner is None:
                # With ball in hand the count should wait for the player to take the cue ball;
                # until vision reports that, it starts when the balls stop.
                self._clock = self._clock.shot_complete(rested, state.players[state.shooter])
        self.publish(update.emitted)

    def tick(self, t: float) -> None:
        """Called every frame: publish about ten times a second so the clock counts down."""
        if self._published_at is None or t - self._published_at >= TICK_S:
            self.publish(t)

    def publish(self, t: float) -> None:
        """Publish the state at session time ``t``."""
        sensors, camera = self._status()
        state = scoreboard_state(
            self._referee.timeline,
            self._referee.log,
            None,
            self._clock.reading(t),
            sensors=sensors,
            camera=camera,
            now=t,
        )
        self._hub.publish(state)
        self._published_at = t
