"""What the judge and the players are told after a tap (tester's finding 21): a blank is "a blank", never ``?``;
a score adjustment, a courtesy draw and an extra minute are each confirmed in a sentence on the screen shown
next (after Apply the judge menu said "PIN accepted")."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, open_judge_menu, shot, touch
from ui_fixtures import PIN, display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.rules.board import COLUMNS, square
from kiosk.ui.app import KioskUI


def _said(ui: KioskUI) -> str:
    ui.draw()
    return " ".join(ui.texts)


def test_a_blank_entered_by_the_judge_is_said_as_a_blank(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    open_judge_menu(ui)
    touch(ui, "Correct a square")
    touch(ui, "square", square=square(7, COLUMNS.index("H")))
    touch(ui, "judge_correct", char="?")
    assert k.view.message == "H8 is a blank now. Press the clock again when the board is right."
    assert "H8 is a blank now." in _said(ui) and "?" not in _said(ui)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_score_adjustment_is_confirmed_on_the_judge_menu(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    open_judge_menu(ui)
    touch(ui, "Adjust a score")
    touch(ui, "adj_player", player=1)
    touch(ui, "+5")
    touch(ui, "Apply")
    shot(ui, "66-adjust-confirmed", "judge")
    assert "Bartholomew: +5 points by the judge (misscored)." in _said(ui)
    assert "PIN accepted" not in _said(ui)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_an_extra_minute_is_confirmed_on_the_player_screen(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=1)
    touch(ui, "Add a minute")
    shot(ui, "67-minute-confirmed", "judge_player")
    assert "The judge gave Bartholomew one more minute." in _said(ui)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_courtesy_draw_is_confirmed_on_the_hold_screen(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 3_000
    touch(ui, "Hold")
    c.t += 61_000
    k.poll()
    touch(ui, "Courtesy draw")
    shot(ui, "68-courtesy-confirmed", "hold")
    assert "Annabel may draw the new tiles now and keeps them apart." in _said(ui)
