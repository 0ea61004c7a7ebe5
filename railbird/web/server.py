"""The web server: the public scoreboard, the operator console, and their JSON API.

Routes:

- ``GET /`` the scoreboard page (public); ``GET /console?token=...`` the console page;
- ``GET /api/state`` the latest `ScoreboardState` as JSON; ``GET /api/stream`` server-sent
  events, one ``state`` event per published state (a slow client gets the latest only);
- ``GET /api/vocabulary`` the names the console offers (fouls with their rules, choices...);
- ``POST /api/input`` one console input as JSON (`railbird.web.inputs`), with the header
  ``Authorization: Bearer TOKEN``: 401 without a token, 403 with a wrong one, 400 when the
  input does not decode (the message names the path), 409 when the live loop refuses it,
  503 when no live loop takes inputs.

Starlette on uvicorn, in a background thread of its own (`serve`), so the live loop never
waits for a browser.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import logging
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any, TextIO

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from railbird.web.hub import Hub, NoLiveLoop
from railbird.web.inputs import InputError, encode_input, parse_input
from rules.codec import dumps
from rules.errors import HardwareError, RailbirdError
from rules.inputs import InterferenceOutcome
from rules.ruling import Choice, FoulKind
from rules.table import PocketId

log = logging.getLogger(__name__)

DEFAULT_PORT = 8300
KEEPALIVE_S = 15.0
"""A comment line on an idle stream this often, so proxies and browsers keep it open."""
MAX_INPUT_BYTES = 64 * 1024

STATIC = resources.files("railbird.web") / "static"


def make_token() -> str:
    """A fresh console token (URL-safe, 128 bits)."""
    return secrets.token_urlsafe(16)


class WebServer:
    """The scoreboard and console server running in a background thread.

    Example::

        server = serve(hub, port=0, token=make_token())
        print(server.console_url)
        ...
        server.stop()
    """

    def __init__(self, hub: Hub, host: str, port: int, token: str) -> None:
        if not token:
            raise ValueError("the console needs a non-empty token")
        self.hub = hub
        self.host = host
        self._token = token.encode()
        self._streams: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self._encoded: tuple[int, str] = (0, "null")
        self._encode_lock = threading.Lock()
        self._socket = _bind(host, port)
        self.port = self._socket.getsockname()[1]
        config = uvicorn.Config(
            self.app(), log_level="warning", lifespan="off", timeout_graceful_shutdown=2
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="railbird-web", daemon=True)

    @property
    def url(self) -> str:
        """The scoreboard's address."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    @property
    def token(self) -> str:
        """The console token (printed at start for the operator)."""
        return self._token.decode()

    @property
    def console_url(self) -> str:
        """The console's address, token included."""
        return f"{self.url}console?token={self._token.decode()}"

    def start(self, timeout_s: float = 10.0) -> WebServer:
        """Start serving in the background; returns once the server accepts connections.

        Raises:
            HardwareError: the server did not come up within ``timeout_s``.
        """
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise HardwareError(f"web server on {self.url} did not start")
            time.sleep(0.01)
        log.info("scoreboard on %s; console on %s", self.url, self.console_url)
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        """Close the streams and the server and wait for its thread."""
        self._closing = True
        self._server.should_exit = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                loop.call_soon_threadsafe(self._wake_streams)
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        self._socket.close()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # The app ----------------------------------------------------------------------------------

    def app(self) -> Starlette:
        """The ASGI application."""
        return Starlette(
            routes=[
                Route("/", self._scoreboard_page),
                Route("/console", self._console_page),
                Route("/api/state", self._state),
                Route("/api/stream", self._stream),
                Route("/api/vocabulary", self._vocabulary),
                Route("/api/input", self._input, methods=["POST"]),
                Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
            ]
        )

    async def _scoreboard_page(self, request: Request) -> Response:
        return HTMLResponse(_page("scoreboard.html"))

    async def _console_page(self, request: Request) -> Response:
        refused = self._refusal(request.query_params.get("token"))
        if refused is not None:
            status, why = refused
            body = _page("refused.html").replace("{{why}}", why)
            return HTMLResponse(body, status_code=status)
        return HTMLResponse(_page("console.html"), headers={"Cache-Control": "no-store"})

    async def _state(self, request: Request) -> Response:
        version, text = self._latest_json()
        return Response(text, media_type="application/json", headers={"X-Version": str(version)})

    async def _vocabulary(self, request: Request) -> Response:
        return JSONResponse(vocabulary())

    async def _stream(self, request: Request) -> Response:
        return StreamingResponse(
            self._events(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def _input(self, request: Request) -> Response:
        refused = self._refusal(_bearer(request.headers.get("authorization", "")))
        if refused is not None:
            status, why = refused
            return JSONResponse({"error": why}, status_code=status)
        declared = request.headers.get("content-length", "0")
        if not declared.isdigit() or int(declared) > MAX_INPUT_BYTES:
            return JSONResponse({"error": "$: input too large"}, status_code=413)
        body = await request.body()
        if len(body) > MAX_INPUT_BYTES:
            return JSONResponse({"error": "$: input too large"}, status_code=413)
        try:
            item = parse_input(body)
        except InputError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        try:
            await run_in_threadpool(self.hub.submit, item)
        except NoLiveLoop as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        except RailbirdError as exc:
            log.info("console input %s refused: %s", item.kind, exc)
            return JSONResponse({"error": str(exc)}, status_code=409)
        return JSONResponse({"ok": True, "input": encode_input(item)})

    # Streams ---------------------------------------------------------------------------------

    async def _events(self) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        self._loop = loop
        wake = asyncio.Event()
        self._streams.add(wake)

        def poke() -> None:
            loop.call_soon_threadsafe(wake.set)

        self.hub.add_listener(poke)
        sent = -1
        try:
            yield "retry: 1000\n\n"
            while not self._closing:
                wake.clear()
                version, text = self._latest_json()
                if version != sent:
                    sent = version
                    yield f"id: {version}\nevent: state\ndata: {text}\n\n"
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": keepalive\n\n"
        finally:
            self.hub.remove_listener(poke)
            self._streams.discard(wake)

    def _wake_streams(self) -> None:
        for wake in self._streams:
            wake.set()

    def _latest_json(self) -> tuple[int, str]:
        """The latest state as JSON text, encoded once per version whoever asks."""
        version, state = self.hub.latest()
        with self._encode_lock:
            if self._encoded[0] != version:
                self._encoded = (version, dumps(state))
            return self._encoded

    # Auth and running ------------------------------------------------------------------------

    def _refusal(self, token: str | None) -> tuple[int, str] | None:
        if not token:
            return 401, "the console needs the token printed when railbird started"
        if not hmac.compare_digest(token.encode(), self._token):
            return 403, "wrong console token"
        return None

    def _run(self) -> None:
        self._server.run(sockets=[self._socket])


def serve(
    hub: Hub, host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: str = ""
) -> WebServer:
    """Serve the scoreboard and console for ``hub`` in a background thread.

    Args:
        hub: Where the live loop publishes states and takes inputs.
        host: Interface to bind: 127.0.0.1 keeps it on this machine; 0.0.0.0 shows the
            scoreboard on the venue network (the console still needs the token).
        port: TCP port; 0 picks a free one (see `WebServer.port`).
        token: The console token; empty makes a fresh one (`WebServer.console_url`).

    Raises:
        HardwareError: the address cannot be bound or the server does not start.
    """
    return WebServer(hub, host, port, token or make_token()).start()


def add_web_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--host``, ``--port`` and ``--token`` (for `railbird watch` and `railbird demo`)."""
    web = parser.add_argument_group("scoreboard and console")
    web.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface for the scoreboard (default 127.0.0.1, this machine only; 0.0.0.0 "
        "shows it on the venue network; the console still needs the token)",
    )
    web.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"web port (default {DEFAULT_PORT})"
    )
    web.add_argument(
        "--token", default="", help="console token (default: a fresh one, printed at start)"
    )


def serve_from_args(hub: Hub, args: argparse.Namespace, out: TextIO) -> WebServer:
    """Serve ``hub`` as the arguments of `add_web_arguments` say, and print where to ``out``:
    the scoreboard's address and the console's, token included.

    Raises:
        HardwareError: the address cannot be bound or the server does not start.
    """
    server = serve(hub, host=args.host, port=args.port, token=args.token)
    print(f"scoreboard: {server.url}", file=out)
    print(f"console:    {server.console_url}", file=out)
    print(f"console token: {server.token}", file=out)
    return server


def vocabulary() -> dict[str, Any]:
    """The names the console offers, from the rules' own enums (one source of truth)."""
    fouls = sorted(FoulKind, key=lambda k: (not k.operator_only, k.rule, k.value))
    return {
        "fouls": [
            {"kind": k.value, "rule": k.rule, "operator_only": k.operator_only} for k in fouls
        ],
        "choices": [c.value for c in Choice],
        "pockets": [p.value for p in PocketId],
        "balls": [str(n) for n in range(1, 16)],
        "interference": [o.value for o in InterferenceOutcome],
    }


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise HardwareError(f"web server: cannot listen on {host}:{port} ({exc.strerror})") from exc
    sock.listen(64)
    sock.setblocking(False)
    return sock


def _bearer(header: str) -> str | None:
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def _page(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


__all__ = [
    "DEFAULT_PORT",
    "WebServer",
    "add_web_arguments",
    "make_token",
    "serve",
    "serve_from_args",
    "vocabulary",
]
