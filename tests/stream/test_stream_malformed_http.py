"""A peer sending requests that are not HTTP to the live page: each is refused (400) and logged as one line
naming the peer, not as an ERROR with aiohttp's traceback (ten lines a request filled the kiosk's log). Bytes that
are no HTTP at all (binary, a TLS ClientHello, a bad method) were refused without any line at the level a server
logs at (aiohttp says them at DEBUG), and a request cut for its slow headers had no answer and no line; now each is
a warning line, a few per address a minute (kiosk.stream.http_log.LineBudget), and the slow one gets 408."""

from __future__ import annotations

import logging
import re
import time

from common_fixtures import wait_for
from hostile_http import BAD_REQUESTS, HALF, TLS_HELLO, assert_refused_quietly, connect, send_raw

from kiosk.stream.http_log import PER_ADDRESS, LineBudget
from kiosk.stream.server import LiveServer


def test_requests_that_are_not_http_are_refused_in_one_line(caplog):
    server = LiveServer(port=0).start()
    try:
        assert_refused_quietly(server.port, "/layout.json", caplog)
        assert server.malformed_requests == len(BAD_REQUESTS)
    finally:
        server.stop()


def test_a_peer_sending_bad_requests_over_and_over_gets_a_few_lines_not_one_each(caplog):
    server = LiveServer(port=0).start()
    try:
        with caplog.at_level(logging.INFO):
            for i in range(200):
                data = TLS_HELLO if i % 2 else b"\x00\x01binary\r\n\r\n"
                assert send_raw(server.port, data, "127.3.1.1").split(b" ")[1] == b"400"
            assert wait_for(lambda: server.malformed_requests == 200, 5)
            assert send_raw(server.port, TLS_HELLO, "127.3.1.2").split(b" ")[1] == b"400"   # another address
            assert wait_for(lambda: server.malformed_requests == 201, 5)
        said = [r.getMessage() for r in caplog.records if "malformed request" in r.getMessage()]
        mine = [m for m in said if "from 127.3.1.1 " in m]
        assert len(mine) == PER_ADDRESS, said
        assert re.search(r"; more about 127\.3\.1\.1 in the next \d+ s are counted, not logged$", mine[-1]), mine[-1]
        assert len(said) == PER_ADDRESS + 1 and "from 127.3.1.2 (400: " in said[-1]   # its own share
        assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    finally:
        server.stop()


def test_a_request_cut_for_its_slow_headers_is_answered_408_and_said(caplog):
    server = LiveServer(port=0, header_timeout_s=1.0).start()
    try:
        with caplog.at_level(logging.INFO):
            slow, idle = connect(server.port, "127.3.2.1"), connect(server.port, "127.3.2.2")
            slow.sendall(HALF)   # a request begun and never finished; the other sends nothing
            answers = []
            for s in (slow, idle):
                got = b""
                while chunk := s.recv(4096):
                    got += chunk
                answers.append(got)
                s.close()
            assert answers[0].startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answers[0]
            assert answers[0].endswith(b"Your request did not come in whole within 1 s; the connection is closed.")
            assert answers[1] == b""   # a browser's spare connection: nothing to answer
            assert server.slow_requests == 2
            time.sleep(0.2)
        said = [r.getMessage() for r in caplog.records if r.name.startswith("kiosk")]
        assert said == [f"live page: closed a connection from 127.3.2.1 whose request was not all in within 1 s "
                        f"(408, {len(HALF)} bytes came)"], said
    finally:
        server.stop()


def test_the_line_budget_holds_back_past_its_share_and_tells_the_count():
    now = [0.0]
    budget = LineBudget(per_address=2, total=3, window_s=60, clock=lambda: now[0])
    assert budget.take("a") == ""
    assert budget.take("a") == "; more about a in the next 60 s are counted, not logged"
    assert [budget.take("a") for _ in range(5)] == [None] * 5
    assert budget.take("b") == "; more such lines in the next 60 s are counted, not logged"   # the total's last
    assert budget.take("c") is None and budget.held_back == 6
    now[0] = 61.0   # a new window
    assert budget.take("a") == "; 5 more about a not logged"
    assert budget.take("c") == "; 1 more about c not logged"
    assert budget.take("b") == "; more such lines in the next 60 s are counted, not logged"
