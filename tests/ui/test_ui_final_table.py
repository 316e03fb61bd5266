"""The final table (tester's finding 14): the overtime penalty has its own column; the "racks" column holds the
racks' points only (Ada's "-17" was her rack's -7 and the overtime's -10)."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, end_the_game, enter_racks, shot
from ui_fixtures import display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_overtime_has_its_own_column_and_racks_are_only_the_racks(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 1_600_000  # Bartholomew runs past his 25 minutes
    k.poll()
    end_the_game(ui)
    enter_racks(ui, k)
    r = k.state.result
    assert r.time_penalty[1] > 0
    shot(ui, "77-final-overtime", "over")
    texts = ui.texts
    head = texts.index("score")
    assert texts[head:head + 4] == ["score", "racks", "overtime", "final"]
    row = next(i for i in range(head, len(texts)) if texts[i].startswith("Barth"))
    assert texts[row + 1:row + 5] == [str(r.before_racks[1]), f"{r.rack_adjust[1]:+d}",
                                  f"{-r.time_penalty[1]:+d}", str(r.final[1])]


def test_without_overtime_the_table_keeps_three_columns(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert play(k, c, 0, "8D", "QUIRT")
    end_the_game(ui)
    enter_racks(ui, k)
    assert "overtime" not in ui.texts and "racks" in ui.texts
