"""Tile sets, premium layout and coordinates (seed 004 "GAME BOARD" and "LETTER DISTRIBUTIONS"; GCG spec)."""

from collections import Counter

import pytest

from kiosk.rules.board import (
    CENTRE,
    LAYOUT,
    Board,
    Coordinate,
    CoordinateError,
    parse_coordinate,
    square,
    square_name,
    team_label,
)
from kiosk.rules.tiles import ENGLISH, GERMAN, TileSetError, load_tile_set


def test_seed004_english_distribution_100_tiles_187_points():
    assert ENGLISH.total_tiles == 100
    assert ENGLISH.blanks == 2
    assert sum(ENGLISH.counts[k] * ENGLISH.values[k] for k in ENGLISH.counts) == 187
    assert (ENGLISH.counts["E"], ENGLISH.values["E"]) == (12, 1)
    assert (ENGLISH.counts["Q"], ENGLISH.values["Q"]) == (1, 10)
    assert (ENGLISH.counts["K"], ENGLISH.values["K"]) == (1, 5)
    assert ENGLISH.tile_value("?") == 0 and ENGLISH.tile_value("q") == 0


def test_german_distribution_102_tiles_with_umlauts():
    assert GERMAN.total_tiles == 102
    assert {"Ä", "Ö", "Ü"} <= set(GERMAN.letters)
    assert GERMAN.values["Ö"] == 8 and GERMAN.values["Y"] == 10 and GERMAN.values["E"] == 1


def test_tile_set_file_errors_name_the_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[tiles]\n"A" = [1]\n', encoding="utf-8")
    with pytest.raises(TileSetError, match=r"tiles\.A"):
        load_tile_set(str(bad))
    with pytest.raises(TileSetError, match="unknown tile set"):
        load_tile_set("klingon")


def test_seed004_premium_counts_and_centre():
    c = Counter(LAYOUT)
    # 24 DLS, 12 TLS, 16 DWS plus the centre star, 8 TWS
    assert (c["d"], c["t"], c["D"], c["T"]) == (24, 12, 17, 8)
    assert LAYOUT[CENTRE] == "D" and square_name(CENTRE) == "H8"


def test_layout_is_symmetric_under_transposition_and_rotation():
    for r in range(15):
        for col in range(15):
            assert LAYOUT[square(r, col)] == LAYOUT[square(col, r)] == LAYOUT[square(14 - r, 14 - col)]


@pytest.mark.parametrize("text,expect", [
    ("8D", Coordinate(7, 3, True)), ("D8", Coordinate(7, 3, False)), ("h8", Coordinate(7, 7, False)),
    ("15a", Coordinate(14, 0, True)), ("O1", Coordinate(0, 14, False)),
])
def test_gcg_coordinates(text, expect):
    assert parse_coordinate(text) == expect
    assert str(parse_coordinate(text)).upper() == text.upper()


@pytest.mark.parametrize("text", ["16A", "A0", "P5", "8", "DD", "M70", ""])
def test_bad_coordinates_raise(text):
    with pytest.raises(CoordinateError):
        parse_coordinate(text)


def test_coordinate_squares_and_off_board():
    assert parse_coordinate("8D").squares(3) == [square(7, 3), square(7, 4), square(7, 5)]
    assert parse_coordinate("D8").squares(2) == [square(7, 3), square(8, 3)]
    with pytest.raises(CoordinateError):
        parse_coordinate("H9").squares(8)


def test_team_labels_rows_lettered():
    assert team_label(CENTRE) == "H8"
    assert team_label(square(0, 14)) == "A15"


def test_board_text_round_trip_and_transpose():
    b = Board()
    b.place([(square(7, 7), "C"), (square(7, 8), "a"), (square(7, 9), "T")])
    again = Board.from_rows(str(b))
    assert again == b and again.tiles_on_board == 3
    t = b.transposed()
    assert t[square(8, 7)] == "a" and t.transposed() == b
    with pytest.raises(ValueError):
        b.place([(CENTRE, "X")])
