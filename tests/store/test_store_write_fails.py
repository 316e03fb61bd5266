"""Journal writes that fail for another reason than a full disk pause the session as a full disk does: a disk
I/O error (a failing SD card, a file size limit), the file locked by another program, deleted or moved while
open. Nothing recorded is lost, the event is not applied, the sentence says the cause, and the game goes on
by itself once writing works again. They raised ``JournalError`` out of ``apply`` and ``heartbeat``, and a
journal file deleted under the kiosk took every later event into the unlinked file, lost at the next start."""

from __future__ import annotations

import logging
import os
import resource
import signal
import sqlite3

import pytest

from kiosk.referee.simulate import random_game
from kiosk.store import JOURNAL_FAILED, GameSession, JournalFull, pause_sentence
from kiosk.store.journal import Journal, write_failure
from kiosk.store.session import JOURNAL_GONE, RETRY_MS

SCRIPT = random_game("nsf", seed=21)


def _sentence(cause: str) -> str:
    return JOURNAL_FAILED.format(cause=cause)


def _played(path, n: int = 5) -> GameSession:
    sess = GameSession.open(path)
    for ev in SCRIPT[:n]:
        assert sess.apply(ev).accepted
    return sess


def _later(ev, t: int):
    return ev.__class__(**{**ev.__dict__, "t": t})


def test_a_disk_io_error_pauses_the_game_logs_it_once_and_it_goes_on_when_writes_work(tmp_path, caplog):
    """A real fault: a file size limit (``ulimit -f``) that leaves no room for the next write."""
    path = tmp_path / "j.sqlite"
    sess = _played(path)
    before, nxt = sess.state, SCRIPT[5]
    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, old[1]))
    try:
        with caplog.at_level(logging.ERROR, logger="kiosk.store"):
            res = sess.apply(nxt)
            assert not res.accepted and res.code == "journal_failed" and res.reason == _sentence("disk I/O error")
            assert sess.paused and sess.state == before and sess.pause_reason == res.reason
            sess.heartbeat(nxt.t + 1_000)                      # does not raise
            assert sess.advance(nxt.t + RETRY_MS) == []        # tried again: still failing
            assert sess.advance(nxt.t + 2 * RETRY_MS) == []
        assert [r.getMessage().split(" (")[0] for r in caplog.records] == [res.reason]  # once, not per retry
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
        signal.signal(signal.SIGXFSZ, handler)
    back = nxt.t + 3 * RETRY_MS
    done = sess.advance(back)
    assert done and done[0][0].type == "kiosk_resumed" and done[0][1].accepted and not sess.paused
    assert sess.state.downtime_ms == back - nxt.t and sess.pause_reason == ""
    assert sess.apply(_later(nxt, back)).accepted  # the refused event, repeated by the player
    expected = sess.referee.events
    sess.close()
    again = GameSession.open(path)
    assert again.referee.events == expected and expected[:5] == tuple(SCRIPT[:5])
    again.close()


def test_a_journal_file_moved_away_pauses_and_put_back_goes_on(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = _played(path)
    aside = tmp_path / "elsewhere.sqlite"
    path.rename(aside)
    res = sess.apply(SCRIPT[5])
    assert res.code == "journal_failed" and res.reason == JOURNAL_GONE
    aside.rename(path)
    assert sess.advance(SCRIPT[5].t + RETRY_MS)[0][1].accepted
    sess.close()


def test_a_journal_file_deleted_under_the_kiosk_is_not_written_into_the_void(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = _played(path)
    before = sess.state
    os.unlink(path)
    res = sess.apply(SCRIPT[5])  # SQLite would take it into the unlinked file, gone at the next start
    # not "every move before it is kept": they are in this process alone, a restart would not find them
    assert res.code == "journal_failed" and res.reason == JOURNAL_GONE and sess.state == before
    assert "Do not switch the kiosk off" in res.reason
    sess.heartbeat(SCRIPT[5].t + 1_000)
    assert sess.paused and not path.exists()


def test_a_game_whose_journal_was_deleted_is_written_again_from_memory_and_a_restart_finds_it(tmp_path):
    """A tester deleted the journal mid-game: the kiosk paused, saying the moves were kept, and a restart began a
    new game at 0-0. Now the next try writes the game from memory into a new journal at the path (the lost file's
    -wal and -shm kept aside as .orphan), the game goes on, and a restart resumes it with every event."""
    path = tmp_path / "j.sqlite"
    sess = _played(path)
    os.unlink(path)
    assert sess.apply(SCRIPT[5]).reason == JOURNAL_GONE
    done = sess.advance(SCRIPT[5].t + RETRY_MS)
    assert done and done[0][0].type == "kiosk_resumed" and done[0][1].accepted and not sess.paused
    assert sess.apply(_later(SCRIPT[5], SCRIPT[5].t + RETRY_MS)).accepted   # the refused press, repeated
    kept = sess.referee.events
    sess.close()
    again = GameSession.open(path)
    assert again.in_game and again.referee.events == kept and kept[:5] == tuple(SCRIPT[:5])
    again.close()
    assert not (tmp_path / "j.sqlite.blocked").exists()


def test_a_journal_locked_by_another_program_pauses_until_it_lets_go(tmp_path):
    path = tmp_path / "j.sqlite"
    sess = _played(path)
    sess.journal._conn.execute("PRAGMA busy_timeout=50")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    res = sess.apply(SCRIPT[5])
    assert res.reason == _sentence("another program holds the journal file locked") and sess.paused
    other.execute("ROLLBACK")
    other.close()
    assert sess.advance(SCRIPT[5].t + RETRY_MS)[0][1].accepted
    sess.close()


def test_a_game_that_cannot_start_pauses_and_a_failing_probe_keeps_the_pause(tmp_path):
    sess = GameSession.open(tmp_path / "j.sqlite")
    real_start, real_probe = sess.journal.start_game, sess.journal.probe

    def failing(*a, **k):
        raise write_failure(sess.journal.path, "disk I/O error")

    sess.journal.start_game = sess.journal.probe = failing
    assert sess.apply(SCRIPT[0]).code == "journal_failed" and not sess.in_game
    assert sess.advance(SCRIPT[0].t + RETRY_MS) == [] and sess.paused   # the probe failed: no exception
    sess.journal.start_game, sess.journal.probe = real_start, real_probe
    assert sess.advance(SCRIPT[0].t + 2 * RETRY_MS) == [] and not sess.paused
    assert sess.apply(SCRIPT[0]).accepted
    sess.close()


@pytest.mark.parametrize(("name", "message", "cause"), [
    ("SQLITE_IOERR_WRITE", "disk I/O error", "disk I/O error"),
    ("SQLITE_READONLY", "attempt to write a readonly database", "the journal file or its disk is read-only"),
    ("SQLITE_READONLY_DBMOVED", "attempt to write a readonly database", "the journal file was deleted or moved"),
    ("SQLITE_BUSY", "database is locked", "another program holds the journal file locked"),
    ("SQLITE_CORRUPT", "database disk image is malformed", "the journal file is damaged"),
    ("SQLITE_SOMETHING_NEW", "something new", "something new"),
])
def test_sqlite_write_errors_are_classed_in_plain_words(tmp_path, name, message, cause):
    """"database disk image is malformed" was taken for a full disk (it says "disk")."""
    journal = Journal(tmp_path / "j.sqlite")
    exc = sqlite3.OperationalError(message)
    exc.sqlite_errorname = name  # type: ignore[attr-defined]
    err = journal._write_error(exc)
    journal.close()
    assert not isinstance(err, JournalFull) and err.cause == cause
    assert pause_sentence(err).reason == (JOURNAL_GONE if "moved" in cause else _sentence(cause))
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorname = "SQLITE_FULL"  # type: ignore[attr-defined]
    assert isinstance(Journal._write_error(journal, full), JournalFull)


def test_a_disk_io_error_at_open_is_not_taken_for_damage(tmp_path):
    """It was: the journal moved aside as damaged, the path blocked until an operator ran `kiosk journal
    recover` - for a disk that failed to write once (here a file size limit, in a subprocess)."""
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "j.sqlite"
    _played(path).close()
    child = ("import resource, sys\n"
             "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))\n"
             "from kiosk.store import GameSession, JournalError\n"
             "try:\n    GameSession.open(sys.argv[1])\n"
             "except JournalError as exc:\n    print(type(exc).__name__, '|', exc.cause, '|', exc)\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", child, str(path)], cwd=root, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(root)}, timeout=120).stdout
    assert out.startswith("JournalError | disk I/O error | ") and "cannot open the journal" in out, out
    assert not list(tmp_path.glob("*corrupt*")) and not list(tmp_path.glob("*.blocked"))
    again = GameSession.open(path)
    assert again.referee.events == tuple(SCRIPT[:5])
    again.close()


def test_a_disk_too_full_for_the_lock_file_is_a_full_disk_naming_the_lock_file(tmp_path, monkeypatch):
    """A disk with 0 bytes free refused even the lock file's pid line: `kiosk run` said only 'No space left on
    device' (exit 2, no path, no wait). It is JournalFull now, which kiosk run waits out, naming the file."""
    import errno

    from kiosk.store import journal as journal_module

    def no_space(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_module, "write_pid", no_space)
    with pytest.raises(JournalFull) as err:
        Journal(tmp_path / "j.sqlite")
    assert str(err.value) == f"{tmp_path / 'j.sqlite.lock'}: cannot write the journal's lock file: the disk is full"
    monkeypatch.undo()
    Journal(tmp_path / "j.sqlite").close()      # the lock was let go: the journal opens once there is room


def test_a_folder_made_where_the_deleted_journal_was_is_named_and_its_removal_lets_the_game_go_on(tmp_path):
    """A verifier made a folder where the deleted journal had been: the pause kept promising a new journal 'in a
    few seconds' for ever. It says now what stands there and what to do, and once it is gone the game goes on."""
    from kiosk.store.session import JOURNAL_BLOCKED

    path = tmp_path / "j.sqlite"
    sess = _played(path)
    os.unlink(path)
    path.mkdir()
    assert sess.apply(SCRIPT[5]).reason == JOURNAL_GONE
    assert sess.advance(SCRIPT[5].t + RETRY_MS) == [] and sess.paused
    assert sess.apply(SCRIPT[5]).reason == JOURNAL_BLOCKED
    path.rmdir()
    done = sess.advance(SCRIPT[5].t + 3 * RETRY_MS)
    assert done and done[0][1].accepted and not sess.paused
    kept = sess.referee.events
    sess.close()
    again = GameSession.open(path)
    assert again.referee.events == kept
    again.close()



def test_a_journal_written_again_holds_the_events_and_what_was_kept_beside_them_or_neither(tmp_path, monkeypatch):
    """The game and what the kiosk keeps beside it (a press's reading kept during a pause) were written into the new
    journal in two transactions: the second failing (or a crash between them) left the events there without the
    reading, the game going on as if it had been written. Now one transaction: its failure leaves no journal at the
    path, the game stays paused in memory, and the next try writes both."""
    from common_fixtures import refuse_meta_writes

    path = tmp_path / "j.sqlite"
    sess = _played(path)
    sess.carry = lambda game: {"kept_reading": f"kept for game {game}"}
    os.unlink(path)
    assert sess.apply(SCRIPT[5]).reason == JOURNAL_GONE
    refuse_meta_writes(monkeypatch)
    assert sess.advance(SCRIPT[5].t + RETRY_MS) == [] and sess.paused   # the row refused: nothing was written
    assert sess.pause_reason == _sentence("not authorized")
    assert not any(p.exists() for p in (path, tmp_path / "j.sqlite-wal", tmp_path / "j.sqlite-shm"))   # nothing half-written
    monkeypatch.undo()
    done = sess.advance(SCRIPT[5].t + 2 * RETRY_MS)
    assert done and done[0][1].accepted and not sess.paused
    kept = sess.referee.events
    sess.close()
    with Journal(path) as again:
        assert again.events(1) == list(kept) and kept[:5] == tuple(SCRIPT[:5])
        assert again._conn.execute("SELECT value FROM meta WHERE key='kept_reading'").fetchone() == ("kept for game 1",)


def test_a_game_whose_rows_beside_it_cannot_be_made_is_not_written_and_the_journal_takes_writes_after(tmp_path):
    """Anything the rows' maker raises rolls the game back (an error of Python's own left the transaction open)."""
    journal = Journal(tmp_path / "j.sqlite")

    def broken(game: int) -> dict[str, str]:
        raise ValueError(f"no rows for game {game}")

    with pytest.raises(ValueError, match="no rows for game 1"):
        journal.write_game(SCRIPT[:5], broken)
    assert journal.games() == [] and not journal._conn.in_transaction
    assert journal.write_game(SCRIPT[:5]) == 1 and journal.events(1) == list(SCRIPT[:5])
    journal.close()
