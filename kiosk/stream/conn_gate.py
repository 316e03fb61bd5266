"""The connection gate of the kiosk's two network-facing web servers (the live page, the desk): every TCP
connection passes it before aiohttp sees a byte, and it holds the rules both follow, each server with its own
numbers:

* at most ``max_connections`` open at once (one more: 503 and closed at once, so connections cannot use up the
  process's files);
* optionally at most ``max_per_address`` of them from one address (one more: 429), so one client cannot lock
  the others out;
* a connection is *unfinished* when it has been open ``unfinished_grace_s`` (:data:`UNFINISHED_GRACE_S`, 2 s; at
  most half of ``header_timeout_s``) and its first request's headers are not all in yet (the app's middleware,
  :meth:`ConnectionGate.middleware`, has not run, and the gate has not seen the blank line that ends them). One
  address may hold ``max_unfinished_per_address`` unfinished connections: one more is answered 429 and closed at
  the end of its grace, and while the address holds its share every new connection from it is answered 429 at
  once. A connection whose request headers are not all in ``header_timeout_s`` after it was made is closed, so
  half-open requests (``GET / HTTP/1.1\\r\\nHost: x\\r\\n`` held, or sent a byte at a time) cannot hold the
  server's connection table: one that began a request is answered ``408 Request Timeout`` and said in a warning
  line, one that sent nothing is closed without an answer (a browser's spare connection) and said at debug level.
  The grace is why whole requests sent at the same moment are not refused: the gate runs in
  ``connection_made``, before aiohttp reads a byte, and asyncio makes every connection of a burst (up to 128 a
  turn of its loop) before it reads any of them, so counting a connection as unfinished from its accept refused
  all but 8 of 40 whole requests sent at once from one address (a venue's NAT, a script fetching in parallel);
* a kept-alive connection with no request in flight is closed after ``idle_timeout_s`` (aiohttp's keep-alive
  timeout, :meth:`ConnectionGate.listen`). A finished request (an SSE stream) is never cut by the gate.

A connection is counted (in all and for its address) only once it is let in: one refused (503, 429) is closed at
once and never counted, so a flood of refused connections from one address cannot fill the total that other
addresses are let in by. Lines about peers (the 408s, the malformed requests aiohttp refuses 400) go through one
:class:`kiosk.stream.http_log.LineBudget` per server: a few lines per address a minute, never a line per request.

The gate's state is used on the server's event loop thread only.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kiosk.stream import web_files
from kiosk.stream.http_log import HttpLog, LineBudget

#: What a connection refused for its address's unfinished requests is told (429).
UNFINISHED = web_files.refusal("429 Too Many Requests",
                               "Too many unfinished requests from your address; try again in a moment.")
#: A connection is not counted as unfinished for this long after it was made (s), so that whole requests sent at
#: the same moment are read before any of them counts: a browser, OBS or a script sends its request with the
#: connection (on loopback it is read and handled within milliseconds, a burst of 64 within 0.1 s), and 2 s also
#: covers a lost packet's resend on the venue's Wi-Fi and a busy server. A half-open peer holds at most its
#: address's connections in all (``max_per_address``) for this long, then its ``max_unfinished_per_address``.
UNFINISHED_GRACE_S = 2.0
#: The end of a request's headers (HTTP/1.x): the blank line.
_HEAD_END = b"\r\n\r\n"


class ConnectionGate:
    """The rules of the module doc with one server's numbers.

    Args:
        where: the server's name at the head of its warnings ("live page", "desk").
        logger: where the warnings go (the first refusal of a kind, then every ``warn_every``-th).
        max_connections: connections open at once; one more gets ``busy`` (a :func:`web_files.refusal`, 503).
        busy_note: what the 503 warning says of the cap ("the cap").
        header_timeout_s: a connection whose request headers are not all in this long after it was made is closed (s).
        max_unfinished_per_address: unfinished connections one address may hold; one more gets
            :data:`UNFINISHED` (429).
        unfinished_grace_s: a connection is unfinished only once it has been open this long without its request
            (s; :data:`UNFINISHED_GRACE_S`); at most half of ``header_timeout_s`` is used (:attr:`grace_s`).
        idle_timeout_s: a kept-alive connection with no request in flight is closed after this long (s).
        max_per_address: connections in all one address may hold (None: no such cap; at most ``max_connections``);
            one more gets ``crowded`` (429).

    Raises:
        ValueError: a cap below 1 or a timeout not above 0 s.
    """

    def __init__(self, where: str, logger: logging.Logger, *, max_connections: int, busy: bytes,
                 header_timeout_s: float, max_unfinished_per_address: int, idle_timeout_s: float,
                 busy_note: str = "the cap", max_per_address: int | None = None, crowded: bytes = UNFINISHED,
                 unfinished_grace_s: float = UNFINISHED_GRACE_S, warn_every: int = 100) -> None:
        for name, cap in (("max_connections", max_connections), ("max_per_address", max_per_address),
                          ("max_unfinished_per_address", max_unfinished_per_address)):
            if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
                raise ValueError(f"{where} {name}: {cap!r} must be a whole number >= 1")
        for name, secs in (("header_timeout_s", header_timeout_s), ("idle_timeout_s", idle_timeout_s),
                           ("unfinished_grace_s", unfinished_grace_s)):
            if not secs > 0:
                raise ValueError(f"{where} {name}: {secs!r} must be a time above 0 s")
        self.where, self.log, self.warn_every = where, logger, warn_every
        self.max_connections = max_connections
        self.max_per_address = None if max_per_address is None else min(max_per_address, max_connections)
        self.max_unfinished_per_address = max_unfinished_per_address
        self.header_timeout_s = header_timeout_s
        self.unfinished_grace_s = unfinished_grace_s
        self.idle_timeout_s = idle_timeout_s
        self.busy, self.busy_note, self.crowded = busy, busy_note, crowded
        self.open_connections = 0
        self.refused_connections = 0   # refused with 503: max_connections were open
        self.crowded_connections = 0   # refused with 429: their address held its share (in all or unfinished)
        self.unfinished_refused = 0    # of those, refused at the end of their grace (their request not in)
        self.slow_requests = 0         # closed because their request headers were not in within header_timeout_s
        self.late = web_files.refusal("408 Request Timeout", f"Your request did not come in whole within "
                                                             f"{header_timeout_s:g} s; the connection is closed.")
        self.budget = LineBudget()     # the lines about peers (408s, malformed requests)
        self.http_log = HttpLog(where, self.budget)   # the logger aiohttp is given
        self.by_address: dict[str, int] = {}     # open connections by peer address
        self.unfinished: dict[str, int] = {}     # unfinished connections by peer address (past their grace)
        self._conns: dict[Any, _Gated] = {}      # aiohttp's protocol -> its wrapper

    # ------------------------------------------------------------------------------------------ serving
    @property
    def grace_s(self) -> float:
        """How long a new connection may be open without its request before it counts as unfinished (s):
        :attr:`unfinished_grace_s`, at most half of :attr:`header_timeout_s`."""
        return min(self.unfinished_grace_s, self.header_timeout_s / 2)

    @property
    def malformed_requests(self) -> int:
        """Requests aiohttp could not parse and refused with 400."""
        return self.http_log.malformed_requests

    def protocol(self, make: Any) -> asyncio.Protocol:
        """The protocol for one new connection (``loop.create_server``'s factory): aiohttp's (``make()``, made
        once the connection is let in) behind the gate."""
        return _Gated(make, self)

    async def listen(self, app: Any, host: str, port: int) -> tuple[Any, Any]:
        """Serve ``app`` on ``host``:``port`` through the gate: ``(runner, server)``, aiohttp's ``AppRunner`` set
        up (keep-alive :attr:`idle_timeout_s`) and the asyncio server. Raises ``OSError`` when it cannot listen."""
        from aiohttp import web

        runner = web.AppRunner(app, access_log=None, logger=self.http_log, keepalive_timeout=self.idle_timeout_s)
        await runner.setup()
        make = runner.server
        server = await asyncio.get_running_loop().create_server(
            lambda: self.protocol(make), host, port, reuse_address=True, backlog=128)
        return runner, server

    async def middleware(self, request: Any, handler: Any) -> Any:
        """aiohttp middleware (``web.Application(middlewares=[gate.middleware])``): a request's headers are all
        in, so its connection is no longer unfinished."""
        conn = self._conns.get(request.protocol)
        if conn is not None:
            conn.request_in()
        return await handler(request)

    middleware.__middleware_version__ = 1   # type: ignore[attr-defined]  # what @aiohttp.web.middleware sets

    # ------------------------------------------------------------------------------------------ counting
    def _tell(self, count: int) -> bool:
        return count == 1 or count % self.warn_every == 0

    def _admit(self, host: str) -> bytes | None:
        """Count a connection from ``host`` as open (not as unfinished: that comes at the end of its grace, see
        :meth:`_Gated._grace_over`): None, or the refusal to answer (warned): the 503 when :attr:`max_connections`
        are open (counted in :attr:`refused_connections`), the 429 when that address holds its share of
        connections or of unfinished ones already (:attr:`crowded_connections`)."""
        if self.open_connections >= self.max_connections:
            self.refused_connections += 1
            if self._tell(self.refused_connections):
                self.log.warning("%s: %d connections open (%s); %d refused with 503 so far", self.where,
                                 self.open_connections, self.busy_note, self.refused_connections)
            return self.busy
        held = self.by_address.get(host, 0)
        unfinished = self.unfinished.get(host, 0)
        if self.max_per_address is not None and held >= self.max_per_address:
            refusal, why, count = self.crowded, "", held
        elif unfinished >= self.max_unfinished_per_address:
            refusal, why, count = UNFINISHED, " whose request is not complete", unfinished
        else:
            self.open_connections += 1
            self.by_address[host] = held + 1
            return None
        self._crowded(host, count, why)
        return refusal

    def _crowded(self, host: str, count: int, why: str) -> None:
        """One more connection refused with 429 for its address's share (warned: the first, every ``warn_every``)."""
        self.crowded_connections += 1
        if self._tell(self.crowded_connections):
            self.log.warning("%s: %s holds %d connections%s (the share of one address); %d refused with 429 so far",
                             self.where, host, count, why, self.crowded_connections)


def open_file_cap(reserve: int, least: int = 64) -> int:
    """Connections a server may hold at once so that connections alone can never use up its process's files:
    the open-file limit less ``reserve`` (files kept for the database, the broker, the log ...), at least
    ``least``; 65536 when the limit is unlimited."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return 65536
    return max(least, soft - reserve)


def _drop(counts: dict[str, int], host: str) -> None:
    left = counts.get(host, 1) - 1
    if left > 0:
        counts[host] = left
    else:
        counts.pop(host, None)


class _Gated(asyncio.Protocol):
    """aiohttp's per-connection protocol behind the gate. Let in or refused (503, 429) in :meth:`connection_made`:
    a refused one is answered, closed and never counted, and aiohttp never sees it; one let in is counted in
    :attr:`ConnectionGate.open_connections` while open and waits for its request until :meth:`request_in`: one timer
    counts it as unfinished at the end of its grace (or refuses it, 429, when its address holds its share) and then
    closes it at the header timeout."""

    def __init__(self, make: Any, gate: ConnectionGate) -> None:
        self._make = make
        self.inner: Any = None            # aiohttp's protocol, once let in
        self.gate = gate
        self.host: str | None = None      # the address counted for it (None: refused, or not yet made)
        self.unfinished = False           # its first request's headers are not all in (the middleware has not run)
        self.counted = False              # counted in its address's unfinished connections (past its grace)
        self.head_seen = False            # the gate saw the blank line ending its first request's headers
        self._began = False               # a byte other than an empty line came
        self._tail = b""                  # the last bytes received (a blank line split between two reads)
        self.received = 0                 # bytes received while unfinished
        self.transport: Any = None
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        gate = self.gate
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        refusal = gate._admit(host)
        if refusal is not None:
            transport.write(refusal)
            transport.close()
            return
        self.host, self.unfinished, self.transport = host, True, transport
        self.inner = self._make()
        gate._conns[self.inner] = self
        self._timer = asyncio.get_running_loop().call_later(gate.grace_s, self._grace_over)
        self.inner.connection_made(transport)

    def request_in(self) -> None:
        """The first request's headers are complete: no longer unfinished (again: nothing)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.counted and self.host is not None:
            _drop(self.gate.unfinished, self.host)
        self.unfinished = self.counted = False

    def _grace_over(self) -> None:
        """Its grace is over and its request is not in: it counts as unfinished for its address, or is refused
        (429) when the address holds its share already; the header timer takes over."""
        self._timer = None
        transport, host, gate = self.transport, self.host, self.gate
        if not (self.unfinished and transport is not None and host is not None) or transport.is_closing():
            return
        rest = max(0.0, gate.header_timeout_s - gate.grace_s)
        if self.head_seen:   # its headers are in, the app's middleware just has not run yet (a busy loop)
            self._timer = asyncio.get_running_loop().call_later(rest, self._too_slow)
            return
        unfinished = gate.unfinished.get(host, 0)
        if unfinished >= gate.max_unfinished_per_address:
            gate.unfinished_refused += 1
            gate._crowded(host, unfinished, " whose request is not complete")
            transport.write(UNFINISHED)
            if transport.get_write_buffer_size():   # its peer does not even take the answer
                transport.abort()
            else:
                transport.close()
            return
        gate.unfinished[host] = unfinished + 1
        self.counted = True
        self._timer = asyncio.get_running_loop().call_later(rest, self._too_slow)

    def _too_slow(self) -> None:
        self._timer = None
        if not (self.unfinished and self.transport is not None and self.host is not None):
            return
        gate = self.gate
        gate.slow_requests += 1
        if not self.received:   # a spare connection a browser opened and did not use, or a port scan
            gate.log.debug("%s: closed a connection from %s that sent nothing within %g s", gate.where, self.host,
                           gate.header_timeout_s)
            self.transport.abort()
            return
        note = gate.budget.take(self.host)
        if note is not None:
            gate.log.warning("%s: closed a connection from %s whose request was not all in within %g s (408, %d "
                             "bytes came)%s", gate.where, self.host, gate.header_timeout_s, self.received, note)
        self.transport.write(gate.late)
        if self.transport.get_write_buffer_size():   # its peer does not even take the answer
            self.transport.abort()
        else:
            self.transport.close()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.host is None:   # refused: never counted
            return
        self.gate.open_connections -= 1
        self.request_in()   # releases its address's unfinished share and the timer
        _drop(self.gate.by_address, self.host)
        self.gate._conns.pop(self.inner, None)
        self.transport = None
        self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.host is not None:
            if self.unfinished:
                self._scan(data)
            self.inner.data_received(data)

    def _scan(self, data: bytes) -> None:
        """Count the bytes of a request not yet in and look for the blank line ending its headers (empty lines
        before a request are no request: a peer sending only those is still unfinished)."""
        self.received += len(data)
        if self.head_seen:
            return
        if not self._began:
            data = data.lstrip(b"\r\n")
            if not data:
                return
            self._began = True
        seen = self._tail + data
        self.head_seen = _HEAD_END in seen
        self._tail = seen[-(len(_HEAD_END) - 1):]

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.host is not None else False

    def pause_writing(self) -> None:
        if self.host is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.host is not None:
            self.inner.resume_writing()


class GateField:
    """A server's attribute that is its gate's (``server.gate``) attribute of the same name, read and written
    (``server.open_connections``, ``server.max_connections = 40``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else getattr(obj.gate, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.gate, self.name, value)
