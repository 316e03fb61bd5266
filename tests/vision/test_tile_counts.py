"""More tiles of a kind read than the tile set holds (issue 22, held-out-3): a face the reader never learnt had
most of its letters read E, and a board of 40 E was given as letters without doubt. Every tile of a kind over the
set is now a doubt, but a tile the game knows read as itself."""

from __future__ import annotations

from kiosk.rules.board import Board
from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision.reader import BoardReader
from kiosk.vision.reading import BoardReading, SquareState
from kiosk.vision.synth import render_board
from kiosk.vision.tile_counts import over_set

EMPTY_ROW = "." * 15


def _rows(*middle: str) -> list[str]:
    """15 rows: ``middle`` from row 8 (H) on, the rest empty."""
    rows = [EMPTY_ROW] * 15
    for i, row in enumerate(middle):
        rows[7 + i] = row.ljust(15, ".")
    return rows


def test_a_kind_read_more_often_than_the_set_holds_is_doubted_every_time():
    reading = BoardReading.from_grid(_rows("EEEEEEE", "EEEEEEQ"))        # 13 E: the English set holds 12
    out = over_set(reading, ENGLISH)
    e_squares = [sq for sq, ch in enumerate("".join(reading.grid())) if ch == "E"]
    assert len(e_squares) == 13
    for sq in e_squares:
        assert out.squares[sq].state is SquareState.UNSURE
        assert out.doubts[sq] == "13 E read, more than the 12 of the tile set: which are wrong the camera cannot tell"
    assert "".join(out.grid()).count("Q") == 1 and len(out.doubts) == 13   # the Q stays


def test_as_many_as_the_set_holds_is_the_reading_itself():
    reading = BoardReading.from_grid(_rows("EEEEEEE", "EEEEE??"))        # 12 E and 2 blanks
    assert over_set(reading, ENGLISH) is reading


def test_a_third_blank_makes_every_blank_a_doubt():
    out = over_set(BoardReading.from_grid(_rows("CAT?", "?O?")), ENGLISH)
    assert "".join(out.grid()).count("#") == 3 and "".join(out.grid()).count("?") == 0
    assert all(why.startswith("3 blanks read, more than the 2 of the tile set") for why in out.doubts.values())


def test_the_tile_set_decides_a_second_k_is_german_not_english():
    reading = BoardReading.from_grid(_rows("KOKS"))
    assert over_set(reading, GERMAN) is reading                          # German: 2 K
    assert "".join(over_set(reading, ENGLISH).grid()).count("#") == 2   # English: 1 K


def test_a_known_tile_read_as_itself_stays_and_counts():
    reading = BoardReading.from_grid(_rows("ZOO", "Z"))                  # two Z: the English set holds one
    known = ["."] * 225
    known[7 * 15] = "Z"                                                  # H1's Z is known to the game
    out = over_set(reading, ENGLISH, "".join(known))
    assert out.squares[7 * 15].letter == "Z" and 7 * 15 not in out.doubts
    assert out.squares[8 * 15].state is SquareState.UNSURE and "2 Z read" in out.doubts[8 * 15]


def test_the_reader_doubts_a_frame_with_more_of_a_letter_than_the_set():
    board = Board.from_rows(_rows("..SEETHE", "..E....E", "..RESEES", "..E....E", "..EEL..E"))
    frame = render_board(board, seed=2**30 + 7, level="typical", tile_set=ENGLISH)
    assert "".join(frame.truth).count("E") == 13
    reading = BoardReader(ENGLISH).read(frame.image)
    read = "".join(reading.grid())
    assert reading.quality.ok, reading.quality.verdict
    assert "E" not in read and read.count("#") >= 13, reading.grid()
    assert sum("more than the 12 of the tile set" in why for why in reading.doubts.values()) >= 13


def test_a_reading_over_the_set_says_so_in_its_note_unless_it_has_one():
    from dataclasses import replace

    from kiosk.vision.tile_counts import OVER_SET_NOTE

    reading = BoardReading.from_grid(_rows("ZOO", "Z"))
    assert over_set(reading, ENGLISH).note == OVER_SET_NOTE.format(set="english")
    assert "calibrate the tile set (kiosk calibrate glyphs)" in OVER_SET_NOTE
    assert over_set(replace(reading, note="unfamiliar"), ENGLISH).note == "unfamiliar"
