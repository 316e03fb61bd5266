"""Reader rules found on the benchmark: a finger next to the hand is no blank; the square network reads the
tiles and the doubtful squares, not the whole board (speed)."""

from __future__ import annotations

import numpy as np
import pytest

from kiosk.rules.tiles import ENGLISH
from kiosk.vision.reader import BoardReader, _doubt_fingers
from kiosk.vision.reading import EMPTY_SQUARE, SquareReading, SquareState
from kiosk.vision.synth import render_board
from kiosk.vision.synth.boards import random_board


def test_a_blank_next_to_the_hand_is_doubted_one_away_is_not():
    squares = [EMPTY_SQUARE] * 225
    hand = np.zeros(225, bool)
    hand[[7 * 15 + 3, 7 * 15 + 4, 8 * 15 + 3]] = True              # D8, E8, D9
    blank = SquareReading(SquareState.BLANK, None, 0.95)
    squares[7 * 15 + 5] = blank                                     # F8: beside the hand
    squares[7 * 15 + 9] = blank                                     # J8: well away from it
    doubts: dict[int, str] = {}
    _doubt_fingers(squares, doubts, hand)
    assert squares[7 * 15 + 5].state is SquareState.UNSURE and "finger" in doubts[7 * 15 + 5]
    assert squares[7 * 15 + 9].state is SquareState.BLANK and 7 * 15 + 9 not in doubts
    before = list(squares)
    _doubt_fingers(squares, doubts, np.zeros(225, bool))             # no hand: nothing changes
    assert squares == before


@pytest.mark.parametrize("seed", [2**30 + 7, 2**30 + 10, 2**30 + 11])   # green and classic boards, tournament tiles
def test_network_reads_the_tiles_and_few_other_squares(seed):
    board = random_board(seed, 60, ENGLISH)
    frame = render_board(board, seed=seed, level="typical", tile_set=ENGLISH)
    reader = BoardReader(ENGLISH)
    reading = reader.read(frame.image)
    tiles = sum(ch != "." for ch in "".join(frame.truth))
    asked, _ = reader.last_settle_rows
    # squares coloured like the board are not read (the colour vote used to lift their P(tile) to 0.29, so the
    # network read all 225 squares on some boards: 50 ms instead of 13)
    assert tiles <= len(asked) + 2 and len(asked) <= tiles + 30, (tiles, len(asked))
    assert sum(s.state is SquareState.UNSURE for s in reading.squares) <= 3


def test_more_blanks_than_the_set_has_the_one_nearest_the_hand_is_the_finger():
    squares = [EMPTY_SQUARE] * 225
    hand = np.zeros(225, bool)
    hand[[14 * 15 + 0, 13 * 15 + 0, 12 * 15 + 0]] = True           # A15, A14, A13: an arm from the left
    blank = SquareReading(SquareState.BLANK, None, 0.95)
    for sq in (12 * 15 + 3, 2 * 15 + 10, 4 * 15 + 12):              # D13 (3 squares from the arm), K3, M5
        squares[sq] = blank
    doubts: dict[int, str] = {}
    _doubt_fingers(squares, doubts, hand, set_blanks=2)
    assert squares[12 * 15 + 3].state is SquareState.UNSURE and "nearest the hand" in doubts[12 * 15 + 3]
    assert squares[2 * 15 + 10].state is SquareState.BLANK and squares[4 * 15 + 12].state is SquareState.BLANK
    # as many blanks as the set has, none beside the hand: all stay
    squares[12 * 15 + 3] = blank
    squares[4 * 15 + 12] = EMPTY_SQUARE
    doubts.clear()
    _doubt_fingers(squares, doubts, hand, set_blanks=2)
    assert not doubts
