"""A press's board reading that comes back while the clocks are stopped (:mod:`kiosk.app.paused_reading`).

The tester's case: Ann pressed the clock after laying QUIRT and, before the reading came back, the clocks were
stopped (the pause button, or the judge's button). The reading then came during the pause, the referee refused the
play ("the clock is neutralised"), and the screen showed it as a board problem ("The clocks are stopped. Press
pause to start them again first.", QUIRT's squares marked) on a board that was right. A failed reading (the camera
down) likewise showed "press the clock again, or call the judge" while no press could do anything.

Now the answer is kept with the press (journaled at its time, seed 002 II.K: the turn ended then), the screen says in
a sentence that the move is recorded when play resumes, and it is acted on as soon as the clocks run again."""

from __future__ import annotations

from pathlib import Path

from app_fixtures import PIN, GridTable, read_grid
from app_fixtures import answer as _answer
from common_fixtures import ManualClock
from common_fixtures import make_kiosk as make_plain_kiosk

from kiosk.app.kiosk import Kiosk
from kiosk.app.pin import PinGate
from kiosk.app.vision_worker import VisionWorker
from kiosk.devices.health import DeviceHealth
from kiosk.rules.board import parse_coordinate
from kiosk.store import GameSession
from kiosk.ui.app import KioskUI

GAME_MS = 25 * 60_000
QUIRT = dict(zip(parse_coordinate("8D").squares(5), "QUIRT", strict=True))
PAUSED = "The game is paused: both clocks are stopped. Press pause again to go on."
JUDGE = "The judge is called: the clocks are stopped until he is done."


class DownTable(GridTable):
    """The grid camera whose health reports ``state`` (``"down"``: a press is handed back after one try)."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(clock)
        self.state = "ok"

    def health(self) -> DeviceHealth:
        return DeviceHealth("camera", "test", self.state)  # type: ignore[arg-type]


def _kiosk(tmp: Path) -> tuple[Kiosk, DownTable, ManualClock, VisionWorker]:
    clock = ManualClock()
    table = DownTable(clock)
    worker = VisionWorker(table, read_grid, stable_frames=2, timeout_ms=15_000, clock=clock,
                          timer=lambda: clock.t / 1000)
    kiosk, _ = make_plain_kiosk(tmp, worker=worker, clock=clock)
    return kiosk, table, clock, worker


def _no_problem(kiosk: Kiosk) -> None:
    v = kiosk.view
    assert v.problem == () and v.problem_text == "" and v.problem_squares == () and not v.needs_judge


def _types(kiosk: Kiosk) -> list[str]:
    return [e.type for e in kiosk.session.referee.events if e.type != "window_closed"]


def test_a_play_read_during_a_pause_is_no_board_problem_and_is_recorded_when_play_resumes(tmp_path):
    """Was: "The clocks are stopped. Press pause to start them again first." as a board problem on QUIRT's
    squares. Now: the pause's sentence and that the move is recorded when play resumes; then QUIRT, Ann's turn
    having ended at her press (she is charged nothing of the pause nor after it)."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    clock.t = 12_000
    kiosk.press("pause")
    out = _answer(kiosk, worker)
    table.put({min(QUIRT): "."})   # during the pause a tile is lifted: the board as Ann left it is her move
    _no_problem(kiosk)
    assert out == ["reading kept until the clocks run again (paused at the table)"], out
    assert kiosk.view.message == (f"{PAUSED} Ann pressed the clock before the clocks stopped: Ann's move is "
                                  "recorded when play resumes.")
    ui = KioskUI(kiosk, (800, 480))
    assert ui.draw() == "main" and "Ann's move is recorded when play resumes." in " ".join(ui.texts)
    assert kiosk.state.pressed_at == 10_000 and _types(kiosk)[-2:] == ["clock_pressed", "clock_neutralised"]
    clock.t = 20_000
    kiosk.press("pause")
    out = kiosk.poll()
    assert "play" in out, out
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.scores == (48, 0) and st.on_move == 1
    _no_problem(kiosk)
    assert kiosk.view.message == "Ann played QUIRT at 8D for 48 points."
    clock.t = 25_000
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000
    assert kiosk.remaining_ms(1) == GAME_MS - 2_000 - 5_000


def test_a_play_read_while_the_judge_is_called_is_recorded_when_the_judge_is_done(tmp_path):
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    kiosk.press("judge")
    _answer(kiosk, worker)
    _no_problem(kiosk)
    assert kiosk.view.message == (f"{JUDGE} Ann pressed the clock before the clocks stopped: Ann's move is "
                                  "recorded when play resumes.")
    ui = KioskUI(kiosk, (800, 480))
    assert ui.draw() == "pin" and not ui.overflows
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.state.last_play is None   # nothing while the judge works
    kiosk.poll()
    assert kiosk.state.last_play is None and kiosk.state.pressed_at == 10_000
    ui.overlay = "judge"
    ui.tap("judge_close")
    kiosk.poll()
    st = kiosk.state
    assert st.last_play.word == "QUIRT" and st.on_move == 1 and kiosk.pending is None
    _no_problem(kiosk)


def test_a_camera_down_hand_back_during_a_pause_waits_for_play_to_resume(tmp_path):
    """The camera is down at Ann's press: the worker hands the press back at once, during the pause. Was: the
    camera problem ("press the clock again, or call the judge") shown while no press can do anything. Now the
    pause's sentence says what happens when play resumes; then the press is handed back as with the clocks running
    (Ann's clock runs again, the judge asked to enter the move)."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.fail, table.state = "camera unplugged", "down"
    clock.t = 10_000
    assert worker.camera_down() and kiosk.press("left") == "reading"
    kiosk.press("pause")
    _answer(kiosk, worker)
    _no_problem(kiosk)
    assert kiosk.view.message == (f"{PAUSED} The camera gave no reading of Ann's move (the camera is down: camera "
                                  "unplugged): when play resumes, Ann presses the clock again, unless the judge has "
                                  "entered the move.")
    assert kiosk.state.pressed_at == 10_000 and kiosk.state.clock.running is None
    clock.t = 20_000
    kiosk.press("pause")
    kiosk.poll()
    st = kiosk.state
    assert st.pressed_at is None and st.on_move == 0 and st.clock.running == 0
    assert _types(kiosk)[-3:] == ["clock_neutralised", "clock_resumed", "press_withdrawn"]
    assert kiosk.view.problem_text == ("The camera gave no reading (the camera is down: camera unplugged). Ann: "
                                       "press the clock again, or call the judge to enter the move.")


def test_the_judges_entry_during_his_call_is_the_move_of_a_press_the_camera_could_not_read(tmp_path):
    """Ann's press could not be read (the camera down) and the judge, called, enters her I on H7 on his screen:
    when he is done the press is her move at once, ending her turn at the press's time (seed 002 II.K)."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.fail, table.state = "camera unplugged", "down"
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    clock.t = 11_000
    kiosk.press("judge")
    _answer(kiosk, worker)
    _no_problem(kiosk)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    for sq, ch in zip(parse_coordinate("8G").squares(3), "HIT", strict=True):
        assert kiosk.act("correct", square=sq, char=ch).accepted
    clock.t = 40_000
    assert kiosk.act("judge_done").accepted
    kiosk.poll()
    st = kiosk.state
    assert st.last_play is not None and st.last_play.word == "HIT" and st.on_move == 1 and kiosk.pending is None
    play = [e for e in kiosk.session.referee.events if e.type == "play"][-1]
    assert play.by_judge
    _no_problem(kiosk)
    clock.t = 45_000
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000
    assert kiosk.remaining_ms(1) == GAME_MS - 1_000 - 5_000


def test_a_board_problem_read_during_a_pause_gives_the_presser_back_his_time_before_the_pause(tmp_path):
    """Ann presses with QUIRT and a stray A at 1A (tiles in two lines: a board problem); the clocks are stopped 2 s
    later and the reading comes during the pause. When play resumes her press is taken back: the 2 s Bo's clock ran
    between her press and the pause are hers, the pause is nobody's. Was: Bo kept the 2 s (the resume restarted
    Ann's clock, so the press taken back found none of the opponent's time to give back)."""
    kiosk, table, clock, worker = _pressed_and_paused(tmp_path, {**QUIRT, 0: "A"})
    _no_problem(kiosk)
    clock.t = 20_000
    kiosk.press("pause")
    kiosk.poll()
    st = kiosk.state
    assert st.pressed_at is None and st.on_move == 0 and st.clock.running == 0 and st.last_play is None
    assert kiosk.view.problem_squares and kiosk.view.problem_text
    clock.t = 25_000
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000 - 2_000 - 5_000
    assert kiosk.remaining_ms(1) == GAME_MS


def _undo_enabled(ui: KioskUI) -> bool:
    assert ui.draw() == "judge"
    return any(b.action == "judge_undo" and b.enabled for b in ui.buttons)


def test_the_judge_called_after_a_press_can_take_that_press_back_and_the_clocks_stay_stopped(tmp_path):
    """Ann presses, Bo calls the judge before the reading comes; the reading is kept. Was: the judge's Undo refused
    with "the board is being read" although nothing was being read any more. Now it takes back Ann's press (her
    kept reading dropped, never recorded) and the clocks stay stopped until he is done; then Ann's clock runs."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    clock.t = 11_000
    kiosk.press("judge")
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    ui = KioskUI(kiosk, (800, 480))
    ui.overlay = "judge"
    assert not _undo_enabled(ui)            # greyed while the board is being read
    _answer(kiosk, worker)
    assert _undo_enabled(ui)                # (was greyed while the answer was kept)
    clock.t = 30_000
    res = kiosk.act("undo", reason="Ann wants to change her tiles")
    assert res.accepted, res
    st = kiosk.state
    assert kiosk.pending is None and st.pressed_at is None and st.on_move == 0 and st.last_play is None
    assert st.neutralised == "judge called at the table" and st.clock.running is None
    assert kiosk.view.message == ("The judge took back Ann's clock press: Ann to move. Undo again to take back the "
                                  "turn before it. The clocks stay stopped until the judge is done.")
    assert _types(kiosk)[-3:] == ["clock_neutralised", "move_undone", "clock_neutralised"]
    kiosk.poll()
    assert kiosk.state.last_play is None   # the kept reading is gone with its press
    ann_left = kiosk.remaining_ms(0)
    clock.t = 50_000
    assert kiosk.remaining_ms(0) == ann_left   # nobody's time runs while the judge is at the table
    assert kiosk.act("judge_done").accepted
    assert kiosk.view.message == "The judge is done: Ann's clock runs again."
    clock.t = 52_000
    assert kiosk.remaining_ms(0) == ann_left - 2_000
    assert kiosk.press("left") == "reading"
    _answer(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIRT"


def test_resuming_after_a_press_still_being_read_names_the_opponents_running_clock(tmp_path):
    """The press started Bo's clock; pause and pause again before the reading comes: Bo's clock is the one that runs
    again, and the screen says so (was: "Ann's clock runs")."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    kiosk.press("pause")
    clock.t = 15_000
    kiosk.press("pause")
    assert kiosk.state.clock.running == 1
    assert kiosk.view.message == "The game goes on: Bob's clock runs."


def _pressed_and_paused(tmp_path: Path, board: dict[int, str] = QUIRT
                        ) -> tuple[Kiosk, DownTable, ManualClock, VisionWorker]:
    """Ann lays ``board`` (QUIRT) and presses at 10 s; pause at 12 s; her reading comes and is kept."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.put(board)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    clock.t = 12_000
    kiosk.press("pause")
    _answer(kiosk, worker)
    return kiosk, table, clock, worker


KEPT = f"{PAUSED} Ann pressed the clock before the clocks stopped: Ann's move is recorded when play resumes."


def test_the_game_is_not_ended_over_a_kept_move_the_judge_is_told_what_to_do(tmp_path):
    """Was: calling the game, stopping it or a resignation during the pause ended it without Ann's QUIRT (0:0), the
    kept reading stayed for ever and the judge's Undo was refused. Now ending it is refused with what to do; the
    move is recorded at the resume, then the game may end. An exchange chosen after her press is refused too."""
    kiosk, table, clock, worker = _pressed_and_paused(tmp_path)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert not kiosk.act("exchange", count=7).accepted   # (was: accepted, "put them in the bag", then a pass)
    for action, kw in (("call_game", {"reason": "round over"}), ("call_game", {"reason": "d", "as_it_stands": True}),
                       ("resign", {"player": 1, "reason": "Bob resigns"})):
        res = kiosk.act(action, **kw)
        assert not res.accepted and res.code == "press_unrecorded", (action, res)
        assert kiosk.view.message == ("Ann's clock press is not recorded yet: close the judge's menu or press pause "
                                      "so that play resumes and Ann's move is recorded, or undo the press; then end "
                                      "the game.")
    assert kiosk.state.phase == "playing" and _types(kiosk)[-2:] == ["clock_pressed", "clock_neutralised"]
    clock.t = 20_000
    kiosk.press("pause")
    kiosk.poll()
    assert kiosk.state.last_play.word == "QUIRT" and kiosk.state.scores == (48, 0)
    assert kiosk.act("call_game", reason="round over").accepted


def test_the_stopped_clocks_stay_said_whoever_presses_and_after_the_judge_and_a_restart(tmp_path):
    """Was: Bob's press during the pause showed "it is Ann's turn, not Bob's" (nothing said the game was paused);
    the judge's menu opened and closed during a pause left "PIN accepted"; pausing again before the kept move was
    acted on, or a restart, lost the sentence that it is recorded at the resume."""
    kiosk, table, clock, worker = _pressed_and_paused(tmp_path)
    assert kiosk.view.message == KEPT
    kiosk.press("right")
    assert kiosk.view.message == KEPT
    kiosk.press("judge")
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.view.message == "PIN accepted: the judge's menu is open."
    assert kiosk.act("judge_done").accepted
    assert kiosk.view.message == KEPT and kiosk.state.neutralised == "paused at the table"
    kiosk.press("pause")                     # resumed, and paused again before the kept move is acted on
    kiosk.press("pause")
    assert kiosk.view.message == KEPT
    kiosk.session.close()
    session = GameSession.open(tmp_path / "journal.sqlite")
    session.resume(30_000)
    again = Kiosk(session, None, None, PinGate(PIN), clock)
    assert again.view.message == KEPT
    session.close()


def test_the_judges_undo_of_a_kept_press_gives_the_presser_his_time_back_as_a_press_taken_back_does(tmp_path):
    """Ann's press at 10 s, the pause at 12 s, the judge takes her press back: the 2 s Bob's clock ran are Ann's,
    as when the same press comes back as a board problem. Was: Bob kept them (Ann 1,490,000 ms, Bob 1,498,000)."""
    kiosk, table, clock, worker = _pressed_and_paused(tmp_path)
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    clock.t = 15_000
    assert kiosk.act("undo", reason="Ann wants other tiles").accepted
    assert kiosk.act("judge_done").accepted
    assert kiosk.state.neutralised == "paused at the table"   # (his menu closed; the pause stands)
    assert kiosk.remaining_ms(0) == GAME_MS - 12_000 and kiosk.remaining_ms(1) == GAME_MS
    clock.t = 20_000
    kiosk.press("pause")
    clock.t = 25_000
    assert kiosk.remaining_ms(0) == GAME_MS - 17_000 and kiosk.remaining_ms(1) == GAME_MS


def test_what_the_judge_and_the_opponent_are_told_while_a_pressed_move_is_not_recorded(tmp_path):
    """Was: "Judge: enter the PIN." still shown after his PIN opened the menu; Bob's hold of Ann's unrecorded move
    refused with "It is too late: the play stands."; ending the game while the board was still being read told the
    judge to undo the press, which is refused then."""
    kiosk, table, clock, worker = _kiosk(tmp_path)
    table.put(QUIRT)
    clock.t = 10_000
    assert kiosk.press("left") == "reading"
    kiosk.press("judge")
    assert kiosk.view.message == (f"{JUDGE} Ann pressed the clock before the clocks stopped: Ann's move is recorded "
                                  "when play resumes. Judge: enter the PIN.")
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    res = kiosk.act("call_game", reason="round over")
    assert not res.accepted and res.reason == ("Ann's clock press is not recorded yet: wait a moment for the board "
                                               "to be read, then end the game.")
    _answer(kiosk, worker)
    assert "PIN" not in kiosk.view.message
    for action in ("hold", "challenge"):
        res = kiosk.act(action, player=1)
        assert not res.accepted and res.reason == ("Ann's move is not recorded yet: hold or challenge it once it is "
                                                   "shown."), action
