"""The kiosk on a full journal: the game pauses visibly, nothing raises, and it goes on when space returns."""

from __future__ import annotations

from app_fixtures import make_kiosk

from kiosk.store import JOURNAL_FULL, JournalFull
from kiosk.store.session import RETRY_MS


def test_a_full_journal_pauses_the_kiosk_visibly_and_it_resumes_by_itself(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    heard = []
    kiosk.listeners.append(lambda ev, st: heard.append(ev.type))
    journal = kiosk.session.journal
    real_append, real_beat = journal.append, journal.heartbeat

    def full(*a, **k):
        raise JournalFull("journal.sqlite: the disk is full - the event was NOT recorded: database or disk is full")

    journal.append, journal.heartbeat = full, full
    clock.t = 5_000
    assert kiosk.press("left") == JOURNAL_FULL  # Kiosk.apply(ClockPressed): refused in words, no exception
    assert kiosk.view.message == JOURNAL_FULL and kiosk.pending is None
    clock.t = 6_000
    assert kiosk.press("left") == JOURNAL_FULL  # a press does nothing while the game is paused
    res = kiosk.act("challenge", player=1)
    assert not res.accepted and res.reason == JOURNAL_FULL
    kiosk.view.message = "something else"
    kiosk.poll()
    assert kiosk.view.message == JOURNAL_FULL  # the pause stays on the screen
    kiosk.session.heartbeat(clock.t)  # the table's heartbeat does not raise
    clock.t = 6_000 + RETRY_MS
    kiosk.poll()
    assert kiosk.session.paused  # still full
    journal.append, journal.heartbeat = real_append, real_beat  # the director freed some space
    clock.t = 60_000
    out = kiosk.poll()
    assert not kiosk.session.paused and "kiosk_resumed" in out and "kiosk_resumed" in heard
    assert kiosk.view.message == "journal writable again: the game goes on"
    assert kiosk.state.downtime_ms == 55_000  # from the first refused event (5 s) to the resume (60 s)
    assert kiosk.press("left") == "reading"  # Ann ends her turn now
