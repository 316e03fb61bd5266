"""The kiosk's live view over HTTP (aiohttp): one page for spectators / OBS, a Server-Sent-Events stream,
the overlay fields and the public GCG.

Routes (all public data is behind the broadcast delay)::

    GET /                     the live page (board, scores, clocks, last move) - an OBS browser source
    GET /static/{app.js,style.css,reconnect.js}   (reconnect.js: shared with the desk, web_files.SHARED)
    GET /stream               SSE: the latest snapshot at once, then every public message
                              (``event: snapshot|event|tick``, ``id:`` = the message counter n)
    GET /state.json           the latest public snapshot message (204 before a game)
    GET /layout.json          premium squares (225 codes) and tile values, for the page
    GET /overlay/             the overlay field names (JSON); GET /overlay/{name}: one field (text)
    GET /judge/stream?token=  SSE of the live judge channel - only when a judge token is configured

No page asset comes from outside the kiosk (no CDN): everything is in ``kiosk/stream/web/``. The page reconnects
by itself (back-off 1 s doubling to 15 s, with jitter) when its stream is lost or a reconnection is refused (503,
429: the browser's EventSource gives up for good on those), showing "Disconnected" with its clocks standing still
until the fresh state comes.

It listens on loopback unless told otherwise (``host``: a LAN address only when configured) and holds at most
``max_connections`` TCP connections at once (64 by default): a connection beyond the cap is answered
``503 Service Unavailable`` (with ``Retry-After``) and closed at once, so spectators can never use up the
kiosk's file descriptors (1,100 idle connections once made every file, SQLite handle and socket of the kiosk
fail with EMFILE). One address holds at most ``max_per_address`` of them (16 by default): one more from it is
answered ``429 Too Many Requests`` and closed, so one client (70 open streams) cannot lock the broadcaster's
overlay and every other spectator out. A connection whose request headers are not all in within
``header_timeout_s`` (10 s) is closed, and one address holds at most :data:`MAX_UNFINISHED_PER_ADDRESS` (8)
connections that have been open 2 s (:data:`kiosk.stream.conn_gate.UNFINISHED_GRACE_S`) without their whole request
(429 beyond), so half-open requests cannot hold the page's slots, while whole requests sent at the same moment (a
venue's viewers behind one NAT address) are all served up to ``max_per_address``; the rules are
:class:`kiosk.stream.conn_gate.ConnectionGate`'s, shared with the desk. A stream more than 2,000 messages behind, or
whose client takes nothing of a write for ``stall_timeout_s`` (10 s, :data:`kiosk.stream.sse.WRITE_STALL_S`), is cut
(:class:`kiosk.stream.sse.Streams`), so a client that does not read holds no slot for long.
:class:`LiveServer` is a hub sink; it runs its own asyncio loop on a thread (:meth:`LiveServer.start`), or
:meth:`LiveServer.make_app` gives the aiohttp application to mount in the kiosk's own loop.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from kiosk.referee.state import GameState
from kiosk.stream import sse, web_files
from kiosk.stream.conn_gate import ConnectionGate, GateField
from kiosk.stream.envelope import encode
from kiosk.stream.overlay import OverlayWriter

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).with_name("web")
_STATIC = {"app.js": "text/javascript", "style.css": "text/css"}
_QUEUE_MAX = 2000  # a client further behind than this is cut off (it reconnects and gets a fresh snapshot)
_RETRY_MS = 2000   # the browser's reconnection delay a stream asks for
MAX_CONNECTIONS = 64
MAX_PER_ADDRESS = 16   # connections one address may hold (a broadcaster's overlay and a few browsers need far fewer)
#: A connection whose request headers are not all in this long after it was made is closed (s): a browser or OBS
#: sends them at once, while half-open connections (a request never finished) otherwise held the page's slots.
HEADER_TIMEOUT_S = 10.0
#: Connections one address may hold at once that have been open longer than their grace
#: (:data:`kiosk.stream.conn_gate.UNFINISHED_GRACE_S`, 2 s) and whose request is not complete yet (more: 429 and
#: closed). Whole requests are read within the grace, so a burst of them is never refused for this.
MAX_UNFINISHED_PER_ADDRESS = 8
IDLE_TIMEOUT_S = 15.0   #: a kept-alive connection with no request in flight for this long is closed (s)
_BUSY = web_files.refusal("503 Service Unavailable", "The live page is full; try again in a moment.")
_CROWDED = web_files.refusal("429 Too Many Requests",
                             "Too many live pages are open from your address; close one and reload.")


class LiveServerError(OSError):
    """The live page cannot listen (bad address or port, port taken); the message names the address."""


def check_port(port: object, what: str = "port") -> int:
    """``port`` as a TCP port number 0..65535 (0: any free port). Raises ValueError naming ``what``."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"{what}: {port!r} is not a TCP port (0-65535)")
    return port


class LiveServer:
    """HTTP server + hub sink (see module doc).

    Args:
        overlay: the :class:`OverlayWriter` whose fields ``/overlay/`` serves (None: no overlay routes data).
        host / port: where to listen (default loopback; port 0: any free port, read :attr:`port` after
            :meth:`start`). max_connections: TCP connections served at once; more get 503.
        max_per_address: of those, the most one peer address may hold (at most ``max_connections``); more from
            it get 429.
        idle_timeout_s: a connection with no request in flight for this long is closed (s), so idle
            connections cannot hold the slots.
        header_timeout_s: a connection whose request headers are not all in this long after it was made is
            closed (s). max_unfinished_per_address: such unfinished connections one address may hold at once
            (more: 429); a connection is unfinished only once it has been open for its grace (2 s, at most half of
            ``header_timeout_s``: :attr:`ConnectionGate.grace_s`) without its whole request, so whole requests
            sent at once are served up to ``max_per_address``.
        stall_timeout_s: a stream whose client takes nothing of a write for this long is cut (s).
        judge_token: enables ``/judge/stream?token=...`` (compared in constant time); None disables it.
        tile_set: tile set whose letter values the page shows ("english", "german" or a .toml path).
    """

    max_connections = GateField()        # the gate's numbers and counters (kiosk.stream.conn_gate)
    max_per_address = GateField()
    idle_timeout_s = GateField()
    header_timeout_s = GateField()
    max_unfinished_per_address = GateField()
    unfinished_grace_s = GateField()     # a connection is unfinished only once open this long without its request
    by_address = GateField()             # open connections by peer address (the server's loop only)
    open_connections = GateField()
    refused_connections = GateField()    # refused with 503: max_connections were open
    crowded_connections = GateField()    # refused with 429: their address held its share
    slow_requests = GateField()          # closed: request headers not in within header_timeout_s
    malformed_requests = GateField()     # refused with 400: not HTTP

    def __init__(self, overlay: OverlayWriter | None = None, *, host: str = "127.0.0.1", port: int = 8080,
                 judge_token: str | None = None, tile_set: str = "english",
                 max_connections: int = MAX_CONNECTIONS, idle_timeout_s: float = IDLE_TIMEOUT_S,
                 max_per_address: int = MAX_PER_ADDRESS, header_timeout_s: float = HEADER_TIMEOUT_S,
                 max_unfinished_per_address: int = MAX_UNFINISHED_PER_ADDRESS,
                 stall_timeout_s: float = sse.WRITE_STALL_S) -> None:
        """Raises ValueError for a port outside 0..65535, a cap below 1 or a timeout not above 0 s."""
        self.overlay = overlay
        self.host = host
        self.port = check_port(port, "live page port")
        self.gate = ConnectionGate("live page", log, max_connections=max_connections, busy=_BUSY,
                                   max_per_address=max_per_address, crowded=_CROWDED,
                                   header_timeout_s=header_timeout_s,
                                   max_unfinished_per_address=max_unfinished_per_address,
                                   idle_timeout_s=idle_timeout_s)
        self.judge_token = judge_token
        self.tile_set = tile_set
        self.channels = frozenset({"public", "judge"} if judge_token else {"public"})
        self._latest: dict[str, dict[str, Any]] = {}
        #: the streams of each channel (``/stream``, ``/judge/stream``): their clients and what cut them
        self.streams = {ch: sse.Streams(where, log, limit=_QUEUE_MAX, retry_ms=_RETRY_MS, stall_s=stall_timeout_s)
                        for ch, where in (("public", "live page"), ("judge", "live page's judge stream"))}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: Any = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._server: Any = None

    # ------------------------------------------------------------------------------------------ sink
    def on_message(self, msg: dict[str, Any], state: GameState | None) -> None:
        """Hub sink entry (hub thread): remember the latest snapshot and pass ``msg`` to the SSE clients."""
        ch = msg["channel"]
        if msg["kind"] == "snapshot":
            self._latest[ch] = msg
        loop = self._loop
        if loop is not None and self.streams[ch]:
            loop.call_soon_threadsafe(self._fan_out, ch, msg)

    def _fan_out(self, ch: str, msg: dict[str, Any]) -> None:
        self.streams[ch].send(_sse_frame(msg))  # encoded once for every viewer, on the page's own thread

    @property
    def behind_streams(self) -> int:
        """Streams cut for being more than 2,000 messages behind."""
        return sum(s.behind for s in self.streams.values())

    @property
    def stalled_streams(self) -> int:
        """Streams cut because their client took nothing of a write for ``stall_timeout_s``."""
        return sum(s.stalled for s in self.streams.values())

    @property
    def lost_streams(self) -> int:
        """Streams their client reset or lost (ended quietly)."""
        return sum(s.lost for s in self.streams.values())

    # ------------------------------------------------------------------------------------------ app
    def make_app(self) -> Any:
        """The aiohttp ``web.Application`` with every route."""
        from aiohttp import web

        app = web.Application(middlewares=[self.gate.middleware])
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/stream", self._stream_public)
        app.router.add_get("/judge/stream", self._stream_judge)
        app.router.add_get("/state.json", self._state)
        app.router.add_get("/layout.json", self._layout)
        app.router.add_get("/overlay/", self._overlay_index)
        app.router.add_get("/overlay/{name}", self._overlay_field)
        return app

    async def _index(self, request: Any) -> Any:
        return web_files.page(WEB_DIR / "index.html")

    async def _static(self, request: Any) -> Any:
        return web_files.static_file(WEB_DIR, _STATIC, request.match_info["name"])

    async def _state(self, request: Any) -> Any:
        from aiohttp import web

        msg = self._latest.get("public")
        if msg is None:
            return web.Response(status=204)
        return web.Response(body=encode(msg), content_type="application/json")

    async def _layout(self, request: Any) -> Any:
        from aiohttp import web

        from kiosk.rules.board import LAYOUT
        from kiosk.rules.tiles import TileSetError, load_tile_set

        try:
            ts = load_tile_set(self.tile_set)
            values = dict(ts.values)
        except TileSetError as exc:
            log.warning("live page: tile set %s: %s", self.tile_set, exc)
            values = {}
        return web.json_response({"layout": "".join(LAYOUT), "values": values})

    async def _overlay_index(self, request: Any) -> Any:
        from aiohttp import web

        names = sorted(self.overlay.current) if self.overlay else []
        return web.json_response({"fields": names})

    async def _overlay_field(self, request: Any) -> Any:
        from aiohttp import web

        name = request.match_info["name"]
        if self.overlay is None or name not in self.overlay.current:
            raise web.HTTPNotFound(text=f"no overlay field {name!r}; see /overlay/ for the list")
        return web.Response(text=self.overlay.current[name], content_type="text/plain", charset="utf-8",
                            headers={"Cache-Control": "no-store", "Access-Control-Allow-Origin": "*"})

    async def _stream_public(self, request: Any) -> Any:
        return await self._sse(request, "public")

    async def _stream_judge(self, request: Any) -> Any:
        from aiohttp import web

        if not self.judge_token:
            raise web.HTTPNotFound(text="the judge stream is not enabled on this kiosk")
        given = request.query.get("token", "")
        if not hmac.compare_digest(given.encode(), self.judge_token.encode()):
            raise web.HTTPForbidden(text="judge stream: wrong or missing token")
        return await self._sse(request, "judge")

    async def _sse(self, request: Any, ch: str) -> Any:
        async def opening() -> bytes:
            latest = self._latest.get(ch)
            return b"" if latest is None else _sse_frame(latest)

        return await self.streams[ch].serve(request, opening)

    # ------------------------------------------------------------------------------------------ thread
    def start(self, timeout_s: float = 10.0) -> LiveServer:
        """Serve on a background thread; returns once listening. Raises :class:`LiveServerError` (an
        ``OSError``) when it cannot listen: address not on this machine, port taken or not allowed."""
        self._thread = threading.Thread(target=self._serve, name="stream-http", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise LiveServerError(f"live page: did not start on {self.host}:{self.port} within {timeout_s} s")
        if self._failed is not None:
            exc = self._failed
            errno = exc.errno if isinstance(exc, OSError) else None
            # a host name that does not resolve is a gaierror: its errno is negative (os.strerror gives
            # 'Unknown error -2'), its strerror the resolver's sentence ('Name or service not known')
            why = (os.strerror(errno) if errno and errno > 0
                   else exc.strerror if isinstance(exc, OSError) and exc.strerror
                   else str(exc) or type(exc).__name__)
            raise LiveServerError(f"stream.live_host / live_port: cannot listen on {self.host}:{self.port}: {why}")
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            self._runner, self._server = loop.run_until_complete(self.gate.listen(self.make_app(), self.host,
                                                                                  self.port))
            self.port = self._server.sockets[0].getsockname()[1]
            web_files.quiet_accept_errors(loop, f"the kiosk's live page on {self.host}:{self.port}", log)
        except BaseException as exc:  # reported by start()
            self._failed = exc
            self._ready.set()
            loop.close()
            return
        self._loop = loop
        self._ready.set()
        loop.run_forever()
        self._server.close()
        loop.run_until_complete(self._runner.cleanup())
        loop.close()

    def stop(self) -> None:
        """End every SSE stream and stop serving."""
        loop = self._loop
        if loop is None:
            return
        for streams in self.streams.values():
            loop.call_soon_threadsafe(streams.end_all)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._loop = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"


def _sse_frame(msg: dict[str, Any]) -> bytes:
    data = json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
    return f"event: {msg['kind']}\nid: {msg['n']}\ndata: {data}\n\n".encode()
