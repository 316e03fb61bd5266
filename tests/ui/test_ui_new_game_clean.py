"""Nothing said or chosen in one game is shown in the next: "The judge gave X one more minute." stayed on the
new-game screen after the game ended (the review's m2-800-0053-new_game.png); a press still being read, the
judge's settled squares and the judge's player choice carried into the new game too."""

from __future__ import annotations

from test_ui_screens import open_judge_menu, touch
from ui_fixtures import display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI

MINUTE = "The judge gave Bartholomew one more minute."


def test_the_last_games_message_is_not_on_the_new_game_screen_nor_in_the_new_game(tmp_path, drawn):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 5_000
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=1)
    touch(ui, "Add a minute")
    assert k.view.message == MINUTE
    touch(ui, "judge_open_menu")
    touch(ui, "Stop, scores as they stand")
    assert ui.draw() == "over"
    touch(ui, "New game")
    drawn.clear()
    assert ui.draw() == "new_game"
    assert MINUTE not in drawn and k.view.message == ""
    touch(ui, "Start")
    drawn.clear()
    assert ui.draw() == "main" and k.state.phase == "playing" and k.state.history == ()
    assert MINUTE not in drawn and ui.adj_player is None and ui.overlay is None


def test_a_refused_start_is_said_on_the_new_game_screen(tmp_path, drawn):
    k, c = make_kiosk(tmp_path, start=False)
    ui = KioskUI(k, (800, 480), players=("Ann", "Bob", "Cy"))
    touch(ui, "Start")   # nsf is for two players
    drawn.clear()
    assert ui.draw() == "new_game" and k.view.message and k.view.message in drawn


def test_a_four_player_choice_of_the_judge_does_not_carry_into_a_two_player_game(tmp_path):
    from common_fixtures import make_kiosk as make_table

    k, c = make_table(tmp_path, "home", players=("Annabel", "Bartholomew", "Constance", "Desmond"))
    ui = KioskUI(k, (800, 480), players=("Ann", "Bob"), preset="home")
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=3)
    touch(ui, "Resign")
    touch(ui, "Desmond resigns")
    assert k.state.phase == "over"
    touch(ui, "New game")
    touch(ui, "Start")
    assert k.state.players == ("Ann", "Bob") and ui.adj_player is None
