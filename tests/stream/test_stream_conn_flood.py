"""A connect flood from one address (about 16,000 connections a second from 127.0.0.1) made another address's
requests fail: 4 of 12 were answered 503 "The live page is full" while only 8 connections were really held, because
a connection was counted in the total as soon as it was accepted, and one refused with 429 for its address stayed
counted until its close came round. Now the connection gate (kiosk.stream.conn_gate, the desk's too) counts a
connection only once it is let in: a refused one is closed and never counted against the others."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from typing import Any

from hostile_http import send_raw

from kiosk.stream.conn_gate import ConnectionGate
from kiosk.stream.server import LiveServer


class _Transport:
    """Enough of an asyncio transport for the gate: its peer, what was written, whether it was closed."""

    def __init__(self, host: str) -> None:
        self.host, self.written, self.closed = host, b"", False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.host, 40000) if name == "peername" else default

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    abort = close

    def get_write_buffer_size(self) -> int:
        return 0


class _Inner:
    """aiohttp's protocol as the gate sees it."""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def connection_lost(self, exc: BaseException | None) -> None:
        pass


def test_connections_refused_for_their_address_do_not_fill_the_total():
    """As asyncio does it: a burst of accepted connections is made before any refused one's close comes round."""

    async def run() -> tuple[ConnectionGate, list[_Transport]]:
        gate = ConnectionGate("test", logging.getLogger("test"), max_connections=4, busy=b"503",
                              header_timeout_s=10, max_unfinished_per_address=2, idle_timeout_s=15,
                              max_per_address=2, crowded=b"429")
        made = []
        for host in ["127.0.0.1"] * 50 + ["127.0.0.2"]:
            t = _Transport(host)
            gate.protocol(_Inner).connection_made(t)
            made.append(t)
        return gate, made

    gate, made = asyncio.run(run())
    assert [t.written for t in made[:2]] == [b"", b""]                       # let in
    assert all(t.written == b"429" and t.closed for t in made[2:50])         # refused for their address
    assert made[50].written == b"" and not made[50].closed, made[50].written   # was 503: 50 counted of 4
    assert gate.open_connections == 3 and gate.refused_connections == 0 and gate.crowded_connections == 48


FLOOD = """
import socket, sys, time
port, seconds = int(sys.argv[1]), float(sys.argv[2])
end = time.monotonic() + seconds
n = 0
held = []
while time.monotonic() < end:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1, source_address=("127.0.0.1", 0))
    except OSError:
        continue
    held.append(s)
    n += 1
    if len(held) >= 200:   # closed a moment later, unread: as a flood does
        for s in held[:100]:
            s.close()
        del held[:100]
print(n, flush=True)
"""

FLOODS = 3   # processes, each connecting as fast as it can
GET = b"GET /state.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def test_another_address_is_served_through_a_connect_flood():
    server = LiveServer(port=0, max_connections=16, max_per_address=4).start()
    floods = [subprocess.Popen([sys.executable, "-c", FLOOD, str(server.port), "6"], stdout=subprocess.PIPE,
                               text=True) for _ in range(FLOODS)]
    try:
        answers = []
        while all(f.poll() is None for f in floods) and len(answers) < 200:
            answers.append(send_raw(server.port, GET, "127.0.0.2").decode())
        made = 0
        for f in floods:
            assert f.stdout is not None
            made += int(f.stdout.read() or 0)
            f.wait(10)
        print(f"{made} connections from the flood, {server.crowded_connections} refused for their address; "
              f"the other address's answers: {[(a, answers.count(a)) for a in sorted(set(answers))]}")
        assert len(answers) >= 12 and set(answers) == {"HTTP/1.1 204 No Content"}, answers
        assert server.crowded_connections > 0   # the flood was refused for its address, not the others
    finally:
        for f in floods:
            if f.poll() is None:
                f.kill()
        server.stop()

