"""A frame whose tiles mostly read as no sure letter gives no reading at all: its few letters and its empties
are no safer than its doubts (display-validation: hairline, outline and inline faces, whose lettered tiles read
as blanks, empties and doubts, were called "hand over the board" and kept their silent errors)."""

from __future__ import annotations

import pytest

from kiosk.rules.tiles import ENGLISH
from kiosk.vision.doubt_rules import LETTERING_MIN_TILES, LETTERING_SURE_SHARE, letters_not_read
from kiosk.vision.reader import BoardReader
from kiosk.vision.reading import EMPTY_SQUARE, Doubt, DoubtKind, SquareReading, SquareState
from kiosk.vision.synth import render_board
from kiosk.vision.synth.boards import random_board

SURE = SquareReading(SquareState.TILE, "E", 0.99)
DOUBT = SquareReading(SquareState.UNSURE, None, 0.5)
BLANK = SquareReading(SquareState.BLANK, None, 0.95)
LETTER_DOUBT = Doubt(DoubtKind.LETTER, "letter E or F? (0.62)")


def _squares(sure: int, doubt: int, blank: int = 0, why: Doubt = LETTER_DOUBT
             ) -> tuple[list[SquareReading], dict[int, Doubt]]:
    squares = [SURE] * sure + [DOUBT] * doubt + [BLANK] * blank + [EMPTY_SQUARE] * (225 - sure - doubt - blank)
    return squares, dict.fromkeys(range(sure, sure + doubt), why)


def test_a_frame_of_letter_doubts_with_few_sure_letters_is_not_read():
    why = letters_not_read(*_squares(sure=3, doubt=17, blank=2))
    assert why is not None and why.startswith("letters not read: of 22 tiles read, only 3 read as a sure letter (")
    assert why.endswith("for a new tile set run kiosk calibrate glyphs)")
    fingers = Doubt(DoubtKind.HAND, "hand over the square (5 tiles without a letter side by side: fingers)")
    assert letters_not_read(*_squares(sure=0, doubt=10, why=fingers)).startswith(
        "letters not read: of 10 tiles read, none read as a sure letter (")


@pytest.mark.parametrize(("sure", "doubt", "blank"), [
    (4, 16, 0),                            # exactly the share: read
    (0, LETTERING_MIN_TILES - 1, 0),       # too few squares to judge the lettering (an early move's doubts)
    (60, 15, 2),                           # an ordinary frame with doubts
    (0, 0, 0),                             # an empty board
])
def test_frames_with_enough_sure_letters_or_too_few_tiles_are_read(sure, doubt, blank):
    assert LETTERING_SURE_SHARE * 20 == 4
    assert letters_not_read(*_squares(sure, doubt, blank)) is None


@pytest.mark.parametrize("why", [
    Doubt(DoubtKind.TILE_OR_EMPTY, "tile or empty? (P(tile) 0.00, network 0.69, both 0.00)"),
    Doubt(DoubtKind.PRINT_OR_BLANK, "a tile without a letter (a blank) read on L1, a double-letter square, ..."),
    Doubt(DoubtKind.GLARE, "glare"),
])
def test_doubts_whether_a_tile_lies_there_say_nothing_of_the_lettering(why):
    """An empty board in poor light (the Pi's OpenCV read english-hard-87's empty board with 10 such doubts and no
    letter: 'letters not read') is no unknown tile set: only doubts about a tile's letter count."""
    assert letters_not_read(*_squares(sure=0, doubt=20, why=why)) is None


def test_tiles_whose_letters_cannot_be_seen_give_no_reading_not_a_hand():
    """40 tiles without lettering (a tile set whose letters the camera cannot see): once called "hand over the
    board" (the blanks side by side taken for fingers), its squares read as blanks, doubts and empties; now the
    frame is refused as a whole, saying why, and no square is given."""
    board = random_board(2**30 + 31, 40, ENGLISH, blank_share=1.0)
    frame = render_board(board, seed=2**30 + 31, level="typical", tile_set=ENGLISH)
    reading = BoardReader(ENGLISH).read(frame.image)
    assert not reading.quality.ok and not reading.quality.hand
    assert reading.quality.verdict.startswith("letters not read: of ")
    assert " tiles read, none read as a sure letter (" in reading.quality.verdict
    assert all(rd.state is SquareState.UNSURE for rd in reading.squares)
