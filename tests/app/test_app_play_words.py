"""A recorded play as the players read it, in their sheet's labels. The team sheet (seed 004) letters its rows A-O
and numbers its columns 1-15; a play there was said "Annabel played QUIRT at 8D", a place that sheet's board does
not have (a tester's finding)."""

from __future__ import annotations

import pytest
from app_fixtures import make_kiosk, settle

from kiosk.control.words import play_place
from kiosk.rules.board import parse_coordinate
from kiosk.ui.app import KioskUI

QUIRT = dict(zip(parse_coordinate("8D").squares(5), "QUIRT", strict=True))


@pytest.mark.parametrize(("preset", "said", "panel"), [
    ("nsf", "Ann played QUIRT at 8D for 48 points.", "Ann: 8D QUIRT 48"),
    ("team", "Ann played QUIRT at H4 across for 48 points.", "Ann: H4 across QUIRT 48"),
])
def test_a_play_is_said_where_the_sheet_puts_it(tmp_path, preset, said, panel):
    kiosk, table, clock, worker = make_kiosk(tmp_path, preset)
    table.put(QUIRT)
    clock.t = 10_000
    kiosk.press("left")
    settle(kiosk, worker)
    assert kiosk.state.last_play.word == "QUIRT"
    assert kiosk.view.message == said
    ui = KioskUI(kiosk, (800, 480))
    ui.draw()
    assert panel in ui.texts and not ui.overflows


def test_play_place_names_the_first_square_and_the_way_on_a_sheet_with_lettered_rows():
    assert play_place("8D", "letters") == "H4 across" and play_place("D8", "letters") == "H4 down"
    assert play_place("A1", "letters") == "A1 down" and play_place("15O", "letters") == "O15 across"
    assert play_place("8D") == "8D" and play_place("nonsense", "letters") == "nonsense"
