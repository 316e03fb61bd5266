"""The PIN pad (tester's finding 19): OK on an empty pad is no try (it was counted: "wrong PIN (1 tries left)"),
and one try left is "You have 1 more try."."""

from __future__ import annotations

from test_ui_screens import touch
from ui_fixtures import display, make_kiosk  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.actions import EMPTY_PIN
from kiosk.ui.app import KioskUI


def test_an_empty_ok_is_no_try_and_the_last_try_is_one_try(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    touch(ui, "Judge")
    for _ in range(5):
        touch(ui, "OK")
    assert k.pin.wrong_total == 0 and k.view.message == EMPTY_PIN
    ui.draw()
    assert "Type the PIN first, then OK." in ui.texts and ui.screen == "pin"
    tries = k.pin.free_tries
    assert tries >= 2
    for _ in range(tries - 1):
        for d in "1111":
            touch(ui, d)
        touch(ui, "OK")
    assert k.pin.wrong_total == tries - 1
    assert k.view.message == "Wrong PIN. You have 1 more try."
    ui.draw()
    assert "Wrong PIN. You have 1 more try." in ui.texts
