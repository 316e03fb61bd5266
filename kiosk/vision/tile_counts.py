"""More tiles of a kind than the tile set holds: a reading no board can show.

A tile set holds a fixed number of each letter and of blanks (English: 12 E, 1 Z, 2 blanks). A frame read with
more of a kind than that misreads some of them, and the camera cannot tell which: every one of that kind becomes a
doubt (``#``), never a letter, but a tile the game knows read as itself (the game keeps it; it still counts). On
the built-in benchmark's frames of a face the reader never learnt (an inline-highlighted slab serif), most
letters were read E, and a board of 40 E was given as letters without doubt.

In a game the unseen pool judges the new tiles more strictly (:func:`kiosk.vision.game.apply_prior`); this rule
needs no game: a frame read alone, or the first frame of a recording that starts mid-game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from kiosk.rules.tiles import TileSet
from kiosk.vision.reading import BLANK_CHAR, UNSURE_SQUARE, BoardReading, Doubt, DoubtKind

OVER_SET_WHY = "{n} {name} read, more than the {held} of the tile set: which are wrong the camera cannot tell"
"""A square's doubt under this rule (``n`` read of the kind ``name``, ``held`` in the tile set), of kind OVER_SET."""

OVER_SET_NOTE = ("the board reads more tiles of a kind than the {set} tile set holds: the lettering may be "
                 "unfamiliar to the reader, or the tiles not the event's set; calibrate the tile set "
                 "(kiosk calibrate glyphs)")
"""The reading's note when this rule doubted tiles (and the reading had no note yet), ``set`` the tile set's name."""


def over_set(reading: BoardReading, tile_set: TileSet, known: str | None = None) -> BoardReading:
    """``reading`` with every tile of a kind read more often than ``tile_set`` holds made a doubt
    (:data:`OVER_SET_WHY`), but the squares where ``known`` (225 characters, as
    :meth:`kiosk.vision.reader.BoardReader.read`; None: nothing known) has that very tile, with the note
    :data:`OVER_SET_NOTE` when the reading had none. Returns ``reading`` itself when no kind is over. Source:
    the tile distribution of the event's tile set (``../shared/seeds/``, each sheet's equipment rule)."""
    chars = [sq.char() for sq in reading.squares]
    counts = Counter(c for c in chars if c == BLANK_CHAR or c.isalpha())
    bag = tile_set.full_bag()
    over = {c: n for c, n in counts.items() if n > bag.get(c, 0)}
    if not over:
        return reading
    squares = list(reading.squares)
    doubts = dict(reading.doubts)
    for sq, c in enumerate(chars):
        if c in over and not (known is not None and known[sq] == c):
            name = "blanks" if c == BLANK_CHAR else c
            squares[sq] = UNSURE_SQUARE
            doubts[sq] = Doubt(DoubtKind.OVER_SET, OVER_SET_WHY.format(n=over[c], name=name, held=bag.get(c, 0)))
    confirmed = reading.confirmed - set(doubts)
    note = reading.note or OVER_SET_NOTE.format(set=tile_set.name)
    return replace(reading, squares=tuple(squares), doubts=doubts, confirmed=confirmed, note=note)
