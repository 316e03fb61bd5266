"""The judge's corrections made during a pause go with the press's kept reading (:mod:`kiosk.store.kept_reading`,
:mod:`kiosk.app.paused_reading`).

The tester's findings: the judge's corrections made during the pause were honoured at the resume but lost after a
restart (QUIRK recorded, corrected to QUIRT), the screen saying the move is recorded; and the correction's reply said
to press the clock again, though the move is recorded at the resume without a press."""

from __future__ import annotations

from pathlib import Path

from app_fixtures import PIN
from test_app_kept_reading_restart import KEPT, T_SQUARE, _answer, _kept_in_journal, _pressed, _restart, _resume_play

from kiosk.rules.board import parse_coordinate

QUIRTS = parse_coordinate("8D").squares(6)
Q_SQUARE, S_SQUARE = QUIRTS[0], QUIRTS[-1]


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


def _bob_pressed_with_q_confirmed(tmp: Path):  # type: ignore[no-untyped-def]
    """Ann's QUIRT recorded; Bob adds an S (QUIRTS) and presses at 20 s with the camera now misreading the Q as an O;
    the pause at 22 s, his reading kept; the judge confirms the Q (the tile on the board: a confirmation)."""
    kiosk, worker, table, clock = _pressed(tmp)
    _answer(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIRT" and kiosk.state.on_move == 1
    table.put({S_SQUARE: "S", Q_SQUARE: "O"})
    clock.t = 20_000
    assert kiosk.press("right") == "reading"
    clock.t = 22_000
    kiosk.press("pause")
    _answer(kiosk, worker)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    res = kiosk.act("correct", square=Q_SQUARE, char="Q")
    assert res.reason == "D8 is Q now. Bob's move is recorded with this correction when play resumes."
    assert kiosk.view.confirmed == {Q_SQUARE: "Q"} and kiosk.view.corrections == {}
    return kiosk, worker, table, clock


def _undone_and_pressed_again(kiosk, worker, clock):  # type: ignore[no-untyped-def]
    """The judge takes Bob's press back during the pause; play resumes and Bob presses again (the Q still misread)."""
    assert kiosk.act("undo", reason="Bob's press is taken back").accepted
    _resume_play(kiosk, worker, clock, 70_000)
    assert kiosk.state.on_move == 1 and kiosk.state.pressed_at is None
    clock.t = 75_000
    assert kiosk.press("right") == "reading"
    _answer(kiosk, worker)


def test_the_judge_s_confirmation_during_the_pause_comes_back_as_a_confirmation_after_a_restart(tmp_path):
    """Was: put back among the corrections of Bob's move (a confirmation again only once the move was recorded):
    the camera was not told it, and the press taken back took it with it, so Bob's next press was a board problem
    ("The board does not read right ...": the Q read as an O), where without the restart it was his move."""
    kiosk, _, table, clock = _bob_pressed_with_q_confirmed(tmp_path)
    kept = _kept_in_journal(kiosk)
    assert kept is not None and kept.fixes == ((Q_SQUARE, "Q"),)
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    assert worker is not None
    assert kiosk.view.confirmed == {Q_SQUARE: "Q"} and kiosk.view.corrections == {}   # was: a correction
    assert worker._overrides == {Q_SQUARE: "Q"}   # the camera is told, as when he confirmed it
    assert kiosk.view.message == KEPT.replace("Ann", "Bob")
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    _undone_and_pressed_again(kiosk, worker, clock)
    assert kiosk.view.confirmed == {Q_SQUARE: "Q"}
    assert kiosk.state.last_play.word == "QUIRTS", kiosk.view.message   # was: the board problem
    assert kiosk.view.message.startswith("Bob played QUIRTS at 8D for ")
    kiosk.session.close()


def test_the_judge_s_confirmation_during_the_pause_holds_through_an_undo_without_a_restart(tmp_path):
    """The same table without the restart: what the restart must not change."""
    kiosk, worker, _, clock = _bob_pressed_with_q_confirmed(tmp_path)
    _undone_and_pressed_again(kiosk, worker, clock)
    assert kiosk.state.last_play.word == "QUIRTS", kiosk.view.message
    kiosk.session.close()
