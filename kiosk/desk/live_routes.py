"""The desk page's live side (a part of :class:`kiosk.desk.server.DeskServer`): the page and its assets, the full
state, one table's detail and the SSE stream with the pusher that sends it the changed tables.

Routes: ``/``, ``/static/{name}``, ``/layout.json``, ``/state.json``, ``/table/{N}.json`` and ``/stream`` (see
:mod:`kiosk.desk.server`).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from kiosk.desk.route_base import RouteBase, log, off_loop
from kiosk.desk.standings import standings
from kiosk.desk.url_numbers import table_number
from kiosk.rules.counts import counted
from kiosk.stream import sse, web_files

WEB_DIR = Path(__file__).with_name("web")
_STATIC = {"desk.js": "text/javascript", "desk.css": "text/css"}
PUSH_S = 0.1        # SSE push period (s)
MAX_STREAMS_PER_ADDRESS = 8   #: SSE streams open at once from one address (a phone, a laptop, a screen or two)
#: SSE streams open at once in all. An event's desk page is watched by the director, the scorekeepers, a wall screen
#: or two and the players' phones: 256 is a page for every player of a 100-table event and its staff, while each
#: stream holds a socket (a file descriptor) and a queue, so 256 of them leave most of the usual limit of 1024 open
#: files to the other pages, the database and the broker (1100 streams under that limit made the desk unreachable).
#: A stream beyond it is answered 503 and its connection closed; the other pages are still served.
MAX_STREAMS = 256


class LiveRoutes(RouteBase):
    """The live routes and the pusher of :class:`~kiosk.desk.server.DeskServer` (which sets the attributes below
    in its ``__init__``)."""

    status_extra: Any
    streams: sse.Streams
    _streams: dict[str, list[Any]]
    _standings: tuple[Any, dict[str, Any]]
    crowded_streams: int
    max_streams: int
    open_streams: int
    busy_streams: int
    push_lag_max_ms: int

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

    # ------------------------------------------------------------------------------------------ pages
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

        return web.json_response(await off_loop(self.full_state))

    async def _table(self, request: Any) -> Any:
        from aiohttp import web

        board = table_number(request)

        def detail() -> dict[str, Any] | None:
            with self.lock:
                return self.tables.detail(board)

        out = await off_loop(detail)
        if out is None:
            raise web.HTTPNotFound(text=f"no table {board} has reported to the desk")
        return web.json_response(out)

    # ------------------------------------------------------------------------------------------ stream
    async def _stream(self, request: Any) -> Any:
        from aiohttp import web

        async def opening() -> bytes:
            return _frame("state", await off_loop(self.full_state))

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
            resp = web.Response(status=503, text=f"The desk's live page is full ({counted(self.max_streams, 'page')} open): "
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
                data = await off_loop(self._changes, seen)
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


def _wall() -> int:
    return int(time.time() * 1000)


def _frame(event: str, msg: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(msg, separators=(',', ':'), ensure_ascii=False)}\n\n".encode()
