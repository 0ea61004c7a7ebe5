"""Fixtures for the web tests: a live referee behind a hub, and the real server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from railbird.web.hub import Hub
from railbird.web.scoreboard import ScoreboardState, scoreboard_state
from railbird.web.server import WebServer, serve
from rules.inputs import OperatorInput
from rules.referee import Referee
from rules.shot_clock import ClockReading
from tests.factories import TABLE_9FT

TOKEN = "s3cret-console-token"


class LiveLoop:
    """A stand-in for the live loop: records console inputs with the referee, then publishes."""

    def __init__(self, hub: Hub, players: tuple[str, str] = ("Ann", "Bob")) -> None:
        self.hub = hub
        self.referee = Referee.new("9-ball", players, TABLE_9FT)
        self.received: list[OperatorInput] = []
        self.time = 0.0
        self.clock: ClockReading | None = None
        hub.on_input(self.handle)

    def handle(self, item: OperatorInput) -> None:
        self.time += 1.0
        self.referee.record(item, self.time)  # a RecordError goes back to the console
        self.received.append(item)
        self.publish()

    def board(self) -> ScoreboardState:
        return scoreboard_state(self.referee.timeline, self.referee.log, clock=self.clock)

    def publish(self) -> int:
        return self.hub.publish(self.board())


@pytest.fixture
def hub() -> Hub:
    return Hub()


@pytest.fixture
def loop(hub: Hub) -> LiveLoop:
    live = LiveLoop(hub)
    live.publish()
    return live


@pytest.fixture
def server(hub: Hub) -> Iterator[WebServer]:
    web = serve(hub, host="127.0.0.1", port=0, token=TOKEN)
    yield web
    web.stop()
