"""Requests that are not HTTP, for the kiosk's two web servers (the live page, the desk): each must be refused
(400) and logged as one line naming the peer, not as an ERROR with aiohttp's traceback."""

from __future__ import annotations

import logging
import socket
import time
import urllib.error
import urllib.request

BAD_REQUESTS = [
    b"GET /overlay/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",                   # not a URL
    b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 20_000 + b"\r\n\r\n",     # a header line too long
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",          # a length that is no number
]


def send_raw(port: int, data: bytes) -> bytes:
    """``data`` to 127.0.0.1:``port``; the first line of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        answer = b""
        while b"\r\n" not in answer:
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def assert_refused_quietly(port: int, path: str, caplog) -> None:
    """Every request of BAD_REQUESTS gets 400 and one warning without a traceback; the page still serves."""
    with caplog.at_level(logging.DEBUG):
        for data in BAD_REQUESTS:
            assert send_raw(port, data).split(b" ")[1] == b"400"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            assert r.status == 200
    noisy = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not noisy, [r.getMessage() for r in noisy]
    said = [r.getMessage() for r in caplog.records if "malformed request" in r.getMessage()]
    assert len(said) == len(BAD_REQUESTS) and all("from 127.0.0.1 (400: " in m for m in said), said


HALF = b"GET /state.json HTTP/1.1\r\nHost: x\r\n"
"""A request whose headers never end (no closing blank line): held, it is a half-open connection."""


def status(url: str) -> int:
    """The HTTP status ``url`` answers with (an error status too)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            r.read()
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def connect(port: int, source: str) -> socket.socket:
    """A connection to 127.0.0.1:``port`` from the loopback address ``source`` (another peer address)."""
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def half_open(port: int, source: str) -> socket.socket:
    """A connection from ``source`` that has sent :data:`HALF` and is held."""
    s = connect(port, source)
    s.sendall(HALF)
    return s


def closed_by_server(s: socket.socket, within_s: float) -> bool:
    """Whether the server closes ``s`` within ``within_s`` s (reading anything else is a failure too)."""
    s.settimeout(within_s)
    try:
        return s.recv(4096) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def stream_outlives(port: int, wait_s: float) -> socket.socket:
    """Open ``/stream`` on 127.0.0.1:``port``, check it is answered 200 and still open ``wait_s`` s later (a
    finished request the connection gate must not cut); the open socket, for the caller to close."""
    stream = socket.create_connection(("127.0.0.1", port), timeout=10)
    stream.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
    stream.settimeout(10)
    assert stream.recv(64).startswith(b"HTTP/1.1 200 OK")
    time.sleep(wait_s)
    stream.settimeout(0.5)
    try:
        assert stream.recv(65536) != b"", "the stream was closed"
    except TimeoutError:
        pass   # nothing new to say: still open
    return stream
