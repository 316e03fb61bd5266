"""A press's reading kept during a pause survives a restart of the kiosk (:mod:`kiosk.store.kept_reading`,
:mod:`kiosk.app.paused_reading`, :mod:`kiosk.app.unread_press`).

The tester's case (item 7 left in the last progress note): Ann lays QUIRT and presses the clock (journaled at once),
the clocks are stopped before the board is read, the reading comes during the pause and is kept in memory only. The
kiosk restarts during the pause (a power cut, a crash, systemd); meanwhile a tile is lifted (the judge examines it, a
player bumps the board). Was: when play resumed the press stood without its move and the board was read afresh: the
move recorded was the board after the pause (QUIR), not the board Ann left at her press. Now the kept reading is in the
journal's file and is her move; it is used only for that very press, cleared once used or once the press is taken
back, and ignored (the board read afresh) when it cannot be written or is damaged."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from app_fixtures import PIN, GridTable, read_grid
from app_fixtures import answer as _answer
from common_fixtures import ManualClock
from common_fixtures import make_kiosk as make_plain_kiosk

from kiosk.app.kiosk import Kiosk
from kiosk.app.pin import PinGate
from kiosk.app.vision_worker import VisionWorker
from kiosk.rules.board import parse_coordinate
from kiosk.store import GameSession, JournalFull
from kiosk.store.kept_reading import KEY, KeptReading, load

GAME_MS = 25 * 60_000
QUIRT = dict(zip(parse_coordinate("8D").squares(5), "QUIRT", strict=True))
T_SQUARE = max(QUIRT)  # QUIRT's T, lifted during the pause: the board then reads QUIR
KEPT = ("The game is paused: both clocks are stopped. Press pause again to go on. Ann pressed the clock before the "
        "clocks stopped: Ann's move is recorded when play resumes.")
READ_AGAIN = ("The game is paused: both clocks are stopped. Press pause again to go on. Ann pressed the clock before "
              "the clocks stopped: the board is read for Ann's move when play resumes; leave the tiles as they are.")


def _worker(table: GridTable, clock: ManualClock) -> VisionWorker:
    return VisionWorker(table, read_grid, stable_frames=2, timeout_ms=15_000, clock=clock,
                        timer=lambda: clock.t / 1000)


def _pressed(tmp: Path) -> tuple[Kiosk, VisionWorker, GridTable, ManualClock]:
    """Ann lays QUIRT and presses the clock at 10 s: her move is being read."""
    clock = ManualClock()
    table = GridTable(clock)
    worker = _worker(table, clock)
    kiosk, _ = make_plain_kiosk(tmp, worker=worker, clock=clock)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    return kiosk, worker, table, clock


def _pressed_and_paused(tmp: Path) -> tuple[Kiosk, GridTable, ManualClock]:
    """Ann lays QUIRT and presses at 10 s; the pause at 12 s; her reading comes during the pause and is kept."""
    kiosk, worker, table, clock = _pressed(tmp)
    clock.t = 12_000
    kiosk.press("pause")
    assert _answer(kiosk, worker) == ["reading kept until the clocks run again (paused at the table)"]
    assert kiosk.view.message == KEPT
    return kiosk, table, clock


def _restart(kiosk: Kiosk, table: GridTable | None, clock: ManualClock, at: int) -> tuple[Kiosk, VisionWorker | None]:
    """The kiosk dies (its journal left as a killed process leaves it) and starts again at ``at`` ms on the same
    journal and table (``table`` None: no camera any more)."""
    path = Path(kiosk.session.journal.path)
    kiosk.session.close()
    clock.t = at
    session = GameSession.open(path)
    assert session.resume(clock()).accepted
    worker = _worker(table, clock) if table is not None else None
    return Kiosk(session, worker, None, PinGate(PIN), clock), worker


def _resume_play(kiosk: Kiosk, worker: VisionWorker | None, clock: ManualClock, at: int) -> list[str]:
    """Pause pressed again at ``at`` ms; the kiosk's poll (and its worker, should it read the board)."""
    clock.t = at
    kiosk.press("pause")
    out = kiosk.poll()
    for _ in range(10):
        if worker is None or kiosk.pending is None and not worker.waiting():
            break
        worker.step()
        out += kiosk.poll()
    return out


def _kept_in_journal(kiosk: Kiosk) -> KeptReading | None:
    return load(kiosk.session.journal)


def test_a_restart_during_the_pause_records_the_board_read_at_the_press_not_the_board_after_it(tmp_path):
    kiosk, table, clock = _pressed_and_paused(tmp_path)
    kept = _kept_in_journal(kiosk)
    assert kept is not None and kept.player == 0 and kept.pressed_at == 10_000 and "QUIRT" in kept.grid[7]
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    table.put({T_SQUARE: "."})   # during the pause the T is lifted (the judge looks at it)
    assert kiosk.view.message == KEPT   # the sentence: the move read at the press is recorded when play resumes
    assert kiosk.state.pressed_at == 10_000 and kiosk.state.neutralised
    out = _resume_play(kiosk, worker, clock, 70_000)
    assert any("the reading kept at the press is its move" in line for line in out), out
    assert "play" in out, out
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.scores == (48, 0) and st.on_move == 1   # was QUIR: the board now
    assert kiosk.view.message == "Ann played QUIRT at 8D for 48 points."
    assert worker is not None and worker._ticket == 0   # the board was not read again
    clock.t = 75_000
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000   # her turn ended at her press
    assert _kept_in_journal(kiosk) is None   # cleared once used
    kiosk, _ = _restart(kiosk, table, clock, 80_000)  # and nothing of it comes back
    assert kiosk.kept is None and kiosk.state.last_play.word == "QUIRT" and kiosk.state.on_move == 1
    kiosk.session.close()


def test_the_kept_reading_is_the_move_after_a_restart_at_a_table_whose_camera_is_gone(tmp_path):
    """Was: the press taken back ("there is no camera to read it") though the board had been read at the press."""
    kiosk, table, clock = _pressed_and_paused(tmp_path)
    kiosk, _ = _restart(kiosk, None, clock, 60_000)
    _resume_play(kiosk, None, clock, 70_000)
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.on_move == 1 and st.pressed_at is None
    kiosk.session.close()


def test_a_judge_called_restart_and_the_judge_done_records_the_press_reading(tmp_path):
    kiosk, worker, table, clock = _pressed(tmp_path)
    kiosk.press("judge")
    _answer(kiosk, worker)
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    table.put({T_SQUARE: "."})
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.act("judge_done").accepted
    out = kiosk.poll()
    for _ in range(10):   # (were the board read again, as it was before the kept reading was written)
        if worker is None or kiosk.pending is None and not worker.waiting():
            break
        worker.step()
        out += kiosk.poll()
    assert kiosk.state.last_play.word == "QUIRT", out
    kiosk.session.close()


def test_a_press_undone_before_the_restart_leaves_no_kept_reading_to_use(tmp_path):
    """The judge takes Ann's press back during the pause: its kept reading leaves the journal with it; after a
    restart her new press is read from the board as it is then."""
    kiosk, table, clock = _pressed_and_paused(tmp_path)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.act("undo", reason="Ann wants other tiles").accepted
    assert _kept_in_journal(kiosk) is None and kiosk.kept is None
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    table.put({T_SQUARE: "."})   # Ann takes her T back
    _resume_play(kiosk, worker, clock, 70_000)
    assert kiosk.state.on_move == 0 and kiosk.state.pressed_at is None   # no press stands: nothing recorded
    clock.t = 75_000
    assert kiosk.press("left") == "reading"
    _resume_play(kiosk, worker, clock, 75_000) if kiosk.state.neutralised else None
    for _ in range(10):
        assert worker is not None
        worker.step()
        kiosk.poll()
        if kiosk.pending is None:
            break
    assert kiosk.state.last_play.word == "QUIR"
    kiosk.session.close()


def test_a_stale_kept_reading_of_an_earlier_press_at_the_same_time_is_never_applied(tmp_path, monkeypatch, caplog):
    """The kept reading could not be cleared when the judge took the press back (the write failed); Ann presses again
    at the very same ms with her T lifted, the clocks are stopped, and the kiosk restarts before that reading comes.
    Her first press's reading (QUIRT) belongs to another press (an earlier event, same player, same time): it is
    cleared at the start and the board is read afresh."""
    import kiosk.app.paused_reading as paused_reading

    kiosk, worker, table, clock = _pressed(tmp_path)
    kiosk.press("pause")
    _answer(kiosk, worker)
    first = kiosk.kept
    assert first is not None and first.pressed_at == 10_000

    def refuse(journal):  # type: ignore[no-untyped-def]
        raise JournalFull("journal.sqlite: the disk is full")

    monkeypatch.setattr(paused_reading, "clear", refuse)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.act("undo", reason="Ann wants other tiles").accepted
    kiosk.press("pause")                       # the pause stood through the undo: play resumes
    assert not kiosk.state.neutralised
    table.put({T_SQUARE: "."})
    assert kiosk.press("left") == "reading" and kiosk.state.pressed_at == 10_000   # the same ms
    kiosk.press("pause")                       # the clocks stop before the reading comes; then the restart
    assert _kept_in_journal(kiosk) == first     # (left behind: the clear failed)
    monkeypatch.undo()
    caplog.set_level(logging.INFO, logger="kiosk.app")
    kiosk, worker = _restart(kiosk, table, clock, 10_000)
    assert kiosk.kept is None and _kept_in_journal(kiosk) is None   # stale: cleared at the start
    assert "no longer stands" in caplog.text
    _resume_play(kiosk, worker, clock, 20_000)
    assert kiosk.state.last_play.word == "QUIR"   # the board read afresh, not the first press's QUIRT
    kiosk.session.close()


def _write_row(path: Path, value: str) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (KEY, value))
    db.close()


def test_a_damaged_kept_reading_is_ignored_with_a_log_line_and_the_board_read_afresh(tmp_path, caplog):
    kiosk, table, clock = _pressed_and_paused(tmp_path)
    path = Path(kiosk.session.journal.path)
    kept = _kept_in_journal(kiosk)
    assert kept is not None
    kiosk.session.close()
    # a letter of the grid changed (bit rot), its checksum kept: not used
    _write_row(path, kept.to_text().replace("QUIRT", "QUIRK"))
    caplog.set_level(logging.INFO, logger="kiosk.app")
    session = GameSession.open(path)
    session.resume(60_000)
    clock.t = 60_000
    worker = _worker(table, clock)
    kiosk = Kiosk(session, worker, None, PinGate(PIN), clock)
    assert kiosk.kept is None and "checksum does not hold" in caplog.text and "read afresh" in caplog.text
    assert kiosk.view.message == READ_AGAIN   # (nothing alarming on the screen: what happens at the resume)
    table.put({T_SQUARE: "."})
    _resume_play(kiosk, worker, clock, 70_000)
    assert kiosk.state.last_play.word == "QUIR"   # as before the kept reading was written
    kiosk.session.close()
    for garbage in ("not json", '{"game": 1}', "[]"):
        _write_row(path, garbage)
        again = Kiosk(GameSession.open(path), None, None, PinGate(PIN), clock)
        assert again.kept is None
        again.session.close()


def test_a_kept_reading_that_cannot_be_written_stays_in_memory_and_says_nothing_alarming(tmp_path, monkeypatch):
    import kiosk.app.paused_reading as paused_reading

    def full(journal, kept):  # type: ignore[no-untyped-def]
        raise JournalFull("journal.sqlite: the disk is full")

    monkeypatch.setattr(paused_reading, "save", full)
    kiosk, table, clock = _pressed_and_paused(tmp_path)   # (asserts the sentence: KEPT, no journal's alarm)
    assert kiosk.kept is None and _kept_in_journal(kiosk) is None and not kiosk.session.paused
    clock.t = 20_000
    kiosk.press("pause")
    kiosk.poll()
    assert kiosk.state.last_play.word == "QUIRT" and kiosk.remaining_ms(0) == GAME_MS - 10_000


def test_a_move_the_full_journal_could_not_record_at_the_resume_is_the_kept_reading_when_space_returns(tmp_path):
    """Play resumes, the kept QUIRT is acted on, but the journal is full: the press stands without its move (the
    in-memory answer is spent). Was: when space returned the board was read afresh (QUIR, the T lifted meanwhile)."""
    kiosk, table, clock = _pressed_and_paused(tmp_path)
    journal = kiosk.session.journal
    real = journal.append
    clock.t = 20_000
    kiosk.press("pause")     # (the resume is recorded) ...

    def append(*a, **k):  # type: ignore[no-untyped-def]
        raise JournalFull("journal.sqlite: the disk is full - the event was NOT recorded")

    journal.append = append  # ... the play is not
    kiosk.poll()
    assert kiosk.session.paused and kiosk.state.pressed_at == 10_000 and kiosk.state.history == ()
    table.put({T_SQUARE: "."})
    journal.append = real    # the director freed some space
    clock.t = 60_000
    kiosk.poll()
    kiosk.poll()
    st = kiosk.state
    assert st.last_play is not None and st.last_play.word == "QUIRT" and st.on_move == 1
    assert _kept_in_journal(kiosk) is None


def test_a_restart_during_the_pause_before_the_reading_came_says_the_board_is_read_when_play_resumes(tmp_path):
    """No reading was kept (the kiosk stopped before it came): the board is read when play resumes, and the screen
    says so, asking to leave the tiles as they are (was: that the move is recorded, as for a kept reading)."""
    kiosk, _, table, clock = _pressed(tmp_path)
    kiosk.press("pause")     # ... and the kiosk stops before the board is read
    kiosk, worker = _restart(kiosk, table, clock, 60_000)
    assert kiosk.kept is None and kiosk.view.message == READ_AGAIN
    _resume_play(kiosk, worker, clock, 70_000)
    assert kiosk.state.last_play.word == "QUIRT"
    kiosk.session.close()
