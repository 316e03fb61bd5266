"""The blank prompt (tester's finding 15): the play's other tiles stay on the board while its blank is designated
(the C and T of CAT vanished), and the prompt has a way out, the judge."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, shot, touch
from ui_fixtures import PIN, display, make_kiosk  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI
from kiosk.ui.board_view import TILE_NEW

H8, I8, J8 = 112, 113, 114


def _colour_at(ui: KioskUI, sq: int, squares: dict) -> tuple[int, int, int]:
    r = squares[sq]  # inside the tile, clear of a marked square's frame and a blank's ring
    return tuple(ui.surface.get_at((r.x + r.w * 17 // 100, r.y + r.h * 17 // 100)))[:3]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_plays_tiles_stay_in_view_and_the_judge_is_a_tap_away(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Correct a square")
    ui.draw()
    squares = {b.kw["square"]: b.rect for b in ui.buttons if b.action == "square"}
    for sq, ch in ((H8, "C"), (I8, "?"), (J8, "T")):  # CAT, its A a blank, as the judge enters it
        touch(ui, "square", square=sq)
        touch(ui, "judge_correct", char=ch)
    touch(ui, "Back")
    touch(ui, "Close")
    c.t += 5_000
    k.press("left")
    assert k.state.phase == "designating" and k.state.pending_blanks == (I8,)
    shot(ui, "73-blank-prompt", "blank")
    for sq in (H8, I8, J8):
        assert _colour_at(ui, sq, squares) == TILE_NEW, sq  # C and T as well as the blank
    touch(ui, "Judge")
    assert ui.draw() == "pin"
    touch(ui, "Cancel")
    touch(ui, "letter", letter="A")
    assert k.state.phase == "playing" and k.state.board[I8] == "a" and k.state.board[H8] == "C"
