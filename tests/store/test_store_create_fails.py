"""A journal that cannot be created leaves nothing behind: the temporary ``<name>.new`` and its -wal/-shm/-journal
are removed (a file size limit once left ``fs.sqlite.new``, ``.new-shm`` and ``.new-wal`` on the disk), and the
message says what happened in plain words, not SQLite's ("disk I/O error")."""

from __future__ import annotations

import errno
import os
import sqlite3

import pytest
from common_fixtures import file_size_limit

import kiosk.store.journal as journal_mod
from kiosk.store import JournalFull
from kiosk.store.journal import Journal, JournalError

REFUSED = "the disk refused the write (file size limit or disk full)"


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_file_size_limit_leaves_no_half_built_journal_and_says_so_in_words(tmp_path):
    """A real fault: ``ulimit -f 24`` (24 KiB: SQLite's shared-memory file alone needs more)."""
    path = tmp_path / "fs.sqlite"
    with file_size_limit(24), pytest.raises(JournalError) as info:
        Journal(path)
    assert str(info.value) == f"{path}: cannot create the journal: {REFUSED}" and info.value.cause == REFUSED
    assert _names(tmp_path) == ["fs.sqlite.lock"]   # the lock file stays, as beside every journal path
    with Journal(path) as j:                         # once the limit is lifted, the journal is made as usual
        assert j.games() == []
    assert _names(tmp_path) == ["fs.sqlite", "fs.sqlite.lock"]


def test_a_full_disk_at_the_rename_is_journal_full_and_nothing_is_left(tmp_path, monkeypatch):
    path = tmp_path / "j.sqlite"

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(journal_mod.os, "replace", full)
    with pytest.raises(JournalFull) as info:
        Journal(path)
    assert str(info.value) == f"{path}: cannot create the journal: the disk is full"
    assert _names(tmp_path) == ["j.sqlite.lock"]


@pytest.mark.parametrize("name, said", [("SQLITE_FULL", None), ("SQLITE_IOERR_WRITE", REFUSED),
                                        ("SQLITE_IOERR_READ", "the disk failed to read or write (a failing card "
                                                              "or disk)"),
                                        ("SQLITE_READONLY", "the journal file or its disk is read-only"),
                                        ("SQLITE_WHATEVER", "it could not be built in its folder")])
def test_sqlite_failures_while_building_are_said_in_words(tmp_path, monkeypatch, name, said):
    path = tmp_path / "j.sqlite"

    def fail(tmp):
        sqlite3.connect(tmp).execute("CREATE TABLE half (x)").connection.close()   # a half-built file is left
        for side in ("-wal", "-shm", "-journal"):
            (tmp.parent / (tmp.name + side)).write_bytes(b"x")
        exc = sqlite3.OperationalError("database or disk is full" if name == "SQLITE_FULL" else "sqlite's text")
        exc.sqlite_errorname = name
        raise exc
    monkeypatch.setattr(journal_mod, "_build", fail)
    with pytest.raises(JournalError) as info:
        Journal(path)
    if said is None:
        assert isinstance(info.value, JournalFull)
        said = "the disk is full"
    assert str(info.value) == f"{path}: cannot create the journal: {said}"   # not SQLite's text
    assert _names(tmp_path) == ["j.sqlite.lock"]
    assert not any(os.path.exists(f"{path}.new{side}") for side in ("", "-wal", "-shm", "-journal"))
