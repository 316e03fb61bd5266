"""A clock press the journal holds without its move is finished when the kiosk can act again
(:mod:`kiosk.app.unread_press`): the board is read for it (the press's time stands), or with no reading it is
taken back with a sentence naming who presses. It hung: after a crash, a stop (SIGTERM) or a full journal between
Ann's press and its reading, no reading was ever taken, Bob's clock ran and his press was refused ("it is Ann's
turn, not Bob's"), until Ann happened to press again.

Each path on which a recorded press may lack its reading: the kiosk killed or stopped while reading (in-process
here: the journal is closed as a dead process leaves it, every event already durable; and through ``kiosk run``
killed with SIGKILL and SIGTERM), the journal full at the move (a play, an exchange, the judge's entries at a table
without a camera), the camera down at the press and still at the restart, no camera at all at the restart, and the
clocks paused by the table's button while the board was read."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from app_fixtures import PIN, GridTable, make_kiosk, read_grid, settle
from common_fixtures import ManualClock, headless_config
from common_fixtures import make_kiosk as make_plain_kiosk

from kiosk.app.kiosk import Kiosk
from kiosk.app.pin import PinGate
from kiosk.app.vision_worker import VisionWorker
from kiosk.referee import events as ev
from kiosk.rules.board import parse_coordinate
from kiosk.store import GameSession, JournalFull

GAME_MS = 25 * 60_000
QUIRT = dict(zip(parse_coordinate("8D").squares(5), "QUIRT", strict=True))


def _types(kiosk: Kiosk) -> list[str]:
    return [e.type for e in kiosk.session.referee.events]


def _restart(kiosk: Kiosk, table: GridTable | None, clock: ManualClock, at: int,
             timer=None) -> tuple[Kiosk, VisionWorker | None]:  # type: ignore[no-untyped-def]
    """The kiosk dies (its journal left as a killed process leaves it) and starts again at ``at`` ms on the same
    journal and table (``table`` None: a table without a camera)."""
    path = Path(kiosk.session.journal.path)
    kiosk.session.close()
    clock.t = at
    session = GameSession.open(path)
    assert session.resume(clock()).accepted
    worker = None
    if table is not None:
        worker = VisionWorker(table, read_grid, stable_frames=2, timeout_ms=1_000, clock=clock,
                              **({"timer": timer} if timer else {}))
    return Kiosk(session, worker, None, PinGate(PIN), clock), worker


def _failing_after(journal, n: int):  # type: ignore[no-untyped-def]
    """``journal.append`` records ``n`` more events, then the disk is full; returns the real append."""
    real, calls = journal.append, [0]

    def append(*a, **k):  # type: ignore[no-untyped-def]
        calls[0] += 1
        if calls[0] > n:
            raise JournalFull("journal.sqlite: the disk is full - the event was NOT recorded")
        return real(*a, **k)

    journal.append = append
    return real


def test_a_press_whose_reading_a_crash_cut_off_is_read_at_the_restart(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    worker.step()  # the first frame is read ... and the kiosk is killed
    kiosk, worker = _restart(kiosk, table, clock, 70_000)
    st = kiosk.state
    assert st.on_move == 0 and st.pressed_at == 10_000 and st.clock.running == 1  # as the journal left it
    settle(kiosk, worker)
    assert _types(kiosk)[-3:] == ["clock_pressed", "kiosk_resumed", "play"]
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.last_play.player == 0 and st.on_move == 1
    clock.t = 80_000  # Ann's turn ended at her press; the downtime is nobody's; Bob's clock runs since the restart
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000 and kiosk.remaining_ms(1) == GAME_MS - 10_000
    assert kiosk.press("right") == "reading"  # Bob's press is taken (was: "it is Ann's turn, not Bob's")


def test_a_press_the_full_journal_could_not_finish_is_read_when_space_returns(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"  # the press is recorded ...
    real = _failing_after(kiosk.session.journal, 0)
    clock.t = 12_000
    settle(kiosk, worker)  # ... its play is not: the disk is full
    assert kiosk.session.paused and kiosk.state.pressed_at == 10_000 and kiosk.state.history == ()
    kiosk.session.journal.append = real  # the director freed some space
    clock.t = 60_000
    out = kiosk.poll()
    assert not kiosk.session.paused and "kiosk_resumed" in out and kiosk.pending is not None
    settle(kiosk, worker)
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.on_move == 1 and st.pressed_at is None
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000 and kiosk.remaining_ms(1) == GAME_MS  # the pause is nobody's
    clock.t = 65_000
    assert kiosk.press("right") == "reading"  # was: "it is Ann's turn, not Bob's"


def test_an_exchange_the_full_journal_could_not_record_is_recorded_when_space_returns(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    assert kiosk.act("exchange", count=3).accepted
    real = _failing_after(kiosk.session.journal, 1)  # the press is recorded, the exchange is not
    clock.t = 10_000
    kiosk.press("left")
    assert kiosk.session.paused and kiosk.state.pressed_at == 10_000 and kiosk.state.history == ()
    kiosk.session.journal.append = real
    clock.t = 60_000
    settle(kiosk, worker)
    st = kiosk.state
    assert [h.kind for h in st.history] == ["exchange"] and st.on_move == 1  # not a pass read off the board


def test_the_judges_entries_at_a_table_without_a_camera_are_the_move_when_space_returns(tmp_path):
    kiosk, clock = make_plain_kiosk(tmp_path)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    for sq, ch in QUIRT.items():
        assert kiosk.act("correct", square=sq, char=ch).accepted
    real = _failing_after(kiosk.session.journal, 1)
    clock.t = 10_000
    kiosk.press("left")
    assert kiosk.session.paused and kiosk.state.pressed_at == 10_000
    kiosk.session.journal.append = real
    clock.t = 60_000
    kiosk.poll()
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.on_move == 1 and kiosk.remaining_ms(0) == GAME_MS - 10_000


def test_a_press_without_its_move_at_a_table_without_a_camera_is_taken_back_at_the_restart(tmp_path):
    kiosk, clock = make_plain_kiosk(tmp_path)
    clock.t = 10_000
    assert kiosk.apply(ev.ClockPressed(t=10_000, player=0)).accepted  # ... and the kiosk died before its move
    kiosk, _ = _restart(kiosk, None, clock, 70_000)
    clock.t = 75_000
    kiosk.poll()
    assert _types(kiosk)[-3:] == ["clock_pressed", "kiosk_resumed", "press_withdrawn"]
    st = kiosk.state
    assert st.on_move == 0 and st.pressed_at is None and st.clock.running == 0
    assert "Call the judge to enter the move, then Ann presses the clock again." in kiosk.view.message
    assert kiosk.view.problem_text == kiosk.view.message and kiosk.view.needs_judge
    clock.t = 80_000  # Bob was charged nothing: the 5 s since the restart are Ann's
    assert kiosk.remaining_ms(1) == GAME_MS and kiosk.remaining_ms(0) == GAME_MS - 20_000
    assert kiosk.press("left") == "pass"  # Ann can press; Bob's press was refused while his clock ran


def test_a_press_the_camera_was_down_for_is_taken_back_after_the_restart_when_it_is_still_down(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(QUIRT)
    table.fail = "unplugged"
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    worker.step()  # waiting for a frame; the kiosk is stopped before the reading times out
    elapsed = [0.0]
    kiosk, worker = _restart(kiosk, table, clock, 70_000, timer=lambda: elapsed[0])
    kiosk.poll()
    assert kiosk.pending is not None  # the press is being read again
    worker.step()
    clock.t, elapsed[0] = 85_000, 2.0  # past the worker's timeout
    worker.step()
    kiosk.poll()
    st = kiosk.state
    assert st.on_move == 0 and st.pressed_at is None and st.clock.running == 0 and _types(kiosk)[-1] == "press_withdrawn"
    assert "Ann: press the clock again, or call the judge to enter the move." in kiosk.view.problem_text
    assert kiosk.remaining_ms(1) == GAME_MS and kiosk.remaining_ms(0) == GAME_MS - 25_000  # Bob's 15 s are Ann's
    table.fail = ""  # the camera is back: Ann presses again
    assert kiosk.press("left") == "reading"
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIRT"


def test_a_press_whose_reading_came_while_the_clocks_were_paused_is_read_when_they_run_again(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    clock.t = 11_000
    kiosk.press("pause")
    settle(kiosk, worker)  # the reading came while the clocks stood still: no turn ends meanwhile
    assert kiosk.state.neutralised and kiosk.state.pressed_at == 10_000 and kiosk.state.history == ()
    clock.t = 20_000
    kiosk.press("pause")
    settle(kiosk, worker)
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.on_move == 1 and st.pressed_at is None and not st.neutralised


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_kiosk_run_killed_or_stopped_while_reading_reads_the_press_at_the_restart(tmp_path, sig, caplog):
    """The tester's case through ``kiosk run``: the process killed (or stopped by systemd) while the board is read
    for Ann's press (a camera that works but shows no board: the reading waits for its 15 s timeout; a camera known
    down hands the press back at once, tests/app/test_app_camera_down_press.py), then restarted with the camera
    working: the press is read (a pass: the board is empty), Bob to move (his press: the tests above)."""
    import os
    import subprocess
    import sys
    import time

    from kiosk.app.config import load_config
    from kiosk.app.table import run_table

    root = Path(__file__).resolve().parents[2]
    import numpy as np

    from kiosk.vision.images import write_image

    (tmp_path / "dark").mkdir()
    write_image(tmp_path / "dark" / "frame.png", np.zeros((480, 640, 3), np.uint8))
    dark = f'camera = {{backend = "replay", path = "{tmp_path / "dark"}"}}'
    cfg = headless_config(tmp_path, buttons='{backend = "scripted", script = [[300, "left"]]}')
    cfg.write_text(cfg.read_text().replace('camera = {backend = "none"}', dark))
    env = {**os.environ, "PYTHONPATH": str(root), "SDL_VIDEODRIVER": "dummy"}
    proc = subprocess.Popen([sys.executable, "-m", "kiosk", "run", "--config", str(cfg), "--headless"], cwd=root,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, err = time.monotonic() + 120, ""
        while "press left: reading" not in err and time.monotonic() < deadline and proc.poll() is None:
            err += proc.stderr.readline()
        assert "press left: reading" in err, err
        proc.send_signal(sig)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    session = GameSession.open(tmp_path / "journal.sqlite")
    assert [e.type for e in session.referee.events][-1] == "clock_pressed"
    session.close()
    cfg.write_text(cfg.read_text().replace(dark, 'camera = {backend = "synthetic"}')
                   .replace('[[300, "left"]]', "[]"))
    with caplog.at_level("INFO", logger="kiosk.run"):
        assert run_table(load_config(cfg), headless=True, max_seconds=10) == 0
    assert "Ann's press without its move: reading" in caplog.messages and "pass" in caplog.messages, caplog.messages
    session = GameSession.open(tmp_path / "journal.sqlite")
    types, on_move = [e.type for e in session.referee.events], session.state.on_move
    session.close()
    assert types[1:] == ["clock_pressed", "kiosk_resumed", "pass"] and on_move == 1, types


@pytest.mark.slow
@pytest.mark.parametrize("windowed", [False, True], ids=["headless", "windowed"])
def test_a_demo_killed_between_a_press_and_its_reading_resumes_to_the_records_scores(tmp_path, windowed):
    """``kiosk demo``'s table after a restart holds the tiles of a play whose press the journal has: the kiosk reads
    them for that press. Windowed (the screen polls the kiosk while the players think) the kiosk read the table
    before the tiles were back and the demo stopped ('the kiosk's board differs from the table'); headless the
    players' check of the last move saw them as a misread and the judge took a turn back."""
    from kiosk.app.record_demo import DemoOptions, run_demo
    from kiosk.referee.state import OVER
    from kiosk.store import Journal

    full, cut = tmp_path / "full.sqlite", tmp_path / "cut.sqlite"
    assert run_demo(DemoOptions(journal=full, size=(1014, 760)), out=lambda s: None).scores == (432, 267)
    with Journal(full) as j:
        events = j.events(j.games()[0].id)
    end = [i for i, e in enumerate(events) if e.type == "play"][2] - 1  # Ada's press for the game's third play
    assert events[end].type == "clock_pressed"
    with Journal(cut) as j:  # the journal as the demo killed after that press left it
        game = j.start_game(events[0])
        for e in events[1:end + 1]:
            j.append(game, e)
    said: list[str] = []
    ui = (lambda k: k.state.phase != OVER) if windowed else None
    res = run_demo(DemoOptions(journal=cut, size=(1014, 760), speed=500 if windowed else 0, ui=ui), out=said.append)
    assert f"after event {end + 1}" in said[0] and res.resumed, said
    assert res.scores == (432, 267) and res.judge_undos == 0 and said[-1] == "final: Ada 432, Bo 267", said
