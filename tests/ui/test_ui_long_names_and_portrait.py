"""Long names and a portrait screen (tester's findings 20 and 10): with 3-4 players the challenge buttons say what
they are for, a line holding a player's name is never drawn below a legible size (the name is cut with an ellipsis
instead: names shrank to 8 px on the scores and the final table), and a portrait screen (480x800) shows the bag
count, the last play and its words (they were dropped)."""

from __future__ import annotations

import pytest
from common_fixtures import make_kiosk as make_table
from test_ui_screens import SIZES, shot, touch
from ui_fixtures import PIN, display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI
from kiosk.ui.widgets import ELLIPSIS, NAME_MIN

LONG = ("Olúwaségun Adébáyọ̀", "Bartholomew Fitzwilliam", "Cunegonde Lavallière", "Dorothea Higginbotham")
PORTRAIT = (480, 800)


def _name_px(ui: KioskUI) -> list[tuple[str, int]]:
    """(text, px) of every line drawn holding a player's name or a cut start of one."""
    heads = {n.split()[0][:4] for n in LONG}
    return [(t, px) for t, px in zip(ui.texts, ui.text_px) if any(h in t for h in heads)]


@pytest.mark.parametrize("size", [*SIZES, PORTRAIT], ids=lambda s: f"{s[0]}x{s[1]}")
def test_four_long_names_stay_legible_and_the_challenge_buttons_say_challenge(tmp_path, size):
    k, c = make_table(tmp_path, "home", players=LONG)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    shot(ui, "74-long-names-main", "main")
    assert "Challenge by:" in ui.texts or "Hold, or challenge by:" in ui.texts
    assert {b.kw["player"] for b in ui.buttons if b.action == "challenge"} == {1, 2, 3}
    legible = ui.unit_px(NAME_MIN)
    assert all(px >= legible for _, px in _name_px(ui)), _name_px(ui)
    assert any(t.endswith(ELLIPSIS) for t, _ in _name_px(ui))  # cut, not shrunk
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Stop, scores as they stand")
    shot(ui, "75-long-names-final", "over")
    assert all(px >= legible for _, px in _name_px(ui)), _name_px(ui)


@pytest.mark.parametrize("size", [PORTRAIT, (720, 1280)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_portrait_screen_shows_the_bag_the_last_play_and_its_words(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    shot(ui, "76-portrait-main", "main")  # nothing outside its box
    unseen = sum(n for _, n in k.state.unseen)
    assert f"{k.state.bag} tiles in the bag, {unseen} unseen" in ui.texts
    assert "Annabel: 8D QUIRT 48" in ui.texts and "QUIRT" in ui.texts
