"""The events a recovery could not carry on, kept for the judge: set aside in a file of their own, listed in words.

A game's events are folded into its state one after another, so when one of them is lost (a damaged page took it)
the intact events after it cannot be replayed: :func:`kiosk.store.salvage.recover_journal` carries the game on
up to the loss and sets the rest aside - never drops them. They are written, whole, as JSON lines to
``<journal>.set-aside-<n>.jsonl`` beside the fresh journal (the first free ``n``), with one line for each event
lost among them, so the judge can see the gap and re-enter the moves; the damaged copy stays on disk too.

Each line is a JSON object: ``{"game": 1, "seq": 28, "lost": "missing: ..."}`` for a lost event (with
``damaged_body``, the text its damaged row holds, when one was read: its checksum fails, so it is never replayed,
but the judge may recognise the move),
``{"game": 1, "seq": 29, "set_aside": "...", "event": {...}}`` for one set aside (``event``: the event exactly as
the journal recorded it; ``body``, its recorded text, instead when that is no JSON).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from kiosk.files import write_atomic


def spans(seqs: Iterable[int]) -> str:
    """Sequence numbers as ranges: ``"event 5"``, ``"events 5-9, 12"``."""
    nums = sorted(set(seqs))
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ("event " if len(nums) == 1 else "events ") + ", ".join(parts)


def lost_words(lost: Sequence[tuple[int, str]]) -> str:
    """``"lost event 28 (missing: ...), events 40-41 (damaged: ...)"``: the lost events grouped by why."""
    whys: dict[str, list[int]] = {}
    for seq, why in lost:
        whys.setdefault(why, []).append(seq)
    return "lost " + ", ".join(f"{spans(seqs)} ({why})" for why, seqs in whys.items())


def content(body: str) -> object:
    """A recorded event's body as JSON (its text when it is no JSON)."""
    try:
        return json.loads(body)
    except ValueError:
        return body


def event_line(seq: int, kind: str, body: str) -> str:
    """One set-aside event for the report: ``event 29 (play): {"player":0,...}``, its recorded content whole."""
    return f"event {seq} ({kind}): {body}"


def free_path(journal: Path) -> Path:
    """``<journal>.set-aside-<n>.jsonl`` for the first ``n`` not taken."""
    n = 1
    while (p := journal.with_name(f"{journal.name}.set-aside-{n}.jsonl")).exists() or p.is_symlink():
        n += 1
    return p


Lost = Sequence[tuple[int, str]]


def write_set_aside(journal: Path, games: Sequence[tuple[int, str, Lost, Sequence[tuple], Mapping[int, str]]]) -> Path:
    """Write each game's lost and set-aside events to a new file beside ``journal`` (in sequence order); returns
    its path. ``games``: (game, why its replay stops, lost [(seq, why)], set-aside rows (game, seq, t, type, body,
    crc), {seq: a lost event's damaged text}). Raises OSError naming the file when it cannot be written (nothing
    is left behind)."""
    lines: list[str] = []
    for game, why, lost, rows, damaged in games:
        entries: list[tuple[int, dict]] = [
            (seq, {"game": game, "seq": seq, "lost": reason,
                   **({"damaged_body": damaged[seq]} if seq in damaged else {})}) for seq, reason in lost]
        for r in rows:
            body = content(r[4])
            entries.append((r[1], {"game": game, "seq": r[1], "set_aside": f"not replayed: {why}",
                                   **({"event": body} if isinstance(body, dict) else {"body": r[4]})}))
        lines += [json.dumps(e, ensure_ascii=False, sort_keys=True) for _, e in sorted(entries, key=lambda x: x[0])]
    path = free_path(journal)
    write_atomic(path, "\n".join(lines) + "\n")
    return path


__all__ = ["content", "event_line", "free_path", "lost_words", "spans", "write_set_aside"]
