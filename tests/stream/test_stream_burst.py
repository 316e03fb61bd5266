"""Whole requests sent at the same moment from one address (viewers behind the venue's NAT loading the live page)
were refused with 429 "Too many unfinished requests from your address" beyond the 8th (12 at once: 8 served; 40:
8): the connection gate (kiosk.stream.conn_gate) counted a connection as unfinished from its accept, in
``connection_made``, and asyncio makes every connection of a burst before it reads any of them. Now a connection
counts as unfinished only once it has been open for its grace (UNFINISHED_GRACE_S, 2 s) without its whole request
(the app's middleware has not run and the gate has not seen the blank line ending its headers): a burst is served up
to the address's share of connections (16); half-open connections are still held to 8 an address past the grace
(tests/stream/test_stream_half_open.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from common_fixtures import wait_for
from hostile_http import burst, tally

from kiosk.stream.conn_gate import UNFINISHED, ConnectionGate
from kiosk.stream.server import MAX_PER_ADDRESS, LiveServer

#: a viewer's page load, one request a connection
PATHS = ["/", "/static/app.js", "/static/style.css", "/static/reconnect.js", "/layout.json"]
OK = "HTTP/1.1 200 OK"
TOO_MANY = "HTTP/1.1 429 Too Many Requests"


@pytest.fixture
def live():
    srv = LiveServer(port=0).start()   # the page's own numbers: 16 an address, 8 unfinished, 2 s grace
    yield srv
    srv.stop()


def _requests(n: int) -> list[bytes]:
    return [f"GET {PATHS[i % len(PATHS)]} HTTP/1.1\r\nHost: kiosk\r\n\r\n".encode() for i in range(n)]


def test_whole_requests_sent_at_once_from_one_address_are_all_served(live):
    answers = burst(live.port, _requests(MAX_PER_ADDRESS), "127.8.0.1")
    assert tally(answers) == {OK: MAX_PER_ADDRESS}, tally(answers)
    assert live.crowded_connections == 0
    # 40 at once: the address's share of connections is served, the rest told that share is full (not "unfinished")
    answers = burst(live.port, _requests(40), "127.8.0.2")
    assert tally(answers) == {OK: MAX_PER_ADDRESS, TOO_MANY: 40 - MAX_PER_ADDRESS}, tally(answers)
    refused = [a for a in answers if a.startswith(TOO_MANY.encode())]
    assert all(a.endswith(b"Too many live pages are open from your address; close one and reload.")
               for a in refused), refused[0]
    assert wait_for(lambda: not live.by_address, 5) and live.slow_requests == 0


class _Transport:
    """Enough of an asyncio transport for the gate: its peer, what was written, whether it was closed."""

    def __init__(self) -> None:
        self.written, self.closed = b"", False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.8.1.1", 40000) if name == "peername" else default

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    abort = close

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0


class _Inner:
    """aiohttp's protocol as the gate sees it, on a loop too busy to run the app: its middleware never runs."""

    def connection_made(self, transport: Any) -> None:
        pass

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc: BaseException | None) -> None:
        pass


def test_headers_the_gate_saw_whole_are_not_counted_unfinished_on_a_busy_loop():
    """At the end of the grace a request whose blank line came (whole, or split between two reads) is not counted
    even if the app has not run yet; one that sent only empty lines, or nothing, is."""

    async def run() -> tuple[ConnectionGate, dict[str, _Transport]]:
        gate = ConnectionGate("test", logging.getLogger("test"), max_connections=10, busy=b"503",
                              header_timeout_s=10, max_unfinished_per_address=1, idle_timeout_s=15,
                              unfinished_grace_s=0.05)
        sent = {"silent": [], "whole": [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"],
                "split": [b"GET / HTTP/1.1\r\nHost: x\r\n\r", b"\n"], "blank": [b"\r\n\r\n", b"\r\n"]}
        made = {}
        for name, parts in sent.items():
            made[name] = t = _Transport()
            proto = gate.protocol(_Inner)
            proto.connection_made(t)
            for part in parts:
                proto.data_received(part)
        await asyncio.sleep(0.3)
        return gate, made

    gate, made = asyncio.run(run())
    assert gate.unfinished == {"127.8.1.1": 1}            # the silent one, first past its grace
    assert [made[n].written for n in ("silent", "whole", "split")] == [b"", b"", b""]
    assert made["blank"].written == UNFINISHED and made["blank"].closed   # its address held its share
    assert gate.crowded_connections == 1 and gate.open_connections == 4
