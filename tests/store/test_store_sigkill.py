"""Crash proof: SIGKILL the kiosk process at 200 random points of a scripted game and restart it each time.

A forked child plays the scripted game through :class:`GameSession` (journal append, then apply) and
acknowledges every event on a pipe with a digest of the state it reached. The parent kills it with SIGKILL
after a random delay - often in the middle of an append - then checks the journal as a restarted kiosk sees
it: the script's events, in order, none lost (every acknowledged event is there) and none duplicated (at
most the one event whose commit was under way when the kill came), and the restored state is exactly the
state acknowledged for that event. The next child restarts from that journal and carries on.
"""

from __future__ import annotations

import hashlib
import os
import random
import select
import signal
import sys
import time

import pytest

from kiosk.referee import Referee
from kiosk.referee.simulate import random_game
from kiosk.store import GameSession

KILLS = 200

pytestmark = pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "fork"), reason="needs fork and SIGKILL")


def digest(state) -> str:
    return hashlib.sha1(repr(state).encode()).hexdigest()[:16]


def child(path: str, script: list, wfd: int) -> None:
    """Restart: open the journal, resume, continue the script; acknowledge each event after it is durable."""
    try:
        sess = GameSession.open(path)
        os.write(wfd, f"R {len(sess.referee.events)} {digest(sess.state)}\n".encode())
        done = sum(1 for e in sess.referee.events if e.type != "kiosk_resumed")
        if sess.in_game:
            last = sess.state.last_t
            res = sess.resume(last)  # zero-length downtime keeps the script's later timestamps valid
            assert res is not None and res.accepted
            os.write(wfd, f"A {len(sess.referee.events)} {digest(sess.state)}\n".encode())
        for ev in script[done:]:
            res = sess.apply(ev)
            assert res.accepted, res
            os.write(wfd, f"A {len(sess.referee.events)} {digest(sess.state)}\n".encode())
        os.write(wfd, b"DONE\n")
        os._exit(0)
    except BaseException as exc:  # report, never fall back into pytest in the child
        os.write(wfd, f"ERR {type(exc).__name__}: {exc}\n".encode())
        os._exit(3)


def drain(rfd: int) -> list[str]:
    chunks = []
    while select.select([rfd], [], [], 0)[0]:
        data = os.read(rfd, 65536)
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode().splitlines()


@pytest.mark.slow
def test_store_sigkill_at_200_random_points_loses_and_duplicates_nothing(tmp_path):
    rng = random.Random(20261129)
    script = random_game("nsf", seed=7)
    assert len(script) > 60
    path = str(tmp_path / "journal.sqlite")
    kills = games = 0
    acked: dict[int, str] = {}  # journal length -> digest acknowledged at that length
    started = time.monotonic()
    while kills < KILLS:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            child(path, script, wfd)
        os.close(wfd)
        head = b""
        if rng.random() < 0.15:  # sometimes during the restart itself (open, replay, resume)
            time.sleep(rng.uniform(0, 0.005))
        else:  # mostly while events are being appended: after the restart and k acknowledged events
            k = 1 + rng.randint(0, 6)
            while head.count(b"\n") < k and b"DONE" not in head and select.select([rfd], [], [], 5.0)[0]:
                chunk = os.read(rfd, 65536)
                if not chunk:
                    break
                head += chunk
            time.sleep(rng.uniform(0, 0.002))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        lines = (head.decode() + "\n".join(drain(rfd))).splitlines()
        os.close(rfd)
        errors = [ln for ln in lines if ln.startswith("ERR")]
        assert not errors, errors
        for ln in lines:
            if ln.startswith(("R", "A")):
                _, n, dg = ln.split()
                if ln.startswith("R") and int(n) in acked:
                    assert acked[int(n)] == dg, "the restarted kiosk did not restore the acknowledged state"
                acked[int(n)] = dg
        finished = "DONE" in lines
        if os.WIFSIGNALED(status):
            kills += 1
        # the restart, as the kiosk sees it
        sess = GameSession.open(path)
        events = list(sess.referee.events) if sess.in_game else []
        if finished or any(g.finished_ms is not None for g in sess.journal.games()):
            sess.close()
            for suffix in ("", "-wal", "-shm", ".lock"):  # a new journal (its lock file remembers the old one)
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
            acked.clear()
            games += 1
            continue
        played = [e for e in events if e.type != "kiosk_resumed"]
        assert played == script[:len(played)], "journal events differ from the script (lost or duplicated)"
        top = max(acked, default=0)
        assert len(events) in (top, top + 1), f"journal has {len(events)} events, {top} were acknowledged"
        if len(events) == top and top in acked:
            assert digest(sess.state) == acked[top]
        assert sess.state == Referee.from_events(events).state
        sess.close()
    print(f"{kills} kills, {games} games")
    assert kills == KILLS and games >= 1
    assert time.monotonic() - started < 180  # 75-110 s on 2 loaded cores: each append now syncs the file too
