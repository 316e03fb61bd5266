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

No page asset comes from outside (everything is in ``kiosk/desk/web/``). Connections pass the connection gate
(:mod:`kiosk.stream.conn_gate`): at most :data:`MAX_CONNECTIONS_PER_ADDRESS` from one address (whole requests sent
at once are all served up to it), at most :data:`MAX_UNFINISHED_PER_ADDRESS` of them without their whole request
2 s after they were made, and the limits below; a stream whose client takes nothing of a write for 10 s is cut
(:mod:`kiosk.stream.sse`). A table or round number that is no whole number is refused with 400, one that is no
table or round of the event with 404, each with a sentence (:mod:`kiosk.desk.url_numbers`).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from kiosk.desk.event import EventConfig
from kiosk.desk.exports import result_row, results_csv, round_zip, tsh_hidden_verdicts, tsh_text
from kiosk.desk.pin_wait import PinWaits
from kiosk.desk.standings import standings
from kiosk.desk.store import ResultsStore
from kiosk.desk.tables import Tables
from kiosk.desk.tsh import TshError
from kiosk.desk.url_numbers import round_number, table_number
from kiosk.files import write_atomic
from kiosk.stream import sse, web_files
from kiosk.stream.conn_gate import ConnectionGate, GateField, open_file_cap
from kiosk.stream.files import safe_name
from kiosk.stream.records import gcg_text

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).with_name("web")
_STATIC = {"desk.js": "text/javascript", "desk.css": "text/css"}
PUSH_S = 0.1        # SSE push period (s)
_QUEUE_MAX = 200    # a client this far behind is cut off (it reconnects and gets the full state)
MAX_STREAMS_PER_ADDRESS = 8   #: SSE streams open at once from one address (a phone, a laptop, a screen or two)
#: Connections open at once from one address (more: 429 and closed). A director's office or a scorers' room behind
#: one NAT address is a few browsers, each holding its desk page's stream and at most 6 connections to a server
#: (8 browsers: 56); one address holding the desk's whole table (896 connections under the usual limit of 1024
#: files) locked every other page out with 503.
MAX_CONNECTIONS_PER_ADDRESS = 64
#: SSE streams open at once in all. An event's desk page is watched by the director, the scorekeepers, a wall screen
#: or two and the players' phones: 256 is a page for every player of a 100-table event and its staff, while each
#: stream holds a socket (a file descriptor) and a queue, so 256 of them leave most of the usual limit of 1024 open
#: files to the other pages, the database and the broker (1100 streams under that limit made the desk unreachable).
#: A stream beyond it is answered 503 and its connection closed; the other pages are still served.
MAX_STREAMS = 256
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


class DeskServer:
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

    # ------------------------------------------------------------------------------------------ state
    def _status(self) -> dict[str, Any]:
        st = self.tables.status()
        d = sorted(self.tables.delays)
        if d:
            st["kiosk_to_desk_ms"] = {"n": len(d), "p50": d[len(d) // 2], "p99": d[min(len(d) - 1, len(d) * 99 // 100)],
                                      "max": d[-1]}
        st["push_lag_max_ms"] = self.push_lag_max_ms
        if self.status_extra is not None:
            st.update(self.status_extra())
        return st

    def _standings_now(self) -> dict[str, Any]:
        if self.config is None:
            return {}
        running: dict[str, int] = {}
        for g in self.tables.running():
            if g.pairing is not None:
                running[g.pairing.division] = running.get(g.pairing.division, 0) + 1
        key = (self.tables.results_version, tuple(sorted(running.items())))
        if self._standings[0] != key:
            self._standings = (key, standings(self.config, self.store.results(), running))
        return self._standings[1]

    def full_state(self) -> dict[str, Any]:
        """Every tile, the standings and the counters (JSON-ready). Caller holds no lock."""
        with self.lock:
            return {"event": self.config.name if self.config else "", "now": _wall(),
                    "tiles": [self.tables.tile(b) for b in sorted(self.tables.tables)],
                    "standings": self._standings_now(), "status": self._status()}

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
        return app

    async def _index(self, request: Any) -> Any:
        return web_files.page(WEB_DIR / "desk.html")

    async def _static(self, request: Any) -> Any:
        return web_files.static_file(WEB_DIR, _STATIC, request.match_info["name"])

    async def _layout(self, request: Any) -> Any:
        from aiohttp import web

        from kiosk.rules.board import LAYOUT

        return web.json_response({"layout": "".join(LAYOUT)})

    async def _state(self, request: Any) -> Any:
        from aiohttp import web

        return web.json_response(await _off(self.full_state))

    async def _table(self, request: Any) -> Any:
        from aiohttp import web

        board = table_number(request)

        def detail() -> dict[str, Any] | None:
            with self.lock:
                return self.tables.detail(board)

        out = await _off(detail)
        if out is None:
            raise web.HTTPNotFound(text=f"no table {board} has reported to the desk")
        return web.json_response(out)

    async def _results_json(self, request: Any) -> Any:
        from aiohttp import web

        base = f"{request.scheme}://{request.host}/"
        rnd = round_number(request, self.config)
        return web.json_response([result_row(r, base) for r in await _off(self.store.results, rnd)])

    async def _results_csv(self, request: Any) -> Any:
        from aiohttp import web

        base = f"{request.scheme}://{request.host}/"
        text = results_csv(await _off(self.store.results, round_number(request, self.config)), base)
        return web.Response(text=text, content_type="text/csv", charset="utf-8")

    async def _tsh(self, request: Any) -> Any:
        from aiohttp import web

        div = request.match_info["division"]
        if self.config is None or div not in self.config.divisions:
            raise web.HTTPNotFound(text=f"no division {div!r} in the event")
        rnd = round_number(request, self.config)
        try:
            results = await _off(self.store.results)
            text = await _off(lambda: tsh_text(self.config, div, results, rnd))
        except TshError as exc:
            raise web.HTTPConflict(text=f"tsh export of division {div}: "
                                        f"{str(exc).removeprefix(f'division {div}: ')}") from None
        for line in tsh_hidden_verdicts(div, results, rnd):
            if line not in self._told:   # said once, not at every download
                self._told.add(line)
                log.warning("desk: tsh export: %s", line)
        if self.out_dir is not None:  # a copy beside the desk's data, never the director's own file
            try:
                out = self.out_dir / "tsh" / f"{safe_name(div)}.t"
                await _off(lambda: write_atomic(out, text, durable=True))
            except OSError as exc:
                log.warning("desk: cannot save the .t copy: %s", exc)
        return web.Response(text=text, content_type="text/plain", charset="utf-8")

    async def _zip(self, request: Any) -> Any:
        from aiohttp import web

        rnd = round_number(request, self.config)
        results = await _off(self.store.results, rnd)
        if not results:
            raise web.HTTPNotFound(text=f"no finished game of round {rnd} yet")
        return web.Response(body=await _off(round_zip, results), content_type="application/zip",
                            headers={"Content-Disposition": f'attachment; filename="round{rnd}.zip"'})

    async def _gcg(self, request: Any) -> Any:
        from aiohttp import web

        board, name = table_number(request), request.match_info["name"]

        def find() -> str | None:
            for r in self.store.results():
                if r.board == board and safe_name(r.game_id) == name:
                    return r.gcg
            with self.lock:
                t = self.tables.tables.get(board)
                g = t.game if t is not None else None
                if g is not None and safe_name(g.game_id) == name and g.applied:
                    return gcg_text(g.ref.state, game_id=g.game_id, board=board)
            return None

        text = await _off(find)
        if text is None:
            raise web.HTTPNotFound(text=f"no game {name!r} on board {board}")
        return web.Response(text=text, content_type="text/plain", charset="utf-8")

    async def _players(self, request: Any) -> Any:
        from aiohttp import web

        divs = self.config.divisions.values() if self.config else []
        return web.json_response({d.name: [p.name for p in d.players] for d in divs})

    async def _pairing(self, request: Any) -> Any:
        from aiohttp import web

        board = table_number(request)
        cfg = self.config
        p = None if cfg is None else await _off(
            lambda: cfg.next_pairing(board, done=lambda r: self.store.game_at(r, board) is not None))
        if p is None:
            raise web.HTTPNotFound(text=f"board {board} has no pairing in a round still to play")
        return web.json_response({"board": board, "round": p.round, "division": p.division, "players": list(p.players)})

    async def _assign(self, request: Any) -> Any:
        from aiohttp import web

        from kiosk.desk.event import EventFileError

        if self.config is None or not self.config.director_pin:
            raise web.HTTPNotFound(text="Pairings can be set here only when event.toml gives a director_pin.")
        try:
            data = await request.json()
        except (ValueError, RecursionError):   # RecursionError: arrays nested thousands deep
            raise web.HTTPBadRequest(text="The request was not JSON.") from None
        address = request.remote or "?"
        wait = self.pin_waits.wait_s(address)
        if wait:   # the right PIN too: guessing must not go faster by trying it during the wait
            raise web.HTTPTooManyRequests(text=f"Too many wrong director PINs: wait {wait} s.",
                                          headers={"Retry-After": str(wait)})
        if not isinstance(data, dict):
            raise web.HTTPBadRequest(text='The request must be a JSON object: {"pin", "round", "board", "players"}.')
        pin = data.get("pin")
        if not isinstance(pin, str) or not hmac.compare_digest(pin.encode(), self.config.director_pin.encode()):
            self.pin_waits.wrong(address)
            raise web.HTTPForbidden(text="Wrong director PIN.")
        self.pin_waits.right(address)
        rnd, board, names = _pairing_fields(data)
        config = self.config

        def assign() -> Any:
            with self.lock:
                before = dict(config.pairings)
                try:
                    p = config.assign(rnd, board, names)
                except EventFileError as exc:
                    raise web.HTTPBadRequest(text=str(exc).removeprefix("desk: ")) from None
                try:
                    self.store.save_pairing(p.round, p.board, p.players)
                except (sqlite3.Error, OverflowError) as exc:   # not kept: the desk goes on as before it
                    config.pairings.clear()
                    config.pairings.update(before)
                    log.error("desk: round %d board %d: the pairing could not be saved: %s", p.round, p.board, exc)
                    raise web.HTTPServiceUnavailable(
                        text=f"The pairing could not be saved ({exc}); nothing was changed.") from None
                self.tables.repair(p.board)
                return p

        p = await _off(assign)
        log.info("desk: round %d board %d paired %s - %s at the desk", p.round, p.board, *p.players)
        return web.json_response({"round": p.round, "board": p.board, "division": p.division,
                                  "players": list(p.players)})

    async def _stream(self, request: Any) -> Any:
        from aiohttp import web

        async def opening() -> bytes:
            return _frame("state", await _off(self.full_state))

        address = request.remote or "?"
        mine = self._streams.setdefault(address, [])
        # only streams still connected count: a page reloaded (its connection lost) is let go at once, not when its
        # handler next writes (a push, or the keep-alive up to 15 s later)
        mine[:] = [r for r in mine if r.transport is not None and not r.transport.is_closing()]
        if len(mine) >= MAX_STREAMS_PER_ADDRESS:   # one address cannot take every stream
            self.crowded_streams += 1
            raise web.HTTPTooManyRequests(
                text=f"Too many live desk pages from your address ({MAX_STREAMS_PER_ADDRESS} at once): close one "
                     "and reload.", headers={"Retry-After": "10"})
        if self.open_streams >= self.max_streams:   # every stream in use: the other pages are still served
            self.busy_streams += 1
            if self.busy_streams == 1 or self.busy_streams % 1000 == 0:
                log.warning("desk: %d live desk pages are open (the cap, MAX_STREAMS); %d more refused with 503 so "
                            "far; the other pages and exports are still served", self.open_streams,
                            self.busy_streams)
            resp = web.Response(status=503, text=f"The desk's live page is full ({self.max_streams} pages open): "
                                                 "try again in a moment.", headers={"Retry-After": "10"})
            resp.force_close()   # the connection too: a crowd kept waiting must not hold the desk's files
            return resp
        mine.append(request)
        self.open_streams += 1
        try:
            return await self.streams.serve(request, opening)
        finally:
            self.open_streams -= 1
            if request in mine:
                mine.remove(request)
            if not mine and self._streams.get(address) is mine:
                del self._streams[address]

    async def _pusher(self) -> None:
        seen = (-1, -1)
        while True:
            await asyncio.sleep(PUSH_S)
            try:
                data = await _off(self._changes, seen)
            except Exception:  # never let the pusher die
                log.exception("desk: push failed")
                continue
            if data is None:
                continue
            seen, frame = data
            self.streams.send(frame)

    def _changes(self, seen: tuple[int, int]) -> tuple[tuple[int, int], bytes] | None:
        with self.lock:
            now = (self.tables.version, self.tables.results_version)
            if now == seen:
                return None
            pending = self.tables.take_pending()
            if pending:
                lag = _wall() - min(r for _, _, r in pending)
                self.push_lag_max_ms = max(self.push_lag_max_ms, lag)
            msg: dict[str, Any] = {"now": _wall(), "tiles": [self.tables.tile(b) for b, _, _ in pending],
                                   "since": {str(b): ts for b, ts, _ in pending},
                                   "recv": {str(b): r for b, _, r in pending}, "status": self._status()}
            before = self._standings[0]
            st = self._standings_now()
            if self._standings[0] != before:
                msg["standings"] = st
        return now, _frame("tiles", msg)

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


async def _off(fn: Any, *args: Any) -> Any:
    """Run ``fn(*args)`` on the default thread pool: what waits for the tables' lock or the disk never holds
    up the event loop (the SSE streams of every other client)."""
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def _pairing_fields(data: dict[str, Any]) -> tuple[int, int, tuple[str, str]]:
    """``round``, ``board`` and ``players`` of a POST /pairing body, checked for their kinds (the event checks
    the values). Raises ``HTTPBadRequest`` with a sentence naming the field (``true`` is no number)."""
    from aiohttp import web

    from kiosk.desk.event import shown

    for key, what in (("round", "the round number"), ("board", "the board number")):
        value = data.get(key)
        if value is None:
            raise web.HTTPBadRequest(text=f'The request lacks "{key}": {what}, a whole number.')
        if not isinstance(value, int) or isinstance(value, bool):
            raise web.HTTPBadRequest(text=f'"{key}" must be {what}, a whole number, not {shown(value)}.')
    names = data.get("players")
    if names is None:
        raise web.HTTPBadRequest(text='The request lacks "players": the two players\' names.')
    if not isinstance(names, list) or len(names) != 2 or not all(isinstance(n, str) and n.strip() for n in names):
        raise web.HTTPBadRequest(text=f'"players" must be a list of two player names, not {shown(names)}.')
    return data["round"], data["board"], (names[0], names[1])


def _wall() -> int:
    return int(time.time() * 1000)


def _frame(event: str, msg: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(msg, separators=(',', ':'), ensure_ascii=False)}\n\n".encode()
