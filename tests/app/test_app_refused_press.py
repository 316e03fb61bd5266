"""A press the kiosk does not take leaves the clocks as they were before it: the turn is still the mover's, so
his clock runs while he fixes his tiles, never the opponent's (seed 002 II.F: the board is not touched while the
opponent's clock runs; K: the press ends a turn only with a play the kiosk can take)."""

from __future__ import annotations

from app_fixtures import PIN, make_kiosk, settle
from common_fixtures import make_kiosk as make_plain_kiosk

from kiosk.rules.board import parse_coordinate

GAME_MS = 25 * 60_000


def _word(coord: str, word: str) -> dict[int, str]:
    return dict(zip(parse_coordinate(coord).squares(len(word)), word, strict=True))


def test_a_play_the_rules_refuse_leaves_the_movers_clock_running(tmp_path):
    """The tester's case: the judge enters Q on A1 and Z on O15, Ada presses: refused, and Bo's clock ran."""
    kiosk, _ = make_plain_kiosk(tmp_path, players=("Ada", "Bo"))  # no camera: the judge's entries are the move
    clock = kiosk.clock
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    assert kiosk.act("correct", square=0, char="Q").accepted and kiosk.act("correct", square=224, char="Z").accepted
    clock.t = 3_000
    out = kiosk.press("left")
    assert out.startswith("refused") and kiosk.state.history == ()
    assert "not in one row or one column" in kiosk.view.message
    st = kiosk.state
    assert st.on_move == 0 and st.pressed_at is None and st.clock.running == 0
    clock.t = 38_000  # Ada fixes her tiles for 35 s: on her clock, not Bo's
    assert kiosk.remaining_ms(0) == GAME_MS - 38_000 and kiosk.remaining_ms(1) == GAME_MS
    assert [e.type for e in kiosk.session.referee.events[-2:]] == ["clock_pressed", "press_withdrawn"]


def test_a_board_problem_and_no_reading_leave_the_movers_clock_running(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    table.put({**_word("8D", "QUIRT"), 0: "A"})  # a floating tile on A1: the board does not read right
    clock.t = 10_000
    kiosk.press("left")
    clock.t = 12_000
    settle(kiosk, worker)
    assert kiosk.view.problem_squares and kiosk.state.history == ()
    assert kiosk.state.clock.running == 0 and kiosk.remaining_ms(1) == GAME_MS
    clock.t = 20_000
    assert kiosk.remaining_ms(0) == GAME_MS - 20_000
    table.put({0: "."})
    kiosk.press("left")  # fixed: the press is taken at its own time
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIRT" and kiosk.remaining_ms(0) == GAME_MS - 20_000
    # no reading at all (a hand over the board): the press is not taken either
    elapsed = [0.0]
    worker.timer = lambda: elapsed[0]
    table.fail = "hand over the board"
    clock.t = 30_000
    kiosk.press("right")
    worker.step()
    kiosk.poll()
    elapsed[0] += 2.0  # past the worker's 1 s timeout, on its own timer
    worker.step()
    kiosk.poll()
    assert "no reading" in kiosk.view.problem_text and kiosk.pending is None
    st = kiosk.state
    assert st.on_move == 1 and st.pressed_at is None and st.clock.running == 1
    clock.t = 40_000
    assert kiosk.remaining_ms(1) == GAME_MS - 20_000 and kiosk.remaining_ms(0) == GAME_MS - 20_000
