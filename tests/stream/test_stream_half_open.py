"""Connections that never finish their request (half-open: ``GET /state.json HTTP/1.1\\r\\nHost: x\\r\\n`` without
the closing blank line, held, or sent a byte at a time) held the live page's connection table: every page, the
broadcaster's overlay included, was answered 503 until aiohttp's idle timeout (15 s), and a peer reconnecting held
it for good. Now, as on the desk (tests/desk/test_desk_half_open.py, the same gate: kiosk.stream.conn_gate), a
connection whose request headers are not in within ``header_timeout_s`` is closed and one address holds at most
``max_unfinished_per_address`` such connections (429 beyond); finished requests (the streams) are not affected."""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request

import pytest

from kiosk.stream.server import MAX_UNFINISHED_PER_ADDRESS, LiveServer

HALF = b"GET /state.json HTTP/1.1\r\nHost: x\r\n"   # no closing blank line


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


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            r.read()
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _connect(port: int, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def _half_open(port: int, source: str) -> socket.socket:
    s = _connect(port, source)
    s.sendall(HALF)
    return s


def _closed_by_page(s: socket.socket, within_s: float) -> bool:
    s.settimeout(within_s)
    try:
        return s.recv(4096) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_half_open_connections_are_closed_and_cannot_hold_the_live_page(live):
    srv = live(max_connections=40, max_per_address=40, header_timeout_s=1.0)
    held = [_half_open(srv.port, f"127.2.0.{i % 10 + 1}") for i in range(40)]   # 4 per address: the whole table
    stream: socket.socket | None = None
    try:
        time.sleep(0.3)
        assert _status(f"{srv.url}state.json") == 503   # the table is full: that is what they did
        start = time.monotonic()
        while time.monotonic() - start < 1.0 + 4 and _status(f"{srv.url}state.json") == 503:
            time.sleep(0.2)
        # well before the 15 s idle timeout, which closed them at last before
        assert _status(f"{srv.url}state.json") == 204, "the half-open connections held the live page (503)"
        assert all(_closed_by_page(s, 2.0) for s in held)
        assert srv.slow_requests == 40 and srv.open_connections <= 2
        # a finished request (a viewer's stream) outlives the header timeout
        stream = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        stream.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        stream.settimeout(10)
        assert stream.recv(64).startswith(b"HTTP/1.1 200 OK")
        time.sleep(2.5)
        stream.settimeout(0.5)
        try:
            assert stream.recv(65536) != b"", "the stream was closed"
        except TimeoutError:
            pass   # nothing new to say: still open
        assert srv.slow_requests == 40
    finally:
        if stream is not None:
            stream.close()
        for s in held:
            s.close()


def test_a_request_sent_a_byte_at_a_time_is_closed_at_the_header_timeout(live):
    srv = live(header_timeout_s=1.0)
    s = _connect(srv.port, "127.2.1.1")
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
    mine = [_half_open(srv.port, "127.2.2.1") for _ in range(MAX_UNFINISHED_PER_ADDRESS)]
    streams: list[socket.socket] = []
    try:
        extra = _connect(srv.port, "127.2.2.1")
        answer = b""
        while chunk := extra.recv(4096):
            answer += chunk
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429 Too Many Requests"), answer[:200]
        assert answer.endswith(b"Too many unfinished requests from your address; try again in a moment.")
        assert srv.crowded_connections == 1
        assert _status(f"{srv.url}state.json") == 204   # other addresses are served meanwhile
        assert all(_closed_by_page(s, 2.0 + 3) for s in mine)
        time.sleep(0.3)
        # its share is free again, and finished requests (a broadcaster's overlay and browsers: 12 streams) do not
        # count against it
        for _ in range(12):
            s = _connect(srv.port, "127.2.2.1")
            streams.append(s)
            s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(64).startswith(b"HTTP/1.1 200 OK")
        assert srv.crowded_connections == 1
    finally:
        for s in mine + streams:
            s.close()
