"""The kept reading (:mod:`kiosk.store.kept_reading`) goes wherever the game goes, and takes the judge's corrections
made during the pause with it (:mod:`kiosk.app.paused_reading`).

The tester's findings: (1) the journal file deleted during the pause was written again from memory with the game's
events but not the kept reading, ``kiosk.kept`` still set: after a restart the board was read afresh (QUIR 23, the T
lifted, not QUIRT 48), and the screen said "The journal works again: the game goes on." with both clocks stopped;
(2) the judge's corrections made during the pause were honoured at the resume but lost after a restart (QUIRK
recorded, corrected to QUIRT), the screen saying the move is recorded; (3) the correction's reply said to press the
clock again, though the move is recorded at the resume without a press."""

from __future__ import annotations

import os
from pathlib import Path

from test_app_kept_reading_restart import KEPT, T_SQUARE, _answer, _kept_in_journal, _pressed, _restart, _resume_play

from kiosk.store.session import RETRY_MS


def _deleted_during_the_pause(tmp: Path):  # type: ignore[no-untyped-def]
    """Ann's QUIRT kept during the pause; the journal file deleted, found by the kiosk's next heartbeat at 14 s."""
    kiosk, worker, table, clock = _pressed(tmp)
    clock.t = 12_000
    kiosk.press("pause")
    _answer(kiosk, worker)
    path = Path(kiosk.session.journal.path)
    os.unlink(path)
    clock.t = 14_000
    kiosk.session.heartbeat(clock())
    assert kiosk.session.paused
    return kiosk, table, clock, path


def _gone_during_the_pause(tmp: Path):  # type: ignore[no-untyped-def]
    """... and the kiosk writes it again at its next try."""
    kiosk, table, clock, path = _deleted_during_the_pause(tmp)
    clock.t = 14_000 + RETRY_MS
    kiosk.poll()
    assert not kiosk.session.paused and path.exists()
    return kiosk, table, clock


def test_a_journal_written_again_during_the_pause_carries_the_kept_reading_through_a_restart(tmp_path):
    kiosk, table, clock = _gone_during_the_pause(tmp_path)
    kept = _kept_in_journal(kiosk)
    assert kept is not None and kept == kiosk.kept and "QUIRT" in kept.grid[7]   # memory and journal agree
    assert kiosk.view.message == "The journal works again. " + KEPT   # (was: "... the game goes on.", clocks stopped)
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    table.put({T_SQUARE: "."})   # the T lifted during the pause
    assert kiosk.view.message == KEPT
    _resume_play(kiosk, worker, clock, 70_000)
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.scores == (48, 0)   # was QUIR for 23: the board read afresh
    kiosk.session.close()


def test_a_journal_written_again_during_the_pause_without_a_restart_records_the_press_reading(tmp_path):
    kiosk, table, clock = _gone_during_the_pause(tmp_path)
    table.put({T_SQUARE: "."})
    clock.t = 30_000
    kiosk.press("pause")
    kiosk.poll()
    assert kiosk.state.last_play.word == "QUIRT" and _kept_in_journal(kiosk) is None and kiosk.kept is None
    kiosk.session.close()


def test_a_reading_kept_in_memory_only_goes_into_the_journal_written_again(tmp_path, monkeypatch):
    """The reading could not be written when it came (a full disk): the new journal holds it all the same."""
    import kiosk.app.paused_reading as paused_reading
    from kiosk.store import JournalFull

    def full(journal, kept):  # type: ignore[no-untyped-def]
        raise JournalFull("journal.sqlite: the disk is full")

    monkeypatch.setattr(paused_reading, "save", full)
    kiosk, table, clock = _gone_during_the_pause(tmp_path)
    kept = _kept_in_journal(kiosk)
    assert kept is not None and kept == kiosk.kept and "QUIRT" in kept.grid[7]
    kiosk.session.close()


def test_the_events_and_the_kept_reading_go_into_the_new_journal_together_or_not_at_all(tmp_path, monkeypatch):
    """They were two writes: the second (the kept reading) failing, or a crash between them, left the new journal
    with the game's events alone, the screen saying the journal works again; a restart then read the board afresh
    (QUIR for 23, the T lifted). Now one transaction: the second failing leaves nothing at the path and the game
    paused; the next try writes both, and a restart records the board read at the press."""
    from common_fixtures import refuse_meta_writes

    kiosk, table, clock, path = _deleted_during_the_pause(tmp_path)
    refuse_meta_writes(monkeypatch)   # the new journal takes the events, and refuses the kept reading
    clock.t = 14_000 + RETRY_MS
    kiosk.poll()
    assert kiosk.session.paused and not path.exists()   # nothing half-written: no journal without the reading
    assert kiosk.view.message == kiosk.session.pause_reason != ""
    monkeypatch.undo()
    clock.t = 14_000 + 2 * RETRY_MS
    kiosk.poll()
    assert not kiosk.session.paused and path.exists()
    kept = _kept_in_journal(kiosk)
    assert kept is not None and kept == kiosk.kept and "QUIRT" in kept.grid[7]
    assert kiosk.view.message == "The journal works again. " + KEPT
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    table.put({T_SQUARE: "."})
    _resume_play(kiosk, worker, clock, 70_000)
    assert kiosk.state.last_play.word == "QUIRT" and kiosk.state.scores == (48, 0)
    kiosk.session.close()
