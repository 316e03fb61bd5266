"""A full journal (disk full or the size cap): a visible pause, nothing lost, no crash, and it goes on by itself.

``JournalFull`` used to escape from the heartbeat, the resume and ``Kiosk.apply``, so systemd restarted the
kiosk until it gave up; and the cap bounded the main file only (cap 40 KB, WAL 696 KB).
"""

from __future__ import annotations

import sqlite3

from kiosk.referee.simulate import random_game
from kiosk.store import JOURNAL_FULL, GameSession, JournalFull
from kiosk.store.session import RETRY_MS

SCRIPT = random_game("nsf", seed=21)
CAP = 80 * 1024


def _size(path) -> int:
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _fill_until_full(sess, path, script=SCRIPT):
    """Apply ``script`` until the journal is full; returns (events applied, largest file+WAL size seen, also
    just before each fold, when the log is at its largest)."""
    applied, biggest = [], 0
    fold = getattr(sess.journal, "_checkpoint", lambda: None)

    def measured_fold():
        nonlocal biggest
        biggest = max(biggest, _size(path))
        fold()

    sess.journal._checkpoint = measured_fold
    for ev in script:
        res = sess.apply(ev)
        biggest = max(biggest, _size(path))
        if res.code == "journal_full":
            return applied, biggest
        assert res.accepted, res
        applied.append(ev)
    raise AssertionError("the journal never filled up")


def _long_game():
    """A game long enough to fill 40 KB: the script's opening, then the judge's score adjustments."""
    from kiosk.referee.events import JudgeAdjustment

    head = SCRIPT[:3]
    t, out = head[-1].t, list(head)
    for i in range(600):
        t += 1000
        out.append(JudgeAdjustment(t=t, player=i % 2, points=1, reason=f"adjustment {i}: " + "x" * 100))
    return out


def test_the_size_cap_bounds_the_file_and_its_write_ahead_log_together(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path, max_bytes=CAP)
    applied, biggest = _fill_until_full(sess, path, _long_game())
    assert len(applied) > 20 and biggest <= CAP, f"{biggest} bytes on disk under a {CAP}-byte cap"
    sess.close()


def test_a_size_cap_too_small_for_any_event_is_refused_by_name(tmp_path):
    import pytest

    from kiosk.store import JournalError

    with pytest.raises(JournalError, match="a size cap of 40960 bytes leaves no room for events: give at least 65536"):
        GameSession.open(tmp_path / "j.sqlite", max_bytes=40 * 1024)


def test_a_full_journal_pauses_the_game_loses_nothing_and_goes_on_by_itself(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path, max_bytes=CAP)
    game = _long_game()
    applied, _ = _fill_until_full(sess, path, game)
    assert sess.paused and sess.paused_since == game[len(applied)].t
    before = sess.state
    nxt = game[len(applied)]
    res = sess.apply(nxt)  # refused again, as a sentence for the screen, never an exception
    assert not res.accepted and res.reason == JOURNAL_FULL and sess.state == before
    sess.heartbeat(nxt.t + 1_000)  # the heartbeat does not raise either
    assert sess.advance(nxt.t + 1_000) == []  # still full
    # space returns (the director frees some: here the cap is lifted)
    sess.journal._conn.execute("PRAGMA max_page_count=1000000")
    sess.journal._checkpoint = sess.journal.__class__._checkpoint.__get__(sess.journal)
    back_at = nxt.t + 1_000 + RETRY_MS + 60_000
    done = sess.advance(back_at)
    assert done and done[0][0].type == "kiosk_resumed" and done[0][1].accepted and not sess.paused
    assert sess.state.downtime_ms == back_at - nxt.t  # the pause is charged to nobody
    later = nxt.__class__(**{**nxt.__dict__, "t": back_at})
    assert sess.apply(later)
    expected = sess.referee.events
    assert expected[:len(applied)] == tuple(applied) and expected[-1] == later
    sess.close()
    again = GameSession.open(path)
    assert again.referee.events == expected
    again.close()


def test_a_full_disk_at_the_resume_and_the_heartbeat_does_not_raise(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    for ev in SCRIPT[:5]:
        assert sess.apply(ev)
    sess.close()
    sess = GameSession.open(path)

    def full(*a, **k):
        raise JournalFull(f"{path}: the disk is full - the event was NOT recorded: database or disk is full")

    real_append, real_beat = sess.journal.append, sess.journal.heartbeat
    sess.journal.append, sess.journal.heartbeat = full, full
    res = sess.resume(SCRIPT[4].t + 30_000)
    assert res is not None and res.code == "journal_full" and sess.paused
    assert sess.paused_since == SCRIPT[4].t  # the downtime before the restart is part of the pause
    sess.heartbeat(SCRIPT[4].t + 40_000)
    sess.journal.append, sess.journal.heartbeat = real_append, real_beat
    done = sess.advance(SCRIPT[4].t + 40_000 + RETRY_MS)
    assert done[0][1].accepted and sess.state.downtime_ms == 40_000 + RETRY_MS
    sess.heartbeat(SCRIPT[4].t + 50_000)
    full_beat = sess.journal.heartbeat
    sess.journal.heartbeat = full
    sess.heartbeat(SCRIPT[4].t + 55_000)  # a heartbeat on a full disk pauses, it does not raise
    assert sess.paused
    sess.journal.heartbeat = full_beat
    sess.close()


def test_a_fold_that_fails_after_the_commit_keeps_the_event_and_the_next_write_waits(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    assert sess.apply(SCRIPT[0])
    real = sess.journal._checkpoint

    def fail():
        raise sqlite3.OperationalError("database or disk is full")

    sess.journal._checkpoint = fail
    assert sess.apply(SCRIPT[1])  # durable in the log: it stands
    res = sess.apply(SCRIPT[2])  # the fold must succeed before anything else is written
    assert res.code == "journal_full" and sess.paused
    sess.journal._checkpoint = real
    done = sess.advance(SCRIPT[2].t + RETRY_MS)
    assert done and done[0][1].accepted
    assert sess.apply(SCRIPT[2].__class__(**{**SCRIPT[2].__dict__, "t": sess.state.last_t}))
    db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)  # everything is in the main file again
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == len(sess.referee.events)
    db.close()
    sess.close()


def test_a_game_that_cannot_start_on_a_full_journal_pauses_and_the_probe_lifts_it(tmp_path):
    sess = GameSession.open(tmp_path / "j.sqlite")
    real = sess.journal.start_game

    def full(*a, **k):
        raise JournalFull("j.sqlite: the disk is full - the event was NOT recorded: database or disk is full")

    sess.journal.start_game = full
    res = sess.apply(SCRIPT[0])
    assert res.code == "journal_full" and sess.paused and not sess.in_game
    sess.journal.start_game = real
    assert sess.advance(SCRIPT[0].t + RETRY_MS) == [] and not sess.paused  # a probe write: space is back
    assert sess.apply(SCRIPT[0]).accepted
    sess.close()
