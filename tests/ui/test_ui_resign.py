"""A resignation by the judge's touch (tester's finding 8): no player chosen on another judge screen carries over,
Resign asks first naming the player, and the final table says who resigned."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, open_judge_menu, shot, touch
from ui_fixtures import PIN, display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI


def _enabled(ui: KioskUI, action: str) -> bool:
    ui.draw()
    return any(b.action == action and b.enabled for b in ui.buttons)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_resign_names_the_player_asks_first_and_the_ending_says_who(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 5_000
    open_judge_menu(ui)
    touch(ui, "Adjust a score")
    touch(ui, "adj_player", player=1)  # chosen there ...
    touch(ui, "Back")
    touch(ui, "A player: time, late, resign")
    ui.draw()
    assert not any(b.action == "adj_player" and b.kw["player"] == 1 and b.label and ui.adj_player == 1
                   for b in ui.buttons)  # ... not carried over here
    assert ui.adj_player is None and not _enabled(ui, "judge_resign") and not _enabled(ui, "judge_add_minute")
    touch(ui, "adj_player", player=1)
    touch(ui, "Resign")
    assert k.state.phase == "playing"  # nothing yet: the confirmation first
    shot(ui, "69-resign-confirm", "judge_resign")
    assert "Does Bartholomew resign?" in ui.texts
    touch(ui, "Back")
    assert ui.draw() == "judge_player" and k.state.phase == "playing"
    touch(ui, "Resign")
    touch(ui, "Bartholomew resigns")
    e = k.session.referee.events[-1]
    assert e.type == "resigned" and e.player == 1
    shot(ui, "70-resigned-over", "over")
    assert "Bartholomew resigned." in ui.texts


def test_the_score_adjustment_starts_with_nobody_chosen(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert play(k, c, 0, "8D", "QUIRT")
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=1)
    touch(ui, "Back")
    touch(ui, "Adjust a score")
    touch(ui, "+5")
    assert ui.adj_player is None and not _enabled(ui, "adj_apply")
    touch(ui, "adj_player", player=0)
    touch(ui, "Apply")
    assert k.state.scores == (53, 0)
