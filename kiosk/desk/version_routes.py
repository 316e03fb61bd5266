"""The director's other-version routes (a part of :class:`kiosk.desk.server.DeskServer`): taking the other version
of a game the desk page shows (:mod:`kiosk.desk.versions`), guarded by the event's ``director_pin`` as every
director's request is (:mod:`kiosk.desk.director`), and the versions the desk kept of a table's games.

Routes: POST ``/take-version`` and ``/versions/{N}.json`` (see :mod:`kiosk.desk.server`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from kiosk.desk.director import director_request, text_field, whole_field
from kiosk.desk.event import shown
from kiosk.desk.pin_wait import PinWaits
from kiosk.desk.route_base import RouteBase, log, off_loop
from kiosk.desk.url_numbers import table_number
from kiosk.desk.versions import VersionError, taken_sentence
from kiosk.stream.subscriber import MAX_BOARD

FIELDS = '{"pin", "board", "game_id", "version"}'   #: what POST /take-version takes


class VersionRoutes(RouteBase):
    """The other-version routes of :class:`~kiosk.desk.server.DeskServer` (which sets the attributes below in its
    ``__init__``)."""

    pin_waits: PinWaits

    async def _take_version(self, request: Any) -> Any:
        from aiohttp import web

        data = await director_request(request, self.config, self.pin_waits,
                                      action="take another version of a game", fields=FIELDS)
        board = whole_field(data, "board", "the table number")
        if not 0 <= board <= MAX_BOARD:
            raise web.HTTPBadRequest(text=f'"board" must be a table number, 0 to {MAX_BOARD}, not {shown(board)}.')
        game_id = text_field(data, "game_id", "the game's id, as the desk page shows it", 128)
        token = text_field(data, "version", "the other version's name, as the desk page gave it", 40)

        def take() -> Any:
            with self.lock:
                try:
                    return self.tables.take_version(board, game_id, token)
                except VersionError as exc:
                    raise (web.HTTPNotFound if exc.status == 404 else web.HTTPConflict)(text=str(exc)) from None
                except (sqlite3.Error, OSError, ValueError) as exc:   # the store: nothing was changed
                    log.error("desk: table %d game %s: the other version could not be taken: %s", board, game_id, exc)
                    raise web.HTTPServiceUnavailable(text=f"The other version of game {game_id} at table {board} "
                                                          f"could not be saved ({exc}); nothing was changed.") from None

        game, res = await off_loop(take)
        log.info("desk: table %d game %s: the director took the other version (kiosk run %s): %s", board, game_id,
                 game.boot, " - ".join(f"{n} {s}" for n, s in res.players))
        return web.json_response({"board": board, "game_id": game_id, "replaced_at": game.replaced_at,
                                  "players": [{"name": n, "score": s} for n, s in res.players],
                                  "sentence": taken_sentence(game, res)})

    async def _versions(self, request: Any) -> Any:
        from aiohttp import web

        return web.json_response(await off_loop(self.store.version_history, table_number(request)))
