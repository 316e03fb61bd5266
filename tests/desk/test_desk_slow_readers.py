"""Live desk pages whose client never reads (``/stream`` on a socket with a 4 KB receive buffer, held unread): as on
the live page (tests/stream/test_stream_slow_readers.py, the same kiosk.stream.sse.Streams), their handler waited
in a write for ever, holding their address's 8 streams and the desk's connections, and a reset was logged at ERROR
with aiohttp's traceback. Now a stream more than 200 pushes behind is cut at once, one whose writes are not taken
for ``stall_timeout_s`` is cut, and a reset ends a stream quietly."""

from __future__ import annotations

import logging
import socket
import time

import pytest
from common_fixtures import wait_for
from hostile_http import reset, unread_stream

from kiosk.desk.server import MAX_STREAMS_PER_ADDRESS, DeskServer


def _push(srv: DeskServer, count: int, size: int) -> None:
    """``count`` pushes of about ``size`` bytes to every live page, as the desk's pusher sends them."""
    assert srv._loop is not None
    frame = b"event: tiles\ndata: {\"pad\":\"" + b"x" * size + b"\"}\n\n"
    for _ in range(count):
        srv._loop.call_soon_threadsafe(srv.streams.send, frame)


def _noisy(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage()[:200] for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def _served(port: int, source: str) -> bool:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    try:
        s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        return s.recv(64).startswith(b"HTTP/1.1 200 OK")
    finally:
        s.close()


def test_unread_desk_pages_are_cut_when_their_writes_stall(desk_server, caplog):
    caplog.set_level(logging.INFO)
    srv = desk_server(stall_timeout_s=1.0)
    held = [unread_stream(srv.port, "127.5.0.1") for _ in range(MAX_STREAMS_PER_ADDRESS)]
    try:
        assert wait_for(lambda: srv.open_streams == MAX_STREAMS_PER_ADDRESS, 5)
        _push(srv, 100, 4000)   # 400 KB to each, fewer pushes than the 200 that cut a page behind
        assert wait_for(lambda: srv.open_streams == 0, 1.0 + 5), f"{srv.open_streams} unread pages still open"
        assert (srv.streams.stalled, srv.streams.behind) == (MAX_STREAMS_PER_ADDRESS, 0)
        assert wait_for(lambda: srv.open_connections == 0, 5)
        assert _served(srv.port, "127.5.0.1")   # the address's streams are free again
    finally:
        for s in held:
            s.close()
    said = [r.getMessage() for r in caplog.records if "cut the stream" in r.getMessage()]
    assert said == ["desk: cut the stream to 127.5.0.1: it took nothing for 1 s (1 cut so far for that)"], said
    assert not _noisy(caplog), _noisy(caplog)


def test_an_unread_desk_page_far_behind_is_cut_at_once(desk_server):
    srv = desk_server()   # the stall timeout as shipped: 10 s
    held = unread_stream(srv.port, "127.5.1.1")
    try:
        assert wait_for(lambda: srv.open_streams == 1, 5)
        _push(srv, 100, 4000)
        time.sleep(1.0)          # its writes wait
        _push(srv, 250, 100)     # 250 pushes more than it took
        start = time.monotonic()
        assert wait_for(lambda: srv.open_streams == 0, 3), "the page 250 pushes behind was not cut"
        assert time.monotonic() - start < 3 and (srv.streams.behind, srv.streams.stalled) == (1, 0)
    finally:
        held.close()


def test_desk_pages_reset_while_their_writes_wait_end_quietly(desk_server, caplog):
    caplog.set_level(logging.DEBUG)
    srv = desk_server(stall_timeout_s=60.0)
    held = [unread_stream(srv.port, "127.5.2.1") for _ in range(4)]
    assert wait_for(lambda: srv.open_streams == 4, 5)
    _push(srv, 100, 20_000)   # 2 MB to each: every handler waits in its write
    time.sleep(1.5)
    for s in held:
        reset(s)
    assert wait_for(lambda: srv.open_streams == 0 and srv.open_connections == 0, 5)
    time.sleep(0.3)
    assert not _noisy(caplog), _noisy(caplog)
    assert (srv.streams.lost, srv.streams.stalled, srv.streams.behind) == (4, 0, 0)
    ended = [r for r in caplog.records if "the stream to 127.5.2.1 ended" in r.getMessage()]
    assert len(ended) == 4 and all(r.levelno == logging.DEBUG for r in ended)
