"""A peer sending requests that are not HTTP to the live page: each is refused (400) and logged as one line
naming the peer, not as an ERROR with aiohttp's traceback (ten lines a request filled the kiosk's log)."""

from __future__ import annotations

from hostile_http import assert_refused_quietly

from kiosk.stream.server import LiveServer


def test_requests_that_are_not_http_are_refused_in_one_line(caplog):
    server = LiveServer(port=0).start()
    try:
        assert_refused_quietly(server.port, "/layout.json", caplog)
    finally:
        server.stop()
