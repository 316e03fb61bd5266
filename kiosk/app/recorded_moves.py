"""The recording system's moves as the kiosk needs them: its coordinates in GCG notation, and a recorded play as
the squares the judge enters when the camera's frame of that move is missing or unreadable.

Coordinates in ``game.csv``: letter first = across from that row letter and column number (``H4`` is the
standard ``8D``); number first = down (``5G`` is ``E7``).
"""

from __future__ import annotations

import re
from typing import Protocol

from kiosk.rules.board import COLUMNS, parse_coordinate


class RecordRow(Protocol):
    """A ``game.csv`` row as :class:`kiosk.app.recording.Press` has it (``line``: its line in the file)."""

    @property
    def line(self) -> int: ...
    @property
    def move(self) -> int: ...
    @property
    def button(self) -> str: ...
    @property
    def coord(self) -> str: ...
    @property
    def word(self) -> str: ...


def word_squares(coord: str, length: int) -> list[int]:
    """The squares (0..224, row-major) of a word of ``length`` letters at ``coord`` (the recording system's
    notation), first letter first.

    Raises:
        ValueError: not a coordinate, or the word runs off the board.
    """
    c = parse_coordinate(standard_coordinate(coord))
    dr, dc = (0, 1) if c.across else (1, 0)
    last_r, last_c = c.row + (length - 1) * dr, c.col + (length - 1) * dc
    if not (c.row >= 0 and c.col >= 0 and last_r < 15 and last_c < 15):
        raise ValueError(f"{coord}: a word of {length} letters runs off the board")
    return [(c.row + i * dr) * 15 + c.col + i * dc for i in range(length)]


def record_tiles(coord: str, word: str, board: list[str] | tuple[str, ...]) -> list[tuple[int, str]]:
    """The tiles a recorded play put down, as the judge would enter them: (square 0..224, letter or ``?`` for a
    blank) for every letter of ``word`` at ``coord`` (the recording system's notation) on an empty square of
    ``board`` (225 strings, "" empty). ``.`` in the word is a tile already there; ``_`` or a lower-case letter
    is a blank.

    Raises:
        ValueError: not a coordinate, or the word runs off the board.
    """
    return [(sq, "?" if ch == "_" or ch.islower() else ch.upper())
            for sq, ch in zip(word_squares(coord, len(word)), word, strict=True) if ch != "." and not board[sq]]


def standard_coordinate(coord: str) -> str:
    """The recording system's coordinate as standard GCG (``H4`` -> ``8D``, ``5G`` -> ``E7``).

    Raises:
        ValueError: not a coordinate.
    """
    m = re.fullmatch(r"([A-Oa-o])(\d{1,2})|(\d{1,2})([A-Oa-o])", coord.strip())
    if not m:
        raise ValueError(f"{coord!r} is not a board coordinate")
    if m.group(1):
        row, col = ord(m.group(1).upper()) - 64, int(m.group(2))
        if not 1 <= col <= 15:
            raise ValueError(f"{coord!r}: column {col} is off the board")
        return f"{row}{COLUMNS[col - 1]}"
    col, row = int(m.group(3)), ord(m.group(4).upper()) - 64
    if not 1 <= col <= 15:
        raise ValueError(f"{coord!r}: column {col} is off the board")
    return f"{COLUMNS[col - 1]}{row}"


__all__ = ["record_tiles", "standard_coordinate", "word_squares"]
