"""The web server over real HTTP on 127.0.0.1 (ephemeral port): pages, token, inputs, stream."""

from __future__ import annotations

import argparse
import http.client
import io
import json
import threading
import time

import pytest

from railbird.web.hub import Hub
from railbird.web.server import (
    DEFAULT_PORT,
    MAX_INPUT_BYTES,
    WebServer,
    add_web_arguments,
    serve,
    serve_from_args,
    vocabulary,
)
from rules.balls import BallId
from rules.errors import HardwareError
from rules.inputs import CallShot, Safety
from rules.table import PocketId
from tests.factories import break_shot
from tests.railbird.web.conftest import TOKEN, LiveLoop


def _request(
    server: WebServer, method: str, path: str, body: bytes | None = None, token: str | None = None
) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        conn.close()


def _post(server: WebServer, data: object, token: str | None = TOKEN) -> tuple[int, dict]:
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    status, text = _request(server, "POST", "/api/input", body, token)
    return status, json.loads(text)


CALL_NINE = {"kind": "call-shot", "ball": "9", "pocket": "foot-left"}


def test_the_scoreboard_is_public_and_the_console_needs_the_token(server: WebServer) -> None:
    status, page = _request(server, "GET", "/")
    assert status == 200 and "railbird scoreboard" in page
    assert _request(server, "GET", "/console")[0] == 401
    status, page = _request(server, "GET", "/console?token=guess")
    assert status == 403 and "wrong console token" in page
    status, page = _request(server, "GET", f"/console?token={TOKEN}")
    assert status == 200 and "operator console" in page
    status, script = _request(server, "GET", "/static/console.js")
    assert status == 200 and "/api/input" in script


def test_an_input_without_the_right_token_is_refused(server: WebServer, loop: LiveLoop) -> None:
    status, reply = _post(server, CALL_NINE, token=None)
    assert status == 401 and "token" in reply["error"]
    assert _post(server, CALL_NINE, token="guess")[0] == 403
    assert _post(server, CALL_NINE, token="")[0] == 401
    assert loop.received == []


def test_an_input_with_the_token_reaches_the_live_loop(server: WebServer, loop: LiveLoop) -> None:
    status, reply = _post(server, CALL_NINE)
    assert status == 200 and reply == {"ok": True, "input": CALL_NINE}
    assert loop.received == [CallShot(BallId.NINE, PocketId.FOOT_LEFT)]
    status, text = _request(server, "GET", "/api/state")
    assert status == 200 and json.loads(text)["declared"] == "9 in foot-left"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{oops", "$: not valid JSON"),
        ({"kind": "celebrate"}, "$.kind: 'celebrate' is not one of"),
        ({"kind": "call-shot", "ball": "9"}, "$: missing key 'pocket'"),
        ({"kind": "time-out", "player": 0, "minutes": "five"}, "$.minutes: expected float"),
    ],
)
def test_a_bad_input_is_a_400_naming_the_path(
    server: WebServer, loop: LiveLoop, data: object, message: str
) -> None:
    status, reply = _post(server, data)
    assert status == 400 and reply["error"].startswith(message)
    assert loop.received == []


def test_the_live_loop_refusal_comes_back_as_a_clear_error(
    server: WebServer, loop: LiveLoop
) -> None:
    loop.referee.record(break_shot(index=0), 0.0)
    status, reply = _post(server, {"kind": "decision", "choice": "rerack"})
    assert status == 409
    assert reply["error"] == "log entry 1: rerack is not a pending choice (offered: nothing)"


def test_no_live_loop_is_a_503(server: WebServer) -> None:
    status, reply = _post(server, {"kind": "safety"})
    assert status == 503 and "no live loop" in reply["error"]


def test_the_vocabulary_names_the_operator_fouls_with_their_rules(server: WebServer) -> None:
    status, text = _request(server, "GET", "/api/vocabulary")
    data = json.loads(text)
    assert status == 200 and data == vocabulary()
    by_kind = {f["kind"]: f for f in data["fouls"]}
    assert by_kind["foot-on-floor"] == {
        "kind": "foot-on-floor",
        "rule": "3.13",
        "operator_only": True,
    }
    assert by_kind["scratch"]["rule"] == "3.20" and not by_kind["scratch"]["operator_only"]
    flags = [f["operator_only"] for f in data["fouls"]]
    assert flags == sorted(flags, reverse=True)  # the fouls no camera sees come first
    assert data["pockets"][0] == "head-left" and "hand-back" in data["choices"]


class _Stream:
    """A server-sent-events client reading ``state`` events."""

    def __init__(self, server: WebServer) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        self.conn.request("GET", "/api/stream")
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")

    def next_state(self) -> tuple[int, dict | None]:
        version, data = None, None
        while True:
            line = self.response.readline().decode("utf-8")
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if line.startswith("id: "):
                version = int(line[4:])
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and version is not None:
                return version, data

    def close(self) -> None:
        self.conn.close()


def test_the_stream_delivers_each_published_state(server: WebServer, loop: LiveLoop) -> None:
    stream = _Stream(server)
    try:
        version, first = stream.next_state()
        assert first is not None and first["declared"] == ""
        loop.handle(Safety())  # the live loop publishes from its own thread
        version2, second = stream.next_state()
        assert version2 == version + 1 and second is not None and second["declared"] == "safety"
    finally:
        stream.close()


def test_a_burst_of_states_ends_on_the_latest(server: WebServer, loop: LiveLoop) -> None:
    stream = _Stream(server)
    try:
        stream.next_state()
        publisher = threading.Thread(target=lambda: [loop.publish() for _ in range(300)])
        publisher.start()
        publisher.join()
        last = loop.hub.latest()[0]
        seen = []
        while not seen or seen[-1] != last:
            seen.append(stream.next_state()[0])
        assert seen == sorted(seen) and len(set(seen)) == len(seen)
    finally:
        stream.close()


def test_stop_ends_open_streams_and_frees_the_port(hub: Hub) -> None:
    web = serve(hub, port=0, token=TOKEN)
    stream = _Stream(web)
    stream.next_state()
    started = time.monotonic()
    web.stop()
    assert time.monotonic() - started < 3.0
    with pytest.raises(EOFError):
        while True:
            stream.next_state()
    stream.close()
    again = serve(hub, port=web.port, token=TOKEN)  # the port can be taken again at once
    again.stop()


def test_a_port_in_use_is_a_clear_error(server: WebServer, hub: Hub) -> None:
    with pytest.raises(HardwareError, match=f"cannot listen on 127.0.0.1:{server.port}"):
        serve(hub, port=server.port, token=TOKEN)


def test_an_empty_token_is_refused(hub: Hub) -> None:
    with pytest.raises(ValueError, match="token"):
        WebServer(hub, "127.0.0.1", 0, "")


def test_the_web_arguments_serve_on_this_machine_and_print_the_token(hub: Hub) -> None:
    parser = argparse.ArgumentParser()
    add_web_arguments(parser)
    defaults = parser.parse_args([])
    assert (defaults.host, defaults.port, defaults.token) == ("127.0.0.1", DEFAULT_PORT, "")
    out = io.StringIO()
    web = serve_from_args(hub, parser.parse_args(["--port", "0"]), out)
    try:
        printed = out.getvalue()
        assert f"console token: {web.token}" in printed and web.console_url in printed
        assert len(web.token) >= 20 and web.url.startswith("http://127.0.0.1:")
        assert _request(web, "GET", f"/console?token={web.token}")[0] == 200
    finally:
        web.stop()


def test_an_oversized_input_is_refused_unread(server: WebServer, loop: LiveLoop) -> None:
    status, reply = _post(server, b" " * (MAX_INPUT_BYTES + 1))
    assert status == 413 and reply["error"] == "$: input too large" and loop.received == []


def test_rack_ready_from_the_console_starts_the_next_rack_of_the_match_rule_3_36(
    server: WebServer, loop: LiveLoop
) -> None:
    from rules.match import MatchConfig
    from rules.referee import Referee
    from tests.factories import TABLE_9FT

    loop.referee = Referee.new("9-ball", ("Ann", "Bob"), TABLE_9FT, match=MatchConfig(race_to=3))
    loop.referee.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 0.0)
    loop.publish()
    state = json.loads(_request(server, "GET", "/api/state")[1])
    assert (state["score"], state["rack"], state["next_breaker"]) == ([1, 0], 1, 0)
    status, _ = _post(server, {"kind": "rack-ready", "note": ""})
    assert status == 200
    state = json.loads(_request(server, "GET", "/api/state")[1])
    assert (state["score"], state["rack"], state["next_breaker"]) == ([1, 0], 2, None)
    assert state["game_over"] is False and state["breaker"] == 0
    status, reply = _post(server, {"kind": "rack-ready", "note": ""})
    assert status == 409 and "not over" in reply["error"]
