"""End-of-game rack entry (tester's finding 13): an incomplete rack is refused on the screen in a sentence (it
was said only in the log), and the keys stay in place, a used-up tile's key greyed (it vanished and the keys
after it shifted under the finger)."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, end_the_game, shot, touch
from ui_fixtures import display, make_kiosk  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI


def _keys(ui: KioskUI) -> dict[str, tuple[tuple[int, int, int, int], bool]]:
    ui.draw()
    return {b.kw["letter"]: (tuple(b.rect), b.enabled) for b in ui.buttons if b.action == "rack_letter"}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_an_incomplete_rack_is_refused_in_a_sentence_on_the_screen(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    end_the_game(ui)
    touch(ui, "rack_letter", letter="A")
    touch(ui, "rack_letter", letter="B")
    touch(ui, "Done")
    assert k.state.phase == "rack_entry"
    shot(ui, "71-racks-incomplete", "racks")
    said = " ".join(ui.texts)
    assert "Annabel's rack has 7 tiles; 2 entered. Enter the other 5, then Done." in said, said
    touch(ui, "rack_letter", letter="C")  # the next key clears it
    ui.draw()
    assert "Enter the other" not in " ".join(ui.texts)
    for t in "DEFG":
        touch(ui, "rack_letter", letter=t)
    touch(ui, "Done")
    ui.draw()
    assert "Enter Bartholomew's 7 tiles, then Done." in " ".join(ui.texts) and ui.rack_player == 1


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_used_up_tile_keeps_its_key_greyed_and_no_key_moves(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    end_the_game(ui)
    before = _keys(ui)
    assert before["Z"][1] and before["Q"][1]
    touch(ui, "rack_letter", letter="Z")  # the set's only Z
    after = _keys(ui)
    assert {t: r for t, (r, _) in after.items()} == {t: r for t, (r, _) in before.items()}  # nothing moved
    assert after["Z"][1] is False and all(on for t, (_, on) in after.items() if t != "Z")
    shot(ui, "72-racks-z-used", "racks")
    with pytest.raises(AssertionError):
        touch(ui, "rack_letter", letter="Z")  # greyed: not tappable
