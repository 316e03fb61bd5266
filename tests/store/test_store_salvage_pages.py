"""``kiosk journal recover`` and ``show`` with one page of a finished game's journal damaged, page by page: the
header, the first page (header and schema), the events table's root, its first, middle and last leaf (the last
page), its index, and the other tables' pages. A tester's journal with one damaged page kept events 1-23 of the
60 ``show`` said could be read, the finished game's result among those dropped.

What was wrong (a 93-event game on 10 pages of 4096 bytes: the events on leaves 8, 9 and 10, their tree's root on
page 5): SQLite reads a table only through its tree, so a damaged root hid all 93 intact events ("nothing could be
read"), a damaged first page made the file "not a kiosk journal"; Python's cursor read on past its row and dropped
the last intact event before a damaged page (event 78 of a lost last leaf, event 31 of a lost middle leaf); and
recover kept only each game's prefix up to the first lost event and dropped the rest (the middle leaf lost: events
1-30 kept, 63 dropped, 15 of them intact, the game's end among them; the first leaf lost: nothing at all, exit 1).

Now every intact event row is found in the file's bytes by its checksum (kiosk.store.carve), a damaged header is
rebuilt on a copy (kiosk.store.header), and the intact events after a lost one are set aside - listed in the report
with their content and written to ``PATH.set-aside-N.jsonl`` - never dropped; the report names exactly which events
were lost."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kiosk.cli import main
from kiosk.store import Journal
from tests.store.journal_fixtures import FINISHED_GAME, write_finished_journal

SCRIPT = FINISHED_GAME
N = len(SCRIPT)


def _varint(b: bytes, at: int) -> tuple[int, int]:
    v = 0
    for i in range(9):
        if i == 8:
            return (v << 8) | b[at + i], at + 9
        v = (v << 7) | (b[at + i] & 0x7F)
        if b[at + i] < 0x80:
            return v, at + i + 1
    raise AssertionError


def _tree(data: bytes, root: int, page: int) -> tuple[list[int], dict[int, list[int]]]:
    """(inner pages, {leaf page: rowids on it}) of the table or index tree at ``root``."""
    inner, leaves, todo = [], {}, [root]
    while todo:
        p = todo.pop()
        base = (p - 1) * page + (100 if p == 1 else 0)
        kind, cells = data[base], int.from_bytes(data[base + 3:base + 5], "big")
        head = 12 if kind in (2, 5) else 8
        ptrs = [int.from_bytes(data[base + head + 2 * i:base + head + 2 * i + 2], "big") + (p - 1) * page
                for i in range(cells)]
        if kind in (2, 5):
            inner.append(p)
            todo += [int.from_bytes(data[c:c + 4], "big") for c in ptrs]
            todo.append(int.from_bytes(data[base + 8:base + 12], "big"))
        elif kind == 13:
            leaves[p] = [_varint(data, _varint(data, c)[1])[0] for c in ptrs]
        else:
            leaves[p] = []
    return inner, leaves


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    """(the bytes of a journal holding one finished game, its page size, {role: page}, {leaf: seqs on it})."""
    path = write_finished_journal(tmp_path_factory.mktemp("pages") / "j.sqlite")
    data = path.read_bytes()
    db = sqlite3.connect(path)
    page = db.execute("PRAGMA page_size").fetchone()[0]
    roots = dict(db.execute("SELECT name, rootpage FROM sqlite_master"))
    seq_of = dict(db.execute("SELECT rowid, seq FROM events"))
    db.close()
    inner, leaves = _tree(data, roots["events"], page)
    assert inner == [roots["events"]] and len(leaves) >= 3, (inner, leaves)  # a root over three leaves or more
    order = sorted(leaves, key=lambda p: min(leaves[p]))
    seqs = {p: sorted(seq_of[r] for r in leaves[p]) for p in order}
    roles = {"events root": roots["events"], "first leaf": order[0], "middle leaf": order[len(order) // 2],
             "last leaf": order[-1], "events index": roots["sqlite_autoindex_events_1"], "games": roots["games"],
             "heartbeat": roots["heartbeat"], "meta": roots["meta"]}
    assert _tree(data, roots["sqlite_autoindex_events_1"], page)[0] == []   # the index: one page
    assert order[-1] == len(data) // page   # the last leaf is the file's last page
    return data, page, roles, seqs


def _damaged(tmp_path, data: bytes, start: int, end: int):
    b = bytearray(data)
    b[start:end] = bytes((i * 97 + 13) % 256 for i in range(end - start))   # garbage, not zeros
    path = tmp_path / "j.sqlite"
    path.write_bytes(bytes(b))
    return path


def _show(path, capsys) -> tuple[int, str]:
    rc = main(["journal", "show", str(path)])
    out = capsys.readouterr()
    return rc, out.out + out.err


def _recover(path, capsys) -> str:
    rc = main(["journal", "recover", str(path)])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert "Traceback" not in out.err
    return out.out


def _kept(path) -> int:
    with Journal(path, readonly=True) as j:
        return len(j.events(1))


@pytest.mark.parametrize("role", ["events root", "events index", "games", "heartbeat", "meta"])
def test_a_damaged_page_whose_rows_are_elsewhere_loses_nothing(tmp_path, capsys, journal, role):
    """The events table's root (old: "no recorded event can be read", recover "nothing could be read", exit 1),
    the index, the games, heartbeat and meta tables: every event is still whole on its leaf, so all 93 are kept
    and the finished game stays finished."""
    data, page, roles, _ = journal
    p = roles[role]
    path = _damaged(tmp_path, data, (p - 1) * page, p * page)
    rc, shown = _show(path, capsys)
    assert rc == 1 and f"{N} recorded events (1 game) can still be read from it" in shown
    out = _recover(path, capsys)
    assert f"game 1 (Ann vs Bob): all {N} events kept, finished" in out and "0 events lost;" in out
    assert "set aside" not in out and _kept(path) == N
    if role == "events index":   # the report says what the lost index means
        assert "the file's index of events could not be read" in out


@pytest.mark.parametrize("what", ["header string", "whole header", "schema", "first page"])
def test_a_damaged_first_page_is_a_damaged_journal_and_all_of_it_is_recovered(tmp_path, capsys, journal, what):
    """The first 16 bytes (SQLite's mark), the whole 100-byte header, the schema behind it, the whole first page:
    old: "is not a kiosk journal" (exit 2), or with the header intact "nothing could be read" (exit 1). Now it is
    a damaged kiosk journal: show says so and how to recover it (also into a new journal with --from), and recover
    keeps all 93 events."""
    data, page, _, _ = journal
    start, end = {"header string": (0, 16), "whole header": (0, 100), "schema": (100, page),
                  "first page": (0, page)}[what]
    path = _damaged(tmp_path, data, start, end)
    rc, shown = _show(path, capsys)
    assert rc == 1 and "not a kiosk journal" not in shown, shown
    assert f"{N} recorded events (1 game) can still be read from it" in shown
    assert f"`kiosk journal recover NEW.sqlite --from {path}`" in shown and f"`kiosk journal recover {path}`" in shown
    if what in ("header string", "whole header"):
        assert "but every page behind it is intact: it looks like a damaged kiosk journal" in shown
    elif what == "first page":
        assert "it looks like a damaged kiosk journal" in shown
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(path.read_bytes())
    out = _recover(path, capsys)
    assert f"game 1 (Ann vs Bob): all {N} events kept, finished" in out and _kept(path) == N
    if what != "schema":
        assert "its header was damaged" in out and "rebuilt on a copy" in out
    fresh = tmp_path / "fresh.sqlite"   # --from: into a new journal, the damaged file left as it is
    before = copy.read_bytes()
    assert main(["journal", "recover", str(fresh), "--from", str(copy)]) == 0
    assert f"all {N} events kept" in capsys.readouterr().out and _kept(fresh) == N
    assert copy.read_bytes() == before


def test_the_first_leaf_lost_sets_the_rest_aside(tmp_path, capsys, journal):
    """Old: show "61 of its 93", recover "nothing could be read" (exit 1): 62 intact events, the game's end among
    them, not kept anywhere. Now events 1-31 are lost (named), 32-93 set aside, each listed with its content."""
    data, page, roles, seqs = journal
    p = roles["first leaf"]
    lost = seqs[p]
    path = _damaged(tmp_path, data, (p - 1) * page, p * page)
    rc, shown = _show(path, capsys)
    assert f"{N - len(lost)} of its {N} recorded events" in shown
    out = _recover(path, capsys)
    assert f"game 1 (players unknown): no event kept; lost events 1-{lost[-1]} (missing: on a page that is " \
           f"damaged or gone); set aside events {lost[-1] + 1}-{N} (intact, but after the break" in out
    body = json.dumps(SCRIPT[-1].to_dict(), separators=(",", ":"), sort_keys=True)
    assert f"    set aside: event {N} ({SCRIPT[-1].type}): {body}" in out   # the game's end, whole
    assert f"{len(lost)} events lost, {N - len(lost)} intact events set aside in {tmp_path / 'j.sqlite.set-aside-1.jsonl'}" in out
    lines = [json.loads(x) for x in (tmp_path / "j.sqlite.set-aside-1.jsonl").read_text().splitlines()]
    assert [x["seq"] for x in lines] == list(range(1, N + 1))
    assert all("lost" in x for x in lines[:len(lost)])
    assert [x["event"] for x in lines[len(lost):]] == [ev.to_dict() for ev in SCRIPT[len(lost):]]


@pytest.mark.parametrize("leaf", ["middle leaf", "last leaf"])
def test_a_lost_leaf_keeps_every_event_before_it_and_sets_aside_every_one_after(tmp_path, capsys, journal, leaf):
    """The middle leaf: old kept events 1-30 and dropped 63 (event 31 intact but dropped by the cursor, 15 intact
    after the page, the result among them). The last leaf (the file's last page): old kept 1-77 (event 78
    intact). Now: every event before the page kept, exactly the page's events named lost, every one after it set
    aside (listed, and in the set-aside file)."""
    data, page, roles, seqs = journal
    p = roles[leaf]
    lost = seqs[p]
    path = _damaged(tmp_path, data, (p - 1) * page, p * page)
    rc, shown = _show(path, capsys)
    assert f"{N - len(lost)} of its {N} recorded events" in shown
    out = _recover(path, capsys)
    first = lost[0] - 1
    assert f"kept events 1-{first}; lost events {lost[0]}-{lost[-1]} (missing: on a page that is damaged or gone)" in out
    assert _kept(path) == first
    if lost[-1] < N:
        assert f"set aside events {lost[-1] + 1}-{N} (intact, but after the break: not replayed; written to " \
               f"j.sqlite.set-aside-1.jsonl beside the journal, for the judge to re-enter)" in out
        assert f"    set aside: event {N} ({SCRIPT[-1].type}): " in out
        lines = [json.loads(x) for x in (tmp_path / "j.sqlite.set-aside-1.jsonl").read_text().splitlines()]
        assert [x["seq"] for x in lines] == list(range(lost[0], N + 1))
        assert [x["event"] for x in lines if "event" in x] == [ev.to_dict() for ev in SCRIPT[lost[-1]:]]
    else:
        assert "set aside" not in out and f"{len(lost)} events lost;" in out
    assert f"cut short at event {first} (scores as they stood then)" in out   # the game's end is not kept
