"""The files a kiosk page is served from (the live page, the desk): one place for how a page or a static file
goes out (UTF-8, never cached, so a reload after an update gets the new file), how an unknown name is refused,
how a connection is refused before the web app sees it, and how a server out of files says so. aiohttp is imported
when a response is made, as in the servers."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def page(path: Path) -> Any:
    """The HTML page at ``path`` as an aiohttp response."""
    from aiohttp import web

    return web.Response(body=path.read_bytes(), content_type="text/html", charset="utf-8",
                        headers={"Cache-Control": "no-cache"})


#: Static files every page's server serves besides its own (file name -> content type), from :data:`SHARED_DIR`:
#: the stream keeping with back-off of the live page and the desk (``window.kioskStream``).
SHARED = {"reconnect.js": "text/javascript"}
SHARED_DIR = Path(__file__).with_name("web")


def static_file(folder: Path, served: Mapping[str, str], name: str) -> Any:
    """``folder/name`` with its content type from ``served`` (file name -> content type), the only names served
    besides :data:`SHARED` (from :data:`SHARED_DIR`).

    Raises:
        aiohttp.web.HTTPNotFound: ``name`` is in neither (so no path outside the two folders is ever read).
    """
    from aiohttp import web

    if name not in served and name in SHARED:
        folder, served = SHARED_DIR, SHARED
    if name not in served:
        raise web.HTTPNotFound(text=f"no static file {name!r} (have: {', '.join([*served, *SHARED])})")
    return web.Response(body=(folder / name).read_bytes(), content_type=served[name], charset="utf-8",
                        headers={"Cache-Control": "no-cache"})


def refusal(status: str, text: str) -> bytes:
    """A whole HTTP/1.1 response refusing a connection before the web app sees it: ``status`` ("503 Service
    Unavailable", "429 Too Many Requests"), ``text`` (a sentence, UTF-8), retry after 10 s, the connection closed."""
    body = text.encode("utf-8")
    return (f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 10\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n").encode("ascii") + body


ACCEPT_WARN_EVERY_S = 60.0   # a server that cannot accept says so at most once a minute


def quiet_accept_errors(loop: Any, where: str, logger: logging.Logger) -> None:
    """Install on ``loop`` an exception handler that turns asyncio's "socket.accept() out of system resource" (out
    of file descriptors: every connection refused until some close) into one warning line naming ``where`` (e.g.
    "the desk page on 127.0.0.1:8090"), repeated at most every :data:`ACCEPT_WARN_EVERY_S` with the count since;
    the event loop logged each failed accept at ERROR with its traceback (97 MB of stderr in 40 s). Anything
    else goes to the loop's default handler."""
    import errno
    import os
    import resource
    import time

    state = {"last": -ACCEPT_WARN_EVERY_S, "count": 0}

    def handler(lp: Any, context: dict[str, Any]) -> None:
        if not str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            lp.default_exception_handler(context)
            return
        state["count"] += 1
        now = time.monotonic()
        if now - state["last"] < ACCEPT_WARN_EVERY_S:
            return
        exc = context.get("exception")
        code = exc.errno if isinstance(exc, OSError) else None
        why = os.strerror(code).lower() if code else str(exc)
        if code == errno.EMFILE:
            why += f" (this process may hold {resource.getrlimit(resource.RLIMIT_NOFILE)[0]})"
        logger.warning("%s cannot take new connections: %s; %d refused since the last warning; it takes them again "
                       "as connections close", where, why, state["count"])
        state["last"], state["count"] = now, 0

    loop.set_exception_handler(handler)
