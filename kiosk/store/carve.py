"""Journal events read from a file's raw bytes, wherever they lie: every event row whose checksum holds.

SQLite reads a table through its pages' tree: one damaged page (the table's root, an inner page, the first page
with the file's header and schema) hides every row below it, although the pages holding the rows are intact. And
a row's bytes often lie in more places than its live cell: a page split or a move of the root leaves the old
copy in the unused space of the page it left. :func:`carve_events` finds them all: every place in the bytes
that holds an events row's record (``game, seq, t, type, body, crc``: its record header, then its values), a row
kept only when its checksum (CRC-32 of ``game:seq:body``, :func:`row_crc`) holds - a row
the kiosk wrote, whole, whatever page it was found on. A body longer than its page's share is followed through
its overflow pages. The journal never changes or deletes an event row, so every such row is a recorded event.

Reads only: nothing is written; nothing raises for damage.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

Row = tuple[int, int, int, str, str, int]

# serial types of an integer (1-6: 1, 2, 3, 4, 6, 8 bytes; 8, 9: the constants 0 and 1)
_INT = rb"[\x01-\x06\x08\x09]"
# an events record's header: its length, then game, seq, t (integers), type (a short text: one byte), body (a
# text: a varint of 1-4 bytes), crc (integer)
_HEADER = re.compile(rb"(?=([\x07-\x0a])(" + _INT + _INT + _INT + rb"[\x0d-\x7f](?:[\x80-\xff]{0,3})[\x00-\x7f]"
                     + _INT + rb"))", re.DOTALL)
_INT_BYTES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 8: 0, 9: 0}
_MAX_CHAIN = 4096   # overflow pages followed for one row at most (a body of ~16 MB with 4 KB pages)


def row_crc(game: int, seq: int, body: str) -> int:
    """The checksum a journal row carries: CRC-32 of ``game:seq:body``."""
    return zlib.crc32(f"{game}:{seq}:{body}".encode())


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's varint at ``at``: (value, its length in bytes)."""
    value = 0
    for i in range(9):
        b = data[at + i]
        if i == 8:
            return (value << 8) | b, 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, i + 1
    raise AssertionError("unreachable")


def _serials(header: bytes) -> list[int] | None:
    """The six serial types of an events record header (its length byte first), or None."""
    out: list[int] = []
    at = 1
    while at < len(header):
        v, n = _varint(header, at)
        out.append(v)
        at += n
    return out if len(out) == 6 and at == header[0] == len(header) else None


def _size(serial: int) -> int:
    return _INT_BYTES[serial] if serial in _INT_BYTES else (serial - 13) // 2


def _payload(data: bytes, start: int, total: int, page: int | None) -> bytes | None:
    """The ``total`` bytes of the record at ``start``: on its page, and past its page's share through its
    overflow pages (SQLite's table-leaf rule; ``page``: the page size, None when not known: no overflow)."""
    if page is None or total <= page - 35:
        return data[start:start + total] if start + total <= len(data) else None
    usable = page
    least = (usable - 12) * 32 // 255 - 23
    local = least + (total - least) % (usable - 4)
    if local > usable - 35:
        local = least
    out = bytearray(data[start:start + local])
    if len(out) < local or start + local + 4 > len(data):
        return None
    nxt = int.from_bytes(data[start + local:start + local + 4], "big")
    for _ in range(_MAX_CHAIN):
        if len(out) >= total:
            break
        at = (nxt - 1) * page
        if nxt < 2 or at + page > len(data):
            return None
        nxt = int.from_bytes(data[at:at + 4], "big")
        out += data[at + 4:at + page][:total - len(out)]
    return bytes(out) if len(out) == total else None


def _int(raw: bytes, serial: int) -> int:
    return 0 if serial == 8 else 1 if serial == 9 else int.from_bytes(raw, "big", signed=True)


def _row(data: bytes, start: int, header: bytes, page: int | None) -> Row | None:
    """The events row whose record starts at ``start`` (``header``: its record header), when its checksum holds."""
    serials = _serials(header)
    if serials is None or serials[3] % 2 == 0 or serials[4] < 13 or serials[4] % 2 == 0 or \
            any(s not in _INT_BYTES for s in (serials[0], serials[1], serials[2], serials[5])):
        return None
    sizes = [_size(s) for s in serials]
    record = _payload(data, start, len(header) + sum(sizes), page)
    if record is None:
        return None
    values: list[bytes] = []
    at = len(header)
    for n in sizes:
        values.append(record[at:at + n])
        at += n
    game, seq, t, crc = (_int(values[i], serials[i]) for i in (0, 1, 2, 5))
    try:
        kind, body = values[3].decode("utf-8"), values[4].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if game < 1 or seq < 1 or crc < 0 or crc != row_crc(game, seq, body):
        return None
    try:   # the checksum vouches for the body; the type and time are taken from it (they are copies of it)
        parsed = json.loads(body)
        kind, t = str(parsed["type"]), int(parsed["t"])
    except (ValueError, KeyError, TypeError):
        pass
    return game, seq, t, kind, body, crc


def carve_events(data: bytes, page: int | None = None) -> list[Row]:
    """Every events row of a journal's raw bytes ``data`` whose checksum holds, in the order found, each
    (game, seq) once. ``page``: the page size, to follow a long body through its overflow pages (None: the
    bytes are no database file, e.g. a write-ahead log: only rows held whole in place are found)."""
    found: dict[tuple[int, int], Row] = {}
    for m in _HEADER.finditer(data):
        header = m.group(1) + m.group(2)
        if header[0] != len(header):
            continue
        row = _row(data, m.start(), header, page)
        if row is not None:
            found.setdefault((row[0], row[1]), row)
    return list(found.values())


def page_size_of(data: bytes) -> int:
    """The page size of a journal file's bytes: its header's, or else (a damaged header) the power of two from
    512 to 65536 whose page starts most often hold a B-tree page's type byte (4096, SQLite's own, on a tie)."""
    size = int.from_bytes(data[16:18], "big") if len(data) >= 18 else 0
    size = 65536 if size == 1 else size
    if 512 <= size <= 65536 and not size & (size - 1) and len(data) % size == 0:
        return size
    best, score = 4096, -1.0
    for cand in (4096, 512, 1024, 2048, 8192, 16384, 32768, 65536):   # SQLite's own first: it wins a tie
        starts = range(cand, len(data), cand)
        share = sum(1 for at in starts if data[at] in (2, 5, 10, 13)) / len(starts) if len(starts) else 0.0
        if share > score:
            best, score = cand, share
    return best


def carve_file(file: Path, limit: int | None = None, *, pages: bool = True) -> list[Row]:
    """:func:`carve_events` of ``file`` (its first ``limit`` bytes, if given); [] when it cannot be read (or is
    not there). ``pages``: the file is a database file (long bodies are followed through its overflow pages);
    False for a write-ahead log."""
    try:
        with open(file, "rb") as f:
            data = f.read() if limit is None else f.read(limit)
    except OSError:
        return []
    return carve_events(data, page_size_of(data) if data and pages else None)


__all__ = ["Row", "carve_events", "carve_file", "page_size_of", "row_crc"]
