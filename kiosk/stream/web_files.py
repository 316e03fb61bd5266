"""The files a kiosk page is served from (the live page, the desk): one place for how a page or a static file
goes out (UTF-8, never cached, so a reload after an update gets the new file) and how an unknown name is refused.
aiohttp is imported when a response is made, as in the servers."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def page(path: Path) -> Any:
    """The HTML page at ``path`` as an aiohttp response."""
    from aiohttp import web

    return web.Response(body=path.read_bytes(), content_type="text/html", charset="utf-8",
                        headers={"Cache-Control": "no-cache"})


def static_file(folder: Path, served: Mapping[str, str], name: str) -> Any:
    """``folder/name`` with its content type from ``served`` (file name -> content type), the only names served.

    Raises:
        aiohttp.web.HTTPNotFound: ``name`` is not in ``served`` (so no path outside ``folder`` is ever read).
    """
    from aiohttp import web

    if name not in served:
        raise web.HTTPNotFound(text=f"no static file {name!r} (have: {', '.join(served)})")
    return web.Response(body=(folder / name).read_bytes(), content_type=served[name], charset="utf-8",
                        headers={"Cache-Control": "no-cache"})
