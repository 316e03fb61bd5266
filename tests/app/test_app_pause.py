"""The table's pause and judge buttons (BCM 22 / 23; keyboard space / j). The pause button did nothing ('pause
ignored': the clock ran on, the screen said nothing) and the judge button only said 'judge called: enter the
PIN' while the clock ran on and no PIN pad opened. At a tournament a player stops the clock to call the judge
(seed 002 II.L.1 and L.4, II.N): now pause stops both clocks (pressed again, the mover's runs), and the judge
button stops them and opens the PIN pad until the judge closes his menu."""

from __future__ import annotations

from common_fixtures import PIN, make_kiosk

from kiosk.store import GameSession
from kiosk.ui.app import KioskUI

GAME_MS = 25 * 60_000


def test_pause_stops_both_clocks_and_pressed_again_the_movers_runs(tmp_path):
    kiosk, clock = make_kiosk(tmp_path, players=("Ada", "Bo"))
    clock.t = 10_000
    kiosk.press("pause")
    st = kiosk.state
    assert st.neutralised and st.clock.running is None
    assert kiosk.view.message == "The game is paused: both clocks are stopped. Press pause again to go on."
    ui = KioskUI(kiosk, (800, 480))
    assert ui.draw() == "main" and "The game is paused: both clocks are stopped." in " ".join(ui.texts)
    assert not ui.overflows
    clock.t = 70_000  # a minute paused: nobody's time
    assert kiosk.remaining_ms(0) == GAME_MS - 10_000 and kiosk.remaining_ms(1) == GAME_MS
    events = kiosk.state.events
    assert kiosk.press("left").startswith("The game is paused")  # no turn ends while paused
    assert kiosk.state.events == events
    kiosk.press("pause")
    assert kiosk.view.message == "The game goes on: Ada's clock runs."
    clock.t = 80_000
    assert kiosk.state.clock.running == 0 and kiosk.remaining_ms(0) == GAME_MS - 20_000
    assert kiosk.remaining_ms(1) == GAME_MS
    kiosk.session.close()
    again = GameSession.open(tmp_path / "journal.sqlite")  # journaled: a restart has the same clocks
    assert [e.type for e in again.referee.events][-2:] == ["clock_neutralised", "clock_resumed"]
    again.close()


def test_pause_outside_a_game_says_so(tmp_path):
    kiosk, _ = make_kiosk(tmp_path, start=False)
    kiosk.press("pause")
    assert kiosk.view.message == "There is no game in progress to pause."


def test_the_judge_button_stops_the_clocks_and_opens_the_pin_pad_until_the_judge_is_done(tmp_path):
    kiosk, clock = make_kiosk(tmp_path, players=("Ada", "Bo"))
    ui = KioskUI(kiosk, (800, 480))
    assert ui.draw() == "main"
    clock.t = 5_000
    kiosk.press("judge")
    assert kiosk.state.clock.running is None
    assert kiosk.view.message == "The judge is called: the clocks are stopped until he is done. Judge: enter the PIN."
    assert ui.draw() == "pin" and not ui.overflows  # the PIN pad opened by itself, the sentence on it
    clock.t = 25_000  # the judge comes and types his PIN
    for d in PIN:
        ui.tap(d)
    ui.tap("OK")
    assert kiosk.remaining_ms(0) == GAME_MS - 5_000 and kiosk.remaining_ms(1) == GAME_MS
    clock.t = 65_000
    assert ui.draw() == "judge" and kiosk.state.clock.running is None  # still stopped while the judge works
    ui.tap("judge_close")
    assert kiosk.state.clock.running == 0 and not kiosk.state.neutralised
    assert kiosk.view.message == "The judge is done: Ada's clock runs again."
    clock.t = 75_000
    assert kiosk.remaining_ms(0) == GAME_MS - 15_000


def test_closing_the_judge_menu_leaves_a_pause_as_it_is(tmp_path):
    kiosk, clock = make_kiosk(tmp_path)
    ui = KioskUI(kiosk, (800, 480))
    kiosk.press("pause")
    assert kiosk.act("judge_unlock", pin=PIN)
    ui.overlay = "judge"
    ui.tap("judge_close")
    assert kiosk.state.neutralised and kiosk.state.clock.running is None


def test_the_judges_undo_during_his_call_leaves_the_clocks_stopped_until_he_is_done(tmp_path):
    """Ada passes; Bo calls the judge, who takes Ada's turn back. Was: the undo started Ada's clock while the judge
    was still at the table (and closing his menu then resumed nothing). Now the clocks stay stopped (journaled
    again after the undo) until he is done; then Ada's runs."""
    kiosk, clock = make_kiosk(tmp_path, players=("Ada", "Bo"))
    clock.t = 5_000
    assert kiosk.press("left") == "pass"
    clock.t = 8_000
    kiosk.press("judge")
    assert kiosk.act("judge_unlock", pin=PIN).accepted
    clock.t = 20_000
    assert kiosk.act("undo", reason="Ada meant to play").accepted
    st = kiosk.state
    assert st.on_move == 0 and st.neutralised and st.clock.running is None
    assert kiosk.view.message == ("The judge took the last turn back: Ada to move; fix the board, then press the "
                                  "clock. The clocks stay stopped until the judge is done.")
    ada = kiosk.remaining_ms(0)
    clock.t = 60_000
    assert kiosk.remaining_ms(0) == ada
    assert kiosk.act("judge_done").accepted and kiosk.state.clock.running == 0
    assert kiosk.view.message == "The judge is done: Ada's clock runs again."
    kiosk.session.close()
    again = GameSession.open(tmp_path / "journal.sqlite")   # a restart has the same clocks
    assert [e.type for e in again.referee.events][-3:] == ["move_undone", "clock_neutralised", "clock_resumed"]
    again.close()


def test_a_game_without_clocks_is_paused_without_talk_of_clocks(tmp_path):
    """Four sides under the team sheet play without chess clocks. Was: "both clocks are stopped", "Annabel's clock
    runs" (there are none)."""
    kiosk, clock = make_kiosk(tmp_path, "team", players=("Annabel", "Bartholomew", "Cyprian", "Dorothea"))
    assert kiosk.remaining_ms(0) is None
    clock.t = 10_000
    kiosk.press("pause")
    assert kiosk.view.message == "The game is paused. Press pause again to go on."
    kiosk.press("pause")
    assert kiosk.view.message == "The game goes on: Annabel to move."
    kiosk.press("judge")
    assert kiosk.view.message == "The judge is called: play stops until he is done. Judge: enter the PIN."
    assert kiosk.act("judge_unlock", pin=PIN).accepted and kiosk.act("judge_done").accepted
    assert kiosk.view.message == "The judge is done: Annabel to move."


def test_the_judges_undo_in_a_game_without_clocks_says_play_stays_stopped(tmp_path):
    kiosk, clock = make_kiosk(tmp_path, "team", players=("Annabel", "Bartholomew", "Cyprian"))
    clock.t = 5_000
    assert kiosk.press("left") == "pass"
    kiosk.press("judge")
    assert kiosk.act("judge_unlock", pin=PIN).accepted and kiosk.act("undo", reason="misread").accepted
    assert kiosk.view.message == ("The judge took the last turn back: Annabel to move; fix the board, then press the "
                                  "clock. Play stays stopped until the judge is done.")
