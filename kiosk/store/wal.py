"""A write-ahead log's frames: does SQLite apply the whole log, or does it stop at a damaged frame?

SQLite applies a log's frames in order while each one's salts match the log's header and its running checksum
holds, up to the last frame that ends a write (a *commit* frame); it silently ignores the rest. A log left beside
a journal after a crash may end in the one write that was under way (never acknowledged: its frames stop before
a commit frame, or its last frame is cut short): dropping it is the journal's design. But a damaged frame
followed by a frame of the same log that ends a write means a finished write lies behind the damage: applying the
log would drop it without a word. :func:`wal_damage` says so, in words; nothing here writes or raises for damage.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

_MAGIC = (0x377F0682, 0x377F0683)
_HEADER = 32
_FRAME_HEADER = 24


@dataclass(frozen=True)
class WalFrames:
    """A log's frames: ``total`` whole frames, ``applied`` those SQLite applies (up to its last good commit
    frame), ``broken`` the first frame (1-based) of this log whose checksum fails (None: none), ``finished_after``
    whether a frame of this log from the broken one on ends a write, ``header_ok`` whether its header holds."""

    total: int
    applied: int
    broken: int | None
    finished_after: bool
    header_ok: bool


def _checksum(data: bytes, big: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack((">" if big else "<") + f"{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_frames(data: bytes) -> WalFrames | None:
    """The frames of a write-ahead log's bytes ``data``, or None (shorter than a header, or no page size)."""
    if len(data) < _HEADER:
        return None
    magic, _version, page, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:_HEADER])
    if page < 512 or page > 65536 or page & (page - 1):
        return None
    big = magic == _MAGIC[1]
    size = _FRAME_HEADER + page
    total = (len(data) - _HEADER) // size
    header_ok = magic in _MAGIC and _checksum(data[:24], big, 0, 0) == (c1, c2)
    if not header_ok:   # SQLite ignores the whole log: take the salts its frames carry
        if not total:
            return WalFrames(0, 0, None, False, False)
        salt1, salt2 = struct.unpack(">2I", data[_HEADER + 8:_HEADER + 16])
    s = (c1, c2)
    applied, broken, finished_after = 0, None, False
    for i in range(total):
        at = _HEADER + i * size
        _pgno, commit, f1, f2, k1, k2 = struct.unpack(">6I", data[at:at + _FRAME_HEADER])
        if (f1, f2) != (salt1, salt2):
            if broken is None:
                break   # an older log's frames (the log was started afresh over them): never applied
            continue
        if broken is None and header_ok:
            s = _checksum(data[at:at + 8] + data[at + _FRAME_HEADER:at + size], big, *s)
            if s == (k1, k2):
                applied = i + 1 if commit else applied
                continue
        if broken is None:
            broken = i + 1
        finished_after = finished_after or commit != 0
    return WalFrames(total, applied, broken, finished_after, header_ok)


def wal_damage(wal: Path, name: str | None = None) -> str | None:
    """Why the write-ahead log ``wal`` cannot be applied whole - a write it finished lies behind a damaged frame
    (or its damaged header), which SQLite would drop without a word - or None (no log, a whole log, or one that
    ends in the one unfinished write). ``name``: the log's name in the words."""
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    frames = wal_frames(data)
    if frames is None or frames.broken is None or not frames.finished_after:
        return None
    name = name or wal.name
    where = (f"its header is damaged, so SQLite would use none of its {frames.total} frames" if not frames.header_ok
             else f"its frame {frames.broken} of {frames.total} is damaged (its checksum does not hold)")
    return (f"the write-ahead log {name} beside it cannot be applied whole: {where}, and a write the kiosk "
            f"finished lies after it (SQLite would drop it without a word)")


__all__ = ["WalFrames", "wal_damage", "wal_frames"]
