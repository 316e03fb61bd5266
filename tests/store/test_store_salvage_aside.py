"""What a damaged journal's keeping aside leaves on disk and says (a tester's cosmetic findings): no kept-aside
``-wal``/``-shm`` copies of files that never existed (SQLite made them when the damaged file was opened to be
kept aside, read-only when the journal was), the report names only the files kept aside, and ``recover PATH
--from PATH`` points to plain ``recover PATH``."""

from __future__ import annotations

import sqlite3

import pytest

from kiosk.cli import main
from kiosk.store import Journal, JournalCorrupt
from kiosk.store.salvage import kept_aside_copy
from tests.store.journal_fixtures import write_finished_journal


def _damaged_page(path):
    write_finished_journal(path)
    data = bytearray(path.read_bytes())
    data[7 * 4096:8 * 4096] = bytes(4096)
    path.write_bytes(bytes(data))


def test_keeping_aside_keeps_only_the_files_that_were_there_and_says_so(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    _damaged_page(path)
    path.chmod(0o444)
    assert main(["journal", "recover", str(path)]) == 0
    assert "(and its -wal/-shm)" not in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.glob("*.corrupt-*")) == ["j.sqlite.corrupt-1"]
    assert not list(tmp_path.glob("*-wal*")) and not list(tmp_path.glob("*-shm*"))
    other = tmp_path / "k.sqlite"
    _damaged_page(other)
    with pytest.raises(JournalCorrupt) as err:
        Journal(other)
    report = err.value.report
    assert report.endswith(f"The file was kept aside as {tmp_path / 'k.sqlite.corrupt-1'}.") and "-wal" not in report
    assert kept_aside_copy(other) == tmp_path / "k.sqlite.corrupt-1"


def test_a_log_kept_aside_with_the_file_is_named(tmp_path):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    before = path.read_bytes()
    db = sqlite3.connect(path, isolation_level=None)   # a log left beside it by another journal
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("UPDATE meta SET value='someone-else' WHERE key='journal_id'")
    log = path.with_name("j.sqlite-wal").read_bytes()
    db.close()
    path.write_bytes(before)
    path.with_name("j.sqlite-wal").write_bytes(log)
    with pytest.raises(JournalCorrupt) as err:
        Journal(path)
    assert "(with its write-ahead log j.sqlite-wal.corrupt-1)." in err.value.report
    assert not path.with_name("j.sqlite-shm.corrupt-1").exists()


def test_an_older_report_still_names_its_copy(tmp_path):
    path = tmp_path / "j.sqlite"
    (tmp_path / "j.sqlite.corrupt-2").write_bytes(b"x")
    (tmp_path / "j.sqlite.blocked").write_text(f"journal {path} is damaged: x. The files were kept aside as "
                                               f"{tmp_path / 'j.sqlite.corrupt-2'} (and its -wal/-shm).\n")
    assert kept_aside_copy(path) == tmp_path / "j.sqlite.corrupt-2"


def test_recover_from_the_journal_itself_points_to_plain_recover(tmp_path, capsys):
    path = tmp_path / "dmg.sqlite"
    _damaged_page(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["journal", "recover", str(path), "--from", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"`kiosk journal recover {path}` keeps it aside and recovers it in place" in err
    assert "in the way" not in err and sorted(p.name for p in tmp_path.iterdir()) == before
