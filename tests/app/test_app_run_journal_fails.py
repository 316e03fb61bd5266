"""``kiosk run`` on a journal that stops taking writes for another reason than a full disk (a disk I/O error: a
failing SD card, a file size limit): the game pauses as on a full disk - nothing recorded is lost, the event
that could not be written is not applied, the screen and the log say what happened and what to do - and it goes
on by itself once writing works again. It raised ``JournalError`` out of the loop (traceback, exit 1, systemd
restarting the kiosk). A real fault here: ``RLIMIT_FSIZE`` (``ulimit -f``) in a ``kiosk run`` subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from common_fixtures import headless_config

from kiosk.store import GameSession

# the child: `kiosk run` as the CLI starts it, with a file size limit of 1 KB set once the game is started (so
# Ann's clock press cannot be written: "disk I/O error"), lifted 2.5 s after the kiosk said so; when the kiosk
# says the journal takes writes again, Ann presses her clock again (the refused press is not kept for later)
CHILD = r"""
import logging, resource, runpy, sys, threading
import kiosk.devices as devices
built = []
real_build = devices.build_devices
def build(*a, **kw):
    built.append(real_build(*a, **kw))
    return built[-1]
devices.build_devices = build
def limit(n):
    resource.setrlimit(resource.RLIMIT_FSIZE, (n, resource.RLIM_INFINITY))
class Fault(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()
        if msg.startswith("new game"):
            limit(1024)
        elif msg.startswith("The journal cannot be written"):
            threading.Timer(2.5, limit, (resource.RLIM_INFINITY,)).start()
        elif msg.startswith("journal writable again"):
            built[0].buttons.press("left")
logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")   # as kiosk run's own
logging.getLogger().addHandler(Fault())
sys.argv = ["kiosk", "run", "--config", sys.argv[1], "--headless", "--seconds", "8"]
runpy.run_module("kiosk", run_name="__main__")
"""


def test_kiosk_run_pauses_on_a_disk_io_error_and_goes_on_when_writes_work_again(tmp_path):
    root = Path(__file__).resolve().parents[2]
    cfg = headless_config(tmp_path, buttons='{backend = "scripted", script = [[300, "left"]]}')
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(cfg)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=180)
    err = proc.stderr
    assert proc.returncode == 0 and "Traceback" not in err, err
    said = ("The journal cannot be written: disk I/O error. The game is paused; every move before it is kept. "
            "Call the tournament director.")
    assert err.count(f"kiosk.store ERROR {said}") == 1, err  # the log says it once, not at every retry
    assert f"press left: {said}" in err, err  # what the screen says
    assert "journal writable again: the game goes on" in err, err
    session = GameSession.open(tmp_path / "journal.sqlite")
    try:
        events = session.referee.events
        # (no camera: the press is handed back at once for the judge to enter the move)
        assert [e.type for e in events] == ["game_started", "kiosk_resumed", "clock_pressed", "press_withdrawn"], events
        assert events[2].player == 0 and events[2].t >= events[1].t
        assert session.state.downtime_ms >= 2_000  # the pause charged to nobody
    finally:
        session.close()
