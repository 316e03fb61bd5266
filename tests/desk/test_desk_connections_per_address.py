"""One address opening 1000 kept-alive connections to the desk (each asking /state.json every 10 s, within the
15 s keep-alive) had 896 of them accepted under the usual limit of 1024 files, and every other client was answered
503 "The desk has too many connections open" for the whole run: the desk capped one address's streams (8) and
unfinished requests (8), not its connections. Now one address holds at most MAX_CONNECTIONS_PER_ADDRESS (429
beyond, with a sentence), as on the live page (kiosk.stream.conn_gate)."""

from __future__ import annotations

import socket
import threading

import pytest
from common_fixtures import wait_for
from hostile_http import read_answer, status

from kiosk.desk.server import MAX_CONNECTIONS_PER_ADDRESS, DeskServer
from kiosk.desk.store import ResultsStore
from kiosk.desk.tables import Tables

REQUEST = b"GET /state.json HTTP/1.1\r\nHost: desk\r\n\r\n"


@pytest.fixture
def desk(tmp_path):
    store = ResultsStore(tmp_path / "desk.sqlite")
    srv = DeskServer(Tables(None, store), store, None, threading.Lock(), port=0)
    srv.max_connections = MAX_CONNECTIONS_PER_ADDRESS + 40   # the desk's table, small enough to fill here
    yield srv.start()
    srv.stop()
    store.close()


def test_one_address_cannot_hold_every_desk_connection(desk):
    kept: list[socket.socket] = []
    answers: list[bytes] = []
    try:
        for _ in range(desk.max_connections):   # each connection's request done before the next: none unfinished
            s = socket.create_connection(("127.0.0.1", desk.port), timeout=10, source_address=("127.6.0.1", 0))
            s.sendall(REQUEST)
            answers.append(read_answer(s))
            kept.append(s)
        ok = [a for a in answers if a.startswith(b"HTTP/1.1 200 OK")]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 429 Too Many Requests")]
        assert (len(ok), len(refused)) == (MAX_CONNECTIONS_PER_ADDRESS, 40), answers[-1][:300]
        assert refused[0].endswith(b"Too many connections to the desk from your address (64 at once): close some "
                                   b"pages and try again.")
        assert desk.crowded_connections == 40 and desk.by_address["127.6.0.1"] == MAX_CONNECTIONS_PER_ADDRESS
        assert status(f"{desk.url}state.json") == 200   # another address (127.0.0.1) is served: was 503
        for s in kept[:MAX_CONNECTIONS_PER_ADDRESS]:   # the kept-alive ones still serve their next request
            s.sendall(REQUEST)
            assert read_answer(s).startswith(b"HTTP/1.1 200 OK")
        kept[0].close()   # one closes: room for one more from that address
        assert wait_for(lambda: desk.by_address.get("127.6.0.1") == MAX_CONNECTIONS_PER_ADDRESS - 1, 5)
        again = socket.create_connection(("127.0.0.1", desk.port), timeout=10, source_address=("127.6.0.1", 0))
        kept.append(again)
        again.sendall(REQUEST)
        assert read_answer(again).startswith(b"HTTP/1.1 200 OK")
    finally:
        for s in kept:
            s.close()
