"""Another program's SQLite database given as a kiosk journal is refused and left as it is (kiosk.store.foreign):
a tester's `kiosk demo --headless --journal lvd/desk.sqlite` renamed a running desk's database, its -wal and -shm
to desk.sqlite.corrupt-1 ('not a kiosk journal (missing tables: games, heartbeat, meta)'), and the desk lost its
events on restart; a calendar.sqlite with an events(id, title) table was moved aside the same way. Only a file
that is a kiosk journal (its application id, or only the journal's tables with their columns) is ever moved aside
when damaged."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.desk.store import ResultsStore
from kiosk.store import GameSession, Journal, JournalCorrupt, JournalError
from kiosk.store.foreign import JOURNAL_APPLICATION_ID


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _calendar(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT)")
    db.execute("INSERT INTO events (title) VALUES ('dentist')")
    db.commit()
    db.close()


def _refused(path: Path, what: str) -> None:
    for open_it in (Journal, GameSession.open):
        with pytest.raises(JournalError) as info:
            open_it(path)
        assert not isinstance(info.value, JournalCorrupt)
        assert str(info.value).startswith(f"{path}: is not a kiosk journal ({what}")
        assert "left as it is" in str(info.value)


def test_a_running_desks_database_is_refused_and_left_as_it_is(tmp_path, capsys):
    path = tmp_path / "desk.sqlite"
    store = ResultsStore(path)          # open, as a running desk holds it: its -wal and -shm beside it
    store.add_events([(1, "g1", 1, {"type": "game_started"}, 5)])
    try:
        before = _snapshot(tmp_path)
        _refused(path, "a kiosk desk's database")
        assert main(["demo", "--headless", "--journal", str(path)]) == 2
        assert "is not a kiosk journal (a kiosk desk's database)" in capsys.readouterr().err
        assert _snapshot(tmp_path) == before     # nothing renamed, no lock file, no .blocked marker
        assert store.event(1, "g1", 1) == {"type": "game_started"}
    finally:
        store.close()
    assert ResultsStore(path).event(1, "g1", 1) == {"type": "game_started"}   # after a restart too


def test_a_calendar_with_an_events_table_is_refused_and_left_as_it_is(tmp_path, capsys):
    path = tmp_path / "calendar.sqlite"
    _calendar(path)
    before = _snapshot(tmp_path)
    _refused(path, "an SQLite database with other tables than the journal's; its tables: events")
    assert main(["demo", "--headless", "--journal", str(path)]) == 2
    assert "calendar.sqlite: is not a kiosk journal" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_another_programs_application_id_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    _calendar(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id = 1234")
    db.close()
    before = _snapshot(tmp_path)
    _refused(path, "an SQLite database of another program (application id 0x4d2)")
    assert _snapshot(tmp_path) == before


def test_a_journal_carries_its_application_id_and_a_damaged_one_is_still_kept_aside(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == JOURNAL_APPLICATION_ID
    db.execute("DROP TABLE games")
    db.execute("CREATE TABLE photos (id INTEGER)")   # even with a table not its own: a journal says so by its id
    db.commit()
    db.close()
    with pytest.raises(JournalCorrupt, match="missing tables: games"):
        Journal(path)
    assert (tmp_path / "j.sqlite.corrupt-1").exists()
