"""How fast the scoreboard follows the live loop (railbird.web).

Figures: building a `ScoreboardState` from a 9-ball rack's timeline; `Hub.publish` as the live
loop pays it, with 0 and with 8 browsers streaming (it must never wait for one); and the time
from `publish` to the state's arrival on a server-sent-events client over 127.0.0.1 (the issue
asks for calls shown within 100 ms). Medians (and the 95th percentile of the arrival time).

Run: PYTHONPATH=. python -m bench --only web_latency
"""

from __future__ import annotations

import http.client
import statistics
import threading
import time
from typing import Any

from railbird.web.hub import Hub
from railbird.web.scoreboard import ScoreboardState, scoreboard_state
from railbird.web.server import WebServer, serve
from rules.match import Match, MatchConfig
from rules.referee import Referee
from rules.shot_clock import ClockPhase, ClockReading
from rules.table import PocketId
from tests.factories import TABLE_9FT, break_shot, shot_at

TIMING = True
"""Run alone, in one process (`bench._harness`)."""


def _rack() -> Referee:
    referee = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT)
    referee.record(break_shot(index=0, pocket=(("3", PocketId.FOOT_LEFT),)), 0.0)
    for i, ball in enumerate(("1", "2", "4", "5")):
        referee.record(shot_at(ball, index=1 + i, pocket=PocketId.FOOT_RIGHT), 1.0 + i)
    return referee


def _board(referee: Referee, match: Match, remaining_s: float) -> ScoreboardState:
    clock = ClockReading(ClockPhase.RUNNING, remaining_s, 35.0)
    return scoreboard_state(referee.timeline, referee.log, match, clock)


def _median_us(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


class _Client(threading.Thread):
    """An SSE client noting when each version arrives."""

    def __init__(self, server: WebServer) -> None:
        super().__init__(daemon=True)
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        self.conn.request("GET", "/api/stream")
        self.response = self.conn.getresponse()
        self.arrivals: dict[int, float] = {}
        self.ready = threading.Event()

    def run(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode()
                if line.startswith("id: "):
                    self.arrivals[int(line[4:])] = time.perf_counter()
                    self.ready.set()
        except (OSError, ValueError):
            pass  # closed at the end


def run(quick: bool) -> dict[str, Any]:
    """The figures (see the module docstring)."""
    repeats = 200 if quick else 1000
    referee = _rack()
    match = Match.start(MatchConfig(race_to=7), ("Ann", "Bob"), "Ann")
    board = _board(referee, match, 20.0)
    hub = Hub()
    figures: dict[str, Any] = {
        "build_state_us": round(_median_us(lambda: _board(referee, match, 20.0), repeats), 1),
        "publish_no_client_us": round(_median_us(lambda: hub.publish(board), repeats), 1),
    }
    server = serve(hub, port=0, token="bench")
    clients = [_Client(server) for _ in range(8)]
    try:
        for c in clients:
            c.start()
        hub.publish(board)
        for c in clients:
            c.ready.wait(10)
        figures["publish_8_clients_us"] = round(_median_us(lambda: hub.publish(board), repeats), 1)
        time.sleep(0.5)
        latencies = []
        for i in range(50 if quick else 200):
            sent = time.perf_counter()
            version = hub.publish(_board(referee, match, 30.0 - i * 0.1))
            deadline = sent + 5.0
            while version not in clients[0].arrivals and time.perf_counter() < deadline:
                time.sleep(0.0005)
            latencies.append((clients[0].arrivals.get(version, deadline) - sent) * 1000)
            time.sleep(0.02)  # a 50 Hz feed at most: the clock ticks ten times a second
        latencies.sort()
        figures["publish_to_browser_ms_median"] = round(statistics.median(latencies), 2)
        figures["publish_to_browser_ms_p95"] = round(latencies[int(0.95 * len(latencies))], 2)
    finally:
        server.stop()
        for c in clients:
            c.conn.close()
    return figures


if __name__ == "__main__":
    for name, value in run(quick=False).items():
        print(f"{name}: {value}")
