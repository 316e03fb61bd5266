"""A move read as one letter improbably often (kiosk.vision.game_lettering): a lettering the reader does not know
(display-validation watched as games: Six Caps read I on nearly every tile, 9 letters given wrong without doubt in
the game's first four moves)."""

from __future__ import annotations

from kiosk.rules.tiles import ENGLISH
from kiosk.vision.game import GameReader, prior_from_board
from kiosk.vision.reading import BoardReading, DoubtKind, SquareState, kind_of

EMPTY = "." * 225
HOUSE = [7 * 15 + c for c in range(5, 10)]   # the first move's squares: F8..J8, through H8


def test_a_move_read_as_one_letter_improbably_often_is_doubted():
    """Six Caps (ultra-condensed) read as I on every tile: 4 of a move's 5 new tiles read I, which a draw from a
    full bag (9 I's of 98 letters) gives about once in 6,000 moves: those four are doubts. A word's own run stays: 3 E's
    of 5 (EERIE, 12 E's of 100 tiles) once in 85 draws; 2 of a letter is never judged."""
    from collections import Counter

    from kiosk.vision.game_lettering import draw_tail, improbable_letters

    bag = Counter(ENGLISH.counts)
    read = dict(zip(range(5), "IIIIA"))
    odd = improbable_letters(read, bag)
    assert set(odd) == {0, 1, 2, 3} and kind_of(odd[0]) is DoubtKind.LETTER
    assert odd[0] == "letter I? 4 of the move's 5 new tiles read I, which a draw from the unseen tiles gives once " \
                     "in 5,989 moves"
    assert improbable_letters(dict(zip(range(5), "EERIE")), bag) == {}
    assert improbable_letters(dict(zip(range(2), "II")), bag) == {}
    assert round(1 / draw_tail(3, 5, 12, 100)) == 85 and draw_tail(1, 101, 9, 100) == 1.0


def test_the_game_reader_doubts_a_move_read_as_one_letter():
    """Wired into the game-aware reader: the first move read IIIII (HOUSE, of a face read as I) gives no letter."""
    def read(frame, corners, known, corners_from):  # noqa: ANN001, ANN202
        text = "".join("I" if sq in HOUSE else "." for sq in range(225))
        return BoardReading.from_grid([text[r * 15:(r + 1) * 15] for r in range(15)])

    res = GameReader(read, ENGLISH, prior=lambda: prior_from_board(EMPTY, ENGLISH)).read_game(None)
    assert res.new == {} and all(res.reading.squares[sq].state is SquareState.UNSURE for sq in HOUSE)
