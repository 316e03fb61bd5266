"""One desk per --data folder: a tester ran two `kiosk desk --data ev1` at once, both writing one desk.sqlite. The
second is now refused: 'ev1/desk is in use by another desk (pid N): ...', exit 2 (the journal's lock mechanism,
kiosk.store.lock: desk.sqlite.lock names the holder's pid and drops when that process ends)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kiosk.desk.store import ResultsStore, StoreError

EVENT = 'name = "Lock Open"\nrounds = 1\n[[division]]\nname = "A"\nplayers = ["doug", "emely"]\n'


def _holder(db: Path) -> subprocess.Popen[str]:
    """Another process with the desk database open (as a running desk has), until its stdin closes."""
    code = textwrap.dedent(f"""
        import sys
        from kiosk.desk.store import ResultsStore
        store = ResultsStore({str(db)!r})
        print("open", flush=True)
        sys.stdin.read()
        store.close()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
    return proc


def test_a_second_desk_on_one_data_folder_is_refused_naming_the_first(tmp_path):
    (tmp_path / "event.toml").write_text(EVENT)
    db = tmp_path / "desk" / "desk.sqlite"
    holder = _holder(db)
    try:
        with pytest.raises(StoreError) as info:
            ResultsStore(db)
        assert str(info.value).startswith(f"{tmp_path / 'desk'} is in use by another desk (pid {holder.pid}): ")
        r = subprocess.run([sys.executable, "-m", "kiosk.cli", "desk", "--mqtt", "127.0.0.1:1", "--event",
                            str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2
        assert f"kiosk desk: {tmp_path / 'desk'} is in use by another desk (pid {holder.pid})" in r.stderr
        assert "Traceback" not in r.stderr
    finally:
        holder.communicate("", timeout=30)
    store = ResultsStore(db)      # the first desk stopped: its lock went with it
    store.close()


def test_one_process_may_open_its_desk_database_again(tmp_path):
    """A desk restarted in the same process (as the tests do) shares the lock until its last store closes."""
    db = tmp_path / "desk.sqlite"
    first = ResultsStore(db)
    second = ResultsStore(db)
    first.close()
    second.close()
    second.close()   # idempotent
    holder = _holder(db)          # all closed: another process may take it
    holder.communicate("", timeout=30)
