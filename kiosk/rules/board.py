"""The 15x15 board, its premium squares and GCG coordinates.

Conventions (as python-chess does for squares):

* a square is an ``int`` index ``row * 15 + col``, ``row`` 0..14 top to bottom (row 1 .. 15),
  ``col`` 0..14 left to right (column A .. O);
* GCG coordinates: number first = across (``8D``: row 8, from column D, rightwards), letter first =
  down (``D8``: column D, from row 8, downwards) — the GCG spec (Poslfit v1.2) and ``docs/gcg.md``;
* the ``team`` sheet (seed 004) labels rows A-O and columns 1-15; :func:`team_label` gives that form for display;
* a board square holds ``""`` (empty), an upper-case letter (a lettered tile) or a lower-case letter (a blank
  designated as that letter).

The premium layout is data (``data/layouts/standard.txt``); the centre H8 is a DWS.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import NamedTuple

SIZE = 15
COLUMNS = "ABCDEFGHIJKLMNO"
CENTRE = 7 * SIZE + 7  # H8

# premium codes
PLAIN, DLS, TLS, DWS, TWS = ".", "d", "t", "D", "T"
LETTER_MULT = {PLAIN: 1, DLS: 2, TLS: 3, DWS: 1, TWS: 1}
WORD_MULT = {PLAIN: 1, DLS: 1, TLS: 1, DWS: 2, TWS: 3}


class CoordinateError(ValueError):
    """A coordinate string is not GCG notation or lies off the board."""


def load_layout(name: str = "standard") -> tuple[str, ...]:
    """Premium code for each of the 225 squares (``"T"``, ``"D"``, ``"t"``, ``"d"``, ``"."``)."""
    text = (resources.files("kiosk.rules") / "data" / "layouts" / f"{name}.txt").read_text(encoding="utf-8")
    rows = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if len(rows) != SIZE or any(len(r) != SIZE or set(r) - set("TDtd.") for r in rows):
        raise ValueError(f"layout {name}: expected 15 rows of 15 of T D t d .")
    return tuple("".join(rows))


LAYOUT = load_layout()
LETTER_MULTIPLIER = tuple(LETTER_MULT[p] for p in LAYOUT)
WORD_MULTIPLIER = tuple(WORD_MULT[p] for p in LAYOUT)
PREMIUM_NAMES = {TWS: "TWS", DWS: "DWS", TLS: "TLS", DLS: "DLS", PLAIN: ""}


def square(row: int, col: int) -> int:
    """Square index of 0-based ``row``, ``col``."""
    return row * SIZE + col


def square_name(sq: int) -> str:
    """GCG-style name of a square, column letter then row number (``"H8"`` for the centre)."""
    return f"{COLUMNS[sq % SIZE]}{sq // SIZE + 1}"


def neighbours(sq: int) -> tuple[int, ...]:
    """The squares orthogonally beside ``sq`` (above, below, left, right; 2-4 of them, in that order)."""
    r, c = divmod(sq, SIZE)
    return tuple(rr * SIZE + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                 if 0 <= rr < SIZE and 0 <= cc < SIZE)


def team_label(sq: int) -> str:
    """The ``team`` sheet's label (rows A-O, columns 1-15; seed 004 "GAME BOARD"): the centre is ``"H8"`` too."""
    return f"{COLUMNS[sq // SIZE]}{sq % SIZE + 1}"


class Coordinate(NamedTuple):
    """Where a word starts and which way it runs.

    Attributes:
        row, col: 0-based start square.
        across: True for a word read left to right (GCG ``8D``), False for top to bottom (``D8``).
    """

    row: int
    col: int
    across: bool

    @property
    def start(self) -> int:
        return self.row * SIZE + self.col

    @property
    def step(self) -> int:
        """Index distance between consecutive squares of the word (1 across, 15 down)."""
        return 1 if self.across else SIZE

    def squares(self, length: int) -> list[int]:
        """The ``length`` squares from the start; raises :class:`CoordinateError` if the run leaves the board."""
        end = (self.col if self.across else self.row) + length - 1
        if end >= SIZE:
            raise CoordinateError(f"{self} + {length} letters runs off the board")
        return [self.start + i * self.step for i in range(length)]

    def __str__(self) -> str:
        r, c = str(self.row + 1), COLUMNS[self.col]
        return r + c if self.across else c + r


_COORD = re.compile(r"^(?:(\d{1,2})([A-Oa-o])|([A-Oa-o])(\d{1,2}))$")


def parse_coordinate(text: str) -> Coordinate:
    """Parse GCG ``8D`` (across) / ``D8`` (down); lower case accepted (old files).

    Raises:
        CoordinateError: not of that form, or row outside 1..15.
    """
    m = _COORD.match(text)
    if not m:
        raise CoordinateError(f"'{text}' is not a GCG coordinate (e.g. 8D across, D8 down)")
    if m.group(1):
        row, col, across = int(m.group(1)), m.group(2), True
    else:
        row, col, across = int(m.group(4)), m.group(3), False
    if not 1 <= row <= SIZE:
        raise CoordinateError(f"'{text}': row {row} is off the board (1..15)")
    return Coordinate(row - 1, COLUMNS.index(col.upper()), across)


class Board:
    """Tiles on the 15x15 board: a flat list of 225 strings (see module conventions).

    Mutable; :meth:`copy` for snapshots. ``str(board)`` gives 15 lines of 15 characters (``.`` empty).
    """

    __slots__ = ("cells", "tiles_on_board")

    def __init__(self, cells: list[str] | None = None) -> None:
        self.cells: list[str] = list(cells) if cells is not None else [""] * (SIZE * SIZE)
        if len(self.cells) != SIZE * SIZE:
            raise ValueError("a board has 225 squares")
        self.tiles_on_board = sum(1 for c in self.cells if c)

    @classmethod
    def from_rows(cls, rows: list[str] | str) -> Board:
        """Build from 15 strings of 15 characters (``.`` empty), as :meth:`__str__` writes them."""
        if isinstance(rows, str):
            rows = rows.split()
        if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
            raise ValueError("expected 15 rows of 15 characters")
        return cls(["" if ch == "." else ch for r in rows for ch in r])

    def copy(self) -> Board:
        return Board(self.cells)

    def __getitem__(self, sq: int) -> str:
        return self.cells[sq]

    def is_empty(self) -> bool:
        return self.tiles_on_board == 0

    def place(self, placements: dict[int, str] | list[tuple[int, str]]) -> None:
        """Put tiles on empty squares (no validation beyond "square is empty"; see :mod:`kiosk.rules.placement`)."""
        items = placements.items() if isinstance(placements, dict) else placements
        for sq, tile in items:
            if self.cells[sq]:
                raise ValueError(f"{square_name(sq)} is already covered")
            self.cells[sq] = tile
            self.tiles_on_board += 1

    def remove(self, squares: list[int]) -> None:
        """Take tiles off (a withdrawn play, a judge correction)."""
        for sq in squares:
            if self.cells[sq]:
                self.cells[sq] = ""
                self.tiles_on_board -= 1

    def transposed(self) -> Board:
        """The board mirrored on its main diagonal (rows become columns)."""
        return Board([self.cells[(i % SIZE) * SIZE + i // SIZE] for i in range(SIZE * SIZE)])

    def rows(self) -> list[str]:
        return ["".join(c or "." for c in self.cells[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]

    def __str__(self) -> str:
        return "\n".join(self.rows())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.cells == other.cells

    __hash__ = None  # type: ignore[assignment]
