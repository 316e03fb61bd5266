"""Whole requests sent at the same moment from one address (a script fetching results or GCGs in parallel, a
scorers' room behind one NAT address) were refused with 429 "Too many unfinished requests from your address" beyond
the 8th: the connection gate (kiosk.stream.conn_gate) counted a connection as unfinished from its accept, and
asyncio makes every connection of a burst before it reads any of them (10 at once: 8 or 9 served, 30: 8, 60: 8).
Now a connection counts as unfinished only once it has been open for its grace (UNFINISHED_GRACE_S, 2 s) without
its whole request: a burst is served up to the address's share of connections (64), and half-open connections are
still held to 8 an address past the grace (also tests/desk/test_desk_half_open.py)."""

from __future__ import annotations

import socket
import time

from common_fixtures import wait_for
from hostile_http import HALF, burst, connect, half_open, read_answer, status, tally

from kiosk.desk.server import MAX_CONNECTIONS_PER_ADDRESS, MAX_UNFINISHED_PER_ADDRESS
from kiosk.stream.conn_gate import UNFINISHED, UNFINISHED_GRACE_S

#: what a script fetching the desk's results does, one request a connection
PATHS = ["/state.json", "/results.json", "/results.csv", "/layout.json", "/players.json"]
OK = "HTTP/1.1 200 OK"
TOO_MANY = "HTTP/1.1 429 Too Many Requests"


def _requests(n: int) -> list[bytes]:
    return [f"GET {PATHS[i % len(PATHS)]} HTTP/1.1\r\nHost: desk\r\n\r\n".encode() for i in range(n)]


def test_whole_requests_sent_at_once_from_one_address_are_all_served(desk):
    srv = desk.server
    for n, source in ((40, "127.7.0.1"), (MAX_CONNECTIONS_PER_ADDRESS, "127.7.0.2")):
        answers = burst(srv.port, _requests(n), source)
        assert tally(answers) == {OK: n}, f"a burst of {n}: {tally(answers)}"
        assert wait_for(lambda s=source: s not in srv.by_address, 5)
    assert srv.crowded_connections == 0 and srv.slow_requests == 0
    # the address's share of connections still holds: beyond it, 429 saying which
    answers = burst(srv.port, _requests(MAX_CONNECTIONS_PER_ADDRESS + 16), "127.7.0.3")
    assert tally(answers) == {OK: MAX_CONNECTIONS_PER_ADDRESS, TOO_MANY: 16}, tally(answers)
    refused = [a for a in answers if a.startswith(TOO_MANY.encode())]
    assert all(a.endswith(b"Too many connections to the desk from your address (64 at once): close some pages and "
                          b"try again.") for a in refused), refused[0]


def test_requests_sent_in_two_parts_within_the_grace_are_served(desk):
    """40 connections, each sending the first part of its request, the rest 0.3 s later (a slow network)."""
    srv = desk.server
    socks = []
    try:
        for _ in range(40):
            socks.append(half_open(srv.port, "127.7.1.1"))
        time.sleep(0.3)
        for s in socks:
            s.sendall(b"\r\n")
        answers = [read_answer(s) for s in socks]
    finally:
        for s in socks:
            s.close()
    assert tally(answers) == {OK: 40}, tally(answers)
    assert srv.crowded_connections == 0


def _fate(s: socket.socket) -> bytes | None:
    """What ``s`` was answered and closed with, or None: still held open by the desk."""
    s.settimeout(0.2)
    try:
        return read_answer(s)
    except TimeoutError:
        return None


def test_a_burst_of_half_open_connections_keeps_only_its_share_past_the_grace(desk):
    srv = desk.server   # the desk's own numbers: 10 s header timeout, 2 s grace, 8 unfinished an address
    held = [half_open(srv.port, "127.7.2.1") for _ in range(40)]
    try:
        assert wait_for(lambda: srv.crowded_connections == 40 - MAX_UNFINISHED_PER_ADDRESS, UNFINISHED_GRACE_S + 5)
        fates = [_fate(s) for s in held]
        assert fates.count(None) == MAX_UNFINISHED_PER_ADDRESS, fates
        assert all(f == UNFINISHED for f in fates if f is not None), fates
        assert srv.gate.unfinished["127.7.2.1"] == MAX_UNFINISHED_PER_ADDRESS
        # while it holds its share, a new connection from it is refused at once, not at the end of a grace
        start = time.monotonic()
        extra = connect(srv.port, "127.7.2.1")
        extra.sendall(HALF + b"\r\n")
        assert read_answer(extra) == UNFINISHED
        assert time.monotonic() - start < UNFINISHED_GRACE_S
        extra.close()
        assert status(f"{srv.url}state.json") == 200   # other addresses are served meanwhile
    finally:
        for s in held:
            s.close()
