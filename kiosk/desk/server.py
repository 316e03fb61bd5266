"""The desk over HTTP (aiohttp, on its own thread): the desk page, its SSE stream and the exports.

Routes::

    GET /                       the desk page (one tile per table; click a tile for the board and move list)
    GET /static/{desk.js,desk.css,reconnect.js}   (reconnect.js: the live page's, web_files.SHARED)
    GET /stream                 SSE: ``event: state`` (every tile, standings, counters) at once, then
                                ``event: tiles`` with the tables changed, at most every 100 ms; at most
                                :data:`MAX_STREAMS_PER_ADDRESS` at once from one address (more: 429)
    GET /state.json             the same full state
    GET /layout.json            the premium squares (225 codes) for the miniature boards
    GET /table/{N}.json         one table in full: tile fields plus the stream snapshot (board, history ...)
    GET /results.json           one object per finished game (see :func:`kiosk.desk.exports.result_row`);
                                ``?round=R``: that round's only
    GET /results.csv            (``?round=R`` too)
    GET /tsh/{division}.t       the division's .t data with every round's results merged into a copy
                                (``?round=R``: that round only); also saved under the desk's folder
    GET /round/{R}.zip          every GCG of round R
    GET /games/{N}/{game}.gcg   one game's GCG (finished: as stored; running: so far)
    GET /players.json           the registered players by division (for the pairing form)
    GET /pairing/{N}.json       board N's pairing in the earliest round without a recorded game (for a kiosk's
                                new-game screen); 404 when none
    POST /pairing               the director assigns board N of round R: JSON {"pin", "round", "board",
                                "players": [name, name]}; 403 without the event's director_pin; after 3
                                wrong PINs in a row from one address, 429 for 1 s doubling to 30 s
                                (:mod:`kiosk.desk.pin_wait`)
    POST /take-version          the director takes the other version of a game the page shows: JSON {"pin",
                                "board", "game_id", "version"} (:mod:`kiosk.desk.version_routes`); 403 without
                                the director_pin, 404 for no such game, 409 when that version cannot be taken
                                (no version waits, another came or it grew since, not finished, refused)
    GET /versions/{N}.json      every version the desk kept of table N's games (taken, replaced, waiting ...)

Both POSTs are the director's requests (:mod:`kiosk.desk.director`): sent as ``application/json`` or refused
(415), so no page of another site can send one through the director's browser.

No page asset comes from outside (everything is in ``kiosk/desk/web/``). Connections pass the connection gate
(:mod:`kiosk.stream.conn_gate`): at most :data:`MAX_CONNECTIONS_PER_ADDRESS` from one address (whole requests sent
at once are all served up to it), at most :data:`MAX_UNFINISHED_PER_ADDRESS` of them without their whole request
2 s after they were made, and the limits below; a stream whose client takes nothing of a write for 10 s is cut
(:mod:`kiosk.stream.sse`). A table or round number that is no whole number is refused with 400, one that is no
table or round of the event with 404, each with a sentence (:mod:`kiosk.desk.url_numbers`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

from kiosk.desk.event import EventConfig
from kiosk.desk.export_routes import ExportRoutes
from kiosk.desk.live_routes import MAX_STREAMS, MAX_STREAMS_PER_ADDRESS, LiveRoutes
from kiosk.desk.pairing_routes import PairingRoutes
from kiosk.desk.pin_wait import PinWaits
from kiosk.desk.store import ResultsStore
from kiosk.desk.tables import Tables
from kiosk.desk.version_routes import VersionRoutes
from kiosk.stream import sse, web_files
from kiosk.stream.conn_gate import ConnectionGate, GateField, open_file_cap

log = logging.getLogger(__name__)

_QUEUE_MAX = 200    # a client this far behind is cut off (it reconnects and gets the full state)
#: Connections open at once from one address (more: 429 and closed). A director's office or a scorers' room behind
#: one NAT address is a few browsers, each holding its desk page's stream and at most 6 connections to a server
#: (8 browsers: 56); one address holding the desk's whole table (896 connections under the usual limit of 1024
#: files) locked every other page out with 503.
MAX_CONNECTIONS_PER_ADDRESS = 64
_FD_RESERVE = 128   #: open files kept for the desk itself (database, broker, log, threads) out of the process's limit
#: A connection whose request headers are not all in this long after it was made is closed (s): a phone on the
#: event's Wi-Fi sends them in well under a second, while connections that never finish their request (half-open,
#: a few bytes at a time) otherwise held the desk's connections until every page was answered 503.
HEADER_TIMEOUT_S = 10.0
#: Connections one address may hold at once that have been open longer than their grace
#: (:data:`kiosk.stream.conn_gate.UNFINISHED_GRACE_S`, 2 s) and whose request is not complete yet (more: 429 and
#: closed), so one address cannot fill the desk's connection table with half-open requests. Whole requests are read
#: within the grace: a script fetching 60 results or GCGs at once is served (up to MAX_CONNECTIONS_PER_ADDRESS).
MAX_UNFINISHED_PER_ADDRESS = 8
IDLE_TIMEOUT_S = 15.0   #: a kept-alive connection with no request in flight for this long is closed (s)


class DeskServer(LiveRoutes, ExportRoutes, PairingRoutes, VersionRoutes):
    """See module doc. ``lock`` guards ``tables`` (shared with the ingest worker); ``out_dir`` receives the
    merged ``.t`` copies. ``status_extra()`` adds fields (broker connection ...) to the page's counters.
    ``header_timeout_s``: a connection whose request headers are not all in this long after it was made is closed
    (:data:`HEADER_TIMEOUT_S`)."""

    max_connections = GateField()        # the gate's numbers and counters (kiosk.stream.conn_gate)
    max_per_address = GateField()
    header_timeout_s = GateField()
    max_unfinished_per_address = GateField()
    unfinished_grace_s = GateField()     # a connection is unfinished only once open this long without its request
    by_address = GateField()             # open connections by peer address (the server's loop only)
    open_connections = GateField()
    refused_connections = GateField()    # refused with 503: max_connections were open
    crowded_connections = GateField()    # refused with 429: their address held its share (in all or unfinished)
    slow_requests = GateField()          # closed because their request was not complete in time
    malformed_requests = GateField()     # refused with 400: not HTTP

    def __init__(self, tables: Tables, store: ResultsStore, config: EventConfig | None, lock: threading.Lock, *,
                 host: str = "127.0.0.1", port: int = 8090, out_dir: Path | None = None,
                 status_extra: Any = None, header_timeout_s: float = HEADER_TIMEOUT_S,
                 stall_timeout_s: float = sse.WRITE_STALL_S) -> None:
        self.tables = tables
        self.store = store
        self.config = config
        self.lock = lock
        self.host = host
        self.port = port
        self.out_dir = out_dir
        self.status_extra = status_extra
        #: the live desk pages' streams: their clients, and those cut for not reading (kiosk.stream.sse)
        self.streams = sse.Streams("desk", log, limit=_QUEUE_MAX, retry_ms=1000, stall_s=stall_timeout_s)
        self._told: set[str] = set()   # warnings logged already (the event loop's thread only)
        self._streams: dict[str, list[Any]] = {}   # SSE requests per client address (the event loop's thread only)
        self.crowded_streams = 0   # streams refused with 429: their address held its share
        self.max_streams = MAX_STREAMS
        self.open_streams = 0      # SSE streams being served (the event loop's thread only)
        self.busy_streams = 0      # streams refused with 503: MAX_STREAMS were open
        #: TCP connections served at once (the process's open-file limit less a reserve): one beyond is answered 503
        #: and closed at once, so idle connections cannot use up the desk's files (the page, the database, SQLite)
        self.gate = ConnectionGate("desk", log, max_connections=open_file_cap(_FD_RESERVE), busy=_BUSY,
                                   busy_note=f"the cap: this process's open-file limit less {_FD_RESERVE}",
                                   header_timeout_s=header_timeout_s, max_per_address=MAX_CONNECTIONS_PER_ADDRESS,
                                   crowded=_CROWDED, max_unfinished_per_address=MAX_UNFINISHED_PER_ADDRESS,
                                   idle_timeout_s=IDLE_TIMEOUT_S, warn_every=1000)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._standings: tuple[Any, dict[str, Any]] = (None, {})
        self.push_lag_max_ms = 0   # worst desk receipt -> push seen (ms)
        self.pin_waits = PinWaits()   # wrong director PINs slow their address down (used on the loop's thread)

    # ------------------------------------------------------------------------------------------ app
    def make_app(self) -> Any:
        """The aiohttp ``web.Application`` with every route (see module doc)."""
        from aiohttp import web

        app = web.Application(middlewares=[self.gate.middleware])
        r = app.router
        r.add_get("/", self._index)
        r.add_get("/static/{name}", self._static)
        r.add_get("/stream", self._stream)
        r.add_get("/state.json", self._state)
        r.add_get("/layout.json", self._layout)
        r.add_get("/table/{board}.json", self._table)
        r.add_get("/results.json", self._results_json)
        r.add_get("/results.csv", self._results_csv)
        r.add_get("/tsh/{division}.t", self._tsh)
        r.add_get("/round/{round}.zip", self._zip)
        r.add_get("/games/{board}/{name}.gcg", self._gcg)
        r.add_get("/players.json", self._players)
        r.add_get("/pairing/{board}.json", self._pairing)
        r.add_post("/pairing", self._assign)
        r.add_post("/take-version", self._take_version)
        r.add_get("/versions/{board}.json", self._versions)
        return app

    # ------------------------------------------------------------------------------------------ thread
    def start(self, timeout_s: float = 10.0) -> DeskServer:
        """Serve on a background thread; returns once listening. Raises ``OSError`` if it cannot listen."""
        self._thread = threading.Thread(target=self._serve, name="desk-http", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise OSError(f"desk server did not start on {self.host}:{self.port} within {timeout_s} s")
        if self._failed is not None:
            raise OSError(f"desk server cannot listen on {self.host}:{self.port}: {self._failed}")
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            runner, server = loop.run_until_complete(self.gate.listen(self.make_app(), self.host, self.port))
            self.port = server.sockets[0].getsockname()[1]
            web_files.quiet_accept_errors(loop, f"desk: the desk page on {self.host}:{self.port}", log)
        except BaseException as exc:  # reported by start()
            self._failed = exc
            self._ready.set()
            loop.close()
            return
        self._loop = loop
        pusher = loop.create_task(self._pusher())
        self._ready.set()
        loop.run_forever()
        pusher.cancel()
        self.streams.end_all()
        server.close()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    def stop(self) -> None:
        """End every SSE stream and stop serving."""
        loop = self._loop
        if loop is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._loop = None

    @property
    def url(self) -> str:
        """``http://HOST:PORT/`` of the running server."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


_BUSY = web_files.refusal("503 Service Unavailable", "The desk has too many connections open; try again in a moment.")
_CROWDED = web_files.refusal("429 Too Many Requests", f"Too many connections to the desk from your address "
                                                      f"({MAX_CONNECTIONS_PER_ADDRESS} at once): close some pages and "
                                                      f"try again.")

__all__ = ["HEADER_TIMEOUT_S", "IDLE_TIMEOUT_S", "MAX_CONNECTIONS_PER_ADDRESS", "MAX_STREAMS", "MAX_STREAMS_PER_ADDRESS",
           "MAX_UNFINISHED_PER_ADDRESS", "DeskServer"]
