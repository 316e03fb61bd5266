"""Connections that never finish their request (half-open: ``GET /state.json HTTP/1.1\\r\\nHost: x\\r\\n`` without
the closing blank line, held) filled the desk's connection table: every page was answered 503 for as long as they
were held. Now a connection whose request headers are not in within ``header_timeout_s`` is closed, and one address
holds at most ``max_unfinished_per_address`` such connections (429 beyond); finished requests (the streams) are
not affected."""

from __future__ import annotations

import socket
import time

from hostile_http import closed_by_server, half_open, status, stream_outlives

from kiosk.desk.server import MAX_UNFINISHED_PER_ADDRESS


def test_half_open_connections_are_closed_and_cannot_hold_the_desk(desk_server):
    srv = desk_server(header_timeout_s=1.0, max_connections=40)
    held = [half_open(srv.port, f"127.1.0.{i % 10 + 1}") for i in range(40)]   # 4 per address: the whole table
    stream: socket.socket | None = None
    try:
        start = time.monotonic()
        ok = False
        while time.monotonic() - start < 1.0 + 15:   # the timeout and a generous margin
            if status(f"{srv.url}state.json") == 200:
                ok = True
                break
            time.sleep(0.2)
        assert ok, "the half-open connections held the desk: /state.json answered 503 throughout"
        assert all(closed_by_server(s, 15) for s in held)
        assert srv.slow_requests == 40 and srv.open_connections <= 2
        # a finished request (a live page) outlives the header timeout
        stream = stream_outlives(srv.port, 3)
    finally:
        if stream is not None:
            stream.close()
        for s in held:
            s.close()


def test_one_address_holds_at_most_its_share_of_unfinished_requests(desk_server):
    srv = desk_server(header_timeout_s=5.0, max_connections=1000)
    mine = [half_open(srv.port, "127.1.1.1") for _ in range(MAX_UNFINISHED_PER_ADDRESS)]
    try:
        extra = socket.create_connection(("127.0.0.1", srv.port), timeout=10, source_address=("127.1.1.1", 0))
        extra.settimeout(10)
        answer = b""
        while chunk := extra.recv(4096):
            answer += chunk
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429 Too Many Requests"), answer[:200]
        assert srv.crowded_connections == 1
        assert status(f"{srv.url}state.json") == 200   # other addresses are served meanwhile
        assert all(closed_by_server(s, 5.0 + 15) for s in mine)
        time.sleep(0.5)
        again = half_open(srv.port, "127.1.1.1")   # its share is free again
        again.sendall(b"\r\n")
        again.settimeout(10)
        assert again.recv(64).startswith(b"HTTP/1.1 200 OK")
        again.close()
    finally:
        for s in mine:
            s.close()
