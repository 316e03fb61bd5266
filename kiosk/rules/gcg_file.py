"""Cutting a GCG file into game records, with bounded memory: the byte level of
:func:`kiosk.rules.gcg.iter_gcg` (and of :func:`kiosk.rules.gcg.read_gcg`, its first game).

A GCG file normally holds one game; a director's whole event may be one file of games written one after
another (several MB). The file is read in chunks and cut into game records: a record ends where, after a move
(or a ``#rack`` line), a ``#player1`` or ``#character-encoding`` line begins the next game - the pragma and
blank lines just before it (``#title``, ``#id``, ...) go with the game they open. :mod:`kiosk.rules.gcg`
decodes each record (its own ``#character-encoding`` line, or the file's first one, or UTF-8 falling back to
ISO-8859-1) and parses it with the one parser, with the file's own line numbers, so every error still names
file and line. Only one record is in memory at a time.

Limits (a real game record is 2-5 KB; an annotated one perhaps 100 KB): a record over
:data:`MAX_RECORD_BYTES` is not parsed - it comes back as a game holding only an error naming file, line and
the limit - and a line over :data:`MAX_LINE_BYTES` is cut there (the parser warns about any line over 512
characters). A file of any size is thus read in a few MB.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

CHUNK = 64 * 1024
MAX_LINE_BYTES = 64 * 1024          #: a line is cut here (GCG readers accept 512 characters)
MAX_RECORD_BYTES = 1024 * 1024      #: one game record; refused beyond (a real one is a few KB)
_PENDING_MAX = 64                   # lines held while deciding which game they open
_EOL = re.compile(rb"\r\n|\r|\n")
DECLARED = re.compile(rb"(?:\xef\xbb\xbf)?#character-encoding\s+(\S+)")   #: a record's own encoding line
_OPENS = (b"player1", b"character-encoding")                # keywords that begin a game after a move
_STAYS = (b"note", b"rack1", b"rack2", b"rack3", b"rack4", b"incomplete")   # belong to the game before


def lines_of(fh: BinaryIO) -> Iterator[bytes]:
    """The lines of ``fh`` without their ends (LF, CRLF or CR, as the parser splits; a last line even when
    empty), each cut at :data:`MAX_LINE_BYTES`. Reads :data:`CHUNK` bytes at a time."""
    buf = b""
    cut: bytes | None = None      # the start of a line too long, while its end is not read yet
    while chunk := fh.read(CHUNK):
        buf += chunk
        held = b"\r" if buf.endswith(b"\r") else b""   # may be the first half of a CRLF across two reads
        parts = _EOL.split(buf[:len(buf) - len(held)])
        buf = parts.pop() + held
        if parts and cut is not None:
            parts[0], cut = cut, None
        yield from (p[:MAX_LINE_BYTES] for p in parts)
        if len(buf) > MAX_LINE_BYTES:
            cut = cut if cut is not None else buf[:MAX_LINE_BYTES]
            buf = held
    parts = _EOL.split(buf)
    if cut is not None:
        parts[0] = cut
    yield from (p[:MAX_LINE_BYTES] for p in parts)


@dataclass
class GameRecord:
    """One game's lines as read (without their ends): ``start`` (the file's line number of the first),
    ``size`` (bytes), ``lines`` (dropped once over :data:`MAX_RECORD_BYTES`: ``too_large``)."""

    start: int
    lines: list[bytes] = field(default_factory=list)
    size: int = 0
    too_large: bool = False
    closed: bool = False     # a move (or #rack line) was read: a #player1 line now opens the next game

    def add(self, lines: list[bytes]) -> None:
        self.size += sum(len(x) + 1 for x in lines)
        if self.size > MAX_RECORD_BYTES:
            self.too_large, self.lines = True, []
        elif not self.too_large:
            self.lines += lines


def _keyword(line: bytes) -> bytes | None:
    """A pragma line's keyword in lower case (as the parser reads it: after a space or a tab), or None for any
    other line."""
    line = line.removeprefix(b"\xef\xbb\xbf")   # a BOM where two files were joined
    if not line.startswith(b"#"):
        return None
    return re.split(rb"[ \t]", line.rstrip()[1:], maxsplit=1)[0].strip().lower()


def game_records(lines: Iterable[bytes]) -> Iterator[GameRecord]:
    """Cut a file's lines into game records (see module doc), in file order; never holds more than one."""
    rec = GameRecord(1)
    pending: list[bytes] = []
    for n, line in enumerate(lines, 1):
        kw = _keyword(line)
        if rec.closed and kw in _OPENS:
            yield rec
            rec = GameRecord(n - len(pending))
            rec.add(pending + [line])
            pending = []
        elif rec.closed and (not line.strip() or (kw is not None and kw not in _STAYS)):
            pending.append(line)
            if len(pending) > _PENDING_MAX:
                rec.add(pending)
                pending = []
        else:
            rec.add(pending + [line])
            pending = []
            rec.closed = rec.closed or line.startswith(b">") or kw in _STAYS[1:5]
    rec.add(pending)
    yield rec
