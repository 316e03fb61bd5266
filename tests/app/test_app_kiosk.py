"""The kiosk's orchestration: a clock press reads the board, the move is validated, scored, journaled;
anything the rules do not allow is shown with its squares and never scored."""

import time

from app_fixtures import PIN, make_kiosk, settle

from kiosk.referee.state import CHALLENGED, DESIGNATING, PLAYING, REMOVING
from kiosk.rules.board import parse_coordinate
from kiosk.store import GameSession


def word_squares(coord: str, word: str) -> dict[int, str]:
    return dict(zip(parse_coordinate(coord).squares(len(word)), word))


def test_press_reads_the_board_scores_the_play_and_journals_it(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    settle(kiosk, worker)
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 30_000
    assert kiosk.press("left") == "reading"
    settle(kiosk, worker)
    st = kiosk.state
    assert st.scores == (48, 0) and st.on_move == 1
    assert st.last_play is not None and st.last_play.word == "QUIRT"
    assert kiosk.view.message == "Ann played QUIRT at 8D for 48 points."
    kiosk.session.close()
    again = GameSession.open(tmp_path / "journal.sqlite")
    assert again.state == st  # every accepted event went through the journal


def test_press_waits_for_a_frame_after_the_press(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    settle(kiosk, worker)  # the empty board is stable before anything happens
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 10_000
    kiosk.press("left")
    worker.step()  # first frame of the new board: not yet stable (differs from the previous reading)
    kiosk.poll()
    assert kiosk.pending is not None and kiosk.state.on_move == 0
    worker.step()
    kiosk.poll()
    assert kiosk.pending is None and kiosk.state.scores == (48, 0)


def test_no_change_is_a_pass_and_the_exchange_chosen_on_screen_is_an_exchange(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    clock.t = 5_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.history[-1].kind == "pass" and kiosk.state.on_move == 1
    assert kiosk.act("exchange", count=3).accepted
    clock.t = 9_000
    kiosk.press("right")
    settle(kiosk, worker)
    h = kiosk.state.history[-1]
    assert (h.kind, h.player, h.count) == ("exchange", 1, 3)


def test_an_exchange_needs_no_reading_and_is_recorded_with_the_camera_down(tmp_path):
    """An exchange lays no tile: the kiosk records it at the press, without waiting for the camera; with the
    camera down it was never recorded (every press got "no reading", and no entry of the judge is an exchange)."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.fail = "camera unplugged"
    assert kiosk.act("exchange", count=7).accepted
    clock.t = 9_000
    assert kiosk.press("left").startswith("exchange 7")
    h = kiosk.state.history[-1]
    assert (h.kind, h.player, h.count) == ("exchange", 0, 7) and kiosk.pending is None and kiosk.state.on_move == 1


def test_the_press_stops_the_players_time_before_the_reading_arrives(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 10_000
    kiosk.press("left")
    clock.t = 14_000  # the reading takes (here) 4 s: not charged to Ann
    settle(kiosk, worker)
    assert kiosk.state.scores == (48, 0)
    assert kiosk.remaining_ms(0) == 25 * 60_000 - 10_000


def test_wrong_side_press_is_refused_without_an_event(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    events = kiosk.state.events
    assert "Ann's turn" in kiosk.press("right")
    assert kiosk.state.events == events and kiosk.pending is None


def test_changed_old_tile_and_unsure_square_are_shown_never_scored(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    history = kiosk.state.history
    table.put({112: "O", 127: "A", 142: "#"})  # H8 (old T) now reads O; new tile on H9; H10 doubtful
    clock.t = 20_000
    kiosk.press("right")
    settle(kiosk, worker)
    assert kiosk.state.history == history and kiosk.state.on_move == 1
    # the press was not taken: the clocks are as before it, Bob's running (Ann's stood still meanwhile)
    assert [e.type for e in kiosk.session.referee.events[-2:]] == ["clock_pressed", "press_withdrawn"]
    assert kiosk.state.clock.running == 1 and kiosk.state.pressed_at is None
    assert set(kiosk.view.problem_squares) == {112, 142}
    assert kiosk.view.needs_judge
    # the judge corrects the camera on those squares; the press is then accepted
    assert not kiosk.act("correct", square=112, char="T").accepted  # menu locked without the PIN
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.act("correct", square=112, char="T").accepted
    assert kiosk.act("correct", square=142, char="T").accepted
    clock.t = 30_000
    kiosk.press("right")
    settle(kiosk, worker)
    assert kiosk.state.history[-1].kind == "play"
    assert kiosk.state.last_play.tiles == ((127, "A"), (142, "T"))
    assert kiosk.view.problem_squares == () and kiosk.view.corrections == {}


def test_floating_tiles_are_refused_with_their_squares(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    table.put({0: "A", 1: "T"})  # A1-B1: not connected to anything
    clock.t = 20_000
    kiosk.press("right")
    settle(kiosk, worker)
    assert kiosk.state.history[-1].player == 0
    assert kiosk.view.problem_text and set(kiosk.view.problem_squares) <= {0, 1}


def test_blank_is_designated_before_the_play_scores(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(word_squares("8D", "QUI?T"))
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.phase == DESIGNATING and kiosk.state.pending_blanks == (111,)
    assert not kiosk.act("designate", player=0, square=111, letter="1").accepted
    assert kiosk.act("designate", player=0, square=111, letter="r").accepted
    st = kiosk.state
    assert st.phase == PLAYING and st.last_play.word == "QUIrT" and st.scores == (46, 0)


def test_phony_challenged_off_waits_for_the_tiles_to_leave_the_board(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put(word_squares("8D", "QXIRT"))
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    clock.t = 12_000
    assert kiosk.act("challenge", player=1).accepted
    assert kiosk.state.phase == CHALLENGED
    assert not kiosk.act("rule", acceptable=False, pin="0000").accepted
    assert kiosk.act("rule", acceptable=False, pin=PIN).accepted
    assert kiosk.state.phase == REMOVING and kiosk.state.scores == (0, 0)
    settle(kiosk, worker)  # the tiles are still there: the kiosk keeps waiting and marks them
    assert kiosk.state.phase == REMOVING and set(kiosk.view.removal_left) == set(range(108, 113))
    table.put({sq: "." for sq in range(108, 113)})
    clock.t = 20_000
    for _ in range(4):
        settle(kiosk, worker)
    assert kiosk.state.phase == PLAYING and kiosk.state.on_move == 1


def test_no_stable_reading_is_reported_not_guessed(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.fail = "cable unplugged"
    clock.t = 10_000
    kiosk.press("left")
    worker.step()
    kiosk.poll()
    assert kiosk.pending is not None
    time.sleep(1.1)
    worker.step()
    kiosk.poll()
    assert kiosk.pending is None and kiosk.state.history == ()
    assert "cable unplugged" in kiosk.view.problem_text


def test_bad_touch_input_is_a_message_not_an_exception(tmp_path):
    kiosk, *_ = make_kiosk(tmp_path)
    res = kiosk.act("designate", player="x", square=1, letter="A")
    assert not res.accepted and "bad input" in res.reason
    assert not kiosk.act("frobnicate").accepted


def test_judge_takes_back_a_misread_move_and_the_corrected_reading_scores(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    settle(kiosk, worker)
    # a blank lies on H8 (the end of QUIRt) but the camera misses it: the kiosk scores QUIR
    table.put(word_squares("8D", "QUIR"))
    clock.t = 30_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIR"
    assert not kiosk.act("undo", reason="misread").accepted  # behind the judge's PIN
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    res = kiosk.act("undo", reason="the blank on H8 was missed")
    assert res.accepted, res.reason
    st = kiosk.state
    assert st.history == () and st.on_move == 0 and st.board[parse_coordinate("8D").squares(4)[0]] == ""
    assert "took the last turn back" in kiosk.view.message
    # the judge tells the camera about H8, the player presses again: the blank asks for its letter
    assert kiosk.act("correct", square=112, char="?").accepted
    clock.t = 40_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.phase == DESIGNATING and kiosk.state.pending_blanks == (112,)
    assert kiosk.act("designate", player=0, square=112, letter="T").accepted
    assert kiosk.state.last_play.word == "QUIRt" and kiosk.state.scores == (46, 0)
    kiosk.session.close()
    again = GameSession.open(tmp_path / "journal.sqlite")
    assert again.state == kiosk.state  # the undo is journaled like any event


def test_judge_changes_the_rules_before_the_first_move_only(tmp_path):
    from kiosk.referee.presets import load_preset

    kiosk, table, clock, worker = make_kiosk(tmp_path)
    wespa = load_preset("wespa").to_dict()
    assert not kiosk.act("change_preset", preset=wespa).accepted  # locked
    kiosk.act("judge_unlock", pin=PIN)
    assert kiosk.act("change_preset", preset=wespa).accepted and kiosk.state.preset == "wespa"
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 30_000
    kiosk.press("left")
    settle(kiosk, worker)
    res = kiosk.act("change_preset", preset=load_preset("nsf").to_dict())
    assert not res.accepted and "before the first move" in res.reason


def _press_unread(kiosk, worker, elapsed, side):  # type: ignore[no-untyped-def]
    """Press ``side`` while the camera gives nothing, until the press is answered: at the first try when the camera
    is known down (its last capture failed), else at the worker's timeout. Returns both polls' outcomes."""
    kiosk.press(side)
    worker.step()
    out = kiosk.poll()
    elapsed[0] += 2.0  # past the worker's 1 s timeout, on its own timer
    worker.step()
    return out + kiosk.poll()


def test_with_no_reading_at_all_the_judge_enters_the_move(tmp_path):
    """A camera that gives no usable frame (unplugged, a hand that stays, the board not found) must not stop the
    game: the judge enters the move's tiles on the screen, and when the camera again gives no reading the move
    is the referee's board as he entered it, scored as any play (the hard-level demo at 760x570 stopped here)."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    elapsed = [0.0]
    worker.timer = lambda: elapsed[0]
    table.put(word_squares("8D", "QUIRT"))
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    table.fail = "hand over the board"
    clock.t = 20_000
    out = _press_unread(kiosk, worker, elapsed, "right")
    assert any(o.startswith("no reading") for o in out) and kiosk.view.needs_judge
    assert "enter the move" in kiosk.view.problem_text and kiosk.state.scores == (48, 0)
    out = _press_unread(kiosk, worker, elapsed, "right")  # pressing again alone changes nothing
    assert any(o.startswith("no reading") for o in out) and kiosk.state.on_move == 1
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.act("correct", square=parse_coordinate("H7").squares(1)[0], char="I").accepted  # IT down
    clock.t = 30_000
    out = _press_unread(kiosk, worker, elapsed, "right")
    st = kiosk.state
    assert "play" in out and st.last_play.word == "IT" and st.scores == (48, 2), (out, kiosk.view.message)
    assert st.on_move == 0 and not kiosk.view.judge_entered and kiosk.view.corrections == {}


def test_corrections_of_a_read_move_are_no_move_when_the_camera_then_fails(tmp_path):
    """The judge's corrections of a doubtful square complete a reading; they are not the whole move. When the
    next press gets no reading at all, the kiosk scores nothing from them (a partial move) and asks again."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    elapsed = [0.0]
    worker.timer = lambda: elapsed[0]
    table.put({**word_squares("8D", "QUIRT"), 111: "#"})  # G8 (the R) doubtful
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.view.problem_squares == (111,) and kiosk.session.referee.events[-1].type == "press_withdrawn"
    assert kiosk.act("judge_unlock", pin=PIN).accepted and kiosk.act("correct", square=111, char="R").accepted
    table.fail = "hand over the board"
    clock.t = 20_000
    out = _press_unread(kiosk, worker, elapsed, "left")
    assert any(o.startswith("no reading") for o in out)
    assert kiosk.state.scores == (0, 0) and kiosk.state.last_play is None and kiosk.view.corrections == {111: "R"}
    table.fail = ""  # the hand leaves: the reading and the correction make the move
    clock.t = 30_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIRT" and kiosk.state.scores == (48, 0), kiosk.view.message


def test_corrections_after_taking_back_a_misread_move_are_no_move_when_the_camera_then_fails(tmp_path):
    """The judge takes back a misread move (the camera missed the blank of QUIRt) and corrects the square it
    missed: a completion of the next reading, not the whole move. When that press gets no reading at all,
    nothing is scored from it (a lone blank); once he enters the move after the failure, the screen's board is
    the move."""
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    elapsed = [0.0]
    worker.timer = lambda: elapsed[0]
    table.put(word_squares("8D", "QUIR"))       # the blank on H8 is not seen
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIR"
    assert kiosk.act("judge_unlock", pin=PIN).accepted and kiosk.act("undo", reason="the blank on H8").accepted
    assert kiosk.act("correct", square=112, char="?").accepted and not kiosk.view.judge_entered
    table.fail = "camera unplugged"
    clock.t = 20_000
    out = _press_unread(kiosk, worker, elapsed, "left")
    assert any(o.startswith("no reading") for o in out) and kiosk.state.history == (), out
    for sq, ch in word_squares("8D", "QUIR").items():   # the judge enters the rest of the move after the failure
        assert kiosk.act("correct", square=sq, char=ch).accepted
    clock.t = 30_000
    _press_unread(kiosk, worker, elapsed, "left")
    assert kiosk.state.phase == DESIGNATING and kiosk.act("designate", player=0, square=112, letter="T").accepted
    assert kiosk.state.last_play.word == "QUIRt" and kiosk.state.scores == (46, 0)
