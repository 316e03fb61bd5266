"""Hostile peers for the kiosk's two web servers (the live page, the desk): requests that are not HTTP (each must
be refused with 400 and logged as one line naming the peer, not as an ERROR with aiohttp's traceback), half-open
requests, streams that are never read, connections reset."""

from __future__ import annotations

import json
import logging
import socket
import struct
import time
import urllib.error
import urllib.request

#: a TLS 1.2 ClientHello's first bytes: a browser sent to https:// on the http:// port
TLS_HELLO = bytes.fromhex("16030100a5010000a10303") + bytes(range(32)) + b"\x00\x00\x02\x00\x2f\x01\x00"

BAD_REQUESTS = [
    b"GET /overlay/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",                   # not a URL
    b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 20_000 + b"\r\n\r\n",     # a header line too long
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",          # a length that is no number
    TLS_HELLO,                                                          # https:// to the http:// port
    b"\x00\x01\x02\x03\xff\xfe binary\r\n\r\n",                              # not text at all
    b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n",                                  # a method that is no method
]


def send_raw(port: int, data: bytes, source: str = "127.0.0.1") -> bytes:
    """``data`` to 127.0.0.1:``port`` from the loopback address ``source``; the first line of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as s:
        s.sendall(data)
        answer = b""
        while b"\r\n" not in answer:
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def assert_refused_quietly(port: int, path: str, caplog) -> None:
    """Every request of BAD_REQUESTS (each from its own address) gets 400 and one warning naming its address,
    without a traceback, at the log level a server runs at (INFO: aiohttp said non-HTTP bytes at DEBUG only, so the
    journal had nothing of them); the page still serves."""
    sources = [f"127.3.0.{i + 1}" for i in range(len(BAD_REQUESTS))]
    with caplog.at_level(logging.INFO):
        for data, source in zip(BAD_REQUESTS, sources, strict=True):
            assert send_raw(port, data, source).split(b" ")[1] == b"400", data[:40]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            assert r.status == 200
        time.sleep(0.2)   # the last line is written on the server's thread
    noisy = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not noisy, [r.getMessage() for r in noisy]
    said = [r.getMessage() for r in caplog.records if "malformed request" in r.getMessage()]
    assert len(said) == len(BAD_REQUESTS), said
    for source, line in zip(sources, said, strict=True):
        assert f"from {source} (400: " in line, line
    assert "(400: Received HTTPS traffic on an HTTP port)" in said[3]


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
    """Whether the server closes ``s`` within ``within_s`` s, with nothing said or a 408 (reading anything else is
    a failure too)."""
    end = time.monotonic() + within_s
    got = b""
    try:
        while True:
            s.settimeout(max(0.01, end - time.monotonic()))
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return got == b"" or got.startswith(b"HTTP/1.1 408 Request Timeout")


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


def unread_stream(port: int, source: str, path: str = "/stream") -> socket.socket:
    """``GET path`` from the loopback address ``source`` on a socket with a 4 KB receive buffer, never read."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s


def reset(s: socket.socket) -> None:
    """Close ``s`` with a TCP reset (what a client killed, or a NAT dropping it, does)."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def read_answer(s: socket.socket) -> bytes:
    """One whole answer on ``s``: its head and its ``Content-Length`` body (or what came before the close)."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), None)
        while length is not None and len(body) < length and (chunk := s.recv(65536)):
            body += chunk
    except ConnectionResetError:
        return data
    return head + b"\r\n\r\n" + body


def burst(port: int, requests: list[bytes], source: str = "127.0.0.1") -> list[bytes]:
    """One connection per request to 127.0.0.1:``port`` from ``source``, opened back to back, each sending its
    request at once (viewers behind one NAT address, a script fetching in parallel); each whole answer, read once
    all are open and sent, every connection kept open until all are answered (so the server counts the whole burst
    for the address at once)."""
    socks = []
    try:
        for data in requests:
            s = connect(port, source)
            s.sendall(data)
            socks.append(s)
        return [read_answer(s) for s in socks]
    finally:
        for s in socks:
            s.close()


def tally(answers: list[bytes]) -> dict[str, int]:
    """How many answers have each status line: ``{"HTTP/1.1 200 OK": 40}``."""
    out: dict[str, int] = {}
    for a in answers:
        line = a.split(b"\r\n", 1)[0].decode("latin-1")
        out[line] = out.get(line, 0) + 1
    return out


def post(url: str, body: object, content_type: str = "application/json") -> tuple[int, str]:
    """POST ``body`` (bytes as they are, anything else as JSON) to ``url``: (HTTP status, the reply's text), an
    error status's too."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data, {"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
