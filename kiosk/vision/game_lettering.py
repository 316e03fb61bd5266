"""A move read as one letter improbably often: a lettering the reader does not know, not the move's words.

A tile set whose lettering the reader has never seen often reads as one letter, sure of each tile
(display-validation watched as games: Six Caps, ultra-condensed, read I on nearly every tile; 9 of its 97 new tiles
were letters given wrong, without doubt, all in the game's first four moves, before the tile counts could object).
A move's new tiles are drawn from the unseen ones: :func:`improbable_letters` makes a move's new letters doubts
when one letter comes among them (at least ``IMPROBABLE_MIN`` times) more often than such a draw gives once in
``1 / IMPROBABLE_P`` moves. The judge confirms such a move; a word with such a run (ESSES) is rare. Measured: the
models README, "A move read as one letter improbably often".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from math import comb

from kiosk.vision.reading import UNSURE_SQUARE, BoardReading, Doubt, DoubtKind, SquareState

IMPROBABLE_P = 1e-3         # a move's new tiles holding a letter this improbably often (drawn from the unseen tiles)
IMPROBABLE_MIN = 3          # ... at least this many of it: they are doubts (a face read as one letter: I, I, I, I)


def draw_tail(k: int, n: int, have: int, unseen: int) -> float:
    """P(at least ``k`` of ``n`` tiles drawn from ``unseen`` tiles are of a kind of which ``have`` are among them)
    (hypergeometric; 1.0 when the draw is impossible as given)."""
    if n > unseen or n <= 0:
        return 1.0
    total = comb(unseen, n)
    return sum(comb(have, i) * comb(unseen - have, n - i) for i in range(k, min(n, have) + 1)) / total


def improbable_letters(new: dict[int, str], unseen: Counter[str]) -> dict[int, Doubt]:
    """The new letters of a move that read one letter improbably often, {square: doubt}: of the move's new tiles
    (``new``: square -> character), at least IMPROBABLE_MIN of one letter where a draw of as many tiles from the
    ``unseen`` ones (letter -> count) holds that many under IMPROBABLE_P (the board's own tiles are not drawn). A
    lettering the reader does not know reads as one letter (Six Caps, ultra-condensed: every tile an I). Words
    seldom hold such a run, and one that does is a doubt the judge confirms: ESSES (3 of its 5 tiles S, of a full
    bag's 4) comes once in 3,900 draws; EERIE (3 E's of 12) once in 80, which is not doubted."""
    letters = Counter(ch for ch in new.values() if ch.isalpha())
    n, pool = len(new), sum(unseen.values())
    out: dict[int, Doubt] = {}
    for letter, k in letters.items():
        if k < IMPROBABLE_MIN:
            continue
        p = draw_tail(k, n, unseen.get(letter.upper(), 0), pool)
        if p < IMPROBABLE_P:
            why = Doubt(DoubtKind.LETTER, f"letter {letter}? {k} of the move's {n} new tiles read {letter}, which a "
                                          f"draw from the unseen tiles gives once in {round(1 / max(p, 1e-12)):,} moves")
            out.update((sq, why) for sq, ch in new.items() if ch == letter)
    return out


def doubt_squares(reading: BoardReading, doubts: dict[int, Doubt]) -> BoardReading:
    """``reading`` with the lettered tiles of ``doubts`` (square -> why) made doubts saying why."""
    squares = list(reading.squares)
    kept = dict(reading.doubts)
    for sq, why in doubts.items():
        if squares[sq].state is SquareState.TILE:
            squares[sq] = UNSURE_SQUARE
            kept[sq] = why
    return replace(reading, squares=tuple(squares), doubts=kept)
