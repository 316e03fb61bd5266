"""A journal file's damaged SQLite header, rebuilt on a copy so that SQLite reads the pages behind it.

SQLite refuses a whole file whose first 100 bytes (its header: the mark ``SQLite format 3``, the page size, the
file's page count ...) are damaged - "file is not a database" - although every page of it may be intact: a
journal whose first 16 bytes were overwritten was refused as "not a kiosk journal". :func:`repair_header` writes
the fields that no longer hold a valid value back on a copy, as the journal writes them (the mark, the page size
its pages show, WAL format, no reserved bytes, SQLite's fixed payload fractions, the page count of the file, UTF-8,
schema format 4, no free-page list and no auto-vacuum); :func:`header_only` tells whether that is all that is
wrong with a file. The file itself is never changed.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from kiosk.store.carve import page_size_of
from kiosk.store.foreign import SQLITE_HEADER, sqlite_uri


def _valid_page(raw: bytes | bytearray) -> bool:
    size = int.from_bytes(raw, "big")
    return size == 1 or 512 <= size <= 32768 and not size & (size - 1)


def rebuilt(head: bytes, data: bytes) -> bytes | None:
    """The 100-byte header ``head`` of a journal file (``data``: its bytes) with its damaged fields written back,
    or None when it starts as an SQLite file with a valid page size and payload fractions (nothing to rebuild)."""
    if len(head) < 100:
        return None
    if head.startswith(SQLITE_HEADER) and _valid_page(head[16:18]) and head[21:24] == b"\x40\x20\x20":
        return None
    h = bytearray(head)
    h[0:16] = SQLITE_HEADER
    if not _valid_page(h[16:18]):
        page = page_size_of(data)   # from the pages' layout (the header's own value is lost)
        h[16:18] = (1 if page == 65536 else page).to_bytes(2, "big")
    page = 65536 if h[16:18] == b"\x00\x01" else int.from_bytes(h[16:18], "big")
    if h[18] not in (1, 2) or h[19] not in (1, 2):
        h[18:20] = b"\x02\x02"
    h[20:24] = b"\x00\x40\x20\x20"
    h[28:32] = (-(-len(data) // page)).to_bytes(4, "big")
    h[92:96] = h[24:28]                        # SQLite trusts the page count only when these agree
    h[32:40] = bytes(8)                        # the free-page list: none (a journal never deletes)
    if int.from_bytes(h[44:48], "big") not in (1, 2, 3, 4):
        h[44:48] = (4).to_bytes(4, "big")
    h[52:56] = bytes(4)                        # no auto-vacuum (a journal never uses it)
    if int.from_bytes(h[56:60], "big") not in (1, 2, 3):
        h[56:60] = (1).to_bytes(4, "big")
    h[64:68] = bytes(4)
    return bytes(h)


def repair_header(copy: Path) -> str | None:
    """Rebuild the damaged header of ``copy`` (a copy, never a journal itself) in place; what was done in words,
    or None when its header was sound (or the file cannot be read)."""
    try:
        data = copy.read_bytes()
    except OSError:
        return None
    new = rebuilt(data[:100], data)
    if new is None:
        return None
    try:
        with open(copy, "r+b") as f:
            f.write(new)
    except OSError as exc:
        return f"its header is damaged (it no longer starts as an SQLite database file) and could not be rebuilt " \
               f"on a copy ({exc.strerror})"
    return "its header was damaged (it no longer started as an SQLite database file): it was rebuilt on a copy to " \
           "read the pages behind it"


def header_only(file: Path) -> bool:
    """Whether ``file``'s header is damaged and the rest of it is intact: with the header rebuilt (on a copy)
    SQLite's own check finds nothing wrong."""
    with tempfile.TemporaryDirectory(prefix="kiosk-header-") as tmp:
        copy = Path(tmp) / "j.sqlite"
        try:
            shutil.copyfile(file, copy)
        except OSError:
            return False
        if repair_header(copy) is None:
            return False
        try:
            db = sqlite3.connect(sqlite_uri(copy, "mode=rw"), uri=True, isolation_level=None)
        except sqlite3.Error:
            return False
        try:
            return [r[0] for r in db.execute("PRAGMA quick_check")] == ["ok"]
        except (sqlite3.Error, UnicodeDecodeError):
            return False
        finally:
            db.close()


__all__ = ["header_only", "rebuilt", "repair_header"]
