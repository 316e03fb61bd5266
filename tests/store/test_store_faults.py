"""The journal under damage done while the kiosk is stopped: nothing acknowledged is ever silently forgotten.

A forked kiosk plays part of a game through :class:`GameSession`, acknowledges each event once ``apply``
returned, and is killed with SIGKILL - after one more write that got as far as the write-ahead log but was
never acknowledged (the kill came between its commit and its fold into the main file). Then its files are
damaged as an operator, a full SD card or a restore from backup would: ``-wal``/``-shm`` deleted, the WAL cut
at every interesting length or a bit flipped in it, the main file cut to 0 bytes, another journal's WAL put
beside it. Every case must either keep every acknowledged event or refuse to open, naming the damage.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import sys

import pytest

from kiosk.referee.simulate import random_game
from kiosk.store import GameSession, Journal, JournalCorrupt
from kiosk.store import journal as journal_mod

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")

SCRIPT = random_game("nsf", seed=11)
ACKED = 30


def _killed_kiosk(path, script, acked, *, unacked: bool = True, fold_at: int | None = None) -> int:
    """Fork a kiosk that acknowledges ``acked`` events of ``script`` (plus one unacknowledged write left in the
    WAL when ``unacked``), then SIGKILL it. ``fold_at``: a manual checkpoint after that many events (half the
    events checkpointed, as an auto-checkpoint would). Returns the number of events acknowledged."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the kiosk
        try:
            os.close(rfd)
            sess = GameSession.open(path)
            for i, ev in enumerate(script[:acked]):
                assert sess.apply(ev)
                os.write(wfd, b"A")
                if fold_at is not None and i + 1 == fold_at:
                    sess.journal._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if unacked:
                sess.journal._checkpoint = lambda: None  # killed between the commit and the fold
                sess.apply(script[acked])
            os.write(wfd, b"K")
            signal.pause()
        finally:
            os._exit(3)
    os.close(wfd)
    got = b""
    while not got.endswith(b"K"):
        chunk = os.read(rfd, 64)
        assert chunk, f"the kiosk died early after {got!r}"
        got += chunk
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(rfd)
    return got.count(b"A")


@pytest.fixture(scope="module")
def crashed(tmp_path_factory):
    """The files of a kiosk killed after 30 acknowledged events and one unacknowledged write (a copy per test)."""
    folder = tmp_path_factory.mktemp("crashed")
    n = _killed_kiosk(folder / "j.sqlite", SCRIPT, ACKED)
    assert n == ACKED and (folder / "j.sqlite-wal").stat().st_size > 0
    return folder


def _copy(src, dst):
    dst.mkdir(exist_ok=True)
    for name in ("j.sqlite", "j.sqlite-wal", "j.sqlite-shm"):
        if (src / name).exists():
            shutil.copyfile(src / name, dst / name)
    return dst / "j.sqlite"


def _resumed_events(path):
    sess = GameSession.open(path)
    try:
        return [e for e in sess.referee.events if e.type != "kiosk_resumed"]
    finally:
        sess.close()


def _assert_nothing_acknowledged_lost(path, acked=ACKED):
    events = _resumed_events(path)
    assert events[:acked] == SCRIPT[:acked], f"{acked - len(events)} acknowledged events lost"
    assert events in (SCRIPT[:acked], SCRIPT[:acked + 1])


def _wal_cuts(size: int) -> list[int]:
    return sorted({0, 1, 31, 32, 33, 55, 56, 4000, 4152, size // 2, size - 1} - {size})


def _wal_flips(size: int) -> list[int]:
    return sorted({0, 3, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 100, 2000, size // 2, size - 8, size - 1})


def test_deleting_wal_and_shm_loses_no_acknowledged_event(crashed, tmp_path):
    path = _copy(crashed, tmp_path)
    for name in ("j.sqlite-wal", "j.sqlite-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    _assert_nothing_acknowledged_lost(path)


def test_a_truncated_wal_loses_no_acknowledged_event(crashed, tmp_path):
    size = (crashed / "j.sqlite-wal").stat().st_size
    cases = 0
    for cut in _wal_cuts(size):
        path = _copy(crashed, tmp_path / f"cut{cut}")
        with open(tmp_path / f"cut{cut}" / "j.sqlite-wal", "r+b") as f:
            f.truncate(cut)
        _assert_nothing_acknowledged_lost(path)
        cases += 1
    assert cases >= 10


def test_a_bit_flipped_wal_loses_no_acknowledged_event(crashed, tmp_path):
    size = (crashed / "j.sqlite-wal").stat().st_size
    cases = 0
    for off in _wal_flips(size):
        for bit in (0, 7):
            folder = tmp_path / f"flip{off}-{bit}"
            path = _copy(crashed, folder)
            with open(folder / "j.sqlite-wal", "r+b") as f:
                f.seek(off)
                b = f.read(1)[0]
                f.seek(off)
                f.write(bytes([b ^ (1 << bit)]))
            try:
                _assert_nothing_acknowledged_lost(path)
            except JournalCorrupt as exc:  # refusing, naming the damage, is the other acceptable outcome
                assert "write-ahead log" in str(exc) or "damaged" in str(exc)
            cases += 1
    assert cases >= 30


def test_half_the_events_checkpointed_then_the_wal_deleted_loses_nothing(tmp_path):
    path = tmp_path / "j.sqlite"
    assert _killed_kiosk(path, SCRIPT, ACKED, unacked=False, fold_at=ACKED // 2) == ACKED
    (tmp_path / "j.sqlite-wal").unlink(missing_ok=True)
    (tmp_path / "j.sqlite-shm").unlink(missing_ok=True)
    assert _resumed_events(path) == SCRIPT[:ACKED]


def test_every_acknowledged_event_is_in_the_main_file_itself(tmp_path):
    """Read with SQLite's ``immutable`` flag (which ignores any WAL) after each acknowledged event."""
    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    for n, ev in enumerate(SCRIPT[:40], 1):
        assert sess.apply(ev)
        db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == n
        db.close()
        assert not (tmp_path / "j.sqlite-wal").exists() or (tmp_path / "j.sqlite-wal").stat().st_size == 0
    sess.close()


def test_a_main_file_cut_to_zero_bytes_is_not_a_new_journal(crashed, tmp_path):
    path = _copy(crashed, tmp_path)
    for name in ("j.sqlite-wal", "j.sqlite-shm"):
        (tmp_path / name).unlink()
    path.write_bytes(b"")
    with pytest.raises(JournalCorrupt, match=r"empty \(0 bytes\)") as info:
        GameSession.open(path)
    assert info.value.kept_aside is not None and info.value.kept_aside.exists()
    with pytest.raises(JournalCorrupt, match="not yet acknowledged"):  # and it stays refused
        GameSession.open(path)


def test_a_main_file_deleted_beside_its_wal_is_refused(crashed, tmp_path):
    path = _copy(crashed, tmp_path)
    path.unlink()
    with pytest.raises(JournalCorrupt, match="file is missing but its write-ahead log"):
        GameSession.open(path)


def test_a_new_journal_is_never_half_created(tmp_path, monkeypatch):
    """A creation cut short (here: the rename never happens) leaves no file at the journal's path."""
    path = tmp_path / "j.sqlite"

    def boom(*a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal_mod.os, "replace", boom)
    with pytest.raises(journal_mod.JournalError, match="cannot create the journal"):
        Journal(path)
    monkeypatch.undo()
    assert not path.exists()
    Journal(path).close()  # the next start builds it whole
    assert path.stat().st_size > 0


@pytest.mark.parametrize("other_acked", [5, 25])
def test_another_journals_wal_beside_a_restored_file_is_refused(crashed, tmp_path, other_acked):
    # the restored file: the crashed kiosk's journal, opened and closed cleanly once (everything folded in)
    restored = _copy(crashed, tmp_path / "restored")
    Journal(restored).close()
    assert not (tmp_path / "restored" / "j.sqlite-wal").exists()
    # another kiosk's journal (another game), killed with a write in its WAL
    other = tmp_path / "other" / "j.sqlite"
    other.parent.mkdir()
    _killed_kiosk(other, random_game("nsf", seed=12), other_acked)
    shutil.copyfile(other.parent / "j.sqlite-wal", tmp_path / "restored" / "j.sqlite-wal")
    with pytest.raises(JournalCorrupt, match="write-ahead log j.sqlite-wal beside it"):
        GameSession.open(restored)


def test_a_wal_written_by_an_older_kiosk_beside_a_restored_file_is_refused(crashed, tmp_path):
    """A WAL holding many transactions (an older kiosk folded it only every 1000 pages) of another journal."""
    restored = _copy(crashed, tmp_path / "restored")
    Journal(restored).close()
    other = tmp_path / "other" / "j.sqlite"
    other.parent.mkdir()
    sess = GameSession.open(other)
    sess.journal._checkpoint = lambda: None  # as the older kiosk did
    for ev in random_game("nsf", seed=13)[:40]:
        assert sess.apply(ev)
    shutil.copyfile(other.parent / "j.sqlite-wal", tmp_path / "restored" / "j.sqlite-wal")
    sess.journal._conn.close()
    with pytest.raises(JournalCorrupt, match="write-ahead log"):
        GameSession.open(restored)


def test_the_own_unacknowledged_write_in_the_wal_is_kept(crashed, tmp_path):
    path = _copy(crashed, tmp_path)
    assert _resumed_events(path) == SCRIPT[:ACKED + 1]


def _open_in_another_process(path) -> str:
    """Open the journal at ``path`` in a forked process (flock is per process): "OPENED", or the error raised
    there as "TypeName: message"."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            GameSession.open(path)
            os.write(wfd, b"OPENED")
        except Exception as exc:
            os.write(wfd, f"{type(exc).__name__}: {exc}".encode())
        finally:
            os._exit(0)
    os.close(wfd)
    os.waitpid(pid, 0)
    msg = os.read(rfd, 4096).decode()
    os.close(rfd)
    return msg


@pytest.mark.skipif(sys.platform != "linux", reason="flock semantics")
def test_a_second_process_on_the_same_journal_is_refused(tmp_path):
    path = tmp_path / "j.sqlite"
    first = GameSession.open(path)
    assert first.apply(SCRIPT[0])
    msg = _open_in_another_process(path)
    assert msg.startswith("JournalLocked") and f"in use by another process (pid {os.getpid()})" in msg
    assert first.apply(SCRIPT[1])  # the first kiosk goes on untouched
    first.close()
    second = GameSession.open(path)  # once it stopped, the path is free
    assert second.referee.events == tuple(SCRIPT[:2])
    second.close()


def test_a_second_demo_on_the_same_journal_is_refused_by_name(tmp_path, capsys):
    """Before: the second demo 'resumed' while the first wrote, and the first died with UNIQUE constraint failed."""
    from kiosk.cli import main

    path = tmp_path / "same.sqlite"
    first = GameSession.open(path)  # the first kiosk, running
    try:
        assert main(["demo", "--headless", "--journal", str(path)]) == 2
    finally:
        first.close()
    out = capsys.readouterr()
    assert "the journal is in use by another process" in out.out + out.err


def test_recover_after_a_foreign_wal_keeps_the_restored_file_and_leaves_the_foreign_log_out(crashed, tmp_path,
                                                                                           capsys):
    from kiosk.cli import main

    restored = _copy(crashed, tmp_path / "restored")
    Journal(restored).close()
    mine = _resumed_events(restored)
    other = tmp_path / "other" / "j.sqlite"
    other.parent.mkdir()
    _killed_kiosk(other, random_game("nsf", seed=12), 25)
    shutil.copyfile(other.parent / "j.sqlite-wal", tmp_path / "restored" / "j.sqlite-wal")
    with pytest.raises(JournalCorrupt):
        GameSession.open(restored)
    assert main(["journal", "recover", str(restored)]) == 0
    out = capsys.readouterr().out
    assert "belongs to another journal" in out or "not this journal's log" in out
    assert "it was not used" in out and "0 events lost;" in out
    assert _resumed_events(restored) == mine  # the restored file's own events, none of the other journal's


def test_a_deleted_journal_file_is_not_a_new_journal(tmp_path, capsys):
    """Everything folded into the main file, then the file deleted while the kiosk was stopped: the lock file
    remembers which journal was there, so the kiosk refuses instead of starting a new game over the lost one."""
    from kiosk.cli import main

    path = tmp_path / "j.sqlite"
    sess = GameSession.open(path)
    for ev in SCRIPT[:10]:
        assert sess.apply(ev)
    journal_id = sess.journal.journal_id
    sess.close()
    path.unlink()
    with pytest.raises(JournalCorrupt, match=f"the journal file is missing, but journal {journal_id} was kept here"):
        GameSession.open(path)
    with pytest.raises(JournalCorrupt, match="not yet acknowledged"):
        GameSession.open(path)
    assert main(["journal", "acknowledge", str(path)]) == 0  # the director decides: a new journal
    capsys.readouterr()
    fresh = GameSession.open(path)
    assert not fresh.in_game and fresh.journal.journal_id != journal_id
    fresh.close()
    again = GameSession.open(path)  # and the new journal is the one remembered now
    again.close()


@pytest.mark.skipif(sys.platform != "linux", reason="flock semantics")
def test_a_journal_reached_through_a_symbolic_link_is_the_file_it_points_to(tmp_path):
    """A review found a second kiosk could open a journal in use through a symbolic link to it (the lock was
    taken beside the path as given), and a dangling link was replaced by a new journal file."""
    path = tmp_path / "j.sqlite"
    first = GameSession.open(path)
    assert first.apply(SCRIPT[0])
    (tmp_path / "link.sqlite").symlink_to(path)
    msg = _open_in_another_process(tmp_path / "link.sqlite")
    assert msg.startswith("JournalLocked") and "in use by another process" in msg
    assert not (tmp_path / "link.sqlite.lock").exists()
    first.close()
    dangling = tmp_path / "dangling.sqlite"
    dangling.symlink_to(tmp_path / "target.sqlite")
    session = GameSession.open(dangling)
    assert session.apply(SCRIPT[0])
    session.close()
    assert dangling.is_symlink() and (tmp_path / "target.sqlite").is_file()
    again = GameSession.open(dangling)
    assert again.referee.events == tuple(SCRIPT[:1])
    again.close()


def test_a_journal_where_no_file_can_be_made_is_named():
    """`kiosk run` with journal = "/proc/x.sqlite" ended in an AssertionError traceback: the lock file's open
    failed with 'no such file' and was taken for 'no lock file, nobody holds it'."""
    from kiosk.store import JournalError

    with pytest.raises(JournalError, match=r"^/proc/kiosk-review\.sqlite\.lock: cannot create the journal's lock"):
        GameSession.open("/proc/kiosk-review.sqlite")
