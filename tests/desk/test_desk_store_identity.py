"""The desk's database is the desk's: a kiosk journal, another program's SQLite file or a text file given as
the desk's database is refused, named and left as it is; a desk database of an earlier desk is kept."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import event_folder  # noqa: E402

from kiosk.desk.store import APPLICATION_ID, Result, ResultsStore, StoreError  # noqa: E402
from kiosk.store.journal import Journal  # noqa: E402
from kiosk.stream.broker import free_port  # noqa: E402

ADVICE = "it was left as it is: give --data a folder of the desk's own (it makes its desk.sqlite there)"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _journal(path: Path) -> Path:
    with Journal(path):
        pass
    return path


def test_a_kiosk_journal_is_refused_and_left_as_it_is(tmp_path):
    """A journal copied in as desk.sqlite crashed the desk ('no such column: board', a traceback)."""
    path = _journal(tmp_path / "desk.sqlite")
    before = _digest(path)
    with pytest.raises(StoreError) as e:
        ResultsStore(path)
    assert str(e.value) == f"{path}: is a kiosk's game journal, not a desk database; {ADVICE}"
    assert _digest(path) == before


def test_another_programs_database_gets_no_desk_tables(tmp_path):
    path = tmp_path / "desk.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (id INTEGER, name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"desk.sqlite: is not a desk database: an SQLite database with other "
                                         r"tables \(photos\); it was left as it is"):
        ResultsStore(path)
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert tables == {"photos"}
    other = tmp_path / "app.sqlite"
    db = sqlite3.connect(other)
    db.execute("PRAGMA application_id = 1234")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"an SQLite database of another program \(application id 0x4d2\)"):
        ResultsStore(other)
    text = tmp_path / "notes.sqlite"
    text.write_text("shopping list\n")
    with pytest.raises(StoreError, match=r'is not a desk database \(not an SQLite database: it starts with "shopping"\)'):
        ResultsStore(text)
    assert text.read_text() == "shopping list\n"


def test_a_desk_database_of_an_earlier_desk_and_a_new_one_are_the_desks(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)   # the schema before the application id and the wins column
    db.executescript("""
        CREATE TABLE events (board INTEGER NOT NULL, game_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
            ts INTEGER NOT NULL, PRIMARY KEY (board, game_id, seq)) WITHOUT ROWID;
        CREATE TABLE results (board INTEGER NOT NULL, game_id TEXT NOT NULL, round INTEGER, division TEXT,
            players TEXT NOT NULL, preset TEXT, reason TEXT, gcg TEXT NOT NULL, last_seq INTEGER NOT NULL,
            finished_ts INTEGER NOT NULL, updated_ts INTEGER NOT NULL, corrected INTEGER NOT NULL DEFAULT 0,
            revision INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (board, game_id));
        INSERT INTO results VALUES (1, 'g1', 1, 'A', '[["Ann", 400], ["Bob", 300]]', 'nsf', 'out_play', '', 30,
            1, 1, 0, 1);""")
    db.commit()
    db.close()
    store = ResultsStore(path)
    assert [r.scores for r in store.results()] == [(400, 300)] and store.results()[0].wins == ()
    store.record_result(Result(2, "g2", 1, "A", (("Cid", 1), ("Dee", 2)), "nsf", "out_play", "", 3, 1,
                               wins=(0.0, 1.0)))
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    fresh = ResultsStore(tmp_path / "new" / "desk.sqlite")
    fresh.close()
    assert ResultsStore(tmp_path / "new" / "desk.sqlite").results() == []


def test_kiosk_desk_given_a_journal_exits_2_naming_it(tmp_path):
    folder = event_folder(tmp_path)
    (folder / "desk").mkdir()
    path = _journal(folder / "desk" / "desk.sqlite")
    r = subprocess.run([sys.executable, "-m", "kiosk.cli", "desk", "--mqtt", "127.0.0.1:1", "--http",
                        f"127.0.0.1:{free_port()}", "--event", str(folder)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip() == f"kiosk desk: {path}: is a kiosk's game journal, not a desk database; {ADVICE}"
