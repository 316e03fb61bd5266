"""The kiosk on a journal that cannot be written - full (disk or size cap), or failing for another reason (a
disk I/O error: a failing SD card, a file size limit): the game pauses visibly, nothing raises, the clocks stand
still, and it goes on when writing works again. Any other failure than a full disk raised ``JournalError`` out of
``Kiosk.apply`` and the heartbeat (tests/app/test_app_run_journal_fails: through ``kiosk run``'s loop)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from app_fixtures import make_kiosk

from kiosk.app.flags import TableFlags
from kiosk.store import JOURNAL_FULL, JournalFull
from kiosk.store.journal import write_failure
from kiosk.store.session import RETRY_MS

FAILED = ("The journal cannot be written: disk I/O error. The game is paused; every move before it is kept. Call "
          "the tournament director.")
FAULTS = [(JournalFull("journal.sqlite: the disk is full - the event was NOT recorded: database or disk is full"),
           JOURNAL_FULL),
          (write_failure("journal.sqlite", "disk I/O error"), FAILED)]


@pytest.mark.parametrize(("fault", "said"), FAULTS, ids=["full", "io-error"])
def test_a_journal_that_cannot_be_written_pauses_the_kiosk_visibly_and_it_resumes_by_itself(tmp_path, fault, said):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    heard = []
    kiosk.listeners.append(lambda ev, st: heard.append(ev.type))
    journal = kiosk.session.journal
    real_append, real_beat = journal.append, journal.heartbeat

    def failing(*a, **k):
        raise fault

    journal.append, journal.heartbeat = failing, failing
    clock.t = 5_000
    shown = kiosk.remaining_ms(0)
    assert kiosk.press("left") == said  # Kiosk.apply(ClockPressed): refused in words, no exception
    assert kiosk.view.message == said and kiosk.pending is None
    clock.t = 6_000
    assert kiosk.press("left") == said  # a press does nothing while the game is paused
    res = kiosk.act("challenge", player=1)
    assert not res.accepted and res.reason == said
    assert kiosk.remaining_ms(0) == shown  # the clocks stand still
    kiosk.view.message = "something else"
    kiosk.poll()
    assert kiosk.view.message == said  # the pause stays on the screen
    assert TableFlags(None, kiosk, SimpleNamespace(health=list)).current()[2] == said  # and on the desk's tile (kiosk run with a stream)
    kiosk.session.heartbeat(clock.t)  # the table's heartbeat does not raise
    clock.t = 6_000 + RETRY_MS
    kiosk.poll()
    assert kiosk.session.paused  # still full
    journal.append, journal.heartbeat = real_append, real_beat  # the director freed some space
    clock.t = 60_000
    out = kiosk.poll()
    assert not kiosk.session.paused and "kiosk_resumed" in out and "kiosk_resumed" in heard
    assert kiosk.view.message == "The journal works again: the game goes on."
    assert kiosk.state.downtime_ms == 55_000  # from the first refused event (5 s) to the resume (60 s)
    assert kiosk.press("left") == "reading"  # Ann ends her turn now


def test_kiosk_run_waits_for_space_instead_of_crash_looping(tmp_path, monkeypatch, capsys):
    """A disk too full to even open the journal: ``kiosk run`` said so and exited 2, systemd restarted it 10
    times and gave up. Now it waits, says so once, feeds the watchdog, and opens the journal when space returns."""
    from kiosk.app import table
    from kiosk.store import GameSession

    calls = {"open": 0}
    real_open = GameSession.open

    def open_(path, **kw):
        calls["open"] += 1
        if calls["open"] <= 3:
            raise JournalFull(f"{path}: the disk is full; cannot open the journal: database or disk is full")
        return real_open(path, **kw)

    monkeypatch.setattr(table.GameSession, "open", staticmethod(open_))
    sent: list[str] = []

    class Notifier:
        def ready(self, status=""):
            sent.append(f"READY {status}")

        def status(self, text):
            sent.append(f"STATUS {text}")

        def watchdog(self):
            sent.append("WATCHDOG")

    session = table.open_session_waiting(tmp_path / "j.sqlite", Notifier(), sleep=lambda s: None)
    session.close()
    waiting = (f"The journal {tmp_path / 'j.sqlite'} cannot be opened: the disk is full. The kiosk tries again every "
               "few seconds; every move recorded in it is kept. Free space on its disk or call the tournament "
               "director.")   # at start no game goes on: nothing is said to be "paused"
    assert calls["open"] == 4 and sent.count("WATCHDOG") == 3 and sent[0] == f"READY {waiting}"
    assert capsys.readouterr().out == f"kiosk run: {waiting}\n"
    calls["open"] = -10**6  # full for good: gives up only when told to
    import pytest

    with pytest.raises(JournalFull):
        table.open_session_waiting(tmp_path / "j.sqlite", Notifier(), max_seconds=0, sleep=lambda s: None)


def test_kiosk_run_waits_while_the_journal_cannot_be_opened_for_a_disk_io_error(tmp_path, capsys):
    """As for a full disk: a failing disk at start-up (a disk I/O error, the file locked by another program) is a
    visible wait, not exit 2 and systemd's restart loop; a damaged journal still ends the start at once."""
    import pytest

    from kiosk.app import table
    from kiosk.store import GameSession, JournalCorrupt

    calls = {"open": 0}
    real_open = GameSession.open

    def open_(path, **kw):
        calls["open"] += 1
        if calls["open"] <= 2:
            raise write_failure(path, "disk I/O error")
        return real_open(path, **kw)

    class Notifier:
        def ready(self, status=""):
            pass

        status = ready

        def watchdog(self):
            pass

    mp = pytest.MonkeyPatch()
    mp.setattr(table.GameSession, "open", staticmethod(open_))
    try:
        table.open_session_waiting(tmp_path / "j.sqlite", Notifier(), sleep=lambda s: None).close()
        assert calls["open"] == 3 and capsys.readouterr().out == (
            f"kiosk run: The journal {tmp_path / 'j.sqlite'} cannot be opened: disk I/O error. The kiosk tries again "
            "every few seconds; every move recorded in it is kept. Free space on its disk or call the tournament "
            "director.\n")

        def damaged(path, **kw):
            raise JournalCorrupt(f"{path}: damaged", None, "report")

        mp.setattr(table.GameSession, "open", staticmethod(damaged))
        with pytest.raises(JournalCorrupt):
            table.open_session_waiting(tmp_path / "j.sqlite", Notifier(), sleep=lambda s: None)
    finally:
        mp.undo()


@pytest.mark.parametrize("where", ["open", "create", "write"])
def test_a_disk_that_ran_full_is_called_full_not_a_disk_io_error(tmp_path, monkeypatch, where):
    """SQLite reports a disk that ran full while it grew its -wal or -shm as an I/O error: a tester's full tmpfs
    read "disk I/O error" at start and "the disk refused the write" for a new journal. With the disk's free space
    under FULL_BELOW such a failure is a full disk (JournalFull: the sentence says to free space)."""
    import os
    import sqlite3

    from kiosk.store import journal as journal_module
    from kiosk.store.journal import FULL_BELOW, Journal

    path = tmp_path / "j.sqlite"
    if where != "create":
        Journal(path).close()
    ioerr = sqlite3.OperationalError("disk I/O error")
    ioerr.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"  # type: ignore[attr-defined]
    real_statvfs = os.statvfs

    def no_room(folder):
        st = real_statvfs(folder)
        return SimpleNamespace(f_bavail=(FULL_BELOW - 1) // st.f_frsize, f_frsize=st.f_frsize)

    if where == "write":
        j = Journal(path)
        assert not journal_module.disk_full(path)
        monkeypatch.setattr(journal_module.os, "statvfs", no_room)
        assert isinstance(j._write_error(ioerr), JournalFull)
        j.close()
        return
    monkeypatch.setattr(journal_module.os, "statvfs", no_room)

    def failing(*_a, **_k):
        raise ioerr
    if where == "create":
        monkeypatch.setattr(journal_module, "_build", failing)
    else:
        monkeypatch.setattr(Journal, "_setup", failing)
    with pytest.raises(JournalFull, match="the disk is full"):
        Journal(path)

