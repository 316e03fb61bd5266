"""Placement validation: is a set of newly placed tiles a legal play on this board?

Rules (``docs/variants.md`` "Common to all"; seeds 000-004): tiles in one row or one column; one contiguous
word along that line (gaps only where tiles already lie); inside the board; no square covered twice; the
first play covers the centre H8 (or, under ``nsf`` seed 002, may miss it) and forms a word of 2+ letters
(``team`` seed 004: at least 2 letters); every later play touches a tile already on the board.
Diagonals never count.

Each violation raises :class:`PlacementError` with a reason ``code`` and the squares involved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from kiosk.rules.board import CENTRE, SIZE, Board, Coordinate, square_name
from kiosk.rules.variants import STANDARD, ScoringRules

CODES = {
    "no_tiles": "no tiles were placed",
    "off_board": "a tile lies off the board",
    "duplicate_square": "two tiles on one square",
    "occupied": "a square is already covered",
    "bad_tile": "not a tile letter",
    "not_in_line": "tiles are not in one row or one column",
    "gap": "the word has a gap",
    "first_not_centre": "the first play must cover the centre square H8",
    "first_too_short": "the first word must have at least two letters",
    "not_connected": "the play does not touch any tile on the board",
    "plural_s": "adding an S to the end of a word on the board is not allowed (team rules)",
}


class PlacementError(ValueError):
    """An illegal placement.

    Attributes:
        code: one of :data:`CODES` keys.
        squares: the squares at fault (indices ``row*15+col``).
    """

    def __init__(self, code: str, squares: Sequence[int] = (), detail: str = "") -> None:
        self.code = code
        self.squares = tuple(squares)
        names = " ".join(square_name(s) for s in self.squares if 0 <= s < SIZE * SIZE)
        msg = CODES.get(code, code)
        if names:
            msg += f" ({names})"
        if detail:
            msg += f": {detail}"
        super().__init__(msg)


class PlayShape(NamedTuple):
    """Where a legal play lies.

    Attributes:
        coordinate: start of the main word (GCG convention: first square of the whole word).
        main_squares: every square of the main word, old tiles included, in reading order.
        off_centre_first: True for an ``nsf`` first play that misses H8 (scored without the centre DWS).
    """

    coordinate: Coordinate
    main_squares: tuple[int, ...]
    off_centre_first: bool = False


def _diagnose(cells: list[str], tiles: Sequence[tuple[int, str]]) -> None:
    """Raise the first fault of a placement that failed the fast checks: off board, duplicate, bad tile, occupied."""
    squares = [sq for sq, _ in tiles]
    off = [sq for sq in squares if not 0 <= sq < SIZE * SIZE]
    if off:
        raise PlacementError("off_board", off)
    if len(set(squares)) != len(squares):
        raise PlacementError("duplicate_square", sorted({s for s in squares if squares.count(s) > 1}))
    bad = [sq for sq, t in tiles if len(t) != 1 or not t.isalpha()]
    if bad:
        raise PlacementError("bad_tile", bad)
    raise PlacementError("occupied", [sq for sq in squares if cells[sq]])


def validate_placement(board: Board, tiles: Sequence[tuple[int, str]], rules: ScoringRules = STANDARD,
                       across: bool | None = None) -> PlayShape:
    """Check ``tiles`` ((square, tile) pairs; tile ``"A"`` or ``"a"`` for a blank as A) against ``board``.

    ``across`` chooses the main word's direction for a single tile that forms words both ways (a GCG record
    names it by its coordinate); otherwise the direction follows from the tiles.

    Returns the :class:`PlayShape`. Raises :class:`PlacementError`. Does not modify ``board``.
    """
    if not tiles:
        raise PlacementError("no_tiles")
    cells = board.cells
    squares = [sq for sq, _ in tiles]
    for sq, t in tiles:  # fast path; the checks below name the fault in a fixed order
        if not 0 <= sq < SIZE * SIZE or cells[sq] or len(t) != 1 or not t.isalpha():
            _diagnose(cells, tiles)
    if len(set(squares)) != len(squares):
        _diagnose(cells, tiles)
    n = len(squares)
    if n > 1:
        lo, hi = min(squares), max(squares)
        if lo // SIZE == hi // SIZE:
            across = True
        elif all(sq % SIZE == lo % SIZE for sq in squares):
            across = False
        else:
            raise PlacementError("not_in_line", squares)
    else:
        sq = lo = hi = squares[0]
        c = sq % SIZE
        r = sq // SIZE
        horiz = (c > 0 and bool(cells[sq - 1])) or (c < SIZE - 1 and bool(cells[sq + 1]))
        vert = (r > 0 and bool(cells[sq - SIZE])) or (r < SIZE - 1 and bool(cells[sq + SIZE]))
        if not (horiz and vert and across is not None):
            across = horiz or not vert
    step = 1 if across else SIZE
    if hi - lo >= n * step:  # the line between the ends holds more squares than tiles: old tiles must fill them
        new = set(squares)
        gaps = [s for s in range(lo, hi + 1, step) if s not in new and not cells[s]]
        if gaps:
            raise PlacementError("gap", gaps)
    # extend over old tiles on both ends
    first_in_line = lo - (lo % SIZE if across else (lo // SIZE) * SIZE)
    last_in_line = hi + ((SIZE - 1 - hi % SIZE) if across else (SIZE - 1 - hi // SIZE) * SIZE)
    start = lo
    while start > first_in_line and cells[start - step]:
        start -= step
    end = hi
    while end < last_in_line and cells[end + step]:
        end += step
    main = tuple(range(start, end + 1, step))
    coord = Coordinate(start // SIZE, start % SIZE, across)
    if board.tiles_on_board == 0:
        off_centre = CENTRE not in squares
        if off_centre and rules.first_play_covers_centre and rules.off_centre_first_play == "illegal":
            raise PlacementError("first_not_centre", squares)
        if len(main) < max(2, rules.first_play_min_tiles):
            raise PlacementError("first_too_short", squares)
        return PlayShape(coord, main, off_centre and rules.first_play_covers_centre)
    if len(main) > n:
        return PlayShape(coord, main)
    # no old tile along the line: the play must touch one across it
    cross = SIZE if across else 1
    for sq in squares:
        p = sq // SIZE if across else sq % SIZE
        if (p > 0 and cells[sq - cross]) or (p < SIZE - 1 and cells[sq + cross]):
            return PlayShape(coord, main)
    raise PlacementError("not_connected", squares)
