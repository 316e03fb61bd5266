"""The SQLite journal: every accepted referee event, appended and made durable before it takes effect.

One file holds every game played on the kiosk. SQLite in WAL mode with ``synchronous=FULL``: when
:meth:`Journal.append` returns, the event is on disk (the WAL is fsynced at commit) and survives a crash or a
power cut. Each row carries a CRC-32 of its game, sequence number and JSON body, so bit rot or a tampered row
is found on open, as is a file SQLite itself cannot read (truncated, overwritten).

A damaged journal is never used or overwritten: its files are renamed aside (``<name>.corrupt-<n>``), a
marker ``<name>.blocked`` records the report, and :class:`JournalCorrupt` is raised on every open until an
operator calls :func:`acknowledge_corruption` - so the kiosk cannot silently start a new game over a lost one.
A full disk (or the optional size cap) raises :class:`JournalFull`; the failed append is rolled back and
everything recorded before stays intact.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kiosk.referee.events import Event, EventError, event_from_dict

SCHEMA_VERSION = 1
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
    """The journal cannot be used (message says what and where)."""


class JournalCorrupt(JournalError):
    """The journal file is damaged. ``kept_aside``: where the damaged files were moved; ``report``: details."""

    def __init__(self, message: str, kept_aside: Path | None, report: str) -> None:
        super().__init__(message)
        self.kept_aside = kept_aside
        self.report = report


class JournalFull(JournalError):
    """The disk (or the journal's size cap) is full: the event was NOT recorded; earlier events are safe."""


@dataclass(frozen=True)
class GameRecord:
    """One game in the journal: ``id``, start time (ms), finish time (ms) or None while unfinished."""

    id: int
    started_ms: int
    finished_ms: int | None


def _crc(game: int, seq: int, body: str) -> int:
    return zlib.crc32(f"{game}:{seq}:{body}".encode())


def _blocked_marker(path: Path) -> Path:
    return path.with_name(path.name + ".blocked")


def _sidecars(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def acknowledge_corruption(path: str | Path) -> str:
    """Operator action: unblock a journal path after a corruption report; returns the report that was shown.

    The damaged files stay where they were kept aside. Raises :class:`JournalError` if nothing is blocked.
    """
    marker = _blocked_marker(Path(path))
    if not marker.exists():
        raise JournalError(f"{path}: no corruption report to acknowledge")
    report = marker.read_text(encoding="utf-8")
    marker.unlink()
    return report


class Journal:
    """Append-only event journal over one SQLite file.

    Args:
        path: the journal file (created with its folder if missing).
        max_bytes: optional size cap (pages beyond it fail like a full disk), e.g. to protect an SD card.

    Raises:
        JournalCorrupt: the file is damaged (kept aside, see module doc) or a previous report is unacknowledged.
        JournalError: the file cannot be opened (permissions, not a journal of this version).
    """

    def __init__(self, path: str | Path, *, max_bytes: int | None = None) -> None:
        self.path = Path(path)
        marker = _blocked_marker(self.path)
        if marker.exists():
            report = marker.read_text(encoding="utf-8")
            raise JournalCorrupt(f"{self.path}: a damaged journal was kept aside and not yet acknowledged "
                                 f"by an operator (after reading the report below, run `kiosk journal acknowledge "
                                 f"{self.path}` to use this path again):\n{report}", None, report)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{self.path.parent}: cannot create the journal folder: {exc.strerror}") from None
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None
        try:
            # no table at all: a new file, or a creation cut short before its schema committed (no event can
            # have been written without the schema, so nothing is lost by creating it now)
            fresh = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
            self._setup(fresh, max_bytes)
            if not fresh:
                self._verify()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if "full" in str(exc).lower():
                raise JournalFull(f"{self.path}: the disk is full; cannot open the journal: {exc}") from None
            self._quarantine(f"SQLite cannot read the file: {exc}")
        except JournalCorrupt:
            self._db.close()
            raise
        self._next_seq: dict[int, int] = {}

    # --------------------------------------------------------------------------------------- set-up
    def _setup(self, fresh: bool, max_bytes: int | None) -> None:
        db = self._db
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise JournalError(f"{self.path}: cannot switch the journal to WAL mode (got {mode})")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        if max_bytes is not None:
            page = db.execute("PRAGMA page_size").fetchone()[0]
            db.execute(f"PRAGMA max_page_count={max(1, max_bytes // page)}")
        if fresh:
            db.execute("BEGIN IMMEDIATE")
            for stmt in filter(str.strip, _SCHEMA.split(";")):
                db.execute(stmt)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")

    def _verify(self) -> None:
        db = self._db
        check = db.execute("PRAGMA quick_check").fetchall()
        if [r[0] for r in check] != ["ok"]:
            self._quarantine("SQLite integrity check failed: " + "; ".join(str(r[0]) for r in check[:5]))
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = {"meta", "games", "events", "heartbeat"} - tables
        if missing:
            self._quarantine(f"not a kiosk journal (missing tables: {', '.join(sorted(missing))})")
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise JournalError(f"{self.path}: journal schema version {row[0] if row else '?'}, this kiosk reads "
                               f"{SCHEMA_VERSION}")
        for game, seq, body, crc, expect in self._scan():
            if crc != _crc(game, seq, body):
                self._quarantine(f"game {game} event {seq}: checksum mismatch (damaged row)")
            if seq != expect:
                self._quarantine(f"game {game}: event {expect} is missing (next found is {seq})")
            try:
                event_from_dict(json.loads(body))
            except (ValueError, EventError) as exc:
                self._quarantine(f"game {game} event {seq}: unreadable event: {exc}")

    def _scan(self) -> Iterator[tuple[int, int, str, int, int]]:
        expect: dict[int, int] = {}
        for game, seq, body, crc in self._db.execute("SELECT game, seq, body, crc FROM events ORDER BY game, seq"):
            nxt = expect.get(game, 1)
            yield game, seq, body, crc, nxt
            expect[game] = seq + 1

    def _quarantine(self, why: str) -> None:
        """Move the damaged files aside, leave the blocking marker, raise :class:`JournalCorrupt`."""
        try:
            self._db.close()
        except sqlite3.Error:
            pass
        n = 1
        while any(p.with_name(p.name + f".corrupt-{n}").exists() for p in _sidecars(self.path)):
            n += 1
        kept = self.path.with_name(self.path.name + f".corrupt-{n}")
        for p in _sidecars(self.path):
            if p.exists():
                os.replace(p, p.with_name(p.name + f".corrupt-{n}"))
        report = f"journal {self.path} is damaged: {why}. The files were kept aside as {kept} (and its -wal/-shm)."
        _blocked_marker(self.path).write_text(report + "\n", encoding="utf-8")
        raise JournalCorrupt(f"{report} This path stays blocked until an operator runs `kiosk journal acknowledge "
                             f"{self.path}` (no new game can silently replace a lost one).", kept, report)

    # --------------------------------------------------------------------------------------- writing
    def _write(self, fn, *args):  # type: ignore[no-untyped-def]
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            out = fn(db, *args)
            db.execute("COMMIT")
            return out
        except sqlite3.Error as exc:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            msg = str(exc).lower()
            if "full" in msg or isinstance(exc, sqlite3.OperationalError) and "disk" in msg and "i/o" not in msg:
                raise JournalFull(f"{self.path}: the disk is full - the event was NOT recorded (everything recorded "
                                  f"before is safe): {exc}") from None
            raise JournalError(f"{self.path}: cannot write the journal: {exc}") from None

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

    def append(self, game: int, event: Event, *, finished: bool = False) -> int:
        """Record ``event`` as the next event of ``game``, durably (fsync); returns its sequence number (1, 2 ...).

        ``finished`` marks the game finished in the same transaction.

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
            return seq

        seq = self._write(tx)
        self._next_seq[game] = seq + 1
        return seq

    def heartbeat(self, game: int, t_ms: int) -> None:
        """Record that the kiosk was alive at ``t_ms`` (the next resume charges time only up to the last beat)."""
        self._write(lambda db: db.execute("INSERT OR REPLACE INTO heartbeat VALUES (?, ?)", (game, t_ms)))

    # --------------------------------------------------------------------------------------- reading
    def games(self) -> list[GameRecord]:
        """Every game in the journal, oldest first."""
        return [GameRecord(*r) for r in self._db.execute("SELECT id, started_ms, finished_ms FROM games ORDER BY id")]

    def unfinished_game(self) -> int | None:
        """The id of the latest game not marked finished, or None."""
        row = self._db.execute("SELECT id FROM games WHERE finished_ms IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def events(self, game: int) -> list[Event]:
        """The events of ``game`` in order (checked against their checksums)."""
        out = []
        for seq, body, crc in self._db.execute("SELECT seq, body, crc FROM events WHERE game=? ORDER BY seq", (game,)):
            if crc != _crc(game, seq, body):
                self._quarantine(f"game {game} event {seq}: checksum mismatch (damaged row)")
            out.append(event_from_dict(json.loads(body)))
        return out

    def last_heartbeat(self, game: int) -> int | None:
        row = self._db.execute("SELECT t FROM heartbeat WHERE game=?", (game,)).fetchone()
        return row[0] if row else None

    def settings(self) -> dict[str, object]:
        """The durability settings in force: ``journal_mode`` ("wal") and ``synchronous`` (2 = FULL)."""
        return {"journal_mode": self._db.execute("PRAGMA journal_mode").fetchone()[0],
                "synchronous": self._db.execute("PRAGMA synchronous").fetchone()[0]}

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
