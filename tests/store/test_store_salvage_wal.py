"""A write-ahead log left beside a journal: used when it is this journal's, never dropped without a word.

A tester's findings: a left-over log with one damaged frame - `recover` said "the journal is intact: nothing to
recover" (exit 1) and the log was gone afterwards (its open let SQLite apply the frames before the damage and
delete it), `show` listed the game without the log's events and said nothing of it. And an intact log of this
journal (its id) adding several events (a reader kept them from being folded in) was called "another journal's
log", its events neither used nor set aside."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from kiosk.cli import main
from kiosk.referee.simulate import random_game
from kiosk.store import GameSession, Journal, JournalCorrupt
from kiosk.store.carve import row_crc
from kiosk.store.wal import wal_damage, wal_frames

SCRIPT = random_game("nsf", seed=31)


def _snapshot(folder):
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _left_over_log(path, n, extra, *, skip=0):
    """A journal of ``n`` events at ``path`` and beside it the write-ahead log of ``extra`` more appends (one
    write each, never folded in: as a reader blocking the fold leaves them); ``skip``: sequence numbers left out
    before them (a log whose events do not continue the game)."""
    return _log_ending_in(path, n, extra, skip=skip)[0]


def _append(db, seq):
    ev = SCRIPT[seq - 1]
    body = json.dumps(ev.to_dict(), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    db.execute("INSERT INTO events VALUES (1, ?, ?, ?, ?, ?)", (seq, ev.t, ev.type, body, row_crc(1, seq, body)))


def _log_ending_in(path, n, extra, last=None, *, skip=0):
    """:func:`_left_over_log`, its log ending in the write ``last(db)`` when given; returns (the log, the number of
    its first frame that write's, its frames in all)."""
    s = GameSession.open(path)
    for ev in SCRIPT[:n]:
        assert s.apply(ev)
    s.close()
    before = path.read_bytes()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    for seq in range(n + 1 + skip, n + 1 + skip + extra):
        _append(db, seq)
    wal = path.with_name(path.name + "-wal")
    frame = 24 + db.execute("PRAGMA page_size").fetchone()[0]
    first = (wal.stat().st_size - 32) // frame + 1
    if last is not None:
        last(db)
    log = wal.read_bytes()
    db.close()
    path.write_bytes(before)
    wal.write_bytes(log)
    path.with_name(path.name + "-shm").unlink(missing_ok=True)
    return wal, first, (len(log) - 32) // frame


def _damage_frame(wal, frame):
    data = bytearray(wal.read_bytes())
    page = int.from_bytes(data[8:12], "big")
    at = 32 + (frame - 1) * (24 + page) + 24 + page // 2
    data[at] ^= 0xFF
    wal.write_bytes(bytes(data))


def _tear(wal, frames):
    """The write of ``frames`` (frame numbers) torn as a power cut before its fsync tears it: each frame's header
    reached the disk (a commit frame's says so), the second half of its page did not (zeros)."""
    data = bytearray(wal.read_bytes())
    page = int.from_bytes(data[8:12], "big")
    for frame in frames:
        at = 32 + (frame - 1) * (24 + page) + 24
        data[at + page // 2:at + page] = bytes(page - page // 2)
    wal.write_bytes(bytes(data))


def _beat(db):
    db.execute("INSERT OR REPLACE INTO heartbeat VALUES (1, 99999999)")


def test_a_log_with_a_damaged_frame_is_named_kept_aside_and_its_events_recovered(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    wal = _left_over_log(path, 20, 3)
    frames = wal_frames(wal.read_bytes())
    assert frames is not None and frames.total >= 3 and frames.applied == frames.total
    _damage_frame(wal, 1)
    assert wal_damage(wal) is not None and "frame 1 of" in wal_damage(wal)
    before = _snapshot(tmp_path)
    assert main(["journal", "show", str(path)]) == 1   # says so, changes nothing
    err = capsys.readouterr().err
    assert "write-ahead log j.sqlite-wal" in err and "cannot be applied whole" in err
    assert _snapshot(tmp_path) == before
    assert main(["journal", "recover", str(path)]) == 0   # kept aside (the log with it), its events carried on
    out = capsys.readouterr().out
    assert "all 23 events kept" in out and "cannot be applied whole" in out
    assert (tmp_path / "j.sqlite-wal.corrupt-1").exists()   # the damaged log kept aside with the file
    back = GameSession.open(path)
    assert back.referee.events == tuple(SCRIPT[:23])
    back.close()


def test_the_kiosks_own_open_keeps_a_damaged_log_aside_instead_of_dropping_its_write(tmp_path):
    path = tmp_path / "j.sqlite"
    wal = _left_over_log(path, 20, 2)
    _damage_frame(wal, 1)
    with pytest.raises(JournalCorrupt, match="cannot be applied whole"):
        Journal(path)
    assert (tmp_path / "j.sqlite-wal.corrupt-1").exists() and (tmp_path / "j.sqlite.corrupt-1").exists()


def test_an_unfinished_last_write_is_still_dropped_as_designed(tmp_path):
    """A log whose damage is in its last write, with no finished write after it: the one write under way at a
    crash, never acknowledged - the journal opens, as before."""
    path = tmp_path / "j.sqlite"
    wal = _left_over_log(path, 20, 1)
    data = wal.read_bytes()
    page = int.from_bytes(data[8:12], "big")
    wal.write_bytes(data[:len(data) - page // 2])   # the last frame (its commit) cut short
    assert wal_damage(wal) is None
    with Journal(path) as j:
        assert len(j.events(1)) == 20


def test_recover_of_an_intact_journal_changes_no_file(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    _left_over_log(path, 20, 1)
    before = _snapshot(tmp_path)
    assert main(["journal", "recover", str(path)]) == 2
    assert "intact: nothing to recover" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before   # the log left as it is (opening the journal applied and deleted it)


def test_several_writes_of_this_journal_in_its_log_are_used(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    _left_over_log(path, 20, 4)
    assert main(["journal", "show", str(path)]) == 0
    assert "24 events, unfinished" in capsys.readouterr().out
    s = GameSession.open(path)
    assert s.referee.events == tuple(SCRIPT[:24])
    s.close()


def test_a_log_of_this_journal_that_skips_events_is_set_aside_and_counted(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    _left_over_log(path, 20, 3, skip=1)   # events 22-24: event 21 is not there
    with pytest.raises(JournalCorrupt, match=r"carries this journal's id and adds 3 events, but they do not continue "
                                             r"its games \(game 1: event 22 follows event 20\)"):
        Journal(path)
    assert main(["journal", "recover", str(path)]) == 0
    out = capsys.readouterr().out
    assert "kept events 1-20; lost event 21" in out and "set aside events 22-24" in out


def test_recover_from_a_damaged_journal_left_in_place_reads_its_log_too(tmp_path, capsys):
    """The way on from a folder that cannot be written (`recover NEW.sqlite --from PATH`, the journal left as it is)
    reads the damaged log beside PATH as recover reads one kept aside with it: its events are not left behind."""
    path = tmp_path / "walbad" / "j.sqlite"
    path.parent.mkdir()
    wal = _left_over_log(path, 20, 3)
    _damage_frame(wal, 1)
    before = _snapshot(path.parent)
    new = tmp_path / "new.sqlite"
    assert main(["journal", "recover", str(new), "--from", str(path)]) == 0
    out = capsys.readouterr().out
    assert "all 23 events kept" in out and "cannot be applied whole" in out
    assert _snapshot(path.parent) == before
    back = GameSession.open(new)
    assert back.referee.events == tuple(SCRIPT[:23])
    back.close()


@pytest.mark.parametrize(("n", "root_lost", "found"), [
    (20, False, "3 events SQLite could not reach were found whole in its write-ahead log"),
    (60, True, "63 events SQLite could not reach were found whole (60 in the file's pages and 3 in its write-ahead "
               "log)"),
])
def test_recover_says_where_it_found_the_events_sqlite_could_not_reach(tmp_path, capsys, n, root_lost, found):
    """After a log's salvage the note said the events were "found whole in the file's pages" when they came from the
    log: it says where now, and how many in each place (``root_lost``: the events' root page zeroed, the events on
    several pages: SQLite reaches none of them in the file)."""
    path = tmp_path / "j.sqlite"
    wal = _left_over_log(path, n, 3)
    _damage_frame(wal, 1)
    if root_lost:
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        root, page = db.execute("SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master "
                                "WHERE name = 'events'").fetchone()
        db.close()
        data = bytearray(path.read_bytes())
        data[(root - 1) * page:root * page] = bytes(page)
        path.write_bytes(bytes(data))
    assert main(["journal", "recover", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"all {n + 3} events kept" in out and f"{found}, each checked against its checksum" in out


def test_a_torn_last_write_opens_without_recover_and_every_committed_write_is_kept(tmp_path, caplog):
    """A power cut while the kiosk wrote a heartbeat (its most frequent write) tore it: its commit frame's header on
    the disk, half its page not. The journal was blocked until `kiosk journal recover`; nothing after the damage is
    whole, so it is the write under way, never acknowledged: the journal opens as SQLite applies the log, every
    write committed before it kept (the 3 appends the log holds), the torn heartbeat dropped, and the log says so."""
    import logging

    path = tmp_path / "j.sqlite"
    wal, first, total = _log_ending_in(path, 20, 3, _beat)
    assert total == first   # the heartbeat: one frame, a commit frame
    _tear(wal, [first])
    frames = wal_frames(wal.read_bytes())
    assert frames is not None and frames.broken == first and frames.finished_after and frames.torn_tail
    assert wal_damage(wal) is None
    with caplog.at_level(logging.WARNING, logger="kiosk.store"), Journal(path) as j:
        assert j.events(1) == list(SCRIPT[:23])   # the committed writes in the log, all of them
        assert j.last_heartbeat(1) != 99999999   # the torn write, dropped
    assert f"ended in a torn write (frame {first} of {total} damaged, nothing whole after them)" in caplog.text
    assert not list(tmp_path.glob("*corrupt*")) and not (tmp_path / "j.sqlite.blocked").exists()
    back = GameSession.open(path)
    assert back.referee.events == tuple(SCRIPT[:23])
    back.close()


def test_a_torn_last_write_holding_a_whole_event_still_waits_for_recover_which_keeps_it(tmp_path, capsys):
    """The event's row reached the disk although its write is torn: SQLite would drop it, recover carries it."""
    path = tmp_path / "j.sqlite"
    wal, first, total = _log_ending_in(path, 20, 3, lambda db: _append(db, 24))
    _tear(wal, range(first, total + 1))
    assert wal_frames(wal.read_bytes()).torn_tail
    with pytest.raises(JournalCorrupt, match=r"nothing whole after it, and the damaged frames hold 1 whole event "
                                             r"\(game 1 event 24\) SQLite would drop without a word"):
        Journal(path)
    assert main(["journal", "recover", str(path)]) == 0
    assert "all 24 events kept" in capsys.readouterr().out


def test_a_damaged_frame_followed_by_a_whole_commit_frame_still_waits_for_recover(tmp_path, capsys):
    """The same torn heartbeat, and a whole write after it (a frame whose checksum holds, chained from the damaged
    frame's stored checksum): a write finished after the damage, which SQLite would drop."""
    path = tmp_path / "j.sqlite"
    wal, first, total = _log_ending_in(path, 20, 3, lambda db: (_beat(db), _append(db, 24)))
    _tear(wal, [first])
    frames = wal_frames(wal.read_bytes())
    assert frames is not None and frames.broken == first and frames.whole_after and not frames.torn_tail
    with pytest.raises(JournalCorrupt, match="a write the kiosk finished lies after it"):
        Journal(path)
    assert main(["journal", "recover", str(path)]) == 0
    assert "all 24 events kept" in capsys.readouterr().out
