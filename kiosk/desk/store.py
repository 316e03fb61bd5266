"""The desk's SQLite store (WAL): every event by its identity, and one result per finished game.

Tables:

* ``events(board, game_id, seq, body, ts)`` - primary key (board, game_id, seq), the stream's event identity:
  a kiosk re-publishing after a restart or a broker redelivering inserts nothing new (``INSERT OR IGNORE``).
  After a desk restart each table's game is folded again from here, so nothing received is lost.
* ``pairings(round, board, player1, player2)`` - pairings the director set on the desk page (they override
  the event file's and survive a desk restart).
* ``results(board, game_id, ...)`` - primary key (board, game_id): one row per finished game with players,
  final scores (points), preset, round, division and the GCG text. Recording the same final again changes
  nothing; a different final for the same game (a judge correction after the end) updates the row, sets
  ``corrected`` and counts ``revision``. ``wins``: the referee's win credit per player (its preset's tie rule and
  forfeits applied); NULL in a database of a desk before it (then standings compare the finals). ``replaced_ts``:
  when the director took another version of the game (desk wall ms; NULL: never).
* ``versions``, ``version_events`` - the other versions of games, streamed again with other moves, and the versions
  the director replaced (:mod:`kiosk.desk.version_store`; never deleted).

All methods are thread-safe (one connection behind a lock). Raises :class:`StoreError` (naming the file) when
the database cannot be opened or is not the desk's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from kiosk.desk import version_store

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    board INTEGER NOT NULL, game_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, ts INTEGER NOT NULL,
    PRIMARY KEY (board, game_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS results (
    board INTEGER NOT NULL, game_id TEXT NOT NULL, round INTEGER, division TEXT,
    players TEXT NOT NULL, preset TEXT, reason TEXT, gcg TEXT NOT NULL, last_seq INTEGER NOT NULL,
    finished_ts INTEGER NOT NULL, updated_ts INTEGER NOT NULL,
    corrected INTEGER NOT NULL DEFAULT 0, revision INTEGER NOT NULL DEFAULT 1, wins TEXT,
    PRIMARY KEY (board, game_id));
CREATE TABLE IF NOT EXISTS pairings (
    round INTEGER NOT NULL, board INTEGER NOT NULL, player1 TEXT NOT NULL, player2 TEXT NOT NULL,
    set_ts INTEGER NOT NULL, PRIMARY KEY (round, board));
""" + version_store.SCHEMA


#: ``PRAGMA application_id`` of a desk database ("KDSK"): what tells it from a kiosk journal or any other SQLite file
APPLICATION_ID = 0x4B44534B
#: the tables (and the columns they must have) of a desk database written before it carried the application id
_DESK_COLUMNS = {"events": {"board", "game_id", "seq", "body", "ts"},
                 "results": {"board", "game_id", "round", "division", "players", "gcg"},
                 "pairings": {"round", "board", "player1", "player2"}}


class StoreError(RuntimeError):
    """The store's database file cannot be used (message names the file)."""


class Recorded(StrEnum):
    """What :meth:`ResultsStore.record_result` did."""

    NEW = "new"
    SAME = "same"
    CORRECTED = "corrected"


@dataclass(frozen=True)
class Result:
    """A finished game. ``players``: [(name, score)] in turn order (points, final after end racks)."""

    board: int
    game_id: str
    round: int | None
    division: str | None
    players: tuple[tuple[str, int], ...]
    preset: str
    reason: str
    gcg: str
    last_seq: int
    finished_ts: int
    updated_ts: int = 0
    corrected: bool = False
    revision: int = 1
    #: the referee's win credit per player (1, 0.5 each for a tie under "half", 0), as its preset decided;
    #: empty when unknown (a result stored by an earlier desk)
    wins: tuple[float, ...] = ()
    #: desk wall ms the director took another version of the game (its result is that version's), or None
    replaced_ts: int | None = None

    @property
    def scores(self) -> tuple[int, ...]:
        """Final scores in turn order (points)."""
        return tuple(s for _, s in self.players)


class ResultsStore:
    """See module doc. ``path``: the database file (created with its folder)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        above = next((f for f in (self.path.parent, *self.path.parent.parents) if f.exists()), None)
        if above is not None and not above.is_dir():  # mkdir would say '[Errno 17] File exists'
            raise StoreError(f"{self.path}: cannot open the desk database: {above} is a file, not a folder")
        if self.path.is_dir():
            raise StoreError(f"{self.path}: cannot open the desk database: it is a folder")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _refuse_other_file(self.path)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the desk database: {exc}") from None
        self._lock_key: str | None = _take_lock(self.path)
        new = not self.path.exists()
        try:
            self._open()
        except BaseException as exc:
            _drop_lock(self._lock_key)
            if not isinstance(exc, (sqlite3.Error, OSError)):
                raise
            if new:
                raise self._not_created(exc) from None
            raise StoreError(f"{self.path}: cannot open the desk database: {exc}") from None
        self._lock = threading.Lock()

    def _not_created(self, exc: sqlite3.Error | OSError) -> StoreError:
        """A new database that could not be made: its files are removed (nothing half-built is left; the lock file
        stays, as beside every database), the reason in words."""
        from kiosk.store.journal import _creation_cause

        with contextlib.suppress(AttributeError, sqlite3.Error):
            self._db.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        cause = _creation_cause(exc).replace("the journal file", "the desk database")
        return StoreError(f"{self.path}: cannot create the desk database: {cause}")

    def _open(self) -> None:
        """Open the database, refuse another program's, set it up. Raises StoreError, sqlite3.Error, OSError."""
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        foreign = _not_a_desk(self._db)
        if foreign:   # read only so far: the file is left as it was
            self._db.close()
            raise StoreError(f"{self.path}: {foreign}; it was left as it is: give --data a folder of the "
                             "desk's own (it makes its desk.sqlite there)")
        self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # acked to the broker only after this commit
        self._db.executescript(SCHEMA)
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(results)")}
        for name, kind in (("wins", "TEXT"), ("replaced_ts", "INTEGER")):
            if name not in columns:   # a database of a desk before the column: its rows keep NULL
                self._db.execute(f"ALTER TABLE results ADD COLUMN {name} {kind}")

    def close(self) -> None:
        """Close the database (the WAL is checkpointed by SQLite) and release its lock (idempotent)."""
        with self._lock:
            self._db.close()
            if self._lock_key is not None:
                _drop_lock(self._lock_key)   # after the database
                self._lock_key = None

    # ------------------------------------------------------------------------------------------ events
    def add_events(self, rows: list[tuple[int, str, int, dict[str, Any], int]]) -> int:
        """Store events ``(board, game_id, seq, event dict, ts)`` in one transaction; returns how many were new
        (an identity already stored is left as it was)."""
        if not rows:
            return 0
        data = [(b, g, s, json.dumps(e, separators=(",", ":"), ensure_ascii=False), ts) for b, g, s, e, ts in rows]
        with self._lock:
            before = self._db.total_changes
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?)", data)
            self._db.execute("COMMIT")
            return self._db.total_changes - before

    def event(self, board: int, game_id: str, seq: int) -> dict[str, Any] | None:
        """The stored event of that identity, or None."""
        with self._lock:
            row = self._db.execute("SELECT body FROM events WHERE board=? AND game_id=? AND seq=?",
                                   (board, game_id, seq)).fetchone()
        return json.loads(row[0]) if row else None

    def events_of(self, board: int, game_id: str) -> list[tuple[int, dict[str, Any], int]]:
        """All stored events of a game as (seq, event, ts), by seq."""
        with self._lock:
            rows = self._db.execute("SELECT seq, body, ts FROM events WHERE board=? AND game_id=? ORDER BY seq",
                                    (board, game_id)).fetchall()
        return [(s, json.loads(b), ts) for s, b, ts in rows]

    def latest_games(self) -> list[tuple[int, str]]:
        """Each board's most recent game (the one whose first event arrived last), by board."""
        with self._lock:
            rows = self._db.execute(
                "SELECT board, game_id FROM events e WHERE seq = 1 AND ts = "
                "(SELECT MAX(ts) FROM events f WHERE f.board = e.board AND f.seq = 1) ORDER BY board").fetchall()
        seen: dict[int, str] = {}
        for b, g in rows:
            seen.setdefault(b, g)
        return sorted(seen.items())

    # ------------------------------------------------------------------------------------------ results
    def record_result(self, r: Result) -> Recorded:
        """Record a finished game once (see module doc). Returns NEW, SAME (nothing changed) or CORRECTED."""
        with self._lock:
            return self._put_result(r, _now_ms())

    def _put_result(self, r: Result, now: int, replaced_ts: int | None = None) -> Recorded:
        """Insert or update the result row of ``r``'s game (the caller holds the lock). ``replaced_ts``: the
        director took another version now: the row is updated even with the same finals (its GCG is another)."""
        players = json.dumps([[n, s] for n, s in r.players], ensure_ascii=False)
        wins = json.dumps(list(r.wins)) if r.wins else None
        row = self._db.execute("SELECT players, revision, round, division FROM results "
                               "WHERE board=? AND game_id=?", (r.board, r.game_id)).fetchone()
        if row is None:
            self._db.execute(f"INSERT INTO results ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?, ?)",
                             (r.board, r.game_id, r.round, r.division, players, r.preset, r.reason, r.gcg,
                              r.last_seq, r.finished_ts, now, wins, replaced_ts))
            return Recorded.NEW
        if row[0] == players and replaced_ts is None:
            if wins is not None:   # the same finals: the referee's verdict is the same (kept if unknown)
                self._db.execute("UPDATE results SET wins=? WHERE board=? AND game_id=?", (wins, r.board, r.game_id))
            if (row[2], row[3]) != (r.round, r.division):  # the pairing became known later
                self._db.execute("UPDATE results SET round=?, division=? WHERE board=? AND game_id=?",
                                 (r.round, r.division, r.board, r.game_id))
            return Recorded.SAME
        self._db.execute("UPDATE results SET players=?, reason=?, gcg=?, last_seq=?, updated_ts=?, corrected=1, "
                         "revision=?, round=?, division=?, wins=?, replaced_ts=COALESCE(?, replaced_ts) "
                         "WHERE board=? AND game_id=?",
                         (players, r.reason, r.gcg, r.last_seq, now, row[1] + 1, r.round, r.division, wins,
                          replaced_ts, r.board, r.game_id))
        return Recorded.CORRECTED

    def results(self, rnd: int | None = None) -> list[Result]:
        """Finished games (of round ``rnd``, or all), by round then board."""
        q = f"SELECT {_COLUMNS} FROM results" + (" WHERE round=?" if rnd is not None else "") + \
            " ORDER BY round IS NULL, round, board, finished_ts"
        with self._lock:
            rows = self._db.execute(q, (rnd,) if rnd is not None else ()).fetchall()
        return [_result(row) for row in rows]

    def set_result_pairing(self, board: int, game_id: str, rnd: int | None, division: str | None) -> bool:
        """Set the round and division of a recorded game (its pairing became known later); True if it changed."""
        with self._lock:
            cur = self._db.execute("UPDATE results SET round=?, division=? WHERE board=? AND game_id=? AND "
                                   "(round IS NOT ? OR division IS NOT ?)", (rnd, division, board, game_id, rnd, division))
            return cur.rowcount > 0

    def save_pairing(self, rnd: int, board: int, players: tuple[str, str]) -> None:
        """Keep a pairing the director set at the desk."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO pairings VALUES (?, ?, ?, ?, ?)",
                             (rnd, board, players[0], players[1], int(time.time() * 1000)))

    def pairings(self) -> list[tuple[int, int, tuple[str, str]]]:
        """Pairings set at the desk, in the order they were set: (round, board, (player1, player2))."""
        with self._lock:
            rows = self._db.execute("SELECT round, board, player1, player2 FROM pairings ORDER BY set_ts").fetchall()
        return [(r, b, (p, q)) for r, b, p, q in rows]

    def game_at(self, rnd: int, board: int) -> str | None:
        """The game id of the finished game recorded for board ``board`` in round ``rnd``, or None."""
        with self._lock:
            row = self._db.execute("SELECT game_id FROM results WHERE round=? AND board=? ORDER BY finished_ts LIMIT 1",
                                   (rnd, board)).fetchone()
        return row[0] if row else None

    def result(self, board: int, game_id: str) -> Result | None:
        """The recorded result of one game, or None."""
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM results WHERE board=? AND game_id=?", (board, game_id)).fetchone()
        return _result(row) if row else None

    # ------------------------------------------------------------------------------------------ versions
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One transaction (the caller holds the lock): committed when the block ends, rolled back when it raises."""
        self._db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def add_versions(self, new: list[version_store.NewVersion], superseded: list[int],
                     rows: list[version_store.VersionEvent]) -> None:
        """Record new pending versions (id, board, game_id, boot, from_seq, received_ts), mark versions superseded
        and add version events (version id, seq, event, ts), in one transaction (:mod:`kiosk.desk.version_store`)."""
        if new or superseded or rows:
            with self._lock, self._transaction():
                version_store.add(self._db, new, superseded, rows)

    def last_version_id(self) -> int:
        """The highest version number used so far (0: none)."""
        with self._lock:
            return version_store.last_id(self._db)

    def pending_versions(self) -> list[tuple[int, int, str, str, int, int]]:
        """The versions waiting for the director: (id, board, game_id, boot, from_seq, received_ts), by id."""
        with self._lock:
            return version_store.pending(self._db)

    def version_events(self, version: int) -> list[tuple[int, dict[str, Any], int]]:
        """A version's stored events as (seq, event, ts), by seq."""
        with self._lock:
            return version_store.events_of(self._db, version)

    def replaced_events(self, board: int, game_id: str, seq: int) -> list[dict[str, Any]]:
        """Event ``seq`` of each version of a game the director replaced (none: never replaced)."""
        with self._lock:
            return version_store.replaced_events(self._db, board, game_id, seq)

    def versions_kept(self, board: int, game_id: str) -> int:
        """How many other versions of a game the desk received and kept."""
        with self._lock:
            return version_store.kept(self._db, board, game_id)

    def version_history(self, board: int) -> list[dict[str, Any]]:
        """Every version of table ``board``'s games kept in the store, oldest first
        (:func:`kiosk.desk.version_store.history`)."""
        with self._lock:
            return version_store.history(self._db, board)

    def replace_game(self, taken: int, replaced: version_store.NewVersion, now: int, result: Result) -> Recorded:
        """The director took version ``taken`` of ``result``'s game at desk wall time ``now`` (ms), in one
        transaction: the game's events and result as they stand are kept as version ``replaced`` (id, board,
        game_id, boot, from_seq, kiosk time of its first event), the taken version's events become the game's and
        ``result`` its result, marked replaced at ``now``. Returns what happened to the result row. Raises
        ``ValueError`` (nothing changed) when ``taken`` is no pending version of that game, ``sqlite3.Error``."""
        with self._lock, self._transaction():
            old = self._db.execute(f"SELECT {_COLUMNS} FROM results WHERE board=? AND game_id=?",
                                   (result.board, result.game_id)).fetchone()
            version_store.swap(self._db, result.board, result.game_id, taken, replaced, now,
                               dataclasses.asdict(_result(old)) if old else None)
            return self._put_result(result, now, replaced_ts=now)


_COLUMNS = ("board, game_id, round, division, players, preset, reason, gcg, last_seq, finished_ts, updated_ts, "
            "corrected, revision, wins, replaced_ts")


def _now_ms() -> int:
    return int(time.time() * 1000)


#: the desk databases this process holds locked: real path -> [lock fd, stores open on it] (a desk restarted in
#: the same process, as tests do, opens its database again before the old store is closed)
_HELD: dict[str, list[int]] = {}
_HELD_LOCK = threading.Lock()


def _take_lock(path: Path) -> str:
    """The exclusive lock of the desk database ``path`` (``desk.sqlite.lock``, naming this process's pid): two
    desks on one --data folder would each fold and write the same games. Returns the key to :func:`_drop_lock`
    it with. Raises :class:`StoreError`."""
    from kiosk.store.lock import LockHeld, take_lock, write_pid

    key = str(path.resolve())
    with _HELD_LOCK:
        if key in _HELD:
            _HELD[key][1] += 1
            return key
        lock_file = path.with_name(path.name + ".lock")
        try:
            fd = take_lock(lock_file, create=True)
        except LockHeld as held:
            raise StoreError(f"{path.parent} is in use by another desk (pid {held.holder}): stop that desk first, "
                             "or give this one another --data folder") from None
        except OSError as exc:
            raise StoreError(f"{lock_file}: cannot open the desk's lock file: {exc.strerror}") from None
        assert fd is not None
        write_pid(fd)
        _HELD[key] = [fd, 1]
        return key


def _drop_lock(key: str) -> None:
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del _HELD[key]
            os.close(held[0])   # closing it drops the lock


def _refuse_other_file(path: Path) -> None:
    """Raises :class:`StoreError` when the non-empty file at ``path`` is no SQLite database at all (read only)."""
    from kiosk.store.foreign import SQLITE_HEADER

    if not path.is_file() or path.stat().st_size == 0:
        return
    with open(path, "rb") as f:
        head = f.read(len(SQLITE_HEADER))
    if head != SQLITE_HEADER:
        start = "".join(c if c.isprintable() and c != "\ufffd" else "." for c in head[:8].decode(errors="replace"))
        raise StoreError(f"{path}: is not a desk database (not an SQLite database: it starts with \"{start}\"); it "
                         "was left as it is: give --data a folder of the desk's own (it makes its desk.sqlite there)")


def _not_a_desk(db: sqlite3.Connection) -> str | None:
    """Why the open SQLite database is not the desk's (the start of a sentence), or None: the desk's application
    id, or none and only the desk's tables with their columns (a desk before the id), or no tables at all (new).
    Reads only."""
    from kiosk.store.foreign import JOURNAL_TABLES

    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    if app_id == APPLICATION_ID:
        return None
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id == 0 and all(t in _DESK_COLUMNS and _DESK_COLUMNS[t] <= {c[1] for c in db.execute(
            f"PRAGMA table_info({t})")} for t in tables):
        return None
    if tables >= JOURNAL_TABLES:
        return "is a kiosk's game journal, not a desk database"
    names = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
    owner = f"of another program (application id {app_id:#x})" if app_id else f"with other tables ({names})"
    return f"is not a desk database: an SQLite database {owner}"


def _result(row: tuple[Any, ...]) -> Result:
    (board, game_id, rnd, div, players, preset, reason, gcg, last_seq, fin, upd, corrected, rev, wins, replaced) = row
    credit = json.loads(wins) if wins else []
    return Result(board, game_id, rnd, div, tuple((n, s) for n, s in json.loads(players)), preset or "",
                  reason or "", gcg, last_seq, fin, upd, bool(corrected), rev,
                  tuple(float(w) for w in credit) if isinstance(credit, list) else (), replaced)
