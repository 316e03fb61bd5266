"""The desk's pairing routes (a part of :class:`kiosk.desk.server.DeskServer`): the registered players for the
pairing form, a board's next pairing for a kiosk's new-game screen and the director's assignment of a board,
guarded by the event's ``director_pin`` as every director's request is (:mod:`kiosk.desk.director`).

Routes: ``/players.json``, ``/pairing/{N}.json`` and POST ``/pairing`` (see :mod:`kiosk.desk.server`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from kiosk.desk.director import director_request, whole_field
from kiosk.desk.pin_wait import PinWaits
from kiosk.desk.route_base import RouteBase, log, off_loop
from kiosk.desk.url_numbers import table_number


class PairingRoutes(RouteBase):
    """The pairing routes of :class:`~kiosk.desk.server.DeskServer` (which sets the attributes below in its
    ``__init__``)."""

    pin_waits: PinWaits

    async def _players(self, request: Any) -> Any:
        from aiohttp import web

        divs = self.config.divisions.values() if self.config else []
        return web.json_response({d.name: [p.name for p in d.players] for d in divs})

    async def _pairing(self, request: Any) -> Any:
        from aiohttp import web

        board = table_number(request)
        cfg = self.config
        p = None if cfg is None else await off_loop(
            lambda: cfg.next_pairing(board, done=lambda r: self.store.game_at(r, board) is not None))
        if p is None:
            raise web.HTTPNotFound(text=f"board {board} has no pairing in a round still to play")
        return web.json_response({"board": board, "round": p.round, "division": p.division, "players": list(p.players)})

    async def _assign(self, request: Any) -> Any:
        from aiohttp import web

        from kiosk.desk.event import EventFileError

        data = await director_request(request, self.config, self.pin_waits, action="pair boards",
                                      fields='{"pin", "round", "board", "players"}')
        rnd, board, names = _pairing_fields(data)
        config = self.config
        assert config is not None   # director_request refuses a desk without an event

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

        p = await off_loop(assign)
        log.info("desk: round %d board %d paired %s - %s at the desk", p.round, p.board, *p.players)
        return web.json_response({"round": p.round, "board": p.board, "division": p.division,
                                  "players": list(p.players)})


def _pairing_fields(data: dict[str, Any]) -> tuple[int, int, tuple[str, str]]:
    """``round``, ``board`` and ``players`` of a POST /pairing body, checked for their kinds (the event checks
    the values). Raises ``HTTPBadRequest`` with a sentence naming the field (``true`` is no number)."""
    from aiohttp import web

    from kiosk.desk.event import shown

    rnd, board = whole_field(data, "round", "the round number"), whole_field(data, "board", "the board number")
    names = data.get("players")
    if names is None:
        raise web.HTTPBadRequest(text='The request lacks "players": the two players\' names.')
    if not isinstance(names, list) or len(names) != 2 or not all(isinstance(n, str) and n.strip() for n in names):
        raise web.HTTPBadRequest(text=f'"players" must be a list of two player names, not {shown(names)}.')
    return rnd, board, (names[0], names[1])
