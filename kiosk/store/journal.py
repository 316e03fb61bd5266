"""The SQLite journal: every accepted referee event, appended and made durable before it takes effect.

One file holds every game played on the kiosk. SQLite in WAL mode with ``synchronous=FULL``, and the write-ahead
log folded back into the main file after every write (``wal_checkpoint(TRUNCATE)``): when
:meth:`Journal.append` returns, the event is in the main file itself, so nothing acknowledged depends on the
``-wal``/``-shm`` files beside it (deleted, truncated or damaged while the kiosk is stopped, they lose at most the
one write that was under way and never acknowledged). A kiosk writes a few events a minute; the fold costs one
more fsync each. Each row carries a CRC-32 of its game, sequence number and JSON body, so bit rot or a tampered
row is found on open, as is a file SQLite itself cannot read (truncated, overwritten).

A new journal is built whole under a temporary name and renamed into place, so an existing file of 0 bytes is
never "a new journal": it is a damaged one. Every journal carries a random id (``meta.journal_id``); a
write-ahead log found beside the file on open must carry that id, change no recorded event and add events that
continue the games (the one unacknowledged write, or several a reader kept from being folded in), or the journal
is refused as damaged and kept aside with it: another journal's log (e.g. beside a restored file), or a log that
cannot be applied whole (a damaged frame with a finished write after it, or a torn last write holding a whole
event, :mod:`kiosk.store.wal`: SQLite would drop that write without a word; ``kiosk journal recover`` reads its
events from its bytes). A log ending in a torn write holding no event is applied as SQLite applies it (the torn
write, never acknowledged, dropped and logged).

Only one process may use a journal path: an exclusive lock on ``<name>.lock`` (held while the journal is
open) refuses a second kiosk with :class:`JournalLocked`. The lock file also remembers the id of the journal
last open at the path, so a journal file deleted while the kiosk was stopped is refused as damaged, not taken
for a new journal. ``Journal(path, readonly=True)`` (``kiosk journal
show``) reads a snapshot copy and changes nothing: no file created, renamed or written.

A file that is no journal at all (a path given by mistake: a text file, a picture, another program's SQLite
database; :func:`kiosk.store.foreign.foreign_file`) is refused with :class:`JournalError` and left as it is.
A damaged journal is never used or overwritten: its files are renamed aside (``<name>.corrupt-<n>``), a
marker ``<name>.blocked`` records the report, and :class:`JournalCorrupt` is raised on every open until an
operator calls :func:`acknowledge_corruption` (start afresh) or :func:`kiosk.store.salvage.recover_journal`
(carry the intact events into a fresh file) - so the kiosk cannot silently start a new game over a lost one.
A full disk (or the optional size cap) raises :class:`JournalFull`; any other write failure (a disk I/O error:
a failing SD card, a file size limit; a read-only file system; the file locked by another program, or deleted or
moved while open) raises :class:`JournalError` with its :attr:`~JournalError.cause` in plain words. Either way
the failed write is rolled back and everything recorded before stays intact. Opening fails the same way when the
disk or the file's access fails (I/O error, read-only, locked, permissions): only content SQLite cannot read is
damage kept aside.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import logging
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from kiosk.files import write_atomic
from kiosk.referee.events import Event, EventError, event_from_dict
from kiosk.rules.counts import counted
from kiosk.store.foreign import JOURNAL_APPLICATION_ID, foreign_file, sqlite_uri
from kiosk.store.lock import LockHeld, take_lock, write_pid
from kiosk.store.readable import damage_words, row_crc, saved_words
from kiosk.store.wal import torn_tail, wal_damage

_T = TypeVar("_T")
log = logging.getLogger("kiosk.store")
Carried = Callable[[int], Mapping[str, str]]
"""What the kiosk keeps in a journal's ``meta`` table beside a game's events, as rows (key -> text) for the game's
id in a new journal (:meth:`Journal.write_game`)."""
SCHEMA_VERSION = 1
# room kept for the write-ahead log under a size cap: one write touches a few pages and the log is emptied after it
WAL_RESERVE_PAGES = 8
MIN_PAGES = 8  # an empty journal takes 7 pages
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, started_ms INTEGER NOT NULL, finished_ms INTEGER
);
CREATE TABLE IF NOT EXISTS events (
    game INTEGER NOT NULL, seq INTEGER NOT NULL, t INTEGER NOT NULL, type TEXT NOT NULL,
    body TEXT NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS heartbeat (game INTEGER PRIMARY KEY, t INTEGER NOT NULL);
"""


class JournalError(RuntimeError):
    """The journal cannot be used (message says what and where). ``cause``: for a write that failed, what went
    wrong in plain words for the screen ("disk I/O error"); "" for other problems."""

    cause: str = ""


class JournalReplayError(JournalError):
    """The journal's unfinished game no longer replays: an event the referee refuses now (one an older kiosk wrote,
    or a time no clock reads). The file is sound and left as it is; ``game``: that game's number."""

    def __init__(self, message: str, game: int) -> None:
        super().__init__(message)
        self.game = game


class JournalCorrupt(JournalError):
    """The journal file is damaged. ``kept_aside``: where the damaged files were moved (None: not moved, e.g. a
    read-only look or an earlier report); ``report``: details."""

    def __init__(self, message: str, kept_aside: Path | None, report: str, *, nothing: bool = False) -> None:
        super().__init__(message)
        self.kept_aside = kept_aside
        self.report = report
        self.nothing = nothing   # nothing in it can be recovered (empty, no whole event): an unusable input


_NOTHING = ("no recorded event can be read from it", "the file is empty (0 bytes)")


def nothing_to_recover(report: str) -> bool:
    """Whether a damage report (a :class:`JournalCorrupt`'s, or the one in ``PATH.blocked``) says that nothing in
    the file can be recovered (an empty file, one with no whole event) and no write-ahead log was kept with it."""
    return any(words in report for words in _NOTHING) and "write-ahead log" not in report


_KEPT_AS = re.compile(r"kept aside as (\S+?)(?= \(|\.(?:\s|$))")
"""How a damage report names the copy kept aside (as the path was given when the damage was found)."""


def named_copy(report: str) -> str | None:
    """The file name of the damaged copy a damage report names (``j.sqlite.corrupt-1``), or None."""
    m = _KEPT_AS.search(report)
    return Path(m.group(1)).name if m else None


def report_as_seen(path: Path, report: str) -> str:
    """A blocked path's report (``PATH.blocked``) naming the journal and its damaged copy as they are found now,
    from ``path`` as given to this command: the report names them as the path was given when the damage was found
    (``journal b/j.sqlite ... kept aside as b/j.sqlite.corrupt-1``, read from inside ``b/``: wrong). A copy is only
    ever kept aside beside its journal, so its file name is looked up there."""
    report = re.sub(r"^journal (.+?) is damaged: ", lambda _m: f"journal {path} is damaged: ", report, count=1)
    return _KEPT_AS.sub(lambda m: f"kept aside as {path.with_name(Path(m.group(1)).name)}", report, count=1)


def copies_beside(path: Path) -> list[Path]:
    """The damaged copies kept aside beside journal ``path`` (``<name>.corrupt-<n>``, the main files only), the
    latest first."""
    found = []
    for p in path.parent.glob(glob.escape(path.name) + ".corrupt-*") if path.parent.is_dir() else ():
        n = p.name[len(path.name) + len(".corrupt-"):]
        if n.isdigit() and p.is_file():
            found.append((int(n), p))
    return [p for _, p in sorted(found, reverse=True)]


def _other_copies(path: Path, report: str) -> list[Path]:
    """The damaged copies beside ``path`` (the latest first) other than the one ``report`` names."""
    named = named_copy(report)
    return [c for c in copies_beside(path) if c.name != named]


def recover_from_words(into: str | Path, copies: list[Path]) -> str:
    """How to recover into the journal ``into`` from damaged ``copies`` (not empty; the latest first), in words:
    "`kiosk journal recover INTO --from COPY` reads the latest, NAME (also beside it: NAME, ...)"."""
    others = f" (also beside it: {', '.join(p.name for p in copies[1:])})" if len(copies) > 1 else ""
    return f"`kiosk journal recover {into} --from {copies[0]}` reads the latest, {copies[0].name}{others}"


def nothing_way(path: Path, others: list[Path]) -> str:
    """The way on for the journal ``path`` whose damaged copy holds nothing to recover, in words: the other damaged
    copies beside it (``others``, the latest first) when there are any (then never a fresh start, which abandons
    the game they may hold), else "`kiosk journal acknowledge PATH` starts afresh". One wording for every place
    that says it: the kiosk's open of the blocked path, its keeping the file aside, and ``kiosk journal recover``."""
    if others:
        return f"other damaged copies are kept beside it: {recover_from_words(path, others)}"
    return f"`kiosk journal acknowledge {path}` starts afresh"


class JournalNotKeptAside(JournalCorrupt):
    """The journal file is damaged and cannot be kept aside: its folder cannot be written (read-only, not this
    user's) or its disk is full. Nothing was changed (a rename done is undone); ``cause``: why, in words."""


def folder_refused(folder: Path, exc: OSError) -> str:
    """Why a file operation in ``folder`` failed, in words: "its disk is full" or "its folder F cannot be written
    (permission denied)" (never a bare ``PATH: Permission denied -> PATH2``)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "its disk is full"
    reason = exc.strerror or str(exc) or "the disk refused it"
    return f"its folder {folder} cannot be written ({reason[:1].lower() + reason[1:]})"


def not_kept_aside(path: Path, report: str, exc: OSError) -> JournalNotKeptAside:
    """The damaged journal ``path`` cannot be kept aside (``exc``), with what to do."""
    cause = folder_refused(path.parent, exc)
    err = JournalNotKeptAside(
        f"{report} It cannot be kept aside: {cause}; nothing was changed. To go on, run `kiosk journal recover "
        f"NEW.sqlite --from {path}` with NEW.sqlite in a folder you can write to {USE_NEW_JOURNAL}, or make "
        f"{path.parent} writable and run `kiosk journal recover {path}`", None, report)
    err.cause = cause
    return err


class JournalFull(JournalError):
    """The disk (or the journal's size cap) is full: the event was NOT recorded; earlier events are safe."""


class JournalLocked(JournalError):
    """Another process has the journal open (two writers would overwrite each other's events)."""


class JournalPathError(JournalError):
    """The path given is no journal to work on: nothing there, a folder, or a file that is not a kiosk journal
    (opening it, or :func:`kiosk.store.salvage.recover_journal`; bad input: the command line exits 2 for it)."""


@dataclass(frozen=True)
class GameRecord:
    """One game in the journal: ``id``, start time (ms), finish time (ms) or None while unfinished."""

    id: int
    started_ms: int
    finished_ms: int | None


# SQLite's error names (their prefix) -> the cause of a failed write in plain words; the first match wins
_CAUSES = (("SQLITE_IOERR", "disk I/O error"), ("SQLITE_READONLY_DBMOVED", "the journal file was deleted or moved"),
           ("SQLITE_READONLY", "the journal file or its disk is read-only"),
           ("SQLITE_BUSY", "another program holds the journal file locked"),
           ("SQLITE_LOCKED", "another program holds the journal file locked"),
           ("SQLITE_CORRUPT", "the journal file is damaged"), ("SQLITE_NOTADB", "the journal file is damaged"),
           ("SQLITE_CANTOPEN", "the journal file cannot be opened"), ("SQLITE_PERM", "permission denied"))
MOVED = "the journal file was deleted or moved"
USE_NEW_JOURNAL = ('(then give the table that journal: `journal = "/full/path/NEW.sqlite"` in the [table] section '
                   'of its config file; `kiosk run` has no journal option)')
"""How a table is given another journal, for the advice that ends "... NEW.sqlite in a folder you can write to"
(``kiosk run`` reads it from its config's ``table.journal``; only ``kiosk demo`` takes ``--journal``)."""


def write_failure(path: str | Path, cause: str) -> JournalError:
    """The :class:`JournalError` of a write to the journal at ``path`` that failed for ``cause`` (plain words)."""
    return _failure(path, "cannot write the journal", cause)


def _failure(path: str | Path, what: str, cause: str) -> JournalError:
    err = JournalError(f"{path}: {what}: {cause}")
    err.cause = cause
    return err


def _access_failure(exc: sqlite3.Error) -> bool:
    """The disk or the file's access failed (I/O error, read-only, locked, permissions), not its content."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_CANTOPEN",
                            "SQLITE_PERM"))


def _cause(exc: sqlite3.Error) -> str:
    """What a failed SQLite write means, in plain words (its error name, else SQLite's own message)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, words in _CAUSES:
        if name.startswith(prefix):
            return words
    return str(exc).strip() or "an unknown error"


_REFUSED = "the disk refused the write (file size limit or disk full)"
_DISK_FULL = "the disk is full"
FULL_BELOW = 64 * 1024
"""Bytes free on the journal's disk below which a failed open, creation or write is a full disk (SQLite reports
a disk that ran full while it grew its -wal or -shm as a disk I/O error: the tester's full tmpfs read "disk I/O
error", a full disk with no journal yet "the disk refused the write")."""


def disk_full(path: str | Path) -> bool:
    """Whether the disk holding ``path`` (a file, or the folder it would be made in) has under :data:`FULL_BELOW`
    bytes free for this user; False when that cannot be told (no such folder, a file system without the call)."""
    folder = Path(path).parent
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < FULL_BELOW


def _creation_cause(exc: sqlite3.Error | OSError) -> str:
    """Why a new journal could not be built, in plain words (no SQLite or Python error text)."""
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return _DISK_FULL
        return _REFUSED if exc.errno == errno.EFBIG else (exc.strerror or "the disk refused it")
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL":
        return _DISK_FULL
    if name.startswith(("SQLITE_IOERR_WRITE", "SQLITE_IOERR_SHMSIZE", "SQLITE_IOERR_TRUNCATE",
                        "SQLITE_IOERR_FSYNC")):
        return _REFUSED
    if name.startswith("SQLITE_IOERR"):
        return "the disk failed to read or write (a failing card or disk)"
    cause = _cause(exc)
    return cause if cause in dict(_CAUSES).values() else "it could not be built in its folder"


def _build(tmp: Path) -> None:
    """A new, empty journal at ``tmp``, made durable (its write-ahead log folded in). Raises sqlite3.Error or
    OSError."""
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        db.execute(f"PRAGMA application_id = {JOURNAL_APPLICATION_ID}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("BEGIN IMMEDIATE")
        for stmt in filter(str.strip, _SCHEMA.split(";")):
            db.execute(stmt)
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        db.execute("INSERT INTO meta VALUES ('journal_id', ?)", (uuid.uuid4().hex,))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, or None when nothing is there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


_crc = row_crc


def _blocked_marker(path: Path) -> Path:
    return path.with_name(path.name + ".blocked")


def _lock_file(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def _sidecars(path: Path) -> list[Path]:
    return [path, _wal(path), path.with_name(path.name + "-shm")]


def not_a_file(path: Path) -> str | None:
    """Why ``path`` cannot be a journal file although something is there (a folder, a FIFO, a device, a
    socket), or None (a regular file, a symlink to one, or nothing yet). Such a path is bad input: it is named
    and left alone, never kept aside as a damaged journal (that would move a folder, or read a FIFO)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot look at it: {exc.strerror}"
    if stat.S_ISREG(mode):
        return None
    kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a regular file")
    return f"is {kind}, not a journal file; give the path of a journal file (.sqlite)"


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _lock(path: Path, *, create: bool) -> int | None:
    """Take the exclusive lock of journal ``path``; returns the lock's file descriptor (None: ``create`` is
    False and no lock file exists, so no kiosk holds it). Raises :class:`JournalLocked` naming the holder."""
    lf = _lock_file(path)
    try:
        fd = take_lock(lf, create=create)
    except LockHeld as held:
        raise JournalLocked(f"{path}: the journal is in use by another process (pid {held.holder}): stop that kiosk "
                            f"first, or give this one another journal path (two kiosks writing one journal would "
                            f"overwrite each other's events)") from None
    except FileNotFoundError as exc:   # a folder where no file can be made (/proc): no lock, so no journal
        raise JournalError(f"{lf}: cannot create the journal's lock file: {exc.strerror}") from None
    except OSError as exc:
        raise JournalError(f"{lf}: cannot open the journal's lock file: {exc.strerror}") from None
    if fd is None:
        return None
    if create:
        known = _lock_journal_id(fd)
        try:
            _write_lock(fd, known, lf)
        except JournalError:
            os.close(fd)
            raise
    return fd


def _lock_journal_id(fd: int) -> str | None:
    """The id of the journal last opened at this path, as its lock file remembers it (line 2), or None."""
    lines = os.pread(fd, 256, 0).decode(errors="replace").splitlines()
    if len(lines) < 2:
        return None
    return lines[1].strip() or None


def _write_lock(fd: int, journal_id: str | None, lock_file: Path | None = None) -> None:
    """The lock file: this process's pid, and the id of the journal open at the path (a witness that a journal
    was here, should its file vanish).

    Raises:
        JournalFull: the disk is full (a full disk refused even these few bytes: 'No space left on device' said
            nothing of the journal); JournalError: another write failure, the lock file named.
    """
    try:
        write_pid(fd, journal_id or "")
    except OSError as exc:
        where = f"{lock_file}: " if lock_file is not None else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise JournalFull(f"{where}cannot write the journal's lock file: {_DISK_FULL}") from None
        raise JournalError(f"{where}cannot write the journal's lock file: {exc.strerror or exc}") from None


def acknowledge_corruption(path: str | Path) -> str:
    """Operator action: unblock a journal path after a corruption report; returns the report that was shown.

    The damaged files stay where they were kept aside; the next open starts a new, empty journal (use
    :func:`kiosk.store.salvage.recover_journal` instead to carry on from the intact events). Raises
    :class:`JournalError` if nothing is blocked, :class:`JournalLocked` while a kiosk has the path open.
    """
    p = Path(path)
    marker = _blocked_marker(p)
    if not marker.exists():
        raise JournalError(f"{path}: no corruption report to acknowledge")
    report = report_as_seen(p, marker.read_text(encoding="utf-8"))
    try:
        fd = _lock(p, create=True)
    except JournalLocked:
        raise
    except JournalError as exc:   # no lock file can be made here (a read-only folder)
        raise _not_acknowledged(p, _os_error(exc)) from None
    try:
        if fd is not None and not p.exists():
            _write_lock(fd, None)  # the next open starts a new journal: the old one's absence is acknowledged
        marker.unlink()
    except (OSError, JournalError) as exc:   # the report cannot be removed (a read-only folder): nothing changed
        raise _not_acknowledged(p, _os_error(exc)) from None
    finally:
        if fd is not None:
            os.close(fd)
    return report


def _os_error(exc: BaseException) -> OSError:
    """The OSError behind ``exc`` (a :class:`JournalError` raised for one), else one made of its last words."""
    if isinstance(exc, OSError):
        return exc
    if isinstance(exc.__context__, OSError):
        return exc.__context__
    full = isinstance(exc, JournalFull)
    return OSError(errno.ENOSPC if full else errno.EACCES, str(exc).rsplit(": ", 1)[-1])


def _not_acknowledged(path: Path, exc: OSError) -> JournalError:
    """``acknowledge`` cannot unblock ``path`` (``exc``: its report cannot be removed), with what to do."""
    cause = folder_refused(path.parent, exc)
    err = JournalError(
        f"{path}: nothing was acknowledged: its report {_blocked_marker(path).name} cannot be removed ({cause}); "
        f"nothing was changed and {path} stays blocked. To start afresh, give the table a new journal in a folder "
        f"you can write to: `journal = \"/full/path/NEW.sqlite\"` in the [table] section of its config file (or make "
        f"{path.parent} writable and run `kiosk journal acknowledge {path}` again)")
    err.cause = cause
    return err


def _view(file: Path, *, immutable: bool) -> tuple[str | None, dict[tuple[int, int], int]]:
    """(journal id, {(game, seq): crc}) of a journal file; ``immutable``: the main file alone, ignoring (and not
    touching) any write-ahead log. Raises sqlite3.DatabaseError when unreadable."""
    uri = sqlite_uri(file, "immutable=1" if immutable else "mode=rw")
    db = sqlite3.connect(uri, uri=True, isolation_level=None)
    try:
        row = db.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
        rows = {(g, s): c for g, s, c in db.execute("SELECT game, seq, crc FROM events")}
        return (row[0] if row else None), rows
    finally:
        db.close()


def wal_problem(file: Path, name: str | None = None) -> str | None:
    """Why the write-ahead log beside journal ``file`` must not be applied to it, or None (no log, or a log that
    extends this journal: the one write under way when a kiosk stopped, or several writes whose events continue
    its games). ``name``: the log's name in the message. Reads copies only: neither file is changed."""
    return wal_check(file, name)[0]


def wal_check(file: Path, name: str | None = None) -> tuple[str | None, bool]:
    """(:func:`wal_problem`'s words, whether the log is this journal's own all the same: its id is this
    journal's and it changes no recorded event - a log that cannot be applied whole (:func:`kiosk.store.wal.
    wal_damage`) or whose events do not continue the games' sequences; its events are read in a salvage, never
    those of another journal's log)."""
    wal = _wal(file)
    name = name or wal.name
    if not wal.exists() or wal.stat().st_size == 0:
        return None, True
    try:
        main_id, main_rows = _view(file, immutable=True)
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        return wal_damage(wal, name), True  # the main file alone is unreadable (cut mid-checkpoint?): the full check on open decides
    with tempfile.TemporaryDirectory(prefix="kiosk-journal-") as tmp:
        copy = Path(tmp) / file.name
        shutil.copyfile(file, copy)
        shutil.copyfile(wal, _wal(copy))
        try:
            wal_id, wal_rows = _view(copy, immutable=False)
        except (sqlite3.DatabaseError, UnicodeDecodeError):
            return (f"the write-ahead log {name} beside it makes the file unreadable (SQLite cannot read the two "
                    "together): it is damaged or not this journal's log"), False
    if main_id is not None and wal_id != main_id:
        return (f"the write-ahead log {name} beside it belongs to another journal (id {wal_id}, this file's is "
                f"{main_id})"), False
    changed = sorted(k for k, c in main_rows.items() if wal_rows.get(k) != c)
    if changed:
        g, s = changed[0]
        return (f"the write-ahead log {name} beside it would change or drop {counted(len(changed), 'recorded event')} "
                f"(first: game {g} event {s}): it is not this journal's log"), False
    damage = wal_damage(wal, name, wal_rows)
    if damage:
        return damage, True
    gap = _not_continued(main_rows, wal_rows)
    if main_id is not None and gap:
        extra = len(wal_rows) - len(main_rows)
        return (f"the write-ahead log {name} beside it carries this journal's id and adds "
                f"{counted(extra, 'event')}, but they do not continue its games ({gap})"), True
    return None, True


def _not_continued(main_rows: dict[tuple[int, int], int], wal_rows: dict[tuple[int, int], int]) -> str:
    """Where the events a log adds do not continue each game's recorded events (1, 2, ... with no gap), in
    words, or "" (they do: a log this journal left, e.g. several writes a reader kept from being folded in)."""
    last: dict[int, int] = {}
    for g, s in main_rows:
        last[g] = max(last.get(g, 0), s)
    for g, s in sorted(set(wal_rows) - set(main_rows)):
        if s != last.get(g, 0) + 1:
            return f"game {g}: event {s} follows event {last.get(g, 0)}"
        last[g] = s
    return ""


class Journal:
    """Append-only event journal over one SQLite file.

    Args:
        path: the journal file (created with its folder if missing).
        max_bytes: optional size cap for the file and its write-ahead log together (pages beyond it fail like a
            full disk), e.g. to protect an SD card.
        readonly: only look (``kiosk journal show``): nothing is created, locked for long, renamed or written;
            a damaged file raises :class:`JournalCorrupt` without being moved.

    Raises:
        JournalCorrupt: the file is damaged (kept aside, see module doc) or a previous report is unacknowledged.
        JournalLocked: another process has this journal open.
        JournalError: the file cannot be opened (permissions, not a journal of this version; readonly: missing),
            or is no journal at all (:func:`kiosk.store.foreign.foreign_file`; left as it is).
    """

    def __init__(self, path: str | Path, *, max_bytes: int | None = None, readonly: bool = False,
                 _salvage: bool = False) -> None:
        # a path reached through a symbolic link is the file it points to: its lock, its sidecars and a new
        # journal's rename all go there (two spellings of one journal share one lock; a dangling link is not
        # replaced by a file)
        real = os.path.realpath(path)
        self.path = Path(real) if real != os.path.abspath(path) else Path(path)
        self.readonly = readonly
        self.max_bytes = max_bytes   # the size cap it was opened with (a journal made again keeps it)
        self._salvage = _salvage
        self._lock_fd: int | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._db: sqlite3.Connection | None = None
        self._file_id: tuple[int, int] | None = None  # the open file's (device, inode): still at self.path?
        marker = _blocked_marker(self.path)
        if marker.exists() and not _salvage:
            report = report_as_seen(self.path, marker.read_text(encoding="utf-8"))
            if nothing_to_recover(report):   # never advise recover when nothing can be recovered
                way = nothing_way(self.path, _other_copies(self.path, report))
                raise JournalCorrupt(f"{self.path}: a damaged journal was kept aside and not yet acknowledged by an "
                                     f"operator; as the report below says, there is nothing in it to recover "
                                     f"({way}):\n{report}", None, report, nothing=True)
            raise JournalCorrupt(f"{self.path}: a damaged journal was kept aside and not yet acknowledged "
                                 f"by an operator (after reading the report below, run `kiosk journal recover "
                                 f"{self.path}` to carry on from its intact events, or `kiosk journal acknowledge "
                                 f"{self.path}` to start afresh):\n{report}", None, report)
        try:
            self._open(max_bytes)
        except BaseException:
            self._release()
            raise
        self._next_seq: dict[int, int] = {}

    # --------------------------------------------------------------------------------------- set-up
    def _open(self, max_bytes: int | None) -> None:
        why = not_a_file(self.path)
        if why:
            raise JournalPathError(f"{self.path}: {why}")
        foreign = foreign_file(self.path)   # a file given by mistake: refused (also read-only), never kept aside
        if foreign:
            raise JournalPathError(f"{self.path}: {foreign}")
        if self.readonly:
            if not self.path.is_file():
                raise JournalError(f"{self.path}: no such journal file")
            try:
                self._lock_fd = _lock(self.path, create=False)  # no kiosk may start while the copy is taken
            except JournalLocked:  # a kiosk has it open: read beside it (its -shm exists, nothing is created)
                self._db = sqlite3.connect(sqlite_uri(self.path, "mode=ro"), uri=True, isolation_level=None,
                                           timeout=5.0)
                return
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(f"{self.path.parent}: cannot create the journal folder: {exc.strerror}") from None
            self._lock_fd = _lock(self.path, create=True)
            if not self.path.exists():
                if _wal(self.path).exists() and _wal(self.path).stat().st_size > 0:
                    self._quarantine("the journal file is missing but its write-ahead log "
                                     f"{_wal(self.path).name} is there (the file was deleted or moved)")
                assert self._lock_fd is not None
                known = _lock_journal_id(self._lock_fd)
                if known and not self._salvage:
                    self._quarantine(f"the journal file is missing, but journal {known} was kept here (its lock "
                                     f"file {_lock_file(self.path).name} says so): its events are gone unless the "
                                     f"file is put back")
                self._create()
        if self.path.stat().st_size == 0:
            self._quarantine("the file is empty (0 bytes): a journal is only ever created whole, so this one "
                             "was cut to nothing and its events are gone", nothing=True)
        file = self.path
        if self.readonly:  # a snapshot copy: SQLite writes -wal/-shm even to look
            self._tmp = tempfile.TemporaryDirectory(prefix="kiosk-journal-")
            file = Path(self._tmp.name) / self.path.name
            shutil.copyfile(self.path, file)
            if _wal(self.path).exists():
                shutil.copyfile(_wal(self.path), _wal(file))
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None
        if not self.readonly:   # what was there before this open's own connection made its -wal/-shm
            self._found = {p for p in _sidecars(self.path) if p.exists()}
        try:
            self._check_wal(file)
            self._db = sqlite3.connect(file, isolation_level=None, timeout=5.0)
            self._setup(max_bytes)
            self._verify(file)
            if not self.readonly:
                self._checkpoint()
                assert self._lock_fd is not None
                _write_lock(self._lock_fd, self.journal_id, _lock_file(self.path))
                self._file_id = _identity(self.path)
        except sqlite3.DatabaseError as exc:
            if "full" in str(exc).lower() or _access_failure(exc) and disk_full(self.path):
                raise JournalFull(f"{self.path}: the disk is full; cannot open the journal") from None
            if _access_failure(exc):  # the disk or the file's access failed, not its content: nothing moved aside
                raise _failure(self.path, "cannot open the journal", _cause(exc)) from None
            self._quarantine(damage_words(file, str(exc)))
        except UnicodeDecodeError:  # a damaged text (a table's name) SQLite hands over as it is
            self._quarantine(damage_words(file))

    def _create(self) -> None:
        """Build a new, empty journal under a temporary name and rename it into place (never half a file). A
        journal that cannot be built leaves nothing behind: the temporary file and its -wal/-shm/-journal go."""
        tmp = self.path.with_name(self.path.name + ".new")
        leftovers = [*_sidecars(tmp), tmp.with_name(tmp.name + "-journal")]
        for p in leftovers:
            p.unlink(missing_ok=True)
        try:
            _build(tmp)
            for p in leftovers[1:]:
                p.unlink(missing_ok=True)
            os.replace(tmp, self.path)
            _fsync_dir(self.path.parent)
        except (sqlite3.Error, OSError) as exc:
            for p in leftovers:
                with contextlib.suppress(OSError):
                    p.unlink(missing_ok=True)
            cause = _DISK_FULL if disk_full(self.path) else _creation_cause(exc)
            if cause == _DISK_FULL:
                raise JournalFull(f"{self.path}: cannot create the journal: {cause}") from None
            raise _failure(self.path, "cannot create the journal", cause) from None

    def _check_wal(self, file: Path) -> None:
        """A write-ahead log left beside the file (a crash) must extend this journal by at most the one write
        that was under way; anything else is another journal's log or a log that would change recorded events."""
        why = wal_problem(file, _wal(self.path).name)
        if why:
            self._quarantine(why)
        torn = None if self.readonly else torn_tail(_wal(file), _wal(self.path).name)
        if torn:   # (said once: the open folds the log into the file and empties it)
            log.warning("%s: %s", self.path, torn)

    def _setup(self, max_bytes: int | None) -> None:
        db = self._db
        assert db is not None
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise JournalError(f"{self.path}: cannot switch the journal to WAL mode (got {mode})")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA wal_autocheckpoint=0")  # every write checkpoints itself (see _checkpoint)
        db.execute("PRAGMA journal_size_limit=0")
        if max_bytes is not None:
            page = db.execute("PRAGMA page_size").fetchone()[0]
            pages = max_bytes // page - WAL_RESERVE_PAGES
            if pages < MIN_PAGES:
                raise JournalError(f"{self.path}: a size cap of {max_bytes} bytes leaves no room for events: "
                                   f"give at least {(MIN_PAGES + WAL_RESERVE_PAGES) * page} bytes (the empty "
                                   f"journal and room for its write-ahead log)")
            db.execute(f"PRAGMA max_page_count={pages}")

    def _verify(self, file: Path) -> None:
        """Check the open ``file`` (the journal, or its read-only snapshot): SQLite's integrity, the journal's
        tables, its version, every row's checksum and sequence."""
        db = self._db
        assert db is not None
        check = db.execute("PRAGMA quick_check").fetchall()
        if [r[0] for r in check] != ["ok"]:
            self._quarantine(damage_words(file, "\n".join(str(r[0]) for r in check)))
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = {"meta", "games", "events", "heartbeat"} - tables
        if missing:
            self._quarantine(f"not a kiosk journal (missing tables: {', '.join(sorted(missing))})")
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            raise JournalError(f"{self.path}: the journal's version is not recorded (its meta table has no "
                               f"schema_version), so this kiosk, which reads version {SCHEMA_VERSION} journals, "
                               f"cannot tell whether it can read it; the file was left as it is")
        if row[0] != str(SCHEMA_VERSION):
            raise JournalError(f"{self.path}: the journal is of version {str(row[0])[:20]!r}; this kiosk reads "
                               f"version {SCHEMA_VERSION} journals (the file was left as it is: open it with the "
                               f"kiosk that wrote it)")
        for game, seq, body, crc, expect in self._scan():
            if crc != _crc(game, seq, body):
                self._quarantine(f"game {game} event {seq} is damaged (its text is not as it was recorded: its "
                                 f"checksum does not hold); {saved_words(file)}")
            if seq != expect:
                self._quarantine(f"game {game}: event {expect} is missing (next found is {seq}); "
                                 f"{saved_words(file)}")
            try:
                event_from_dict(json.loads(body))
            except (ValueError, EventError) as exc:
                self._quarantine(f"game {game} event {seq}: unreadable event: {exc}; {saved_words(file)}")
        if not self.readonly and db.execute("SELECT 1 FROM meta WHERE key='journal_id'").fetchone() is None:
            self._write(lambda d: d.execute("INSERT INTO meta VALUES ('journal_id', ?)", (uuid.uuid4().hex,)))

    def _scan(self) -> Iterator[tuple[int, int, str, int, int]]:
        expect: dict[int, int] = {}
        assert self._db is not None
        for game, seq, body, crc in self._conn.execute("SELECT game, seq, body, crc FROM events ORDER BY game, seq"):
            nxt = expect.get(game, 1)
            yield game, seq, body, crc, nxt
            expect[game] = seq + 1

    def _quarantine(self, why: str, *, nothing: bool = False) -> None:
        """Move the damaged files aside, leave the blocking marker, raise :class:`JournalCorrupt` (read-only:
        only raise). ``nothing``: nothing in the file can be recovered (an empty file)."""
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None
        if self.readonly:
            report = f"journal {self.path} is damaged: {why}."
            if nothing or why.endswith("no recorded event can be read from it"):
                copies = copies_beside(self.path)   # (the file is still at the path: recovered into a new journal)
                way = (f"damaged copies kept beside it earlier may hold its events: "
                       f"{recover_from_words('NEW.sqlite', copies)}" if copies else
                       f"a kiosk opening it keeps it aside and stops, and `kiosk journal acknowledge {self.path}` "
                       f"then starts afresh")
                raise JournalCorrupt(f"{report} There is nothing in it to recover (nothing was changed; {way})",
                                     None, report, nothing=True)
            raise JournalCorrupt(f"{report} (nothing was changed: a kiosk opening it keeps the files aside and "
                                 f"stops; `kiosk journal recover {self.path}` keeps it aside and carries its intact "
                                 f"events into a fresh journal at its path, `kiosk journal recover NEW.sqlite --from "
                                 f"{self.path}` carries them into a new journal NEW.sqlite and leaves this file as it "
                                 f"is)", None, report)
        report = f"journal {self.path} is damaged: {why}."
        renamed: list[tuple[Path, Path]] = []
        try:   # every file operation of keeping it aside: undone when one fails (a read-only folder, a full disk)
            for p in _sidecars(self.path)[1:]:
                if self._found is not None and p not in self._found:
                    p.unlink(missing_ok=True)   # made by this open's own connection: nothing of the journal in it
            n = 1
            while any(p.with_name(p.name + f".corrupt-{n}").exists() for p in _sidecars(self.path)):
                n += 1
            moved = [p for p in _sidecars(self.path) if p.exists()]
            for p in moved:
                os.replace(p, p.with_name(p.name + f".corrupt-{n}"))
                renamed.append((p, p.with_name(p.name + f".corrupt-{n}")))
            aside = [p.with_name(p.name + f".corrupt-{n}") for p in moved]
            kept: Path | None = aside[0] if aside else None
            if moved and moved[0] == self.path:
                side = ["its write-ahead log" if p.name.endswith("-wal") else "its shared-memory file"
                        for p in moved[1:]]
                report += f" The file was kept aside as {kept}" + (
                    f" (with {' and '.join(f'{w} {a.name}' for w, a in zip(side, aside[1:], strict=True))})"
                    if side else "") + "."
            elif moved:
                report += (f" Its {' and '.join(a.name for a in aside)} {'was' if len(aside) == 1 else 'were'} kept "
                           f"aside.")
            write_atomic(_blocked_marker(self.path), report + "\n")
        except OSError as exc:
            for p, dest in reversed(renamed):
                with contextlib.suppress(OSError):
                    os.replace(dest, p)
            raise not_kept_aside(self.path, f"journal {self.path} is damaged: {why}.", exc) from None
        if nothing_to_recover(report):   # never advise recover when nothing can be recovered
            way = nothing_way(self.path, _other_copies(self.path, report))
            raise JournalCorrupt(f"{report} There is nothing in it to recover ({way}). This path stays blocked until "
                                 f"an operator runs it; no new game can silently replace a lost one.", kept, report,
                                 nothing=True)
        raise JournalCorrupt(f"{report} This path stays blocked until an operator runs `kiosk journal recover "
                             f"{self.path}` (carry on from the intact events) or `kiosk journal acknowledge "
                             f"{self.path}` (start afresh); no new game can silently replace a lost one.", kept, report)

    _found: set[Path] | None = None

    def _release(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # after the database: closing it drops the lock
            self._lock_fd = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    # --------------------------------------------------------------------------------------- writing
    @property
    def journal_id(self) -> str | None:
        """The journal's random id (hex), or None for a journal written before ids were kept."""
        row = self._conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
        return row[0] if row else None

    @property
    def closed(self) -> bool:
        """Whether the journal is closed (:meth:`close`; :func:`journal_again` closes the journal it replaces)."""
        return self._db is None

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

    def _checkpoint(self) -> None:
        """Fold the write-ahead log into the main file and empty it. Raises sqlite3.Error on failure."""
        busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise sqlite3.OperationalError("the write-ahead log could not be folded into the file (busy)")

    def _write(self, fn: Callable[..., _T], *args: object) -> _T:
        """Run ``fn(db, *args)`` in one transaction, then fold the log into the main file: all or nothing (anything
        ``fn`` raises rolls back what it wrote; an SQLite error is raised as :class:`JournalError`, any other as it is).

        If the fold fails (the disk filled up between the commit and the fold), the write stands (it is durable
        in the log) and the next write retries the fold first, refusing with :class:`JournalFull` until it works.
        A journal file deleted or moved while open is refused before anything is written (SQLite would go on
        writing into the unlinked file, lost at the next start).
        """
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        db = self._conn
        if self._file_id is not None and _identity(self.path) != self._file_id:
            raise write_failure(self.path, MOVED)
        try:
            if self._pending_fold:
                self._checkpoint()
                self._pending_fold = False
            db.execute("BEGIN IMMEDIATE")
            out = fn(db, *args)
            db.execute("COMMIT")
        except BaseException as exc:   # (an error of ``fn`` itself too: never a transaction left open)
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(exc, sqlite3.Error):
                raise self._write_error(exc) from None
            raise
        try:
            self._checkpoint()
        except sqlite3.Error:
            self._pending_fold = True
        return out

    _pending_fold = False

    def _write_error(self, exc: sqlite3.Error) -> JournalError:
        """:class:`JournalFull` for a full disk or the size cap (SQLITE_FULL), else the cause in plain words (a
        "database disk image is malformed" was taken for a full disk: it says "disk")."""
        msg = str(exc).lower()
        if (getattr(exc, "sqlite_errorname", "") or "").startswith("SQLITE_FULL") or "full" in msg or \
                _access_failure(exc) and disk_full(self.path):
            return JournalFull(f"{self.path}: the disk is full - the event was NOT recorded (everything recorded "
                               f"before is safe): {exc}")
        return write_failure(self.path, _cause(exc))

    def new_game(self, started_ms: int) -> int:
        """Open a new, empty game record; returns its id (:meth:`start_game` also records the first event)."""
        return self._write(lambda db: db.execute("INSERT INTO games (started_ms) VALUES (?)", (started_ms,)).lastrowid)

    def start_game(self, event: Event) -> int:
        """Open a new game record and append its first event (``game_started``) in one transaction; returns its id.

        Raises:
            JournalFull / JournalError: as :meth:`append`; then neither the game nor the event exists.
        """
        body = json.dumps(event.to_dict(), separators=(",", ":"), ensure_ascii=False, sort_keys=True)

        def tx(db: sqlite3.Connection) -> int:
            game = db.execute("INSERT INTO games (started_ms) VALUES (?)", (event.t,)).lastrowid
            assert game is not None
            db.execute("INSERT INTO events (game, seq, t, type, body, crc) VALUES (?, 1, ?, ?, ?, ?)",
                       (game, event.t, event.type, body, _crc(game, 1, body)))
            return game

        game = self._write(tx)
        self._next_seq[game] = 2
        return game

    def write_game(self, events: Sequence[Event], meta: Carried | None = None) -> int:
        """Record a whole game in progress (``events``, its ``game_started`` first) as a new, unfinished game in
        one transaction; returns its id. For a game the kiosk holds in memory whose journal file was deleted or
        moved away (:func:`journal_again`). ``meta``: what the kiosk keeps beside the game's events, as rows of the
        ``meta`` table (key -> text) for the game's id here (a press's reading kept during a pause,
        :mod:`kiosk.store.kept_reading`), written in the same transaction: all of it or nothing. Raises as
        :meth:`append` (then nothing was recorded; anything ``meta`` raises, as it is)."""
        bodies = [json.dumps(ev.to_dict(), separators=(",", ":"), ensure_ascii=False, sort_keys=True) for ev in events]

        def tx(db: sqlite3.Connection) -> int:
            game = db.execute("INSERT INTO games (started_ms) VALUES (?)", (events[0].t,)).lastrowid
            assert game is not None
            db.executemany("INSERT INTO events (game, seq, t, type, body, crc) VALUES (?, ?, ?, ?, ?, ?)",
                           [(game, seq, ev.t, ev.type, body, _crc(game, seq, body))
                            for seq, (ev, body) in enumerate(zip(events, bodies), 1)])
            if meta is not None:
                db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", sorted(meta(game).items()))
            return game

        game = self._write(tx)
        self._next_seq[game] = len(events) + 1
        return game

    def append(self, game: int, event: Event, *, finished: bool = False, reopened: bool = False) -> int:
        """Record ``event`` as the next event of ``game``, durably (fsync); returns its sequence number (1, 2 ...).

        ``finished`` marks the game finished in the same transaction; ``reopened`` marks it unfinished again (the
        judge's undo at the final table: the game goes on, and a restart resumes it).

        Raises:
            JournalFull: disk full / size cap: nothing was recorded.
            JournalError: any other write failure.
        """
        body = json.dumps(event.to_dict(), separators=(",", ":"), ensure_ascii=False, sort_keys=True)

        def tx(db: sqlite3.Connection) -> int:
            seq = self._next_seq.get(game)
            if seq is None:
                row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE game=?", (game,)).fetchone()
                seq = row[0] + 1
            db.execute("INSERT INTO events (game, seq, t, type, body, crc) VALUES (?, ?, ?, ?, ?, ?)",
                       (game, seq, event.t, event.type, body, _crc(game, seq, body)))
            if finished:
                db.execute("UPDATE games SET finished_ms=? WHERE id=?", (event.t, game))
            elif reopened:
                db.execute("UPDATE games SET finished_ms=NULL WHERE id=?", (game,))
            return seq

        seq = self._write(tx)
        self._next_seq[game] = seq + 1
        return seq

    def heartbeat(self, game: int, t_ms: int) -> None:
        """Record that the kiosk was alive at ``t_ms`` (the next resume charges time only up to the last beat)."""
        self._write(lambda db: db.execute("INSERT OR REPLACE INTO heartbeat VALUES (?, ?)", (game, t_ms)))

    def salvage_note(self, game: int) -> str | None:
        """The judge's note when ``game`` was carried over from a damaged journal with events dropped
        (:func:`kiosk.store.salvage.recover_journal`), else None."""
        rows = dict(self._conn.execute("SELECT key, value FROM meta WHERE key IN ('salvaged_game', 'salvaged_note')"))
        return rows.get("salvaged_note") if rows.get("salvaged_game") == str(game) else None

    def probe(self) -> None:
        """A small write that changes nothing: does the journal take writes again? Raises :class:`JournalFull`
        or :class:`JournalError` (as :meth:`append`)."""
        self._write(lambda db: db.execute("INSERT OR REPLACE INTO meta VALUES ('probe', '1')"))

    # --------------------------------------------------------------------------------------- reading
    def games(self) -> list[GameRecord]:
        """Every game in the journal, oldest first."""
        return [GameRecord(*r) for r in self._conn.execute("SELECT id, started_ms, finished_ms FROM games ORDER BY id")]

    def unfinished_game(self) -> int | None:
        """The id of the latest game not marked finished, or None."""
        row = self._conn.execute("SELECT id FROM games WHERE finished_ms IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def events(self, game: int) -> list[Event]:
        """The events of ``game`` in order (checked against their checksums)."""
        out = []
        for seq, body, crc in self._conn.execute("SELECT seq, body, crc FROM events WHERE game=? ORDER BY seq", (game,)):
            if crc != _crc(game, seq, body):
                self._quarantine(f"game {game} event {seq} is damaged (its text is not as it was recorded: its "
                                 f"checksum does not hold)")
            out.append(event_from_dict(json.loads(body)))
        return out

    def last_heartbeat(self, game: int) -> int | None:
        row = self._conn.execute("SELECT t FROM heartbeat WHERE game=?", (game,)).fetchone()
        return row[0] if row else None

    def settings(self) -> dict[str, object]:
        """The durability settings in force: ``journal_mode`` ("wal") and ``synchronous`` (2 = FULL)."""
        return {"journal_mode": self._conn.execute("PRAGMA journal_mode").fetchone()[0],
                "synchronous": self._conn.execute("PRAGMA synchronous").fetchone()[0]}

    def close(self) -> None:
        """Close the journal and release its lock (idempotent)."""
        self._release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def journal_again(old: Journal, events: Sequence[Event], meta: Carried | None = None) -> tuple[Journal, int]:
    """A new journal at ``old``'s path holding the game in progress ``events`` (from the kiosk's memory), when the
    journal file was deleted or moved away while the game went on (nothing is at the path): ``old`` is closed, a
    write-ahead log or shared-memory file the lost file left is kept aside as ``NAME-wal.orphan``, and the new
    journal is made as a journal is (whole, then renamed into place). ``meta``: what the kiosk keeps beside the
    events (:meth:`Journal.write_game`), written with them in one transaction. Returns (the new journal, the
    game's id).

    Raises:
        JournalFull / JournalError: the new journal cannot be made or written (``old`` stays closed; the game is
            still in memory and the caller tries again later). Nothing half-written is left at the path: a new
            journal whose game could not be written is removed again (a restart finding it would start afresh
            over the game, and the next try would find a file in the way).
    """
    path = old.path
    if path.exists():
        raise JournalError(f"{path}: a file is at the journal's path again; the game in memory is not written over it")
    old.close()
    for side in _sidecars(path)[1:]:
        if side.exists():
            os.replace(side, side.with_name(side.name + ".orphan"))
    new = Journal(path, max_bytes=old.max_bytes, _salvage=True)   # the lock file names the lost journal: this is its game
    try:
        return new, new.write_game(events, meta)
    except BaseException:
        made = new._file_id
        new.close()
        if made is not None and _identity(path) == made:   # (only the file made here, never one put there since)
            for p in _sidecars(path):
                with contextlib.suppress(OSError):
                    p.unlink(missing_ok=True)
        raise

