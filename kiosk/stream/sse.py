"""One Server-Sent-Events response loop, shared by the live page (:mod:`kiosk.stream.server`) and the desk
(:mod:`kiosk.desk.server`).

A client is an ``asyncio.Queue`` of ready-made frames (bytes) in a set its server fans out to; ``None`` in the
queue ends the response (the server stops, or cut the client off for being too far behind). The client is in
the set before its opening frames are written, so nothing sent meanwhile is missed (it follows them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

KEEP_ALIVE_S = 15.0  # a ping after this long without a frame keeps proxies from closing the stream
#: the keep-alive frame: an event (a comment line would not reach the page's script), so the live and desk pages can
#: tell a stream that went silent (a network dropped without a reset) from a quiet one, and reconnect
PING = b"event: ping\ndata: {}\n\n"
HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def serve_events(request: Any, clients: set[asyncio.Queue[bytes | None]], retry_ms: int,
                       opening: Callable[[], Awaitable[bytes]]) -> Any:
    """Answer ``request`` with an SSE stream: ``retry: retry_ms`` (the browser's reconnection delay, ms), the
    frames ``await opening()`` gives (b"" for none), then every frame put in this client's queue until ``None``
    or the client goes away. Returns the aiohttp ``StreamResponse``; a reset connection ends it quietly."""
    from aiohttp import web

    resp = web.StreamResponse(headers=HEADERS)
    await resp.prepare(request)
    q: asyncio.Queue[bytes | None] = asyncio.Queue()
    clients.add(q)
    try:
        await resp.write(f"retry: {retry_ms}\n\n".encode() + await opening())
        while True:
            try:
                frame = await asyncio.wait_for(q.get(), timeout=KEEP_ALIVE_S)
            except TimeoutError:
                await resp.write(PING)
                continue
            if frame is None:
                break
            await resp.write(frame)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        clients.discard(q)
    return resp
