"""A count of 1 on the touchscreen reads "1 point", "1 second", "1 tile" (kiosk.control.words.counted); the screen
had "+1 points" on the judge's adjustment, "1 seconds" as a time warning and "1 tiles were placed"."""

from __future__ import annotations

from test_ui_screens import open_judge_menu, touch
from ui_fixtures import display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.control.port import KioskView
from kiosk.referee.kinds import Code
from kiosk.ui.app import KioskUI
from kiosk.ui.problem_words import problem_lines
from kiosk.ui.status import _spoken
from kiosk.vision.diff import Anomaly


def test_a_time_warning_of_one_second_or_one_minute():
    assert _spoken(1_000) == "1 second" and _spoken(30_000) == "30 seconds"   # was "1 seconds"
    assert _spoken(60_000) == "1 minute" and _spoken(180_000) == "3 minutes"


def test_a_judge_adjustment_of_one_point(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert play(k, c, 0, "8D", "QUIRT")
    open_judge_menu(ui)
    touch(ui, "Adjust a score")
    touch(ui, "adj_player", player=1)
    touch(ui, "+1")
    ui.draw()
    assert "+1 point, misscored" in ui.texts, ui.texts   # was "+1 points, misscored"
    touch(ui, "Apply")
    assert k.view.message == "Bartholomew: +1 point by the judge (misscored)."


def test_one_tile_placed_for_an_empty_rack_is_one_sentence_in_the_singular():
    refused = Anomaly(Code.IMPOSSIBLE_TILES, 112, ".", "E", "play: 1 tile placed but Ann's rack holds only 0")
    view = KioskView(problem=(refused,))
    assert problem_lines(view, "numbers", mover="Ann", rack=0)[0] == "1 tile was placed, but Ann's rack holds only 0."
