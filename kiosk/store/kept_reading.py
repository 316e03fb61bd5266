"""A clock press's board reading kept while the clocks are stopped, written into the journal's own file.

A player presses the clock (journaled at once, ``ClockPressed``), the clocks are stopped (pause, a judge call)
before the board is read, and the reading that comes during the pause is kept until play resumes
(:mod:`kiosk.app.paused_reading`): the move recorded then is the board as it was at the press. That reading is no
referee event (the referee takes no move while the clocks stand still), so the journal's events do not hold it; a
restart during the pause (a power cut, a crash, systemd) would lose it and the board would be read afresh when play
resumes, a tile moved meanwhile (the judge looking at tiles, a bumped board) changing the move. So the kept reading
is written here, durably, as the journal's events are: one row of the journal's ``meta`` table (key
:data:`KEY`), written by the journal's own transaction (``Journal._write``, as :mod:`kiosk.store.salvage` writes its
note: fsync'd and folded into the main file), never a side file that could outlive or miss its journal.

The row says which press it belongs to (the game, the press's place among the game's events, the player and the
press's time ``pressed_at``) and holds the reader's 15 strings and the judge's corrections made for that press
during the pause (a misread tile: they are the move's as much as the reading, and a restart must not lose them),
with a CRC-32 of all that: the kiosk uses it only
for that very press still standing (:func:`kiosk.app.paused_reading.kept_for_press`), and a row whose checksum or
shape does not hold is :class:`KeptReadingDamaged` (the caller ignores it with a log line: the board is read
afresh, as without it). There is at most one row: a new kept reading replaces the last; the kiosk clears it once
its press is finished, taken back or undone, or its game over.

A journal file deleted or moved mid-game is written again from the kiosk's memory
(:func:`kiosk.store.journal.journal_again`): the kept reading goes into the new journal too, in the events' own
transaction (:attr:`kiosk.store.session.GameSession.carry`, :func:`kiosk.app.paused_reading.carried`), as the row for
the game's id there: a crash or a failed write never leaves the events there without it. ``kiosk journal recover`` does not carry it: recovery rebuilds a fresh journal from the intact events alone, and a
reading whose press may be among the lost events, or whose game goes on from an earlier event, belongs to no press
that stands there; a press the recovered game holds without its move is read afresh
(:mod:`kiosk.app.unread_press`).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass

from kiosk.store.journal import Journal, JournalError

KEY = "kept_reading"
"""The journal's ``meta`` key of the kept reading."""
SIZE = 15


class KeptReadingDamaged(ValueError):
    """The kept reading in the journal cannot be used (unreadable, its checksum or its shape does not hold)."""


@dataclass(frozen=True)
class KeptReading:
    """The reading kept for a press: ``game`` (the journal's game id), ``seq`` (the press's place among the game's
    events, 1-based), ``player``, ``pressed_at`` (ms, the press's time) and ``grid`` (15 strings of 15 characters as
    :meth:`kiosk.vision.reading.BoardReading.grid` gives them)."""

    game: int
    seq: int
    player: int
    pressed_at: int
    grid: tuple[str, ...]
    fixes: tuple[tuple[int, str], ...] = ()
    """The judge's corrections made for the press during the pause ((square, char), ...: what the camera should have
    read there, :func:`kiosk.app.judge_entries.correct`), laid over ``grid`` when the move is taken; his
    confirmations of tiles on the board among them (told apart by the board: :func:`kiosk.app.judge_entries.
    restore_fixes`)."""

    def _body(self) -> dict[str, object]:
        body: dict[str, object] = {"game": self.game, "seq": self.seq, "player": self.player,
                                   "pressed_at": self.pressed_at, "grid": list(self.grid)}
        if self.fixes:  # (a row without corrections reads as before they were kept)
            body["fixes"] = [[sq, ch] for sq, ch in self.fixes]
        return body

    def to_text(self) -> str:
        """The row's value: the fields as JSON, with ``crc`` (CRC-32 of the other fields' canonical JSON)."""
        body = self._body()
        return json.dumps({**body, "crc": _crc(body)}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> KeptReading:
        """The kept reading ``text`` holds; raises :class:`KeptReadingDamaged` saying why it cannot be used."""
        try:
            data = json.loads(text)
        except ValueError:
            raise KeptReadingDamaged("not JSON") from None
        if not isinstance(data, dict) or set(data) - {"fixes"} != {"game", "seq", "player", "pressed_at", "grid", "crc"}:
            raise KeptReadingDamaged("not a kept reading's fields")
        crc = data.pop("crc")
        if crc != _crc(data):
            raise KeptReadingDamaged("its checksum does not hold")
        game, seq, player, pressed_at, grid = (data[k] for k in ("game", "seq", "player", "pressed_at", "grid"))
        if any(type(v) is not int for v in (game, seq, player, pressed_at)) or not isinstance(grid, list) or len(grid) != SIZE \
                or any(not isinstance(row, str) or len(row) != SIZE for row in grid):
            raise KeptReadingDamaged("not 15 rows of 15 squares")
        return cls(game, seq, player, pressed_at, tuple(grid), _fixes(data.get("fixes", [])))


def _fixes(data: object) -> tuple[tuple[int, str], ...]:
    """The judge's corrections of a row (``[[square, char], ...]``); raises :class:`KeptReadingDamaged`."""
    if not isinstance(data, list) or any(not isinstance(f, list) or len(f) != 2 or type(f[0]) is not int
                                         or not 0 <= f[0] < SIZE * SIZE or not isinstance(f[1], str)
                                         or len(f[1]) != 1 for f in data):
        raise KeptReadingDamaged("not the judge's corrections")
    return tuple((sq, ch) for sq, ch in data)


def _crc(body: dict[str, object]) -> int:
    return zlib.crc32(json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def save(journal: Journal, kept: KeptReading) -> None:
    """Write ``kept`` into ``journal`` durably (replacing any kept before). Raises :class:`JournalError` (a full
    disk: :class:`~kiosk.store.journal.JournalFull`) when it cannot be written; nothing is changed then."""
    text = kept.to_text()
    journal._write(lambda db: db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (KEY, text)))


def load(journal: Journal) -> KeptReading | None:
    """The kept reading in ``journal``, or None when there is none. Raises :class:`KeptReadingDamaged` when one is
    there but cannot be used (or the journal cannot be read)."""
    try:
        row = journal._conn.execute("SELECT value FROM meta WHERE key=?", (KEY,)).fetchone()
    except (sqlite3.Error, JournalError) as exc:
        raise KeptReadingDamaged(f"the journal cannot be read: {exc}") from None
    if row is None:
        return None
    if not isinstance(row[0], str):
        raise KeptReadingDamaged("not text")
    return KeptReading.from_text(row[0])


def clear(journal: Journal) -> None:
    """Remove the kept reading from ``journal`` (nothing when none is there). Raises :class:`JournalError`."""
    journal._write(lambda db: db.execute("DELETE FROM meta WHERE key=?", (KEY,)))
