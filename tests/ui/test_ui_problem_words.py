"""The "Check the board" screen and the judge's correction screen in sentences (tester's finding 16): each problem
once, never the referee's internal reason, fitting the screen; a tile the set has run out of is refused."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, shot, touch
from ui_fixtures import PIN, display, make_kiosk  # noqa: F401 - display: the autouse pygame fixture

from kiosk.control.words import square_label
from kiosk.rules.board import COLUMNS, square
from kiosk.ui.app import KioskUI


def parse_square(name: str) -> int:
    return square(int(name[1:]) - 1, COLUMNS.index(name[0]))


def _judge_enters(ui: KioskUI, tiles: dict[str, str]) -> None:
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Correct a square")
    for name, ch in tiles.items():
        touch(ui, "square", square=parse_square(name))
        touch(ui, "judge_correct", char=ch)
    touch(ui, "Back")
    touch(ui, "Close")


def _lines(ui: KioskUI) -> list[str]:
    ui.draw()
    return list(ui.texts)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_refused_play_is_said_once_in_a_sentence(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    _judge_enters(ui, {"A1": "A", "O15": "T"})
    c.t += 5_000
    k.press("left")  # no camera: the move as the judge entered it, refused
    shot(ui, "62-problem-not-in-line", "problem")
    said = " ".join(_lines(ui))
    assert "play:" not in said
    assert said.count("not in one row or one column") == 1, said


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_eight_tiles_for_a_rack_of_seven_is_one_sentence_naming_nobody_cut(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    _judge_enters(ui, {f"{col}8": "E" for col in "ABCDEFGH"})
    c.t += 5_000
    k.press("left")
    shot(ui, "63-problem-eight-tiles", "problem")
    said = _lines(ui)
    assert not any("play:" in t or "misread?" in t or "tiles" in t and "\u2026" in t for t in said), said
    assert sum("cannot all be there" in t for t in said) == 1, said
    assert "8 tiles were placed, but Annabel's rack holds only 7." in " ".join(said)


def test_the_camera_problems_name_a_blank_as_a_blank_and_come_once(tmp_path):
    from kiosk.vision.diff import Anomaly

    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    h8 = parse_square("H8")
    k.view.problem = (Anomaly("changed", h8, "?", "A", "H8: the tile read ? before and A now"),
                      Anomaly("changed", h8, "?", "A", "H8: the tile read ? before and A now"),
                      Anomaly("vanished", 0, "e", ".", "A1: tile e is gone"))
    k.view.problem_text = "the board does not read right: fix it and press again, or call the judge"
    k.view.problem_squares = (h8, 0)
    shot(ui, "64-problem-blank", "problem")
    said = _lines(ui)
    assert "The board does not read right: fix it and press again, or call the judge." in " ".join(said)
    assert "H8: the tile read a blank before and A now." in said
    assert "A1: tile a blank as E is gone." in said
    assert not any("?" in t for t in said)


def test_the_judge_cannot_enter_a_tile_the_set_has_run_out_of(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Correct a square")
    for col in "DEF":
        touch(ui, "square", square=parse_square(f"{col}8"))
        touch(ui, "judge_correct", char="Q")
    assert sorted(square_label(sq) for sq in k.view.corrections) == ["D8"]  # one Q in the set
    assert "The set has only one Q, and it is on the board already." in " ".join(_lines(ui))
    assert ui.selected == parse_square("F8")  # the square waits for another tile
    touch(ui, "judge_correct", char="?")
    touch(ui, "square", square=parse_square("G8"))
    touch(ui, "judge_correct", char="?")
    touch(ui, "square", square=parse_square("H8"))
    touch(ui, "judge_correct", char="?")
    assert sorted(square_label(sq) for sq in k.view.corrections) == ["D8", "F8", "G8"]
    assert "The set has only 2 blanks, and all of them are on the board already." in " ".join(_lines(ui))
    shot(ui, "65-judge-run-out", "judge_correct")
