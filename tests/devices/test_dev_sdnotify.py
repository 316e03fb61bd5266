"""sd_notify over a real unix datagram socket, and the progress-gated watchdog."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kiosk.devices.sdnotify import SdNotifier, Watchdog, watchdog_interval_s


@pytest.fixture
def sock(tmp_path: Path):
    path = str(tmp_path / "notify")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(0.05)
    yield path, s
    s.close()


def drain(s: socket.socket, seconds: float = 0.1) -> list[str]:
    """What arrives within ``seconds``, then everything already queued."""
    out, end = [], time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        s.settimeout(min(left, 0.05))
        try:
            out.append(s.recv(4096).decode())
        except TimeoutError:
            pass
    s.setblocking(False)
    try:
        while True:
            out.append(s.recv(4096).decode())
    except BlockingIOError:
        pass
    finally:
        s.settimeout(0.05)
    return out


def receive_until(s: socket.socket, done: Callable[[list[str]], bool], timeout_s: float = 10.0) -> list[str]:
    """Messages received until ``done(messages)`` holds (or ``timeout_s`` passed: a bound for a loaded machine,
    not a speed requirement), then everything already queued."""
    out: list[str] = []
    end = time.monotonic() + timeout_s
    while not done(out) and time.monotonic() < end:
        out += drain(s, 0.05)
    return out + drain(s, 0.0)


def wait_for(cond: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    """Whether ``cond()`` held within ``timeout_s`` (polled every 5 ms)."""
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() >= end:
            return False
        time.sleep(0.005)
    return True


def test_ready_status_watchdog_messages(sock) -> None:
    path, s = sock
    n = SdNotifier(env={"NOTIFY_SOCKET": path})
    assert n.enabled
    assert n.ready("reading board")
    assert n.watchdog() and n.status("camera down")
    assert drain(s) == ["READY=1\nSTATUS=reading board", "WATCHDOG=1", "STATUS=camera down"]
    n.close()


def test_abstract_socket_name() -> None:
    name = f"kiosk-test-{os.getpid()}"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind("\0" + name)
    s.settimeout(1)
    try:
        assert SdNotifier(env={"NOTIFY_SOCKET": "@" + name}).ready()
        assert s.recv(100) == b"READY=1"
    finally:
        s.close()


def test_without_systemd_everything_is_a_no_op(tmp_path: Path) -> None:
    n = SdNotifier(env={})
    assert not n.enabled and not n.ready() and not n.watchdog()
    gone = SdNotifier(env={"NOTIFY_SOCKET": str(tmp_path / "nobody")})
    assert gone.watchdog() is False and gone.errors == 1


def test_watchdog_interval_from_environment() -> None:
    assert watchdog_interval_s({"WATCHDOG_USEC": "10000000"}) == 5.0
    assert watchdog_interval_s({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}) == 5.0
    assert watchdog_interval_s({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval_s({}) is None and watchdog_interval_s({"WATCHDOG_USEC": "x"}) is None


def test_hung_main_loop_stops_the_pings(sock) -> None:
    """Pings while the main loop makes progress; once it hangs, at most one more (for progress made just
    before) and none over the next 5 watchdog checks. Waits on the watchdog's own checks, not on wall-clock
    sleeps, so a loaded machine that runs the threads late cannot fail it."""
    path, s = sock
    wd = Watchdog(SdNotifier(env={"NOTIFY_SOCKET": path}), interval_s=0.05).start()
    hang, hung, stop = threading.Event(), threading.Event(), threading.Event()

    def main_loop() -> None:
        while not stop.is_set():
            if hang.is_set():
                hung.set()
                stop.wait()  # stuck (e.g. a blocking read that never returns)
                return
            wd.progress()
            time.sleep(0.01)

    t = threading.Thread(target=main_loop)
    t.start()
    try:
        healthy = receive_until(s, lambda got: got.count("WATCHDOG=1") >= 5)
        assert healthy.count("WATCHDOG=1") >= 5
        hang.set()
        assert hung.wait(10)
        drain(s, 0.0)                   # pings for progress made before the loop got stuck
        missed = wd.missed
        assert wait_for(lambda: wd.missed > missed)    # a check found no progress: the loop is stuck
        assert len(drain(s, 0.0)) <= 1  # at most one ping, for progress made just before the hang
        pings, missed = wd.pings, wd.missed
        assert wait_for(lambda: wd.missed >= missed + 5)
        assert drain(s, 0.0) == [] and wd.pings == pings
    finally:
        stop.set()
        t.join()
        wd.stop()


def test_check_is_the_decision() -> None:
    sent: list[str] = []

    class Rec(SdNotifier):
        def notify(self, *fields: str) -> bool:
            sent.extend(fields)
            return True

    wd = Watchdog(Rec(env={}), 1.0)
    assert wd.check() is False
    wd.progress()
    assert wd.check() is True and wd.check() is False
    assert sent == ["WATCHDOG=1"]
    with pytest.raises(ValueError):
        Watchdog(Rec(env={}), 0)


def test_start_watchdog_only_under_a_systemd_watchdog(sock) -> None:
    from kiosk.devices.sdnotify import start_watchdog

    path, s = sock
    assert start_watchdog(env={}) is None
    assert start_watchdog(env={"NOTIFY_SOCKET": path}) is None  # no WatchdogSec
    wd = start_watchdog(env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})
    try:
        assert wd is not None and wd.interval_s == 0.05
        wd.progress()
        assert "WATCHDOG=1" in receive_until(s, lambda got: "WATCHDOG=1" in got)
    finally:
        wd.stop()
