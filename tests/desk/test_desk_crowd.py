"""The desk under a crowd of live pages (``kiosk desk`` as its own process, under the usual limit of 1024 open
files): 1100 ``GET /stream`` from 1100 addresses made it unreachable and filled stderr with a traceback per failed
accept. Now at most MAX_STREAMS streams are served (503 beyond, the connection closed), the other pages stay
reachable, and a server out of files says so in one warning line."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import event_folder  # noqa: E402

from kiosk.desk.server import MAX_STREAMS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KIOSK = ROOT / ".venv" / "bin" / "kiosk"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _limit(n: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    return apply


def _start_desk(tmp: Path, files: int) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    with open(tmp / "stderr.txt", "wb") as err:   # the desk holds its own copy
        desk = subprocess.Popen(
            [str(KIOSK), "desk", "--mqtt", f"127.0.0.1:{_free_port()}", "--http", f"127.0.0.1:{port}",
             "--event", str(event_folder(tmp))], stdout=subprocess.PIPE, stderr=err,
            preexec_fn=_limit(files), text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert desk.stdout is not None
    line = desk.stdout.readline()
    assert "serving" in line, (line, (tmp / "stderr.txt").read_text()[:2000])
    return desk, port


def _first_lines(socks: list[socket.socket], within_s: float) -> list[str]:
    """Each socket's first response line ("no answer" for those that gave none within ``within_s`` in all)."""
    import selectors

    sel = selectors.DefaultSelector()
    got: dict[socket.socket, bytes] = {}
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    end = time.monotonic() + within_s
    while len(got) < len(socks) and time.monotonic() < end:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            assert isinstance(s, socket.socket)
            try:
                data = s.recv(64)
            except OSError:
                data = b""
            got[s] = data
            sel.unregister(s)
    sel.close()
    return [got[s].split(b"\r\n", 1)[0].decode() if got.get(s) else "no answer" for s in socks]


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as r:
        r.read()
        return int(r.status)


def test_1100_streams_from_1100_addresses_leave_the_desk_reachable_and_its_log_short(tmp_path):
    need = 1100 + 200
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    desk, port = _start_desk(tmp_path, 1024)
    held: list[socket.socket] = []
    try:
        for i in range(1100):
            s = socket.create_connection(("127.0.0.1", port), timeout=10,
                                         source_address=(f"127.1.{i // 250}.{i % 250 + 1}", 0))
            s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            held.append(s)
        statuses = _first_lines(held, 60)
        # every other page answers while the streams are full
        for path in ("state.json", "results.csv", "tsh/A.t", ""):
            assert _get(f"http://127.0.0.1:{port}/{path}") == 200, path
        assert statuses.count("HTTP/1.1 200 OK") == MAX_STREAMS, sorted(set(statuses))
        assert statuses.count("HTTP/1.1 503 Service Unavailable") == 1100 - MAX_STREAMS, sorted(set(statuses))
        beyond = held[-1]
        beyond.settimeout(10)
        rest = b""
        while chunk := beyond.recv(4096):   # the connection of a refused stream is closed by the desk
            rest += chunk
        assert b"The desk's live page is full (256 pages open)" in rest
    finally:
        for s in held:
            s.close()
        desk.terminate()
        desk.wait(timeout=30)
    err = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in err and "Too many open files" not in err, err[:3000]
    assert len(err) < 5000, err[:3000]
    assert err.count("live desk pages are open (the cap") == 1, err


ACCEPT = """
import asyncio, logging, os, resource, socket, sys, time
from kiosk.stream.web_files import quiet_accept_errors
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
loop = asyncio.new_event_loop()
quiet_accept_errors(loop, "the test page on 127.0.0.1", logging.getLogger("t"))
held = []
class Keep(asyncio.Protocol):
    def connection_made(self, transport):
        held.append(transport)
server = loop.run_until_complete(loop.create_server(Keep, "127.0.0.1", 0, backlog=64))
print(server.sockets[0].getsockname()[1], flush=True)
used = len(os.listdir("/proc/self/fd"))
resource.setrlimit(resource.RLIMIT_NOFILE, (used + 3, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
sys.stdin.readline()                       # the connections are made
loop.run_until_complete(asyncio.sleep(3))  # asyncio retries the accept every second
print(len(held), flush=True)
"""


def test_a_server_out_of_files_says_so_in_one_line_not_a_traceback_per_accept():
    proc = subprocess.Popen([sys.executable, "-c", ACCEPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    port = int(proc.stdout.readline())
    conns = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
    try:
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        for c in conns:
            c.close()
    assert int(out.strip()) < 20                   # the process did run out of files
    assert "Traceback" not in err, err[:3000]
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err[:3000]
    assert lines[0].startswith("WARNING the test page on 127.0.0.1 cannot take new connections: too many open files")
