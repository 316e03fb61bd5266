"""Is the file at a journal path some other file? Then it is refused and left as it is, never kept aside.

A damaged journal is moved aside (``<name>.corrupt-<n>``, :mod:`kiosk.store.journal`), but a path given by
mistake (``--journal`` pointing at a text file, a picture, a GCG, another program's database) holds no journal
at all: moving it would take the user's file from where they keep it and start a journal in its place.
:func:`foreign_file` tells the two apart, reading only (nothing is created, locked or written):

* an SQLite database whose ``application_id`` is another program's (the desk's ``KDSK``, say) is foreign, whatever
  its tables, its lock file or a write-ahead log beside it (a running desk's database: read with its log);
* a file no journal was ever kept at (its lock file names no journal) that is not an SQLite database (no
  ``SQLite format 3\\0`` header) and holds no journal's pages (neither the journal's application id where the
  header keeps it nor an event row whose checksum holds: a journal whose header was overwritten is a damaged
  journal), or an SQLite database (read with its write-ahead log) without any of the
  journal's tables, or with a table that is not the journal's, or with a table of the journal's name but other
  columns (a calendar's ``events(id, title)``), is foreign;
* anything else is a journal, damaged or not: one carrying the journal's application id, a file a journal was
  kept at (whatever it holds now: the journal overwritten), an SQLite file that cannot be read (a damaged
  database), one with only (some of) the journal's tables with their columns.

An empty file (0 bytes) is not foreign: a journal is only ever created whole under a temporary name and renamed
into place, so 0 bytes at the path is a journal cut to nothing (kept aside, as before); keeping an empty file
aside moves nothing anyone wrote, and taking it for a new journal would start a new game over lost ones.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from kiosk.store.carve import carve_file

SQLITE_HEADER = b"SQLite format 3\x00"
JOURNAL_TABLES = frozenset({"meta", "games", "events", "heartbeat"})
#: ``PRAGMA application_id`` of a kiosk journal ("KJRN"; journals before it carry 0)
JOURNAL_APPLICATION_ID = 0x4B4A524E
#: the columns of each journal table (kiosk.store.journal's schema)
JOURNAL_COLUMNS = {"meta": {"key", "value"}, "games": {"id", "started_ms", "finished_ms"},
                   "events": {"game", "seq", "t", "type", "body", "crc"}, "heartbeat": {"game", "t"}}
_DESK_APPLICATION_ID = 0x4B44534B   # kiosk.desk.store.APPLICATION_ID (not imported: the store stays below the desk)


def sqlite_uri(path: Path, query: str) -> str:
    """An SQLite ``file:`` URI of ``path`` with ``query`` (e.g. ``"immutable=1"``): the path percent-encoded, so a
    name holding ``#``, ``?`` or ``%`` opens that file (``f"file:{path}"`` opened ``a`` for ``a#1.sqlite``,
    creating it empty)."""
    return f"{Path(path).absolute().as_uri()}?{query}"


def _journal_was_here(path: Path) -> bool:
    """Whether a journal was kept at ``path``: its lock file names one (line 2)."""
    try:
        lines = path.with_name(path.name + ".lock").read_bytes()[:256].decode(errors="replace").splitlines()
    except OSError:
        return False
    return len(lines) >= 2 and bool(lines[1].strip())


def _schema(path: Path) -> tuple[int, dict[str, set[str]]] | None:
    """The application id and the tables (with their columns) of SQLite file ``path``, None if unreadable. Reads
    the file as it is (immutable: no lock, log or write); with a write-ahead log beside it, a copy of both in a
    temporary folder (what a running program wrote is in its log; its files are not touched)."""
    wal = path.with_name(path.name + "-wal")
    try:
        if wal.is_file() and wal.stat().st_size > 0:
            with tempfile.TemporaryDirectory(prefix="kiosk-foreign-") as tmp:
                copy = Path(tmp) / "copy.sqlite"
                shutil.copyfile(path, copy)
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
                return _read_schema(sqlite_uri(copy, "mode=ro"))
        return _read_schema(sqlite_uri(path, "mode=ro&immutable=1"))
    except OSError:
        return None


def _read_schema(uri: str) -> tuple[int, dict[str, set[str]]] | None:
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        app_id = int(db.execute("PRAGMA application_id").fetchone()[0])
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        tables = {n: {str(c[1]) for c in db.execute("SELECT * FROM pragma_table_info(?)", (n,))}
                  for n in names if not n.startswith("sqlite_")}
        return app_id, tables
    except (sqlite3.Error, UnicodeDecodeError):  # a damaged name is damage, left to the journal's own checks
        return None
    finally:
        db.close()


def _other_database(app_id: int, tables: dict[str, set[str]]) -> str | None:
    """Why an SQLite database with ``app_id`` and ``tables`` is no journal (words inside the parentheses), or
    None."""
    if app_id == _DESK_APPLICATION_ID:
        return "a kiosk desk's database"
    if app_id not in (0, JOURNAL_APPLICATION_ID):
        return f"an SQLite database of another program (application id {app_id:#x})"
    if app_id == JOURNAL_APPLICATION_ID:
        return None
    names = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "") if tables else "none"
    if not set(tables) & JOURNAL_TABLES:
        return f"an SQLite database without the journal's tables; its tables: {names}"
    if set(tables) - JOURNAL_TABLES or any(cols != JOURNAL_COLUMNS[t] for t, cols in tables.items()):
        return f"an SQLite database with other tables than the journal's; its tables: {names}"
    return None


def _holds_journal_rows(path: Path, head: bytes) -> bool:
    """Whether ``path``, which does not start as an SQLite file, is a journal whose header is damaged: its header
    still carries the journal's application id, or its first MB holds an event row whose checksum holds (a
    journal's row, :mod:`kiosk.store.carve`; no other file holds one)."""
    return head[68:72] == JOURNAL_APPLICATION_ID.to_bytes(4, "big") or bool(carve_file(path, limit=1 << 20))


def foreign_file(path: Path) -> str | None:
    """Why the regular file at journal ``path`` is no journal at all and must be left as it is (a sentence to follow
    the path), or None: nothing there, an empty file, a journal (damaged or not; see the module docstring).
    Reads the file's first bytes (and its tables, for an SQLite file); raises nothing (a file it cannot read is
    left to the journal's own checks)."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError:
        return None
    wal = path.with_name(path.name + "-wal")
    logged = wal.is_file() and wal.stat().st_size > 0
    advice = ("it was left as it is: give the path of a kiosk journal (.sqlite), or a path where none exists yet to "
              "start one")
    if not head.startswith(SQLITE_HEADER):
        if logged or _journal_was_here(path) or _holds_journal_rows(path, head):
            return None   # a journal was kept here, or its pages are a journal's: whatever else it holds is damage
        start = "".join(c if c.isprintable() and c != "\ufffd" else "." for c in head[:8].decode(errors="replace"))
        return f"is not a kiosk journal (not an SQLite database: it starts with \"{start}\"); {advice}"
    schema = _schema(path)
    if schema is None:
        return None
    if _journal_was_here(path) and schema[0] in (0, JOURNAL_APPLICATION_ID):
        return None   # a journal was kept here: whatever its tables are now is its damage
    other = _other_database(*schema)
    return f"is not a kiosk journal ({other}); {advice}" if other else None
