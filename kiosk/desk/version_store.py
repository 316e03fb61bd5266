"""The desk database's record of the other versions of its games (SQL on an open connection; the thread-safe
methods are :class:`kiosk.desk.store.ResultsStore`'s, which hold its lock around these).

Tables:

* ``versions(id, board, game_id, boot, from_seq, received_ts, status, decided_ts, result)`` - one row per version
  of a game other than the one the desk took first: a kiosk run (``boot``) that streamed the game again with
  other moves from event ``from_seq`` on, received at desk wall time ``received_ts`` (ms). ``status``:
  ``pending`` (the latest such run of its game, waiting for the director), ``superseded`` (a later run came),
  ``taken`` (the director took it: its events are the game's now) or ``replaced`` (the game's events the director
  replaced, with its result as it was, JSON, in ``result``; ``received_ts``: the kiosk time of its first event).
  ``decided_ts``: when the director took or replaced it. Nothing here is ever deleted.
* ``version_events(version, seq, body, ts)`` - every event of such a version, 1..n (those before ``from_seq``
  equal to the game's at the time), as ``events`` holds the game's.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, board INTEGER NOT NULL, game_id TEXT NOT NULL, boot TEXT NOT NULL,
    from_seq INTEGER NOT NULL, received_ts INTEGER NOT NULL, status TEXT NOT NULL, decided_ts INTEGER, result TEXT);
CREATE INDEX IF NOT EXISTS versions_of_game ON versions (board, game_id);
CREATE TABLE IF NOT EXISTS version_events (
    version INTEGER NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, ts INTEGER NOT NULL,
    PRIMARY KEY (version, seq)) WITHOUT ROWID;
"""

#: a version's row as it is first written: (id, board, game_id, boot, from_seq, received_ts)
NewVersion = tuple[int, int, str, str, int, int]
VersionEvent = tuple[int, int, dict[str, Any], int]   # (version id, seq, event, ts)


def body(ev: dict[str, Any]) -> str:
    """An event as the desk stores it (compact JSON, as in ``events``)."""
    return json.dumps(ev, separators=(",", ":"), ensure_ascii=False)


def add(db: sqlite3.Connection, new: list[NewVersion], superseded: list[int], rows: list[VersionEvent]) -> None:
    """Record new pending versions, mark versions superseded, add version events (an identity already stored is
    left as it was). The caller holds the transaction."""
    db.executemany("INSERT OR IGNORE INTO versions (id, board, game_id, boot, from_seq, received_ts, status) "
                   "VALUES (?, ?, ?, ?, ?, ?, 'pending')", new)
    db.executemany("UPDATE versions SET status='superseded' WHERE id=? AND status='pending'", [(i,) for i in superseded])
    db.executemany("INSERT OR IGNORE INTO version_events VALUES (?, ?, ?, ?)",
                   [(v, s, body(e), ts) for v, s, e, ts in rows])


def last_id(db: sqlite3.Connection) -> int:
    """The highest version number used so far (0: none)."""
    return int(db.execute("SELECT COALESCE(MAX(id), 0) FROM versions").fetchone()[0])


def pending(db: sqlite3.Connection) -> list[tuple[int, int, str, str, int, int]]:
    """The versions waiting for the director: (id, board, game_id, boot, from_seq, received_ts), by id."""
    return db.execute("SELECT id, board, game_id, boot, from_seq, received_ts FROM versions WHERE status='pending' "
                      "ORDER BY id").fetchall()


def kept(db: sqlite3.Connection, board: int, game_id: str) -> int:
    """How many versions of a game the desk received and kept (the ones it replaced not counted)."""
    return int(db.execute("SELECT COUNT(*) FROM versions WHERE board=? AND game_id=? AND status != 'replaced'",
                          (board, game_id)).fetchone()[0])


def replaced_events(db: sqlite3.Connection, board: int, game_id: str, seq: int) -> list[dict[str, Any]]:
    """Event ``seq`` of each version of a game the director replaced (none: never replaced)."""
    rows = db.execute("SELECT e.body FROM version_events e JOIN versions v ON e.version = v.id WHERE v.board=? AND "
                      "v.game_id=? AND v.status='replaced' AND e.seq=?", (board, game_id, seq)).fetchall()
    return [json.loads(b) for b, in rows]


def events_of(db: sqlite3.Connection, version: int) -> list[tuple[int, dict[str, Any], int]]:
    """A version's stored events as (seq, event, ts), by seq."""
    rows = db.execute("SELECT seq, body, ts FROM version_events WHERE version=? ORDER BY seq", (version,)).fetchall()
    return [(s, json.loads(b), ts) for s, b, ts in rows]


def history(db: sqlite3.Connection, board: int) -> list[dict[str, Any]]:
    """Every version of the games of table ``board`` the desk kept, oldest first: ``{"id", "game_id", "boot",
    "from_seq", "received_ts", "status", "decided_ts", "events", "result"}`` (``events``: how many it has;
    ``result``: a replaced version's result as it was, or None)."""
    rows = db.execute("SELECT v.id, game_id, boot, from_seq, received_ts, status, decided_ts, result, "
                      "(SELECT COUNT(*) FROM version_events e WHERE e.version = v.id) FROM versions v "
                      "WHERE board=? ORDER BY v.id", (board,)).fetchall()
    return [{"id": i, "game_id": g, "boot": b, "from_seq": k, "received_ts": r, "status": s, "decided_ts": d,
             "events": n, "result": json.loads(res) if res else None} for i, g, b, k, r, s, d, res, n in rows]


def swap(db: sqlite3.Connection, board: int, game_id: str, taken: int, replaced: NewVersion, now: int,
         old_result: dict[str, Any] | None) -> None:
    """Make version ``taken`` the game's events (the caller holds the transaction): the game's events as they
    stand become version ``replaced`` (status ``replaced``, with ``old_result``), those from its ``from_seq`` on are
    replaced by the taken version's; the game's first event keeps its time, so the game keeps its place among the
    board's games. Raises ``ValueError`` when ``taken`` is no pending version of that game."""
    row = db.execute("SELECT status FROM versions WHERE id=? AND board=? AND game_id=?",
                     (taken, board, game_id)).fetchone()
    if row is None or row[0] != "pending":
        raise ValueError(f"version {taken} of board {board} game {game_id} is not pending")
    rid, _, _, boot, from_seq, first_ts = replaced
    db.execute("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, 'replaced', ?, ?)",
               (rid, board, game_id, boot, from_seq, first_ts, now,
                json.dumps(old_result, ensure_ascii=False) if old_result is not None else None))
    db.execute("INSERT INTO version_events SELECT ?, seq, body, ts FROM events WHERE board=? AND game_id=?",
               (rid, board, game_id))
    db.execute("DELETE FROM events WHERE board=? AND game_id=? AND seq >= ?", (board, game_id, from_seq))
    db.execute("INSERT INTO events SELECT ?, ?, seq, body, CASE WHEN seq = 1 THEN ? ELSE ts END FROM version_events "
               "WHERE version=? AND seq >= ?", (board, game_id, first_ts, taken, from_seq))
    db.execute("UPDATE versions SET status='taken', decided_ts=? WHERE id=?", (now, taken))
