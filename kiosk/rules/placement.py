"""Placement validation: is a set of newly placed tiles a legal play on this board?

Rules (``docs/variants.md`` "Common to all"; seeds 000-004): tiles in one row or one column; one contiguous
word along that line (gaps only where tiles already lie); inside the board; no square covered twice; the
first play covers the centre H8 (or, under ``nsf`` seed 002, may miss it) and forms a word of 2+ letters
(``team`` seed 004: at least 2 letters); every later play touches a tile already on the board.
Diagonals never count.

Each violation raises :class:`PlacementError` with a reason ``code`` and the squares involved.

:class:`Placement` is the other direction: a word written at a GCG coordinate (``8D QUIRT``) turned into the
tiles it puts on a given board; :class:`WordError` names what does not fit.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from kiosk.rules.board import CENTRE, SIZE, Board, Coordinate, parse_coordinate, square_name
from kiosk.rules.tiles import BLANK, TileSet
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


class WordFault(StrEnum):
    """Why a word written at a coordinate does not fit the board (:class:`WordError` ``code``)."""

    OFF_BOARD = "off_board"            # the word runs past the board's edge
    THROUGH_EMPTY = "through_empty"    # a played-through letter ("." or in parentheses) over an empty square
    NOT_AS_ON_BOARD = "not_as_on_board"  # a played-through letter differs from the tile on that square
    OVERWRITE = "overwrite"            # a new letter over a square that holds another tile
    NOT_A_TILE = "not_a_tile"          # a letter the tile set does not have


class WordError(ValueError):
    """A word does not fit the board at its coordinate.

    Attributes:
        code: the :class:`WordFault`.
        square: the square at fault (``row*15+col``), None for :attr:`WordFault.OFF_BOARD`.
    """

    def __init__(self, code: WordFault, message: str, square: int | None = None) -> None:
        self.code = code
        self.square = square
        super().__init__(message)


@dataclass(frozen=True)
class Placement:
    """A word written at a GCG coordinate, resolved against a board: which of its letters are new tiles.

    Attributes:
        coordinate: where the word starts and which way it runs (``8D`` across, ``D8`` down).
        word: the whole word as written: upper-case letter = a tile, lower-case = a designated blank,
            ``"?"`` = a blank not yet designated, ``"."`` = a square already covered.
        squares: every square of the word in reading order (``row*15+col``), played-through ones included.
        tiles: the new tiles, ``(square, tile)`` in reading order (the tile as written: ``"A"``, ``"a"``, ``"?"``).

    Build it with :meth:`from_word`. ``tiles`` may be empty (every square already covered): whether that is
    a legal play is for :func:`validate_placement` and the referee to say.
    """

    coordinate: Coordinate
    word: str
    squares: tuple[int, ...]
    tiles: tuple[tuple[int, str], ...]

    @classmethod
    def from_word(cls, board: Board | Sequence[str] | None, coordinate: str | Coordinate, word: str, *,
                  through: Collection[int] = (), tile_set: TileSet | None = None) -> Placement:
        """Resolve ``word`` at ``coordinate`` on ``board`` (a :class:`Board` or its 225 cells).

        A letter over an occupied square is played through when it is that tile's letter (either case); a
        ``"."`` and the positions in ``through`` (indices into ``word``, GCG's parenthesised letters) must lie
        over occupied squares. With ``tile_set``, every new letter must be one of its letters (either case).
        ``board=None``: the notation alone says what is new (every letter but ``"."`` and ``through``), as a
        record states it; whether that fits the board is then for the referee to judge.

        Raises:
            CoordinateError: ``coordinate`` is a string that is not GCG notation.
            WordError: the word runs off the board, plays through an empty square, disagrees with a tile on
                the board, or (with ``tile_set``) is not a tile of the set; the first fault in reading order.
        """
        coord = parse_coordinate(coordinate) if isinstance(coordinate, str) else coordinate
        if (coord.col if coord.across else coord.row) + len(word) > SIZE:
            raise WordError(WordFault.OFF_BOARD, f"{coord} {word} runs off the board (out of bounds)")
        step = 1 if coord.across else SIZE
        start = coord.row * SIZE + coord.col
        squares = tuple(range(start, start + step * len(word), step))
        tiles: list[tuple[int, str]] = []
        if board is None:
            return cls(coord, word, squares, tuple((sq, ch) for i, (sq, ch) in enumerate(zip(squares, word))
                                                   if ch != "." and i not in through))
        cells = board.cells if isinstance(board, Board) else board
        for i, (sq, ch) in enumerate(zip(squares, word)):
            have = cells[sq]
            if ch == "." or (through and i in through):
                if not have:
                    raise WordError(WordFault.THROUGH_EMPTY,
                                    f"{word} plays through {square_name(sq)}, which is empty", sq)
                if ch != "." and have.upper() != ch.upper():
                    raise WordError(WordFault.NOT_AS_ON_BOARD, f"{square_name(sq)} holds {have}, not {ch}", sq)
            elif have:
                if have.upper() != ch.upper():
                    raise WordError(WordFault.OVERWRITE,
                                    f"{square_name(sq)} already holds {have} (overwrite with {ch})", sq)
            else:
                if tile_set is not None and not tile_set.is_letter(ch):
                    raise WordError(WordFault.NOT_A_TILE, f"'{ch}' is not a tile of the {tile_set.name} set", sq)
                tiles.append((sq, ch))
        return cls(coord, word, squares, tuple(tiles))

    @property
    def undesignated(self) -> tuple[tuple[int, str], ...]:
        """The new tiles as a camera sees them: every blank as ``"?"`` (its letter is said at the table)."""
        return tuple((sq, BLANK if ch.islower() else ch) for sq, ch in self.tiles)

    @property
    def blanks(self) -> tuple[tuple[int, str], ...]:
        """The designated blanks among the new tiles: ``(square, upper-case letter)`` in reading order."""
        return tuple((sq, ch.upper()) for sq, ch in self.tiles if ch.islower())

    @property
    def rack_tiles(self) -> str:
        """The new tiles as they left the rack: letters, a blank as ``"?"`` (``"QUI?T"``)."""
        return "".join(BLANK if ch.islower() else ch for _, ch in self.tiles)
