"""A demo stopped by SIGTERM (or Ctrl-C) ends with lines that agree with its journal: the game is not finished,
no "final:" line, and how to resume it; exit 130. SIGTERM is handled as Ctrl-C, windowed or headless (SDL's own
handlers, which turned it into a close request the screen refresh could drop, are switched off)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from kiosk.store import Journal

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_stops_the_demo_with_a_resume_hint_and_the_journal_agrees(tmp_path):
    journal = tmp_path / "demo.sqlite"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "kiosk", "demo", "--headless", "--journal", str(journal),
                          "--size", "1014x760"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    seen = ""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        seen += line
        if re.match(r"\s+2 ", line) or not line:
            break
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    lines = (seen + out).strip().splitlines()
    assert p.returncode == 130, (seen + out, err)
    assert "interrupted" in lines and not any(ln.startswith("final:") for ln in lines), lines
    assert re.fullmatch(r"not finished: Ada \d+, Bo \d+", lines[-2]), lines[-3:]
    assert lines[-1] == (f"the journal {journal} keeps the game unfinished: run the same command again to resume it "
                         "(or with --fresh to play the record afresh)")
    assert "Traceback" not in err
    with Journal(journal) as j:
        assert j.unfinished_game() is not None
