"""The SQLite journal: durable settings, resume to the identical state, corruption and full-disk handling."""

from __future__ import annotations

import sqlite3

import pytest

from kiosk.referee import Referee
from kiosk.referee.events import Challenge, GameStarted, Pass, Play
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import random_game
from kiosk.store import GameSession, Journal, JournalCorrupt, acknowledge_corruption


def start(sess: GameSession, t: int = 0):
    return sess.apply(GameStarted(t=t, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")))


def test_store_journal_is_wal_with_full_sync(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    assert j.settings() == {"journal_mode": "wal", "synchronous": 2}
    j.close()


def test_store_append_and_read_back(tmp_path):
    path = tmp_path / "sub" / "j.sqlite"
    j = Journal(path)
    g = j.new_game(0)
    events = random_game("nsf", seed=1)[:20]
    seqs = [j.append(g, ev) for ev in events]
    assert seqs == list(range(1, 21))
    assert j.unfinished_game() == g
    j.close()
    j = Journal(path)
    assert j.events(g) == events
    j.append(g, events[0], finished=True)
    assert j.unfinished_game() is None and j.games()[0].finished_ms == events[0].t
    j.close()


def test_store_session_resumes_the_identical_state(tmp_path):
    path = tmp_path / "j.sqlite"
    events = random_game("nsf", seed=2)
    cut = len(events) // 2
    sess = GameSession.open(path)
    for ev in events[:cut]:
        assert sess.apply(ev)
    expected = sess.state
    sess.close()
    again = GameSession.open(path)
    assert again.state == expected and again.referee.events == tuple(events[:cut])
    for ev in events[cut:]:
        assert again.apply(ev)
    assert again.state == Referee.from_events(events).state
    again.close()
    # a finished game is not resumed; a new one can start
    third = GameSession.open(path)
    assert not third.in_game and third.resume(10**9) is None
    assert start(third, 10**9)
    third.close()


def test_store_downtime_is_charged_to_nobody_and_logged(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    start(sess, 0)
    sess.heartbeat(40_000)   # alive at 40 s, Ann's clock running since 0
    sess.close()             # ... power cut
    back = GameSession.open(path)
    assert back.state.last_t == 0
    res = back.resume(400_000)
    assert res.accepted
    st = back.state
    assert st.downtime_ms == 360_000 and back.referee.clock_remaining(0, 400_000) == 25 * 60_000 - 40_000
    assert back.referee.events[-1].type == "kiosk_resumed"
    back.close()
    # the resume itself is journaled: a second restart sees it
    again = GameSession.open(path)
    assert again.state == st
    again.close()


def test_store_refused_events_are_not_journaled(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    assert sess.apply(Pass(t=0, player=0)).code == "not_started"
    start(sess)
    assert not sess.apply(Challenge(t=5, player=1)).accepted
    assert not start(sess, 6).accepted  # a game is in progress
    sess.close()
    j = Journal(path)
    assert [e.type for e in j.events(j.unfinished_game())] == ["game_started"]
    j.close()


def _fill(path, n=30):
    sess = GameSession.open(path)
    for ev in random_game("nsf", seed=3)[:n]:
        assert sess.apply(ev)
    state = sess.state
    sess.close()
    return state


def _expect_blocked(path):
    with pytest.raises(JournalCorrupt) as info:
        GameSession.open(path)
    return info.value


def test_store_tampered_row_is_detected_kept_aside_and_blocks_a_new_game(tmp_path):
    path = tmp_path / "j.sqlite"
    _fill(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = replace(body, '\"player\":1', '\"player\":0') WHERE seq = 5")
    db.commit()
    db.close()
    err = _expect_blocked(path)
    assert "its checksum does not hold" in str(err) and "event 5 is damaged" in str(err)
    assert err.kept_aside is not None and err.kept_aside.exists() and not path.exists()
    # the kiosk does not silently start over it: every open is refused until an operator acknowledges
    err2 = _expect_blocked(path)
    assert "not yet acknowledged" in str(err2)
    assert "its checksum does not hold" in acknowledge_corruption(path)
    fresh = GameSession.open(path)
    assert not fresh.in_game
    fresh.close()


def test_store_truncated_file_is_detected(tmp_path):
    path = tmp_path / "j.sqlite"
    _fill(path, 60)
    size = path.stat().st_size
    assert size > 8192 and not (tmp_path / "j.sqlite-wal").exists()  # closed: the WAL is checkpointed
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    err = _expect_blocked(path)
    assert "damaged" in str(err) and err.kept_aside.exists()


def test_store_garbage_file_is_detected(tmp_path):
    """A journal overwritten with garbage is a damaged journal (its lock file remembers it): kept aside. Garbage
    at a path no journal was kept at is no journal at all: refused and left as it is (test_store_foreign)."""
    path = tmp_path / "j.sqlite"
    _fill(path, 5)
    path.write_bytes(b"this is not a journal at all" * 100)
    err = _expect_blocked(path)
    assert "it no longer starts as an SQLite database file" in str(err) and "no recorded event can be read" in str(err)
    assert err.kept_aside is not None and err.kept_aside.read_bytes().startswith(b"this is not a journal")


def test_store_missing_event_is_detected(tmp_path):
    path = tmp_path / "j.sqlite"
    _fill(path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq = 7")
    db.commit()
    db.close()
    assert "event 7 is missing" in str(_expect_blocked(path))


def test_store_full_disk_loses_nothing_already_recorded(tmp_path):
    path = tmp_path / "j.sqlite"
    events = random_game("nsf", seed=4)
    sess = GameSession.open(path, max_bytes=96 * 1024)
    applied = []
    full = None
    for ev in events * 20:  # the same game over and over, until the cap
        if ev.type == "game_started" and sess.in_game:
            continue
        before = sess.state
        res = sess.apply(ev)
        if res.code == "journal_full":
            assert sess.state == before and sess.paused  # the failed event did not take effect
            full = res
            break
        if res.accepted:
            applied = [ev] if ev.type == "game_started" else [*applied, ev]
    assert full is not None and full.reason == ("The journal is full: the game is paused. Free space on its disk or "
                                             "call the tournament director.")
    assert "disk is full - the event was NOT recorded" in sess.paused_detail
    sess.close()
    back = GameSession.open(path)
    assert back.referee.events == tuple(applied)
    back.close()


def test_store_session_refuses_events_without_a_game(tmp_path):
    sess = GameSession.open(tmp_path / "j.sqlite")
    res = sess.apply(Play(t=0, player=0, tiles=((112, "A"),)))
    assert not res.accepted and res.code == "not_started"
    sess.close()


def test_store_events_that_no_longer_replay_are_reported(tmp_path):
    from kiosk.store import JournalError

    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    start(sess)
    sess.close()
    j = Journal(path)
    j.append(j.unfinished_game(), Pass(t=10, player=1))  # recorded directly: Bob is not on move
    j.close()
    with pytest.raises(JournalError, match=r"does not replay: event 2 \(pass at 10 ms\) is refused on replay: pass: it is Ann's turn"):
        GameSession.open(path)


def test_store_a_game_the_judges_undo_reopens_is_unfinished_and_resumed(tmp_path):
    from kiosk.referee.events import MoveUndone, Resigned

    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    assert start(sess)
    assert sess.apply(Pass(t=1_000, player=0))
    assert sess.apply(Resigned(t=2_000, player=1))
    assert sess.journal.unfinished_game() is None
    assert sess.apply(MoveUndone(t=3_000, reason="resigned by mistake"))
    assert sess.in_game and sess.journal.unfinished_game() == sess.game
    sess.close()
    again = GameSession.open(path)
    assert again.game == 1 and again.in_game and again.state.on_move == 1
    assert again.resume(4_000)
    again.close()
