"""Is the file at a journal path some other file? Then it is refused and left as it is, never kept aside.

A damaged journal is moved aside (``<name>.corrupt-<n>``, :mod:`kiosk.store.journal`), but a path given by
mistake (``--journal`` pointing at a text file, a picture, a GCG, another program's database) holds no journal
at all: moving it would take the user's file from where they keep it and start a journal in its place.
:func:`foreign_file` tells the two apart, reading only (nothing is created, locked or written):

* a file no journal was ever kept at (its lock file names no journal, no write-ahead log beside it) that is not
  an SQLite database (no ``SQLite format 3\\0`` header), or an SQLite database without any of the journal's
  tables, is foreign;
* anything else is a journal, damaged or not: a file a journal was kept at (whatever it holds now: the journal
  overwritten), an SQLite file that cannot be read (a damaged database), one with some of the journal's tables.

An empty file (0 bytes) is not foreign: a journal is only ever created whole under a temporary name and renamed
into place, so 0 bytes at the path is a journal cut to nothing (kept aside, as before); keeping an empty file
aside moves nothing anyone wrote, and taking it for a new journal would start a new game over lost ones.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
JOURNAL_TABLES = frozenset({"meta", "games", "events", "heartbeat"})


def sqlite_uri(path: Path, query: str) -> str:
    """An SQLite ``file:`` URI of ``path`` with ``query`` (e.g. ``"immutable=1"``): the path percent-encoded, so a
    name holding ``#``, ``?`` or ``%`` opens that file (``f"file:{path}"`` opened ``a`` for ``a#1.sqlite``,
    creating it empty)."""
    return f"{Path(path).absolute().as_uri()}?{query}"


def _journal_was_here(path: Path) -> bool:
    """Whether a journal was kept at ``path``: its lock file names one (line 2), or a write-ahead log is beside it."""
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return True
    try:
        lines = path.with_name(path.name + ".lock").read_bytes()[:256].decode(errors="replace").splitlines()
    except OSError:
        return False
    return len(lines) >= 2 and bool(lines[1].strip())


def _tables(path: Path) -> set[str] | None:
    """The tables of SQLite file ``path`` read as it is (immutable: no lock, log or write), None if unreadable."""
    try:
        db = sqlite3.connect(sqlite_uri(path, "mode=ro&immutable=1"), uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except (sqlite3.Error, UnicodeDecodeError):  # a damaged name is damage, left to the journal's own checks
        return None
    finally:
        db.close()


def foreign_file(path: Path) -> str | None:
    """Why the regular file at journal ``path`` is no journal at all and must be left as it is (a sentence to follow
    the path), or None: nothing there, an empty file, a journal (damaged or not; see the module docstring).
    Reads the file's first bytes (and its tables, for an SQLite file); raises nothing (a file it cannot read is
    left to the journal's own checks)."""
    try:
        if not path.is_file() or path.stat().st_size == 0 or _journal_was_here(path):
            return None
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError:
        return None
    advice = ("it was left as it is: give the path of a kiosk journal (.sqlite), or a path where none exists yet to "
              "start one")
    if head != SQLITE_HEADER:
        start = "".join(c if c.isprintable() and c != "\ufffd" else "." for c in head[:8].decode(errors="replace"))
        return f"is not a kiosk journal (not an SQLite database: it starts with \"{start}\"); {advice}"
    tables = _tables(path)
    if tables is not None and not tables & JOURNAL_TABLES:
        names = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "") if tables else "none"
        return f"is not a kiosk journal (an SQLite database without the journal's tables; its tables: {names}); {advice}"
    return None
