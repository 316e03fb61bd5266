"""What survives in a damaged journal file: its rows as far as SQLite can read them, and the damage in words.

Used by :mod:`kiosk.store.salvage` (``kiosk journal recover``) and by the journal's own report when it finds a
file damaged (:mod:`kiosk.store.journal`). Everything here reads; a file is only ever changed on a copy
(:func:`pad_copy` is given the copy). Nothing raises for damage: a file that cannot be read at all yields no
rows and a sentence saying why.

A journal cut short (a file truncated by a full card, a copy stopped half way) is padded with zeros to whole
pages, and to the page count its header records, before it is read: SQLite refuses a file shorter than its
header says ("database disk image is malformed") although every page before the cut is intact. A damaged header
(the file no longer starts as an SQLite database) is rebuilt on the copy (:mod:`kiosk.store.header`). Beside
what SQLite reads through the tables' trees, every event row still whole anywhere in the file's bytes is found by
its checksum (:mod:`kiosk.store.carve`): a damaged inner page, root page or first page hides no intact row.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kiosk.rules.counts import counted
from kiosk.store.carve import carve_file, row_crc
from kiosk.store.foreign import SQLITE_HEADER, sqlite_uri
from kiosk.store.header import header_only, repair_header

# padding a cut file never adds more than this (a damaged header may claim any page count)
MAX_PAD_BYTES = 1 << 30


@dataclass(frozen=True)
class Layout:
    """A journal file's size against its header: page size (bytes), the page count the header records (0 when
    it records none it vouches for) and the file's size (bytes)."""

    page: int
    header_pages: int
    size: int

    @property
    def whole_size(self) -> int:
        """The size the file should have: whole pages, and at least the header's page count."""
        pages = max(-(-self.size // self.page), self.header_pages)
        return pages * self.page

    @property
    def cut_short(self) -> bool:
        return self.whole_size > self.size

    def words(self) -> str:
        """The cut in words: ``"the file is cut short: it ends at byte 32768, so page 9 of 9 is missing"``."""
        pages = self.whole_size // self.page
        first = self.size // self.page + 1
        if self.size % self.page:
            lost = f"page {first} of {pages} is incomplete" if first == pages else \
                f"pages {first}-{pages} of {pages} are incomplete or missing"
        else:
            lost = f"page {first} of {pages} is missing" if first == pages else \
                f"pages {first}-{pages} of {pages} are missing"
        return f"the file is cut short: it ends at byte {self.size}, so {lost}"


def layout(file: Path) -> Layout | None:
    """The file's :class:`Layout` from its SQLite header, or None (no SQLite header, or a page size that is no
    power of two from 512 to 65536: the header itself is damaged)."""
    try:
        with open(file, "rb") as f:
            head = f.read(100)
        size = file.stat().st_size
    except OSError:
        return None
    if len(head) < 100 or not head.startswith(SQLITE_HEADER):
        return None
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    if page < 512 or page & (page - 1):
        return None
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] != head[92:96]:  # SQLite trusts the header's page count only when these two agree
        pages = 0
    if pages * page - size > MAX_PAD_BYTES:
        pages = 0
    return Layout(page, pages, size)


def pad_copy(copy: Path) -> str | None:
    """Pad ``copy`` (a copy, never a journal itself) with zeros to whole pages and to its header's page count.
    Returns what was done in words, or None when the file was whole (or is no SQLite file)."""
    lay = layout(copy)
    if lay is None or not lay.cut_short:
        return None
    try:
        with open(copy, "r+b") as f:
            f.truncate(lay.whole_size)
    except OSError as exc:
        return f"{lay.words()}; it could not be padded to read the rest ({exc.strerror})"
    return f"{lay.words()}; the pages before the cut were read (the missing bytes taken as zeros, on a copy)"


@dataclass
class Rows:
    """What could be read of a journal file: ``games`` {id: (started_ms, finished_ms)}, event ``rows``
    (game, seq, t, type, body, crc: SQLite's, damaged ones too, and the intact rows found in the file's bytes;
    each (game, seq) once, an intact copy before a damaged one), heartbeats {game: t}, ``indexed`` {game: the
    sequence numbers the file's index of events lists for it (rows a damaged page took with it are still listed
    there)}, and ``problems`` in words."""

    games: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    rows: list[tuple[int, int, int, str, str, int]] = field(default_factory=list)
    beats: dict[int, int] = field(default_factory=dict)
    indexed: dict[int, set[int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def recorded(self) -> dict[int, int]:
        """{game: how many events the file's index of events lists for it}."""
        return {g: len(seqs) for g, seqs in self.indexed.items()}

    def intact_rows(self) -> int:
        """Event rows whose checksum holds."""
        return sum(1 for g, s, _, _, body, crc in self.rows if crc == row_crc(g, s, body))


def _is_int(v: object, low: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def _scan(db: sqlite3.Connection, table: str, cols: str) -> tuple[dict[int, tuple], str]:
    """Rows of ``table`` by rowid: forward until SQLite stops, then backward from the end up to the same place
    (rows beyond a damaged page); (rows, SQLite's complaint or ""). One row per query: a cursor read on past
    its row to the next and dropped the row when that step met the damaged page (the last intact event before
    it was lost)."""
    found: dict[int, tuple] = {}
    complaint = ""
    for order, beyond in (("ASC", ">"), ("DESC", "<")):
        last: int | None = None
        try:
            while True:
                where = "" if last is None else f"WHERE rowid {beyond} {last}"
                r = db.execute(f"SELECT rowid, {cols} FROM {table} {where} ORDER BY rowid {order} LIMIT 1").fetchone()
                if r is None or r[0] in found:
                    break
                found[r[0]] = r[1:]
                last = r[0]
            if not complaint:
                return found, ""
        except (sqlite3.Error, ValueError, OverflowError):
            complaint = complaint or "SQLite stops at a damaged page"
    return found, complaint


def read_rows(file: Path) -> Rows:
    """Whatever SQLite can still read of journal ``file`` - a copy: SQLite may fold a write-ahead log beside it
    into it - each table as far as it goes, rows of the wrong kinds (a damaged cell read as NULL or as another
    type) left out, and the intact event rows anywhere in its bytes (and its log's). Raises nothing."""
    out = Rows()
    carved = {_PAGES: carve_file(file), _LOG: carve_file(file.with_name(file.name + "-wal"), pages=False)}
    try:
        db = sqlite3.connect(sqlite_uri(file, "mode=rw"), uri=True, isolation_level=None)
    except sqlite3.Error:
        out.problems.append("SQLite cannot open it")
        _merge(out, carved)
        return out
    db.text_factory = lambda b: b.decode("utf-8", "replace")   # a damaged text fails its checksum, not the read
    try:
        for table, cols in (("games", "id, started_ms, finished_ms"), ("events", "game, seq, t, type, body, crc"),
                            ("heartbeat", "game, t")):
            found, complaint = _scan(db, table, cols)
            if complaint:
                part = "be read only in part" if found else "not be read"
                out.problems.append(f"the {table} table could {part} through SQLite ({complaint})")
            for r in found.values():
                _keep(out, table, r)
        _count_index(db, out)
    finally:
        db.close()
    _merge(out, carved)
    return out


_PAGES, _LOG = "the file's pages", "its write-ahead log"
"""Where :func:`read_rows` finds whole rows in the bytes: the journal file's pages, the frames of its log."""


def _merge(out: Rows, carved: dict[str, list[tuple[int, int, int, str, str, int]]]) -> None:
    """Add to ``out.rows`` the intact rows found in the bytes that SQLite did not read intact (``carved``: by where
    they were found, :data:`_PAGES` first; an intact copy takes the place of a damaged row of its game and sequence
    number; a row found in both places is taken once, from the file's pages), and say how many, and where."""
    intact = {(g, s) for g, s, _, _, body, crc in out.rows if crc == row_crc(g, s, body)}
    new: dict[tuple[int, int], tuple[int, int, int, str, str, int]] = {}
    found: dict[str, int] = {}
    for where, rows in carved.items():
        for r in rows:
            if (r[0], r[1]) not in intact and (r[0], r[1]) not in new:
                new[r[0], r[1]] = r
                found[where] = found.get(where, 0) + 1
    if new:
        out.rows = [r for r in out.rows if (r[0], r[1]) not in new] + list(new.values())
        n = len(new)
        place = f"in {next(iter(found))}" if len(found) == 1 else \
            f"({' and '.join(f'{k} in {where}' for where, k in found.items())})"
        out.problems.append(f"{n} event{'s' if n != 1 else ''} SQLite could not reach {'were' if n != 1 else 'was'} "
                            f"found whole {place}, each checked against its checksum")


def _keep(out: Rows, table: str, r: tuple) -> None:
    """File row ``r`` of ``table`` in ``out`` when its values are of the journal's kinds."""
    if table == "games":
        if _is_int(r[0], 1) and _is_int(r[1]) and (r[2] is None or _is_int(r[2])):
            out.games.setdefault(r[0], (r[1], r[2]))
    elif table == "events":
        game, seq, t, kind, body, crc = r
        if _is_int(game, 1) and _is_int(seq, 1) and _is_int(t) and isinstance(kind, str) and \
                isinstance(body, str) and _is_int(crc):
            out.rows.append((game, seq, t, kind, body, crc))
    elif _is_int(r[0], 1) and _is_int(r[1]):
        out.beats.setdefault(r[0], r[1])


def _count_index(db: sqlite3.Connection, out: Rows) -> None:
    """``out.indexed``: each game's entries in the events' index (game, seq), as far as SQLite reads it."""
    seen: set[tuple[int, int]] = set()
    whole = False
    for order in ("ASC", "DESC"):
        try:
            for g, s in db.execute("SELECT game, seq FROM events INDEXED BY sqlite_autoindex_events_1 "
                                   f"ORDER BY game {order}, seq {order}"):
                if (g, s) in seen:
                    break
                if _is_int(g, 1) and _is_int(s, 1):
                    seen.add((g, s))
            whole = order == "ASC"
            break
        except (sqlite3.Error, ValueError, OverflowError):
            continue
    if not whole:
        part = "be read only in part" if seen else "not be read"
        out.problems.append(f"the file's index of events could {part}, so an event lost with a damaged page after "
                            f"the last one found would not be known")
    for g, s in seen:
        out.indexed.setdefault(g, set()).add(s)


def read_padded(file: Path) -> Rows:
    """:func:`read_rows` of a copy of ``file`` padded by :func:`pad_copy` (the file itself is not touched)."""
    with tempfile.TemporaryDirectory(prefix="kiosk-readable-") as tmp:
        copy = Path(tmp) / "j.sqlite"
        try:
            shutil.copyfile(file, copy)
        except OSError as exc:
            return Rows(problems=[f"it cannot be copied to be read ({exc.strerror})"])
        notes = [n for n in (repair_header(copy), pad_copy(copy)) if n]
        rows = read_rows(copy)
    rows.problems[:0] = notes
    return rows


def damage_words(file: Path, check: str = "") -> str:
    """What is wrong with the damaged journal ``file`` and what can still be read of it, in words for the
    operator (never SQLite's own report): ``check`` is SQLite's integrity check or error text, if any.

    E.g. "the file is cut short: it ends at byte 32768, so page 9 of 9 is missing; 28 recorded events (1 game)
    can still be read from it".
    """
    lay = layout(file)
    rows = read_padded(file)
    intact = [r for r in rows.rows if r[5] == row_crc(r[0], r[1], r[4])]
    pages = sorted({int(n) for n in re.findall(r"\bpage (\d+)", check)})
    if lay is not None and lay.cut_short:
        what = lay.words()
    elif pages:
        of_pages = f" (of {lay.whole_size // lay.page} pages)" if lay is not None else ""
        some = [str(n) for n in pages[:5]]
        where = f"page {some[0]}" if len(some) == 1 else f"pages {', '.join(some[:-1])} and {some[-1]}"
        what = f"it is damaged at {where}{of_pages}: SQLite's own check finds its pages broken there"
    elif lay is None and _cut_in_header(file):
        what = (f"the file is cut short: it ends at byte {file.stat().st_size}, inside the database header, so "
                f"every page of it is gone")
    elif lay is None and header_only(file):
        what = ("its header is overwritten (it no longer starts as an SQLite database file), but every page behind "
                "it is intact: it looks like a damaged kiosk journal, all of which can be read once its header is "
                "rebuilt on a copy")
    elif lay is None:
        what = "it no longer starts as an SQLite database file (its first page is overwritten or lost)" + (
            ", but its other pages hold a kiosk journal's events: it looks like a damaged kiosk journal"
            if intact else "")
    else:
        what = "SQLite cannot read its structure (its pages are overwritten or out of place)"
    return f"{what}; {_saved(rows)}"


def saved_words(file: Path) -> str:
    """How many of the damaged journal ``file``'s recorded events can still be read, in words: "92 of its 93
    recorded events (1 game) can still be read from it", or "no recorded event can be read from it"."""
    return _saved(read_padded(file))


def _saved(rows: Rows) -> str:
    intact = [r for r in rows.rows if r[5] == row_crc(r[0], r[1], r[4])]
    n, games = len(intact), len({r[0] for r in intact})
    total = max(sum(rows.recorded.values()), len({(r[0], r[1]) for r in rows.rows}))
    events = f"{n} of its {total} recorded events" if total > n else counted(n, "recorded event")
    return f"{events} ({counted(games, 'game')}) can still be read from it" if n else \
        "no recorded event can be read from it"


def _cut_in_header(file: Path) -> bool:
    """The file is the start of an SQLite file cut short inside its 100-byte header."""
    try:
        with open(file, "rb") as f:
            head = f.read(100)
    except OSError:
        return False
    return 0 < len(head) < 100 and head[:16] == SQLITE_HEADER[:len(head[:16])]


__all__ = ["Layout", "Rows", "damage_words", "layout", "pad_copy", "read_padded", "read_rows", "row_crc", "saved_words"]
