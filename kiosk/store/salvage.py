"""Salvage: carry a damaged journal's intact events into a fresh journal, so the game can go on from them.

A damaged journal is kept aside (``<name>.corrupt-<n>``) and its path blocked (see :mod:`kiosk.store.journal`).
:func:`recover_journal` reads what it can of the kept-aside copy (rows SQLite can still read, each checked
against its checksum), keeps each game's intact prefix - events 1, 2, ... up to the first one that is
missing, damaged, unreadable or no longer replays - and writes it into a fresh journal at the original path,
then unblocks the path. Nothing after a damaged event is kept (a later event may depend on it); the report
names every game, what was kept and what was dropped and why. Running it is the operator's (the judge's)
acknowledgement: the kiosk then resumes the latest unfinished game from its last intact event.

Any damage is read as far as it goes, never a crash (:mod:`kiosk.store.readable`): a file cut short is padded
(on a copy) to whole pages and its header's page count, rows of the wrong kinds are left out, and the file's
index of events tells how many events a lost page took with it. A game whose kept events stop before its end -
an older game, or one the journal marked finished - stays history ("cut short at event N"), never resumed.
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
from kiosk.store.journal import (
    Journal,
    JournalCorrupt,
    JournalError,
    JournalPathError,
    _blocked_marker,
    _sidecars,
    not_a_file,
    wal_problem,
)
from kiosk.store.readable import Rows, pad_copy, read_rows, row_crc


@dataclass
class GameSalvage:
    """One game of a damaged journal: ``kept`` events 1..kept, ``found`` rows read, ``why`` the first drop;
    ``finished``: its kept events end the game; ``cut_short``: an older game whose kept events stop before its
    end (it stays history: only the latest game can go on)."""

    game: int
    players: tuple[str, ...]
    kept: int
    found: int
    last_seq: int
    why: str = ""
    finished: bool = False
    cut_short: bool = False

    def line(self) -> str:
        who = " vs ".join(self.players) or "players unknown"
        state = ("finished" if self.finished else
                 f"cut short at event {self.kept} (scores as they stood then)" if self.cut_short else "unfinished")
        if not self.why:
            return f"game {self.game} ({who}): all {self.kept} events kept, {state}"
        if not self.kept:
            return f"game {self.game} ({who}): no event kept ({self.found} row(s) read): {self.why}"
        dropped = f"events {self.kept + 1}-{self.last_seq}" if self.last_seq > self.kept + 1 else f"event {self.kept + 1}"
        after = self.found - self.kept
        read = f"{after} of them read but not kept" if after > 0 else "none of them readable"
        return f"game {self.game} ({who}): kept events 1-{self.kept}, dropped {dropped} ({read}): {self.why}; {state}"


@dataclass
class Salvage:
    """What :func:`recover_journal` did: ``source`` (the damaged copy read), ``games``, ``problems`` (what
    SQLite could not read at all)."""

    source: Path
    games: list[GameSalvage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        """Events known to be lost: after each game's break, up to its last event read or listed in the file's
        index of events (rows SQLite could read nothing of are not counted)."""
        return sum(max(g.last_seq, g.found) - g.kept for g in self.games if max(g.last_seq, g.found) > g.kept)

    @property
    def resumes(self) -> GameSalvage | None:
        """The game the kiosk goes on with (the latest, neither over nor cut short), or None."""
        last = self.games[-1] if self.games else None
        return last if last is not None and last.kept and not last.finished and not last.cut_short else None


def kept_aside_copy(path: Path) -> Path | None:
    """The damaged copy a blocked path's report names (``<name>.corrupt-<n>``), or None."""
    marker = _blocked_marker(path)
    if not marker.exists():
        return None
    m = re.search(r"kept aside as (\S+?) \(and its -wal/-shm\)", marker.read_text(encoding="utf-8"))
    if m and Path(m.group(1)).exists():
        return Path(m.group(1))
    return None


def _intact_prefix(game: int, rows: list[tuple], recorded: int = 0) -> tuple[list[tuple[tuple, Event]], str]:
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
            return kept, ("" if seq > max(max(by_seq, default=0), recorded) else f"event {seq} is missing")
        _, _, _, _, body, crc = row
        if crc != row_crc(game, seq, body):
            return kept, f"event {seq}: checksum mismatch (damaged row)"
        try:
            ev = event_from_dict(json.loads(body))
        except (ValueError, EventError) as exc:
            return kept, f"event {seq}: unreadable ({exc})"
        try:
            res = ref.apply(ev)
        except (ValueError, EventError) as exc:
            return kept, f"event {seq} ({ev.type}) no longer replays: {exc}"
        if not res.accepted:
            return kept, f"event {seq} ({ev.type}) no longer replays: {res.reason}"
        kept.append((row, ev))
        seq += 1


_Plan = list[tuple[int, int, "int | None", list[tuple[tuple, Event]]]]


def _plan(found: Rows, out: Salvage) -> _Plan:
    """Each game's intact prefix to write, with its start and finish times (``out.games`` says what of each game
    was kept). Only the latest game can go on, and only if it was not over: an older game, or one the journal
    marked finished, stays history - marked finished in the fresh journal (never resumed) and said to be cut
    short when its kept events stop before its end."""
    per_game: dict[int, list[tuple]] = {}
    for r in found.rows:
        per_game.setdefault(r[0], []).append(r)
    plan: _Plan = []
    ids = set(per_game) | set(found.games) | set(found.recorded)
    latest = max(ids, default=0)
    for game in sorted(ids):
        rows = per_game.get(game, [])
        recorded = found.recorded.get(game, 0)
        kept, why = _intact_prefix(game, rows, recorded)
        last = max(max((r[1] for r in rows), default=0), recorded)
        players = tuple(getattr(kept[0][1], "players", ())) if kept else ()
        over = bool(kept) and Referee.from_events([e for _, e in kept]).state.phase == OVER
        started, was_finished = found.games.get(game, (kept[0][1].t if kept else 0, None))
        history = game != latest or was_finished is not None
        out.games.append(GameSalvage(game, players, len(kept), len(rows), last, why, over,
                                     bool(kept) and not over and history))
        if kept:
            finished_ms: int | None = kept[-1][1].t if over else None
            if history:  # an older game, or one that was over: it stays history
                finished_ms = was_finished if was_finished is not None else kept[-1][1].t
            plan.append((game, started, finished_ms, kept))
    return plan


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
        cut = pad_copy(copy)   # a file cut short: the pages before the cut are read (on the copy)
        if cut:
            out.problems.append(cut)
        wal = src.with_name(src.name.replace(".corrupt-", "-wal.corrupt-")) if ".corrupt-" in src.name else None
        if wal is not None and wal.exists():
            shutil.copyfile(wal, _sidecars(copy)[1])
            why = wal_problem(copy, wal.name)
            if why:  # another journal's log (or one that changes recorded events): read the file alone
                _sidecars(copy)[1].unlink()
                out.problems.append(f"{why}; it was not used")
        readable = read_rows(copy)
    out.problems.extend(readable.problems)
    plan = _plan(readable, out)
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
                if game in readable.beats and finished_ms is None:
                    db.execute("INSERT INTO heartbeat VALUES (?, ?)", (game, max(readable.beats[game], kept[-1][1].t)))
            last = out.resumes
            if last is not None and last.why:  # the judge is told when the kiosk resumes it
                db.execute("INSERT OR REPLACE INTO meta VALUES ('salvaged_game', ?)", (str(last.game),))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('salvaged_note', ?)",
                           (f"This game was recovered from a damaged journal: {last.line()}. Judge: check the "
                            f"board and the scores against move {last.kept}.",))

        j._write(tx)
        _blocked_marker(path).unlink(missing_ok=True)
    finally:
        j.close()
    return out


__all__ = ["GameSalvage", "Salvage", "kept_aside_copy", "recover_journal"]
