"""Connections that never finish their request (half-open: ``GET /state.json HTTP/1.1\\r\\nHost: x\\r\\n`` without
the closing blank line, held, or sent a byte at a time) held the live page's connection table: every page, the
broadcaster's overlay included, was answered 503 until aiohttp's idle timeout (15 s), and a peer reconnecting held
it for good. Now, as on the desk (tests/desk/test_desk_half_open.py, the same gate: kiosk.stream.conn_gate), a
connection whose request headers are not in within ``header_timeout_s`` is closed and one address holds at most
``max_unfinished_per_address`` such connections (429 beyond); finished requests (the streams) are not affected."""

from __future__ import annotations

import socket
import time

import pytest
from hostile_http import HALF, closed_by_server, connect, half_open, status, stream_outlives

from kiosk.stream.server import MAX_UNFINISHED_PER_ADDRESS, LiveServer


@pytest.fixture
def live():
    servers: list[LiveServer] = []

    def make(**kw: object) -> LiveServer:
        srv = LiveServer(port=0, **kw)   # type: ignore[arg-type]
        servers.append(srv.start())
        return srv

    yield make
    for s in servers:
        s.stop()


def test_half_open_connections_are_closed_and_cannot_hold_the_live_page(live):
    srv = live(max_connections=40, max_per_address=40, header_timeout_s=1.0)
    held = [half_open(srv.port, f"127.2.0.{i % 10 + 1}") for i in range(40)]   # 4 per address: the whole table
    stream: socket.socket | None = None
    try:
        time.sleep(0.3)
        assert status(f"{srv.url}state.json") == 503   # the table is full: that is what they did
        start = time.monotonic()
        while time.monotonic() - start < 1.0 + 4 and status(f"{srv.url}state.json") == 503:
            time.sleep(0.2)
        # well before the 15 s idle timeout, which closed them at last before
        assert status(f"{srv.url}state.json") == 204, "the half-open connections held the live page (503)"
        assert all(closed_by_server(s, 2.0) for s in held)
        assert srv.slow_requests == 40 and srv.open_connections <= 2
        # a finished request (a viewer's stream) outlives the header timeout
        stream = stream_outlives(srv.port, 2.5)
        assert srv.slow_requests == 40
    finally:
        if stream is not None:
            stream.close()
        for s in held:
            s.close()


def test_a_request_sent_a_byte_at_a_time_is_closed_at_the_header_timeout(live):
    srv = live(header_timeout_s=1.0)
    s = connect(srv.port, "127.2.1.1")
    try:
        s.settimeout(0.2)
        start = time.monotonic()
        closed = False
        for byte in (HALF * 20)[:40]:   # a byte every 0.2 s: 8 s if the page let it
            try:
                s.sendall(bytes([byte]))
                closed = s.recv(4096) == b""
            except TimeoutError:
                continue
            except (ConnectionResetError, BrokenPipeError):
                closed = True
            if closed:
                break
        assert closed and time.monotonic() - start < 1.0 + 1.5, "the trickled request held its connection"
        assert srv.slow_requests == 1
    finally:
        s.close()


def test_one_address_holds_at_most_its_share_of_unfinished_requests(live):
    srv = live(header_timeout_s=2.0)
    assert srv.max_per_address > MAX_UNFINISHED_PER_ADDRESS
    mine = [half_open(srv.port, "127.2.2.1") for _ in range(MAX_UNFINISHED_PER_ADDRESS)]
    streams: list[socket.socket] = []
    try:
        extra = connect(srv.port, "127.2.2.1")
        answer = b""
        while chunk := extra.recv(4096):
            answer += chunk
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429 Too Many Requests"), answer[:200]
        assert answer.endswith(b"Too many unfinished requests from your address; try again in a moment.")
        assert srv.crowded_connections == 1
        assert status(f"{srv.url}state.json") == 204   # other addresses are served meanwhile
        assert all(closed_by_server(s, 2.0 + 3) for s in mine)
        time.sleep(0.3)
        # its share is free again, and finished requests (a broadcaster's overlay and browsers: 12 streams) do not
        # count against it
        for _ in range(12):
            s = connect(srv.port, "127.2.2.1")
            streams.append(s)
            s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(64).startswith(b"HTTP/1.1 200 OK")
        assert srv.crowded_connections == 1
    finally:
        for s in mine + streams:
            s.close()
