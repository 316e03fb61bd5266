"""A write-ahead log's frames: does SQLite apply the whole log, or does it stop at a damaged frame?

SQLite applies a log's frames in order while each one's salts match the log's header and its running checksum
holds, up to the last frame that ends a write (a *commit* frame); it silently ignores the rest, from the first
frame that fails on (SQLite's file format, "the WAL file": a frame whose checksum fails and every frame after it
are ignored). A log left beside a journal after a crash may end in the one write that was under way (never
acknowledged: its frames stop before a commit frame, its last frame is cut short, or its frames are torn: a power
cut before the write's fsync, some of its bytes never on the disk): dropping it is the journal's design. But a
damaged frame followed by a frame of the same log that ends a write means a finished write lies behind the damage:
applying the log would drop it without a word. :func:`wal_damage` says so, in words; nothing here writes or raises
for damage.

A *torn tail* - damaged frames with no whole frame after them (none whose checksum holds, chained from the stored
checksum of the frame before it: nothing reached the disk after the damage) - is that write under way, whatever its
frames' headers say (a torn commit frame keeps its header): the log is applied as SQLite applies it, the torn write
dropped (:func:`torn_tail` says so, for the log). A write is acknowledged only after its fsync, which comes after
all its frames, so a torn write was never acknowledged; a damaged frame with a whole frame after it may be a
finished write damaged later, and keeps the journal from being used, as does a torn tail holding a whole event
SQLite would not apply (``kiosk journal recover`` carries it: nothing that can still be read is dropped).
"""

from __future__ import annotations

import struct
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from kiosk.rules.counts import counted
from kiosk.store.carve import carve_events

_MAGIC = (0x377F0682, 0x377F0683)
_HEADER = 32
_FRAME_HEADER = 24


@dataclass(frozen=True)
class WalFrames:
    """A log's frames: ``total`` whole frames, ``applied`` those SQLite applies (up to its last good commit
    frame), ``broken`` the first frame (1-based) of this log whose checksum fails (None: none), ``finished_after``
    whether a frame of this log from the broken one on ends a write, ``header_ok`` whether its header holds,
    ``whole_after`` whether a frame after the broken one is whole as it was written (its salts match and its
    checksum holds, chained from the stored checksum of the frame before it: the disk took a write after the
    damage)."""

    total: int
    applied: int
    broken: int | None
    finished_after: bool
    header_ok: bool
    whole_after: bool = False

    @property
    def torn_tail(self) -> bool:
        """The damage is the log's tail: damaged frames with nothing whole after them (module doc)."""
        return self.broken is not None and self.header_ok and not self.whole_after


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
    s = stored = (c1, c2)
    applied, broken, finished_after, whole_after = 0, None, False, False
    for i in range(total):
        at = _HEADER + i * size
        _pgno, commit, f1, f2, k1, k2 = struct.unpack(">6I", data[at:at + _FRAME_HEADER])
        before, stored = stored, (k1, k2)
        if (f1, f2) != (salt1, salt2):
            if broken is None:
                break   # an older log's frames (the log was started afresh over them): never applied
            continue
        frame = data[at:at + 8] + data[at + _FRAME_HEADER:at + size]
        if broken is None and header_ok:
            s = _checksum(frame, big, *s)
            if s == (k1, k2):
                applied = i + 1 if commit else applied
                continue
        if broken is None:
            broken = i + 1
        else:
            whole_after = whole_after or header_ok and _checksum(frame, big, *before) == (k1, k2)
        finished_after = finished_after or commit != 0
    return WalFrames(total, applied, broken, finished_after, header_ok, whole_after)


def _frames(wal: Path) -> tuple[bytes, WalFrames] | None:
    """The bytes of the log ``wal`` and its frames, or None (no log, unreadable, no header)."""
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    frames = wal_frames(data)
    return None if frames is None else (data, frames)


def _tail_events(data: bytes, frames: WalFrames, applied: Collection[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """The (game, seq) of the whole events in the damaged tail's bytes that SQLite does not apply (``applied``: the
    events the journal holds with the log applied; None: not known, every whole event there counts)."""
    assert frames.broken is not None
    page = int.from_bytes(data[8:12], "big")
    tail = data[_HEADER + (frames.broken - 1) * (_FRAME_HEADER + page):]
    found = sorted((g, s) for g, s, *_ in carve_events(tail))
    return [k for k in found if applied is None or k not in applied]


def wal_damage(wal: Path, name: str | None = None, applied: Collection[tuple[int, int]] | None = None) -> str | None:
    """Why the write-ahead log ``wal`` cannot be applied whole - a write it finished lies behind a damaged frame
    (or its damaged header), or its torn tail holds a whole event, which SQLite would drop without a word - or None
    (no log, a whole log, or one that ends in the one unfinished write: no commit frame after the damage, or a torn
    tail holding no whole event SQLite does not apply). ``name``: the log's name in the words; ``applied``: the
    (game, seq) of the events the journal holds with the log applied (None: not known; then any whole event in a
    torn tail keeps it from being applied)."""
    got = _frames(wal)
    if got is None:
        return None
    data, frames = got
    if frames.broken is None or not frames.finished_after:
        return None
    name = name or wal.name
    where = (f"its header is damaged, so SQLite would use none of its {frames.total} frames" if not frames.header_ok
             else f"its frame {frames.broken} of {frames.total} is damaged (its checksum does not hold)")
    if frames.torn_tail:
        events = _tail_events(data, frames, applied)
        if not events:
            return None
        shown = ", ".join(f"game {g} event {s}" for g, s in events[:5]) + (", ..." if len(events) > 5 else "")
        return (f"the write-ahead log {name} beside it cannot be applied whole: {where}, nothing whole after it, and "
                f"the damaged frames hold {counted(len(events), 'whole event')} ({shown}) "
                f"SQLite would drop without a word")
    return (f"the write-ahead log {name} beside it cannot be applied whole: {where}, and a write the kiosk "
            f"finished lies after it (SQLite would drop it without a word)")


def torn_tail(wal: Path, name: str | None = None) -> str | None:
    """When the write-ahead log ``wal`` ends in a torn write that SQLite drops (module doc; :func:`wal_damage` has
    found nothing in it to keep), what is dropped, in words for the log; else None. ``name``: the log's name."""
    got = _frames(wal)
    frames = got[1] if got is not None else None
    if frames is None or frames.broken is None or not frames.torn_tail:
        return None
    first = frames.broken
    last = f"frames {first}-{frames.total}" if frames.total > first else f"frame {first}"
    return (f"the write-ahead log {name or wal.name} ended in a torn write ({last} of {frames.total} damaged, "
            f"nothing whole after them): the write under way when the kiosk stopped, never acknowledged, was "
            f"dropped as SQLite drops it (the writes before it, in its first {frames.applied} frames, were "
            f"applied)")


__all__ = ["WalFrames", "torn_tail", "wal_damage", "wal_frames"]
