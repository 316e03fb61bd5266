"""Live page streams whose client never reads (``/stream`` on a socket with a 4 KB receive buffer, held unread).
Their handler waited in a write for ever: the end its fan-out queued for a client 2,000 messages behind was never
read, so 40,000 messages later the stream was still open, and 16 such streams from each of 4 addresses held every
slot (503 to every other client for the whole run). When they finally reset, each was logged at ERROR with
aiohttp's traceback ("ConnectionError: Connection lost"). Now a stream too far behind is cut at once, one whose
writes are not taken for ``stall_timeout_s`` is cut too, and a reset ends a stream quietly
(kiosk.stream.sse.Streams; the desk: tests/desk/test_desk_slow_readers.py)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

import pytest
from common_fixtures import wait_for
from hostile_http import reset, status, unread_stream

from kiosk.stream.server import LiveServer


class Feed:
    """The hub's messages to ``server``, ``per_s`` a second each of about ``size`` bytes, on a thread."""

    def __init__(self, server: LiveServer, per_s: int, size: int) -> None:
        self.server, self.per_s, self.size = server, per_s, size
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Feed:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        start = time.monotonic()
        while not self._stop.is_set():
            due = int((time.monotonic() - start) * self.per_s)
            while self.sent < due:
                self.sent += 1
                self.server.on_message({"channel": "public", "kind": "tick", "n": self.sent,
                                        "pad": "x" * self.size}, None)
            time.sleep(0.005)


@pytest.fixture
def live() -> Iterator[LiveServer]:
    server = LiveServer(None, port=0, max_connections=8, max_per_address=4).start()
    yield server
    server.stop()


def _quiet(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage()[:200] for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_streams_that_are_never_read_are_cut_and_leave_the_page_to_others(live, caplog):
    """The tester's run in small: 1000 messages a second, 4 unread streams from each of 2 addresses fill the page
    (8 connections); they were never cut."""
    caplog.set_level(logging.INFO)
    held = [unread_stream(live.port, f"127.4.0.{1 + i // 4}") for i in range(8)]
    try:
        with Feed(live, per_s=1000, size=200) as feed:
            assert wait_for(lambda: live.open_connections == 8, 5)
            assert status(f"{live.url}state.json") == 503   # they hold the whole page
            start = time.monotonic()
            cut = wait_for(lambda: live.open_connections == 0, 15)
            took = time.monotonic() - start
            assert cut, f"{live.open_connections} unread streams still open after {feed.sent} messages"
            assert live.behind_streams + live.stalled_streams == 8
            assert status(f"{live.url}state.json") == 204   # another client is served again
        print(f"8 unread streams cut {took:.1f} s after the page was full; {feed.sent} messages sent")
    finally:
        for s in held:
            s.close()
    said = [r.getMessage() for r in caplog.records if "cut the stream to" in r.getMessage()]
    assert said and len(said) <= 2, said   # the first cut said, not every one
    assert "cut the stream to 127.4.0." in said[0] and "messages behind" in said[0]
    assert not _quiet(caplog), _quiet(caplog)


def test_a_stream_whose_writes_stall_is_cut_after_the_stall_timeout(caplog):
    """Messages too few to put the client 2,000 behind soon (a quiet game): only the stall timer cuts it."""
    caplog.set_level(logging.INFO)
    server = LiveServer(None, port=0, stall_timeout_s=1.0).start()
    s = unread_stream(server.port, "127.4.1.1")
    try:
        with Feed(server, per_s=100, size=4000):   # 400 KB a second: the buffers (about 200 KB) are full at once
            assert wait_for(lambda: server.open_connections == 1, 5)
            assert wait_for(lambda: server.open_connections == 0, 1.0 + 5), "the stalled stream was not cut"
        assert (server.stalled_streams, server.behind_streams) == (1, 0)
    finally:
        s.close()
        server.stop()
    said = [r.getMessage() for r in caplog.records if "cut the stream to" in r.getMessage()]
    assert said == ["live page: cut the stream to 127.4.1.1: it took nothing for 1 s (1 cut so far for that)"], said


def test_streams_reset_while_their_writes_wait_end_quietly(live, caplog):
    """Four unread streams, their writes waiting (6 MB sent: more than their sockets buffer, yet not 2,000
    messages), then reset: 4 tracebacks."""
    caplog.set_level(logging.DEBUG)
    held = [unread_stream(live.port, "127.4.2.1") for _ in range(4)]
    assert wait_for(lambda: live.open_connections == 4, 5)
    time.sleep(0.3)   # their streams begun
    for n in range(300):
        live.on_message({"channel": "public", "kind": "tick", "n": n + 1, "pad": "x" * 20_000}, None)
    time.sleep(1.5)   # written up to the full buffers: each handler waits in its write
    assert live.open_connections == 4
    for s in held:
        reset(s)
    assert wait_for(lambda: live.open_connections == 0, 5)
    time.sleep(0.3)
    assert not _quiet(caplog), _quiet(caplog)
    assert (live.lost_streams, live.behind_streams, live.stalled_streams) == (4, 0, 0)
    ended = [r for r in caplog.records if "the stream to 127.4.2.1 ended" in r.getMessage()]
    assert len(ended) == 4 and all(r.levelno == logging.DEBUG and "\n" not in r.getMessage() for r in ended)


def test_a_client_that_reads_slowly_is_not_cut_while_it_takes_something():
    """800 KB at once to a client taking 80 KB a second: its writes wait for 10 s, yet it reads throughout."""
    server = LiveServer(None, port=0, stall_timeout_s=1.0).start()
    s = unread_stream(server.port, "127.4.3.1")
    try:
        assert wait_for(lambda: server.open_connections == 1, 5)
        time.sleep(0.3)   # its stream begun
        for n in range(200):
            server.on_message({"channel": "public", "kind": "tick", "n": n + 1, "pad": "x" * 4000}, None)
        got = 0
        start = time.monotonic()
        while got < 200 * 4000 and time.monotonic() - start < 30:
            time.sleep(0.1)
            chunk = s.recv(8192)
            assert chunk, f"cut after {got} bytes"
            got += len(chunk)
        assert got >= 200 * 4000 and time.monotonic() - start > 5
        assert server.stalled_streams == 0 and server.open_connections == 1
    finally:
        s.close()
        server.stop()
