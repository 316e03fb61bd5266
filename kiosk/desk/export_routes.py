"""The desk's downloads (a part of :class:`kiosk.desk.server.DeskServer`): the results as JSON and CSV, each
division's tsh ``.t`` (a copy also saved under the desk's folder), a round's GCGs as a zip and one game's GCG.

Routes: ``/results.json``, ``/results.csv``, ``/tsh/{division}.t``, ``/round/{R}.zip`` and
``/games/{N}/{game}.gcg`` (see :mod:`kiosk.desk.server`); the files are made by :mod:`kiosk.desk.exports`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.desk.exports import result_row, results_csv, round_zip, tsh_hidden_verdicts, tsh_text
from kiosk.desk.route_base import RouteBase, log, off_loop
from kiosk.desk.tsh import TshError
from kiosk.desk.url_numbers import round_number, table_number
from kiosk.files import write_atomic
from kiosk.stream.files import safe_name
from kiosk.stream.records import gcg_text


class ExportRoutes(RouteBase):
    """The export routes of :class:`~kiosk.desk.server.DeskServer` (which sets the attributes below in its
    ``__init__``)."""

    out_dir: Path | None
    _told: set[str]

    async def _results_json(self, request: Any) -> Any:
        from aiohttp import web

        base = f"{request.scheme}://{request.host}/"
        rnd = round_number(request, self.config)
        return web.json_response([result_row(r, base) for r in await off_loop(self.store.results, rnd)])

    async def _results_csv(self, request: Any) -> Any:
        from aiohttp import web

        base = f"{request.scheme}://{request.host}/"
        text = results_csv(await off_loop(self.store.results, round_number(request, self.config)), base)
        return web.Response(text=text, content_type="text/csv", charset="utf-8")

    async def _tsh(self, request: Any) -> Any:
        from aiohttp import web

        div = request.match_info["division"]
        if self.config is None or div not in self.config.divisions:
            raise web.HTTPNotFound(text=f"no division {div!r} in the event")
        rnd = round_number(request, self.config)
        try:
            results = await off_loop(self.store.results)
            text = await off_loop(lambda: tsh_text(self.config, div, results, rnd))
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
                await off_loop(lambda: write_atomic(out, text, durable=True))
            except OSError as exc:
                log.warning("desk: cannot save the .t copy: %s", exc)
        return web.Response(text=text, content_type="text/plain", charset="utf-8")

    async def _zip(self, request: Any) -> Any:
        from aiohttp import web

        rnd = round_number(request, self.config)
        results = await off_loop(self.store.results, rnd)
        if not results:
            raise web.HTTPNotFound(text=f"no finished game of round {rnd} yet")
        return web.Response(body=await off_loop(round_zip, results), content_type="application/zip",
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

        text = await off_loop(find)
        if text is None:
            raise web.HTTPNotFound(text=f"no game {name!r} on board {board}")
        return web.Response(text=text, content_type="text/plain", charset="utf-8")
