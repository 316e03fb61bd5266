"""The board diff: new tiles found, and every disagreement with the rules reported with its square."""

import pytest

from kiosk.app.board_diff import board_change
from kiosk.rules.board import Board

EMPTY_ROWS = ["." * 15] * 15


def rows_with(cells: dict[int, str]) -> list[str]:
    chars = list("".join(EMPTY_ROWS))
    for sq, ch in cells.items():
        chars[sq] = ch
    return ["".join(chars[r * 15:(r + 1) * 15]) for r in range(15)]


def test_new_tiles_and_blank_found_on_empty_squares():
    board = Board().cells
    ch = board_change(board, rows_with({112: "Q", 113: "?", 114: "I"}))
    assert ch.ok
    assert ch.new_tiles == ((112, "Q"), (113, "?"), (114, "I"))


def test_old_tiles_read_right_are_no_change():
    b = Board()
    b.place([(112, "Q"), (113, "u")])
    ch = board_change(b.cells, rows_with({112: "Q", 113: "?"}))
    assert ch.ok and ch.new_tiles == ()


@pytest.mark.parametrize("seen, kind", [(".", "removed"), ("O", "changed"), ("#", "unsure"), ("?", "changed")])
def test_old_tile_disagreement_is_a_problem_on_its_square(seen, kind):
    b = Board()
    b.place([(112, "Q")])
    ch = board_change(b.cells, rows_with({112: seen, 130: "A"}))
    assert not ch.ok
    assert [(p.square, p.kind) for p in ch.problems] == [(112, kind)]
    assert ch.squares == (112,)
    assert "H8" in ch.problems[0].text


def test_blank_read_as_letter_and_unsure_empty_square_are_problems():
    b = Board()
    b.place([(112, "e")])
    ch = board_change(b.cells, rows_with({112: "E", 0: "#"}))
    assert {(p.square, p.kind) for p in ch.problems} == {(112, "blank_changed"), (0, "unsure")}


def test_ignored_squares_and_bad_shapes():
    b = Board()
    b.place([(112, "Q")])
    assert board_change(b.cells, rows_with({}), ignore=[112]).ok
    with pytest.raises(ValueError, match="225"):
        board_change([""] * 10, EMPTY_ROWS)
    with pytest.raises(ValueError, match="15 rows"):
        board_change(b.cells, EMPTY_ROWS[:3])
