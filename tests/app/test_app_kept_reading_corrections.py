"""The judge's corrections made during a pause go with the press's kept reading (:mod:`kiosk.store.kept_reading`,
:mod:`kiosk.app.paused_reading`).

The tester's findings: the judge's corrections made during the pause were honoured at the resume but lost after a
restart (QUIRK recorded, corrected to QUIRT), the screen saying the move is recorded; and the correction's reply said
to press the clock again, though the move is recorded at the resume without a press."""

from __future__ import annotations

from pathlib import Path

from app_fixtures import PIN
from test_app_kept_reading_restart import KEPT, T_SQUARE, _answer, _kept_in_journal, _pressed, _restart, _resume_play


def _quirk_corrected(tmp: Path):  # type: ignore[no-untyped-def]
    """Ann's board read QUIRK at her press (a misread T), kept during the pause; the judge corrects the K to T."""
    kiosk, worker, table, clock = _pressed(tmp)
    table.put({T_SQUARE: "K"})
    clock.t = 12_000
    kiosk.press("pause")
    _answer(kiosk, worker)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    res = kiosk.act("correct", square=T_SQUARE, char="T")
    assert res.accepted
    return kiosk, table, clock, res


def test_the_judge_s_correction_during_the_pause_says_the_move_is_recorded_with_it_when_play_resumes(tmp_path):
    kiosk, _, _, res = _quirk_corrected(tmp_path)
    assert res.reason == kiosk.view.message == ("H8 is T now. Ann's move is recorded with this correction when play "
                                                "resumes.")   # was: "Press the clock again when the board is right."
    kiosk.session.close()


def test_the_judge_s_correction_during_the_pause_survives_a_restart(tmp_path):
    kiosk, table, clock, _ = _quirk_corrected(tmp_path)
    kept = _kept_in_journal(kiosk)
    assert kept is not None and kept.fixes == ((T_SQUARE, "T"),)
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    assert kiosk.view.corrections == {T_SQUARE: "T"}
    assert kiosk.view.message == KEPT
    _resume_play(kiosk, worker, clock, 70_000)
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.scores == (48, 0), st.last_play   # was QUIRK 56
    assert kiosk.view.corrections == {} and _kept_in_journal(kiosk) is None
    kiosk.session.close()


def test_a_correction_that_cannot_be_written_says_so_now(tmp_path, monkeypatch):
    import kiosk.app.paused_reading as paused_reading
    from kiosk.store import JournalFull

    def full(journal, kept):  # type: ignore[no-untyped-def]
        raise JournalFull("journal.sqlite: the disk is full")

    kiosk, worker, table, clock = _pressed(tmp_path)
    table.put({T_SQUARE: "K"})
    clock.t = 12_000
    kiosk.press("pause")
    _answer(kiosk, worker)
    monkeypatch.setattr(paused_reading, "save", full)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    res = kiosk.act("correct", square=T_SQUARE, char="T")
    assert res.reason == ("H8 is T now. Ann's move is recorded with this correction when play resumes. (Should the "
                          "kiosk restart before then, the judge enters it again.)")
    assert _kept_in_journal(kiosk) == kiosk.kept and kiosk.kept is not None and kiosk.kept.fixes == ()
    kiosk.session.close()


def test_a_kept_reading_row_without_corrections_reads_as_before_and_a_damaged_correction_is_refused():
    import pytest

    from kiosk.store.kept_reading import KeptReading, KeptReadingDamaged

    grid = tuple("." * 15 for _ in range(15))
    plain = KeptReading(1, 3, 0, 10_000, grid)
    assert "fixes" not in plain.to_text() and KeptReading.from_text(plain.to_text()) == plain
    fixed = KeptReading(1, 3, 0, 10_000, grid, ((112, "T"),))
    assert KeptReading.from_text(fixed.to_text()) == fixed
    bad = KeptReading(1, 3, 0, 10_000, grid, ((225, "T"),))
    with pytest.raises(KeptReadingDamaged, match="corrections"):
        KeptReading.from_text(bad.to_text())
