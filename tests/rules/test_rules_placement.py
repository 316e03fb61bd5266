"""Placement validation: each rule of docs/variants.md "Common to all" raises its own reason code."""

import pytest

from kiosk.rules.board import CENTRE, Board, parse_coordinate, square
from kiosk.rules.placement import Placement, PlacementError, WordError, WordFault, validate_placement
from kiosk.rules.tiles import ENGLISH
from kiosk.rules.variants import ScoringRules


def line(coord: str, word: str):
    return list(zip(parse_coordinate(coord).squares(len(word)), word))


@pytest.fixture
def board():
    b = Board()
    b.place(line("8G", "CAT"))
    return b


def code_of(board, tiles, **kw):
    with pytest.raises(PlacementError) as e:
        validate_placement(board, tiles, **kw)
    return e.value


def test_no_tiles(board):
    assert code_of(board, []).code == "no_tiles"


def test_off_board(board):
    assert code_of(board, [(225, "A")]).code == "off_board"


def test_two_tiles_on_one_square(board):
    err = code_of(board, [(square(6, 7), "A"), (square(6, 7), "B")])
    assert err.code == "duplicate_square" and err.squares == (square(6, 7),)


def test_overwrite_an_old_tile(board):
    err = code_of(board, [(CENTRE, "E")])
    assert err.code == "occupied" and "H8" in str(err)


def test_not_in_one_line(board):
    assert code_of(board, [(square(6, 6), "A"), (square(5, 7), "B")]).code == "not_in_line"


def test_gap_in_the_word(board):
    err = code_of(board, [(square(9, 6), "A"), (square(11, 6), "B")])
    assert err.code == "gap" and err.squares == (square(10, 6),)


def test_gap_bridged_by_old_tiles_is_fine(board):
    shape = validate_placement(board, [(square(7, 5), "S"), (square(7, 9), "S")])
    assert str(shape.coordinate) == "8F" and len(shape.main_squares) == 5


def test_first_play_must_cover_centre():
    assert code_of(Board(), line("1A", "CAT")).code == "first_not_centre"


def test_first_play_single_tile_is_no_word():
    assert code_of(Board(), [(CENTRE, "A")]).code == "first_too_short"


def test_first_play_min_length_preset():
    err = code_of(Board(), line("8H", "AT"), rules=ScoringRules(first_play_min_tiles=3))
    assert err.code == "first_too_short"


def test_later_play_must_touch(board):
    assert code_of(board, line("2B", "DOG")).code == "not_connected"


def test_single_tile_direction_follows_neighbours(board):
    shape = validate_placement(board, [(square(8, 7), "S")])   # under the A: forms AS down
    assert str(shape.coordinate) == "H8" and not shape.coordinate.across


def test_single_tile_forming_two_words_takes_the_hint(board):
    board.place([(square(8, 6), "O")])                         # O under C
    tiles = [(square(8, 7), "X")]                               # X at H9: OX across, AX down
    assert validate_placement(board, tiles, across=True).coordinate.across
    assert not validate_placement(board, tiles, across=False).coordinate.across


def test_error_lists_squares_by_name():
    err = code_of(Board(), line("1A", "CAT"))
    assert "A1" in str(err) and "C1" in str(err)


def test_placement_from_word_new_tiles_through_and_blanks():
    b = Board()
    b.place(line("8D", "QUIRT"))
    sq = parse_coordinate("F7").squares(4)  # F7 F8 F9 F10; F8 holds the I of QUIRT
    for word, through in (("hIaS", (1,)), ("h.aS", ()), ("hIaS", ())):
        pl = Placement.from_word(b, "F7", word, through=through)
        assert pl.coordinate == parse_coordinate("F7") and pl.squares == tuple(sq) and pl.word == word
        assert pl.tiles == ((sq[0], "h"), (sq[2], "a"), (sq[3], "S"))
        assert pl.undesignated == ((sq[0], "?"), (sq[2], "?"), (sq[3], "S"))
        assert pl.blanks == ((sq[0], "H"), (sq[2], "A")) and pl.rack_tiles == "??S"
    assert Placement.from_word(b.cells, parse_coordinate("8D"), "QUIRT").tiles == ()  # all covered: no tile
    # without a board the notation alone says what is new (a record's word, judged later by the referee)
    assert Placement.from_word(None, "F7", "hOaS", through=(1,)).tiles == ((sq[0], "h"), (sq[2], "a"), (sq[3], "S"))
    assert Placement.from_word(None, "8D", "QUIRT").tiles == tuple(line("8D", "QUIRT"))


@pytest.mark.parametrize("coord, word, through, code, message", [
    ("8K", "TOOLONG", (), WordFault.OFF_BOARD, "8K TOOLONG runs off the board (out of bounds)"),
    ("F7", "H.AT", (2,), WordFault.THROUGH_EMPTY, "H.AT plays through F9, which is empty"),
    ("F7", "HOAT", (1,), WordFault.NOT_AS_ON_BOARD, "F8 holds I, not O"),
    ("F7", "HOAT", (), WordFault.OVERWRITE, "F8 already holds I (overwrite with O)"),
    ("F7", "H.Ä", (), WordFault.NOT_A_TILE, "'Ä' is not a tile of the english set"),
])
def test_placement_from_word_names_the_first_fault(coord, word, through, code, message):
    b = Board()
    b.place(line("8D", "QUIRT"))
    with pytest.raises(WordError) as exc:
        Placement.from_word(b, coord, word, through=through, tile_set=ENGLISH)
    assert exc.value.code is code and str(exc.value) == message
