"""A journal path that holds some other file (kiosk.store.foreign): a review found that `kiosk demo --journal
notes.txt` (or a picture, a GCG) renamed the user's file to notes.txt.corrupt-1 and started a journal in its place,
blocking the path. Such a file is now refused with a sentence naming it, and left exactly as it was (no rename, no
lock file, no .blocked marker); a damaged journal is still kept aside as before (test_store_journal*)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from image_files import png_1x1
from kiosk.cli import main
from kiosk.store import GameSession, Journal, JournalCorrupt, JournalError
from kiosk.store.foreign import foreign_file


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _other_database(path: Path, tables: tuple[str, ...] = ("photos",)) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 7")   # written: an SQLite file of one page even without tables
    for t in tables:
        db.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute(f"INSERT INTO {t} (name) VALUES ('kept')")
    db.commit()
    db.close()


FILES = {
    "notes.txt": lambda p: p.write_text("my notes, not a journal\n" * 20),
    "board.png": lambda p: p.write_bytes(png_1x1()),
    "game.gcg": lambda p: p.write_text("#character-encoding UTF-8\n#player1 Ann Ann\n#player2 Bob Bob\n>Ann: AEINRST 8D RETAINS +66 66\n"),
    "album.sqlite": _other_database,
    "nothing.sqlite": lambda p: _other_database(p, ()),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_file_that_is_no_journal_is_refused_and_left_as_it_is(tmp_path, name):
    path = tmp_path / name
    FILES[name](path)
    before = _snapshot(tmp_path)
    for open_it in (Journal, GameSession.open):
        with pytest.raises(JournalError) as info:
            open_it(path)
        assert not isinstance(info.value, JournalCorrupt)
        assert str(info.value).startswith(f"{path}: is not a kiosk journal (") and "left as it is" in str(info.value)
    assert _snapshot(tmp_path) == before      # not renamed, no lock file, no .blocked marker, not one byte changed


def test_the_sentence_says_what_the_file_is(tmp_path):
    (tmp_path / "a.txt").write_text("hello")
    assert "not an SQLite database: it starts with \"hello\")" in str(foreign_file(tmp_path / "a.txt"))
    (tmp_path / "b.png").write_bytes(png_1x1())     # bytes shown as text, not as Python's b'\x89PNG\r\n...'
    assert 'it starts with ".PNG....")' in str(foreign_file(tmp_path / "b.png"))
    _other_database(tmp_path / "b.sqlite", ("photos", "albums"))
    assert "without the journal's tables; its tables: albums, photos" in str(foreign_file(tmp_path / "b.sqlite"))
    _other_database(tmp_path / "c.sqlite", ())
    assert "its tables: none" in str(foreign_file(tmp_path / "c.sqlite"))


def test_demo_refuses_a_journal_path_holding_another_file(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    before = _snapshot(tmp_path)
    assert main(["demo", "--headless", "--journal", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"journal: {path}: is not a kiosk journal (not an SQLite database" in err and "Traceback" not in err
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("name", sorted(FILES))
def test_show_says_a_file_that_is_no_journal_is_none_not_a_damaged_one(tmp_path, capsys, name):
    """A review found `kiosk journal show notes.txt` said 'journal notes.txt is damaged ... a kiosk opening it keeps
    the files aside and stops; `kiosk journal recover notes.txt` carries its intact events on': both refuse it."""
    path = tmp_path / name
    FILES[name](path)
    before = _snapshot(tmp_path)
    assert main(["journal", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: is not a kiosk journal (" in err and "damaged" not in err and "Traceback" not in err
    with pytest.raises(JournalError) as info:
        Journal(path, readonly=True)
    assert not isinstance(info.value, JournalCorrupt)
    assert _snapshot(tmp_path) == before


def test_recover_refuses_a_file_that_is_no_journal(tmp_path, capsys):
    path = tmp_path / "board.png"
    path.write_bytes(png_1x1())
    before = _snapshot(tmp_path)
    assert main(["journal", "recover", str(path)]) != 0
    assert f"{path}: is not a kiosk journal" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_an_sqlite_file_with_some_journal_tables_is_a_damaged_journal(tmp_path):
    """Some of the journal's tables: a journal that lost one (damage), kept aside as before."""
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    copy = tmp_path / "copy.sqlite"      # beside no lock file: only its tables say it is a journal
    copy.write_bytes(path.read_bytes())
    db = sqlite3.connect(copy)
    db.execute("DROP TABLE heartbeat")
    db.commit()
    db.close()
    assert foreign_file(copy) is None
    with pytest.raises(JournalCorrupt, match="missing tables: heartbeat") as info:
        Journal(copy)
    assert info.value.kept_aside is not None and info.value.kept_aside.exists() and not copy.exists()


def test_an_empty_file_is_still_a_journal_cut_to_nothing(tmp_path):
    """Decided: 0 bytes is not "no journal" (a journal is only ever created whole, so an empty file at its path is
    one cut to nothing); kept aside as before, which moves nothing anyone wrote."""
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"")
    assert foreign_file(path) is None
    with pytest.raises(JournalCorrupt, match=r"empty \(0 bytes\)"):
        Journal(path)


def test_a_journal_overwritten_by_another_file_is_still_kept_aside(tmp_path):
    """The lock file remembers the journal kept at the path: whatever the file holds now, it is that journal,
    damaged (kept aside, never refused as foreign and used for nothing)."""
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    path.write_bytes(png_1x1())
    assert foreign_file(path) is None
    with pytest.raises(JournalCorrupt, match="it no longer starts as an SQLite database file") as info:
        Journal(path)
    assert info.value.kept_aside is not None and info.value.kept_aside.read_bytes() == png_1x1()


@pytest.mark.parametrize("name", ["game#1.sqlite", "game?1.sqlite", "game%201.sqlite"])
def test_a_journal_whose_name_holds_uri_characters_is_a_journal(tmp_path, name):
    """A review found that a journal copied without its lock file to a name with ``#``, ``?`` or ``%`` was refused as
    'not a kiosk journal (... its tables: none)', and an empty file ``game`` (``game 1.sqlite``) was created beside
    it: the SQLite URI cut the name at ``#`` / ``?`` and decoded ``%20``."""
    made = tmp_path / "made.sqlite"
    Journal(made).close()
    path = tmp_path / name
    made.rename(path)                    # beside no lock file: only its tables say it is a journal
    (tmp_path / "made.sqlite.lock").unlink(missing_ok=True)
    before = _snapshot(tmp_path)
    assert foreign_file(path) is None
    assert _snapshot(tmp_path) == before      # nothing created beside it
    Journal(path).close()                     # opens as the journal it is
    assert not (tmp_path / "game").exists() and not (tmp_path / "game 1.sqlite").exists()


@pytest.mark.parametrize("given", ["", ".", "/"])
def test_demo_journal_that_is_no_file_name_is_named_as_typed(given, capsys):
    """A review found `kiosk demo --journal .` (or '' or '/') said "PosixPath('.'): not a file name for the journal"."""
    assert main(["demo", "--headless", "--journal", given]) == 2
    err = capsys.readouterr().err
    assert "not a file name for the journal" in err and "PosixPath" not in err and "Traceback" not in err
