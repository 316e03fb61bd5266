"""The Server-Sent-Events streams of the live page (:mod:`kiosk.stream.server`) and the desk (:mod:`kiosk.desk.server`):
one :class:`Streams` per stream route holds its clients, fans frames out to them and serves each one's response.

A client is a :class:`Client`: the frames (bytes) not yet written to it. It is in its route's set before its opening
frames are written, so nothing sent meanwhile is missed (it follows them). What waits is written in one go, so a
client that was briefly slow catches up in one write.

A stream ends

* when its server stops (:meth:`Streams.end_all`): the response is finished;
* when its client is more than ``limit`` frames behind (:meth:`Streams.send`): the connection is cut at once (the
  page reconnects and gets a fresh state), counted in :attr:`Streams.behind`;
* when its client takes nothing of a write for ``stall_s`` (:data:`WRITE_STALL_S`, 10 s): a client that does not
  read (its socket's buffers are full, capped at :data:`SEND_BUFFER` so that this comes after at most about
  200 KB) is cut, counted in :attr:`Streams.stalled`, so it cannot hold a connection slot for long. A client that
  reads slowly (a phone taking a large opening state) is not cut as long as it takes some of it.
* when its client resets or loses the connection: quietly (one debug line), counted in :attr:`Streams.lost`.

Cut streams are said in one warning line, the first and then every ``warn_every``-th.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from kiosk.rules.counts import counted

KEEP_ALIVE_S = 15.0  # a ping after this long without a frame keeps proxies from closing the stream
#: the keep-alive frame: an event (a comment line would not reach the page's script), so the live and desk pages can
#: tell a stream that went silent (a network dropped without a reset) from a quiet one, and reconnect
PING = b"event: ping\ndata: {}\n\n"
HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
#: A stream whose client takes nothing of a write for this long is cut (s). A browser reads its streams whatever
#: the page does (a hidden tab too), so only a client that does not read, or whose network is gone, waits this
#: long; its page, if any, reconnects by itself.
WRITE_STALL_S = 10.0
#: The kernel's send buffer of a stream's socket (bytes; Linux doubles it): a stream's frames are small (a tick,
#: a move), while a socket left to grow its own buffer (up to 4 MB) lets a client that never reads go unnoticed for
#: many minutes. With it, the writes of a stream nobody reads wait after about 200 KB (this, doubled, and aiohttp's
#: 64 KB), so the stall timer starts.
SEND_BUFFER = 64 * 1024


class Client:
    """One stream's frames not yet written (see module doc)."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.ended = False          # the response is to end: its server stops, or it was cut
        self.transport: Any = None  # its connection, once its response began
        self._wake = asyncio.Event()

    def put(self, frame: bytes) -> None:
        self.frames.append(frame)
        self._wake.set()

    def end(self) -> None:
        """Finish the response after what was put already."""
        self.ended = True
        self._wake.set()

    def cut(self) -> None:
        """End the stream at once: drop what waits and close its connection (a write waiting on it returns)."""
        self.frames.clear()
        self.end()
        if self.transport is not None:
            self.transport.abort()

    async def take(self, wait_s: float) -> bytes | None:
        """Every frame put since the last take, joined (waiting up to ``wait_s`` for one: b"" when none came);
        None once the stream is to end."""
        if not self.frames and not self.ended:
            self._wake.clear()
            try:
                async with asyncio.timeout(wait_s):
                    await self._wake.wait()
            except TimeoutError:
                return b""
        if self.ended:
            return None
        out = b"".join(self.frames)
        self.frames.clear()
        return out


class _Stalled(Exception):
    """A write was not taken within the stall time."""


class _Watch:
    """Cancels the task writing to ``transport`` when its client takes nothing for ``stall_s``: the bytes waiting
    in the transport's buffer do not go down (looked at every quarter of it)."""

    def __init__(self, transport: Any, stall_s: float) -> None:
        self.loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        self.task, self.transport, self.stall_s = task, transport, stall_s
        self.fired = False
        self.waiting = self._buffered()
        self.since = self.loop.time()   # the last time the client took something (or the write began)
        self.handle = self.loop.call_later(stall_s / 4, self._look)

    def _buffered(self) -> int:
        return int(self.transport.get_write_buffer_size()) if self.transport is not None else 0

    def _look(self) -> None:
        now, waiting = self.loop.time(), self._buffered()
        if waiting < self.waiting:
            self.since = now
        self.waiting = waiting
        if now - self.since >= self.stall_s:
            self.fired = True
            self.task.cancel()
        else:
            self.handle = self.loop.call_later(self.stall_s / 4, self._look)

    def stop(self) -> None:
        self.handle.cancel()


class Streams:
    """The clients of one stream route (see module doc).

    Args:
        where: the route's name in the log lines ("live page", "desk").
        logger: where they go.
        limit: frames a client may be behind; one more cuts it.
        retry_ms: the browser's reconnection delay the stream asks for (ms).
        stall_s: a write not taken for this long cuts its stream (s; :data:`WRITE_STALL_S`).
    """

    def __init__(self, where: str, logger: logging.Logger, *, limit: int, retry_ms: int,
                 stall_s: float = WRITE_STALL_S, warn_every: int = 100) -> None:
        if not stall_s > 0:
            raise ValueError(f"{where} stall_timeout_s: {stall_s!r} must be a time above 0 s")
        self.where, self.log, self.warn_every = where, logger, warn_every
        self.limit, self.retry_ms, self.stall_s = limit, retry_ms, stall_s
        self.clients: set[Client] = set()
        self.behind = 0    # streams cut: more than ``limit`` frames behind
        self.stalled = 0   # streams cut: a write not taken within ``stall_s``
        self.lost = 0      # streams their client reset or lost

    def __len__(self) -> int:
        return len(self.clients)

    def send(self, frame: bytes) -> None:
        """``frame`` to every client (the server's loop thread); a client ``limit`` frames behind is cut."""
        for c in list(self.clients):
            if len(c.frames) >= self.limit:
                self.clients.discard(c)
                self.behind += 1
                self._said(c, f"it was more than {counted(self.limit, 'message')} behind", self.behind)
                c.cut()
            else:
                c.put(frame)

    def end_all(self) -> None:
        """End every stream (the server stops)."""
        for c in list(self.clients):
            c.end()

    async def serve(self, request: Any, opening: Callable[[], Awaitable[bytes]]) -> Any:
        """Answer ``request`` with a stream: ``retry:``, the frames ``await opening()`` gives (b"" for none), then
        every frame sent until it ends (module doc). Returns the aiohttp ``StreamResponse``."""
        from aiohttp import web

        resp = web.StreamResponse(headers=HEADERS)
        client = Client()
        self.clients.add(client)
        try:
            await resp.prepare(request)
            client.transport = request.transport
            _cap_send_buffer(client.transport)
            await self._write(resp, f"retry: {self.retry_ms}\n\n".encode() + await opening(), client.transport)
            while (data := await client.take(KEEP_ALIVE_S)) is not None:
                await self._write(resp, data or PING, client.transport)
        except _Stalled:
            self.stalled += 1
            self._said(client, f"it took nothing for {self.stall_s:g} s", self.stalled)
            client.cut()
        except ConnectionError as exc:   # reset or lost: the client's doing, and nothing to tell
            self.lost += 1
            self.log.debug("%s: the stream to %s ended: %s", self.where, _peer(client), exc)
        except asyncio.CancelledError:   # the server stops
            pass
        finally:
            self.clients.discard(client)
        return resp

    async def _write(self, resp: Any, data: bytes, transport: Any) -> None:
        watch = _Watch(transport, self.stall_s)
        try:
            await resp.write(data)
        except asyncio.CancelledError:
            if not watch.fired:
                raise
            watch.task.uncancel()   # the cancel was the watch's own: the stream ends, the request does not
            raise _Stalled from None
        finally:
            watch.stop()

    def _said(self, client: Client, why: str, count: int) -> None:
        if count == 1 or count % self.warn_every == 0:
            self.log.warning("%s: cut the stream to %s: %s (%d cut so far for that)", self.where, _peer(client),
                             why, count)


def _peer(client: Client) -> str:
    peer = client.transport.get_extra_info("peername") if client.transport is not None else None
    return str(peer[0]) if isinstance(peer, tuple) and peer else "a client"


def _cap_send_buffer(transport: Any) -> None:
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        except OSError:   # not a TCP socket (a test's pipe): its own buffer
            pass
