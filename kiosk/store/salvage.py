"""Salvage: carry a damaged journal's intact events into a fresh journal, so the game can go on from them.

A damaged journal is kept aside (``<name>.corrupt-<n>``) and its path blocked (see :mod:`kiosk.store.journal`).
:func:`recover_journal` reads what it can of the kept-aside copy (rows SQLite can still read, each checked
against its checksum), keeps each game's intact prefix - events 1, 2, ... up to the first one that is
missing, damaged, unreadable or no longer replays - and writes it into a fresh journal at the original path,
then unblocks the path. Nothing after a damaged event is kept (a later event may depend on it); the report
names every game, what was kept and what was dropped and why. Running it is the operator's (the judge's)
acknowledgement: the kiosk then resumes the latest unfinished game from its last intact event.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kiosk.referee.events import Event, EventError, event_from_dict
from kiosk.referee.referee import Referee
from kiosk.referee.state import OVER
from kiosk.store.foreign import sqlite_uri
from kiosk.store.journal import (
    Journal,
    JournalCorrupt,
    JournalError,
    JournalPathError,
    _blocked_marker,
    _crc,
    _sidecars,
    not_a_file,
    wal_problem,
)


@dataclass
class GameSalvage:
    """One game of a damaged journal: ``kept`` events 1..kept, ``found`` rows read, ``why`` the first drop."""

    game: int
    players: tuple[str, ...]
    kept: int
    found: int
    last_seq: int
    why: str = ""
    finished: bool = False

    def line(self) -> str:
        who = " vs ".join(self.players) or "?"
        state = "finished" if self.finished else "unfinished"
        if not self.why:
            return f"game {self.game} ({who}): all {self.kept} events kept, {state}"
        dropped = f"events {self.kept + 1}-{self.last_seq}" if self.last_seq > self.kept + 1 else f"event {self.kept + 1}"
        return (f"game {self.game} ({who}): kept events 1-{self.kept}, dropped {dropped} ({self.found - self.kept} "
                f"row(s) read after the break): {self.why}; {state}")


@dataclass
class Salvage:
    """What :func:`recover_journal` did: ``source`` (the damaged copy read), ``games``, ``problems`` (what
    SQLite could not read at all)."""

    source: Path
    games: list[GameSalvage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        """Events known to be lost (rows read after a break; rows SQLite could not read are not counted)."""
        return sum(g.found - g.kept for g in self.games)


def kept_aside_copy(path: Path) -> Path | None:
    """The damaged copy a blocked path's report names (``<name>.corrupt-<n>``), or None."""
    marker = _blocked_marker(path)
    if not marker.exists():
        return None
    m = re.search(r"kept aside as (\S+?) \(and its -wal/-shm\)", marker.read_text(encoding="utf-8"))
    if m and Path(m.group(1)).exists():
        return Path(m.group(1))
    return None


def _read_rows(file: Path, out: Salvage) -> tuple[dict[int, tuple[int, int | None]], list[tuple], dict[int, int]]:
    """Whatever SQLite can still read: games, event rows, heartbeats (each table as far as it goes)."""
    games: dict[int, tuple[int, int | None]] = {}
    rows: list[tuple] = []
    beats: dict[int, int] = {}
    try:
        db = sqlite3.connect(sqlite_uri(file, "mode=rw"), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        out.problems.append(f"SQLite cannot open it: {exc}")
        return games, rows, beats
    try:
        for sql, sink in (("SELECT id, started_ms, finished_ms FROM games", lambda r: games.__setitem__(r[0], r[1:])),
                          ("SELECT game, seq, t, type, body, crc FROM events", rows.append),
                          ("SELECT game, t FROM heartbeat", lambda r: beats.__setitem__(r[0], r[1]))):
            try:
                for r in db.execute(sql):
                    sink(r)
            except sqlite3.DatabaseError as exc:
                out.problems.append(f"{sql.split()[-1]} table: read as far as SQLite could ({exc})")
    finally:
        db.close()
    return games, rows, beats


def _intact_prefix(game: int, rows: list[tuple]) -> tuple[list[tuple[tuple, Event]], str]:
    """Rows 1, 2, ... of ``game`` up to the first missing, damaged, unreadable or refused one; (kept, why)."""
    by_seq: dict[int, tuple] = {}
    for r in rows:
        by_seq.setdefault(r[1], r)
    kept: list[tuple[tuple, Event]] = []
    ref = Referee()
    seq = 1
    while True:
        row = by_seq.get(seq)
        if row is None:
            return kept, ("" if seq > max(by_seq, default=0) else f"event {seq} is missing")
        _, _, _, _, body, crc = row
        if crc != _crc(game, seq, body):
            return kept, f"event {seq}: checksum mismatch (damaged row)"
        try:
            ev = event_from_dict(json.loads(body))
        except (ValueError, EventError) as exc:
            return kept, f"event {seq}: unreadable ({exc})"
        res = ref.apply(ev)
        if not res.accepted:
            return kept, f"event {seq} ({ev.type}) no longer replays: {res.reason}"
        kept.append((row, ev))
        seq += 1


def recover_journal(path: str | Path, source: str | Path | None = None) -> Salvage:
    """Carry the intact events of the damaged journal for ``path`` into a fresh journal at ``path``.

    Args:
        path: the journal path (blocked after damage was found, or holding a damaged file: it is kept aside first).
        source: the damaged copy to read (default: the one the block report names).

    Returns: what was kept and dropped (:class:`Salvage`); ``path`` is then unblocked.

    Raises:
        JournalPathError: nothing at ``path`` (nor a damaged copy kept aside for it), or no kiosk journal there.
        JournalError: ``path`` holds an intact journal (nothing to recover), no damaged copy can be found, nothing
            at all can be read from it, or the fresh journal cannot be written (the path stays blocked).
        JournalLocked: a kiosk has the path open.
    """
    path = Path(path)
    if source is None:
        if not _blocked_marker(path).exists():
            if not path.exists():
                raise JournalPathError(f"{path}: no such journal and no damaged copy kept aside for it")
            try:
                Journal(path).close()
            except JournalCorrupt as exc:
                if exc.kept_aside is None:
                    raise
            else:
                raise JournalError(f"{path}: the journal is intact: nothing to recover")
        found = kept_aside_copy(path)
        if found is None:
            raise JournalError(f"{path}: blocked, but the damaged copy its report names is gone: nothing to recover "
                               f"(`kiosk journal acknowledge {path}` starts afresh)")
        source = found
    src = Path(source)
    why = not_a_file(src)
    if why:
        raise JournalPathError(f"{src}: {why}")
    if not src.is_file():
        raise JournalPathError(f"{src}: no such file")
    out = Salvage(source=src)
    with tempfile.TemporaryDirectory(prefix="kiosk-salvage-") as tmp:
        copy = Path(tmp) / "j.sqlite"
        shutil.copyfile(src, copy)
        wal = src.with_name(src.name.replace(".corrupt-", "-wal.corrupt-")) if ".corrupt-" in src.name else None
        if wal is not None and wal.exists():
            shutil.copyfile(wal, _sidecars(copy)[1])
            why = wal_problem(copy, wal.name)
            if why:  # another journal's log (or one that changes recorded events): read the file alone
                _sidecars(copy)[1].unlink()
                out.problems.append(f"{why}; it was not used")
        games, rows, beats = _read_rows(copy, out)
    per_game: dict[int, list[tuple]] = {}
    for r in rows:
        per_game.setdefault(r[0], []).append(r)
    plan: list[tuple[int, int, int | None, list[tuple[tuple, Event]]]] = []
    latest = max(set(per_game) | set(games), default=0)
    for game in sorted(set(per_game) | set(games)):
        kept, why = _intact_prefix(game, per_game.get(game, []))
        read = len(per_game.get(game, []))
        last = max((r[1] for r in per_game.get(game, [])), default=0)
        players = tuple(getattr(kept[0][1], "players", ())) if kept else ()
        finished = bool(kept) and not why and Referee.from_events([e for _, e in kept]).state.phase == OVER
        out.games.append(GameSalvage(game, players, len(kept), read, last, why, finished))
        if kept:
            started, was_finished = games.get(game, (kept[0][1].t, None))
            if game != latest:  # only the latest game can go on; an older one stays history
                out.games[-1].finished = True
                finished_ms: int | None = was_finished if was_finished is not None else kept[-1][1].t
            else:
                finished_ms = kept[-1][1].t if finished else None
            plan.append((game, started, finished_ms, kept))
    if not plan:
        raise JournalError(f"{path}: nothing could be read from {src}"
                           + (f" ({'; '.join(out.problems)})" if out.problems else " (no intact event)")
                           + f"; `kiosk journal acknowledge {path}` starts afresh")
    for p in _sidecars(path):
        if p.exists():  # only a fresh journal may stand here (a kiosk started over the block is impossible)
            raise JournalError(f"{path}: a file is in the way ({p.name}); move it aside first")

    j = Journal(path, _salvage=True)
    try:
        def tx(db: sqlite3.Connection) -> None:
            for game, started, finished_ms, kept in plan:
                db.execute("INSERT INTO games (id, started_ms, finished_ms) VALUES (?, ?, ?)",
                           (game, started, finished_ms))
                db.executemany("INSERT INTO events (game, seq, t, type, body, crc) VALUES (?, ?, ?, ?, ?, ?)",
                               [r for r, _ in kept])
                if game in beats and finished_ms is None:
                    db.execute("INSERT INTO heartbeat VALUES (?, ?)", (game, max(beats[game], kept[-1][1].t)))
            last = out.games[-1] if out.games else None
            if last is not None and last.why and not last.finished:  # the judge is told when the kiosk resumes it
                db.execute("INSERT OR REPLACE INTO meta VALUES ('salvaged_game', ?)", (str(last.game),))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('salvaged_note', ?)",
                           (f"this game was recovered from a damaged journal: {last.line()}; judge: check the "
                            f"board and the scores against move {last.kept}",))

        j._write(tx)
        _blocked_marker(path).unlink(missing_ok=True)
    finally:
        j.close()
    return out


__all__ = ["GameSalvage", "Salvage", "kept_aside_copy", "recover_journal"]
