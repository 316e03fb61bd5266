"""Salvage: carry a damaged journal's intact events into a fresh journal, so the game can go on from them.

A damaged journal is kept aside (``<name>.corrupt-<n>``) and its path blocked (see :mod:`kiosk.store.journal`).
:func:`recover_journal` reads what it can of the kept-aside copy (rows SQLite can still read, and every event row
still whole anywhere in the file's bytes: :mod:`kiosk.store.readable`, :mod:`kiosk.store.carve`; each checked
against its checksum), keeps each game's intact prefix - events 1, 2, ... up to the first one that is missing,
damaged, unreadable or no longer replays - and writes it into a fresh journal at the original path, then unblocks
the path. The intact events after a break cannot be replayed (a later event depends on the ones before it), but
nothing recorded is dropped: they are *set aside* - written whole to ``<path>.set-aside-<n>.jsonl`` beside the
fresh journal (:mod:`kiosk.store.set_aside`), with a line for each lost event among them, and listed in the
report with their content, so the judge can re-enter them. The report names every game, the events kept, the
events lost (exactly: those the file's pages or its index of events show were recorded and that cannot be read)
and those set aside. Running it is the operator's (the judge's) acknowledgement: the kiosk then resumes the
latest unfinished game from its last kept event.

Any damage is read as far as it goes, never a crash: a file cut short is padded (on a copy) to whole pages and
its header's page count, a damaged header is rebuilt (on the copy), rows of the wrong kinds are left out, and the
file's index of events tells which events a lost page took with it. A game whose kept events stop before its end
- an older game, or one the journal marked finished - stays history ("cut short at event N"), never resumed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kiosk.referee.events import Event, EventError, event_from_dict
from kiosk.referee.referee import Referee
from kiosk.referee.state import OVER
from kiosk.rules.counts import counted
from kiosk.store.header import repair_header
from kiosk.store.journal import (
    USE_NEW_JOURNAL,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalLocked,
    JournalNotKeptAside,
    JournalPathError,
    _blocked_marker,
    _failure,
    _lock,
    _os_error,
    _sidecars,
    copies_beside,
    folder_refused,
    named_copy,
    not_a_file,
    nothing_way,
    recover_from_words,
    wal_check,
)
from kiosk.store.kept_reading import KEY as KEPT_KEY
from kiosk.store.kept_reading import KeptReading, KeptReadingDamaged
from kiosk.store.readable import Rows, pad_copy, read_rows, row_crc
from kiosk.store.set_aside import lost_words, spans, write_set_aside

Row = tuple[int, int, int, str, str, int]


@dataclass
class GameSalvage:
    """One game of a damaged journal: ``kept`` events 1..kept, ``found`` rows read, ``last_seq`` the last event
    its pages or the file's index show, ``why`` why its replay stops after ``kept`` ("" when all was kept),
    ``lost`` [(seq, why)] the events after that which cannot be read, ``set_aside`` the intact rows after it
    (not replayed, written to the salvage's ``set_aside_file``), ``damaged`` {seq: the text of a lost event's
    damaged row, as read (its checksum fails: for the judge to look at, never replayed)}; ``finished``: its kept events end the game;
    ``cut_short``: an older game whose kept events stop before its end (it stays history: only the latest game can
    go on)."""

    game: int
    players: tuple[str, ...]
    kept: int
    found: int
    last_seq: int
    why: str = ""
    finished: bool = False
    cut_short: bool = False
    lost: list[tuple[int, str]] = field(default_factory=list)
    set_aside: list[Row] = field(default_factory=list)
    damaged: dict[int, str] = field(default_factory=dict)
    set_aside_file: Path | None = None

    def line(self) -> str:
        who = " vs ".join(self.players) or "players unknown"
        state = ("finished" if self.finished else
                 f"cut short at event {self.kept} (scores as they stood then)" if self.cut_short else "unfinished")
        if not self.why:
            return f"game {self.game} ({who}): all {self.kept} event{'s' if self.kept != 1 else ''} kept, {state}"
        parts = [f"kept events 1-{self.kept}" if self.kept > 1 else "kept event 1" if self.kept else
                 "no event kept"]
        if self.lost:
            parts.append(lost_words(self.lost))
        if not self.lost or self.lost[0][0] != self.kept + 1:
            parts.append(self.why)   # the replay stops at an intact event: why
        if self.set_aside:
            where = f"written to {self.set_aside_file.name} beside the journal" if self.set_aside_file is not None \
                else "listed in the report"
            parts.append(f"set aside {spans(r[1] for r in self.set_aside)} (intact, but after the break: not "
                         f"replayed; {where}, for the judge to re-enter)")
        return f"game {self.game} ({who}): " + "; ".join(parts) + (f"; {state}" if self.kept else "")


@dataclass
class Salvage:
    """What :func:`recover_journal` did: ``source`` (the damaged copy read), ``games``, ``problems`` (what
    SQLite could not read at all, and what was not carried), ``set_aside_file`` (the file the events set aside were written to, or None)."""

    source: Path
    games: list[GameSalvage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    set_aside_file: Path | None = None
    kept_reading: str | None = None
    """The reading kept for a press during a pause found in the damaged journal (its ``meta`` row's text), never
    carried into the fresh journal (the board is read afresh): ``problems`` says so."""

    @property
    def lost(self) -> int:
        """Events known to be lost: recorded (the file's pages or its index show them) and unreadable."""
        return sum(len(g.lost) for g in self.games)

    @property
    def set_aside(self) -> int:
        """Intact events not carried on (after a break in their game), written to :attr:`set_aside_file`."""
        return sum(len(g.set_aside) for g in self.games)

    @property
    def resumes(self) -> GameSalvage | None:
        """The game the kiosk goes on with (the latest, neither over nor cut short), or None."""
        last = self.games[-1] if self.games else None
        return last if last is not None and last.kept and not last.finished and not last.cut_short else None


def kept_aside_copy(path: Path) -> Path | None:
    """The damaged copy a blocked path's report names (``<name>.corrupt-<n>``), found beside ``path`` (the
    journal's folder), or None.

    The report names the copy as the path was given when the damage was found (``sub/j.sqlite.corrupt-1`` for a
    kiosk run with ``--journal sub/j.sqlite``): read from another folder, or after the folder moved, that name
    leads nowhere. A copy is only ever kept aside beside its journal, so its file name is looked up there."""
    marker = _blocked_marker(path)
    if not marker.exists():
        return None
    named = named_copy(marker.read_text(encoding="utf-8"))
    if named is not None:
        beside = path.with_name(named)
        if beside.name.startswith(path.name + ".corrupt-") and beside.is_file():
            return beside
    return None


def _way_on(path: Path, src: Path) -> str:
    """The way on when nothing can be recovered from ``src``: another damaged copy beside ``path`` if there is
    one, else a fresh start (:func:`kiosk.store.journal.nothing_way`)."""
    return nothing_way(path, [p for p in copies_beside(path) if not p.samefile(src)])


def _replayed(rows: dict[int, Row], last: int) -> tuple[list[tuple[Row, Event]], str]:
    """Events 1, 2, ... of a game (``rows``: its intact rows by sequence number; ``last``: its last recorded
    event) up to the first missing, damaged, unreadable or refused one; (kept, why it stops, "" at the end)."""
    kept: list[tuple[Row, Event]] = []
    ref = Referee()
    for seq in range(1, last + 1):
        row = rows.get(seq)
        if row is None:
            return kept, f"event {seq} is lost"
        try:
            ev = event_from_dict(json.loads(row[4]))
        except (ValueError, EventError) as exc:
            return kept, f"event {seq}: unreadable ({exc})"
        try:
            res = ref.apply(ev)
        except (ValueError, EventError) as exc:
            return kept, f"event {seq} ({ev.type}) no longer replays: {exc}"
        if not res.accepted:
            return kept, f"event {seq} ({ev.type}) no longer replays: {res.reason}"
        kept.append((row, ev))
    return kept, ""


def _split(game: int, rows: list[Row], indexed: set[int]) -> tuple[list[tuple[Row, Event]], str, list[tuple[int, str]],
                                                                   list[Row], int, dict[int, str]]:
    """A game's rows split into (kept prefix, why it stops, lost [(seq, why)], set-aside rows, last event, the
    text of each damaged row among the lost)."""
    intact: dict[int, Row] = {}
    damaged: dict[int, str] = {}
    for r in rows:
        if r[5] == row_crc(game, r[1], r[4]):
            intact.setdefault(r[1], r)
        else:
            damaged.setdefault(r[1], r[4])
    last = max([*intact, *damaged, *indexed], default=0)
    kept, why = _replayed(intact, last)
    lost: list[tuple[int, str]] = []
    aside: list[Row] = []
    for seq in range(len(kept) + 1, last + 1) if why else ():
        if seq in intact:
            aside.append(intact[seq])
        else:
            lost.append((seq, "damaged: its checksum does not hold" if seq in damaged
                         else "missing: on a page that is damaged or gone"))
    return kept, why, lost, aside, last, {seq: damaged[seq] for seq, _ in lost if seq in damaged}


_Plan = list[tuple[int, int, "int | None", list[tuple[Row, Event]]]]


def _plan(found: Rows, out: Salvage) -> _Plan:
    """Each game's intact prefix to write, with its start and finish times (``out.games`` says what of each game
    was kept, lost and set aside). Only the latest game can go on, and only if it was not over: an older game, or
    one the journal marked finished, stays history - marked finished in the fresh journal (never resumed) and said
    to be cut short when its kept events stop before its end."""
    per_game: dict[int, list[Row]] = {}
    for r in found.rows:
        per_game.setdefault(r[0], []).append(r)
    plan: _Plan = []
    ids = set(per_game) | set(found.games) | set(found.indexed)
    latest = max(ids, default=0)
    for game in sorted(ids):
        rows = per_game.get(game, [])
        kept, why, lost, aside, last, damaged = _split(game, rows, found.indexed.get(game, set()))
        players = tuple(getattr(kept[0][1], "players", ())) if kept else ()
        over = bool(kept) and Referee.from_events([e for _, e in kept]).state.phase == OVER
        started, was_finished = found.games.get(game, (kept[0][1].t if kept else 0, None))
        history = game != latest or was_finished is not None or bool(aside and not kept)
        out.games.append(GameSalvage(game, players, len(kept), len(rows), last, why, over,
                                     bool(kept) and not over and history, lost, aside, damaged))
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

    Returns: what was kept, lost and set aside (:class:`Salvage`); ``path`` is then unblocked.

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
                copies = copies_beside(path)
                if copies:
                    raise JournalPathError(f"{path}: no such journal and no report of damage for it; damaged copies "
                                           f"are kept beside it: {recover_from_words(path, copies)}")
                raise JournalPathError(f"{path}: no such journal and no damaged copy kept aside for it")
            _keep_aside_if_damaged(path)
        found = kept_aside_copy(path)
        if found is None:
            copies = copies_beside(path)
            if copies:   # never advise a fresh start (the game abandoned) while a damaged copy is there to read
                raise JournalError(f"{path}: blocked, but the damaged copy its report names is not beside it; "
                                   f"{recover_from_words(path, copies)}")
            raise NothingToRecover(f"{path}: blocked, but the damaged copy its report names is gone (no "
                               f"{path.name}.corrupt-N beside it): nothing to recover (`kiosk journal acknowledge "
                               f"{path}` starts afresh)")
        source = found
    src = Path(source)
    if path.exists() and src.exists() and src.samefile(path):
        raise JournalPathError(f"{path}: --from names the journal itself; `kiosk journal recover {path}` keeps it "
                               f"aside and recovers it in place, `kiosk journal recover NEW.sqlite --from {path}` "
                               f"into a new journal, leaving it as it is")
    why = not_a_file(src)
    if why:
        raise JournalPathError(f"{src}: {why}")
    if not src.is_file():
        raise JournalPathError(f"{src}: no such file")
    if src.stat().st_size == 0:
        raise NothingToRecover(f"{path}: {src} is empty (0 bytes): there is nothing to recover from it; "
                           + _way_on(path, src))
    out = Salvage(source=src)
    readable = _read_copy(src, out)
    plan = _plan(readable, out)
    if out.kept_reading is not None:   # by design (kiosk.store.kept_reading): said, never dropped without a word
        out.problems.append(_not_carried(out.kept_reading, out.games))
    if not plan and not out.set_aside:
        raise NothingToRecover(f"{path}: nothing could be read from {src}: no recorded event in it is whole (it was "
                           f"read through SQLite as far as it goes and byte by byte), so there is nothing to "
                           f"recover from it; " + _way_on(path, src))
    for p in _sidecars(path):
        if p.exists():  # only a fresh journal may stand here (a kiosk started over the block is impossible)
            raise JournalError(f"{path}: a file is in the way ({p.name}); move it aside first")
    try:
        if out.set_aside:
            _write_set_aside(path, out)
        _write_fresh(path, plan, readable, out)
    except BaseException as exc:
        if out.set_aside_file is not None:   # the path stays blocked: the next recover writes them again
            out.set_aside_file.unlink(missing_ok=True)
        if isinstance(exc, JournalError) and not isinstance(exc, (JournalLocked, JournalCorrupt)):
            raise _not_written(path, src, exc) from None
        raise
    return out


class NothingToRecover(JournalError):
    """There is nothing to recover: the damaged copy holds nothing (it is empty, or no recorded event in it is
    whole), no damaged copy is left, or the journal is intact. An unusable input: the command line exits 2 for it
    (README, command-line conventions). A blocked path stays blocked; nothing is changed."""


class RecoverWriteError(JournalError):
    """The fresh journal (or the events set aside) cannot be written at the path (a read-only folder, a full
    disk): nothing was recovered, the damaged copy is left as it is and the path stays blocked. An output that
    cannot be written: the command line exits 2 for it."""


def _not_written(path: Path, src: Path, exc: JournalError) -> RecoverWriteError:
    """What to do when recover cannot write at ``path``, in a sentence (never a bare OS error)."""
    cause = exc.cause or str(exc).rsplit(": ", 1)[-1]
    full = isinstance(exc, JournalFull) or "full" in cause.lower()
    why = "its disk is full" if full else cause[:1].lower() + cause[1:]
    blocked = f"{path} stays blocked" if _blocked_marker(path).exists() else f"nothing at {path} was changed"
    again = (f"free some space on its disk and run `kiosk journal recover {path}` again, or run " if full else
             "run ")
    return RecoverWriteError(
        f"{path}: nothing was recovered: the fresh journal cannot be written in {path.parent} ({why}); {src} is "
        f"left as it is and {blocked}. To go on, {again}`kiosk journal recover NEW.sqlite --from {src}` with "
        f"NEW.sqlite in a folder you can write to {USE_NEW_JOURNAL}")


def _not_kept_aside(path: Path, cause: str) -> RecoverWriteError:
    """What to do when recover cannot keep the damaged journal at ``path`` aside (``cause``), in a sentence."""
    return RecoverWriteError(
        f"{path}: nothing was recovered: the damaged journal cannot be kept aside ({cause}); nothing was changed. "
        f"To go on, run `kiosk journal recover NEW.sqlite --from {path}` with NEW.sqlite in a folder you can write "
        f"to {USE_NEW_JOURNAL}")


def _keep_aside_if_damaged(path: Path) -> None:
    """Keep the journal at ``path`` aside when it is damaged (its open does it); raises :class:`JournalError`
    when it is intact, changing no file: it is looked at on a copy first (opening it would fold a write-ahead log
    beside it into it and delete the log), and opened only to be kept aside."""
    try:
        Journal(path, readonly=True).close()
    except JournalCorrupt:
        pass
    else:
        fd = _lock(path, create=False)   # a kiosk has it open: refused as in use (JournalLocked)
        if fd is not None:
            os.close(fd)
        raise NothingToRecover(f"{path}: the journal is intact: nothing to recover")
    try:
        Journal(path).close()
    except JournalNotKeptAside as exc:   # a read-only folder, a full disk: nothing was changed
        raise _not_kept_aside(path, exc.cause) from None
    except JournalCorrupt as exc:
        if exc.kept_aside is None:
            raise
    except (JournalLocked, JournalPathError):
        raise
    except JournalError as exc:   # its lock file cannot be made (a read-only folder): nothing was changed
        raise _not_kept_aside(path, folder_refused(path.parent, _os_error(exc))) from None
    else:   # damaged on the copy only (a file changed in between): say what was found, nothing kept aside
        raise NothingToRecover(f"{path}: the journal is intact: nothing to recover")


def _read_copy(src: Path, out: Salvage) -> Rows:
    """What can be read of the damaged journal ``src`` (and its kept-aside write-ahead log), read on a copy: its
    header rebuilt when damaged, padded when cut short (what was done goes to ``out.problems``)."""
    with tempfile.TemporaryDirectory(prefix="kiosk-salvage-") as tmp:
        copy = Path(tmp) / "j.sqlite"
        shutil.copyfile(src, copy)
        notes = [repair_header(copy), pad_copy(copy)]
        out.problems += [n for n in notes if n]
        wal = (src.with_name(src.name.replace(".corrupt-", "-wal.corrupt-")) if ".corrupt-" in src.name
               else _sidecars(src)[1])   # --from a damaged journal left in place: its log beside it too
        if wal is not None and wal.exists():
            shutil.copyfile(wal, _sidecars(copy)[1])
            why, own = wal_check(copy, wal.name)
            if why and not own:  # another journal's log (or one that changes recorded events): read the file alone
                _sidecars(copy)[1].unlink()
                out.problems.append(f"{why}; it was not used")
            elif why:   # this journal's log, damaged or with a gap: what it holds is read, whole events from its bytes
                out.problems.append(f"{why}; the writes SQLite can apply were read, and every whole event in its "
                                    f"bytes (each checked against its checksum)")
        readable = read_rows(copy)
        kept = _kept_reading(copy)
    out.problems.extend(readable.problems)
    if kept is not None:
        out.kept_reading = kept
    return readable


def _kept_reading(copy: Path) -> str | None:
    """The text of the reading kept for a press during a pause (``meta`` key ``kept_reading``,
    :mod:`kiosk.store.kept_reading`) in the damaged journal's copy, or None (none there, or none readable)."""
    try:
        with contextlib.closing(sqlite3.connect(copy, isolation_level=None)) as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (KEPT_KEY,)).fetchone()
    except (sqlite3.Error, UnicodeDecodeError):
        return None
    return row[0] if row is not None and isinstance(row[0], str) else None


def _not_carried(text: str, games: list[GameSalvage]) -> str:
    """The report's words for the reading kept for a press (never carried: the board is read afresh)."""
    try:
        kept = KeptReading.from_text(text)
    except KeptReadingDamaged as exc:
        return (f"a board reading kept for a press during a pause was not carried (it cannot be used: {exc}): the "
                f"board is read when play resumes")
    game = next((g for g in games if g.game == kept.game), None)
    who = (game.players[kept.player] if game is not None and 0 <= kept.player < len(game.players)
           else f"player {kept.player + 1}")
    return (f"the board reading kept for {who}'s press at {kept.pressed_at / 1000:g} s was not carried: the board "
            f"is read when play resumes")


def _write_fresh(path: Path, plan: _Plan, readable: Rows, out: Salvage) -> None:
    """The fresh journal at ``path`` holding ``plan``'s games, then the path unblocked."""
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
        try:
            _blocked_marker(path).unlink(missing_ok=True)
        except OSError as exc:   # the report cannot be removed: the fresh journal goes again (below)
            raise _failure(path, "cannot unblock the journal", exc.strerror or "the disk refused it") from None
    except BaseException:
        j.close()
        for p in _sidecars(path):   # the fresh journal only half written (a full disk): nothing stray is left
            with contextlib.suppress(OSError):
                p.unlink(missing_ok=True)
        raise
    finally:
        j.close()


def _write_set_aside(path: Path, out: Salvage) -> None:
    """Write the events set aside (and the lost ones among them) beside the journal ``path``
    (:func:`kiosk.store.set_aside.write_set_aside`); raises :class:`JournalError` when it cannot be written (then
    nothing was changed: the path stays blocked)."""
    try:
        out.set_aside_file = write_set_aside(path, [(g.game, g.why, g.lost, g.set_aside, g.damaged)
                                                    for g in out.games if g.set_aside])
    except OSError as exc:
        err = JournalFull if exc.errno in (errno.ENOSPC, errno.EDQUOT) else JournalError
        raise err(f"{path}: the {counted(out.set_aside, 'intact event')} after a lost one cannot be written beside "
                  f"it: {exc.strerror or exc}") from None
    for g in out.games:
        g.set_aside_file = out.set_aside_file if g.set_aside else None


__all__ = ["GameSalvage", "NothingToRecover", "RecoverWriteError", "Salvage", "kept_aside_copy", "recover_journal"]
