"""What changed on the board: a camera reading compared with the board the referee holds.

The kiosk never scores a guess: any square whose reading disagrees with what the rules allow (an old tile
gone or changed, a doubtful square) is reported with its square index so the screen can mark it and a player
can fix the board, or the judge can resolve it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kiosk.rules.board import SIZE, square_name
from kiosk.vision.reading import BLANK_CHAR, EMPTY_CHAR, UNSURE_CHAR

N_SQUARES = SIZE * SIZE


@dataclass(frozen=True)
class BoardProblem:
    """One square the kiosk cannot accept: ``square`` (row*15+col), ``kind`` and a sentence for the screen.

    ``kind``: "unsure" (hand, glare, low confidence), "removed" (an old tile is gone), "changed" (an old tile
    reads as another letter), "blank_changed" (a played blank reads as a lettered tile).
    """

    square: int
    kind: str
    text: str


@dataclass(frozen=True)
class BoardChange:
    """The difference between the referee's board and one reading.

    Attributes:
        new_tiles: ((square, tile), ...) on squares empty on the referee's board; ``"?"`` for a blank.
        problems: squares that block the move (see :class:`BoardProblem`), in square order.
    """

    new_tiles: tuple[tuple[int, str], ...]
    problems: tuple[BoardProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def squares(self) -> tuple[int, ...]:
        """The squares to mark on the screen: the problems (or the new tiles when there are none)."""
        if self.problems:
            return tuple(p.square for p in self.problems)
        return tuple(sq for sq, _ in self.new_tiles)


def board_change(board: Sequence[str], grid: Sequence[str], ignore: Sequence[int] = ()) -> BoardChange:
    """Compare ``board`` (225 cells: "" empty, "A" tile, "a" blank designated A) with ``grid`` (15 strings of 15
    characters as :meth:`kiosk.vision.reading.BoardReading.grid`: ``.`` letter ``?`` ``#``).

    ``ignore``: squares whose reading does not matter (e.g. a withdrawn play's squares while its tiles come off).

    Raises:
        ValueError: ``board`` is not 225 cells or ``grid`` not 15 rows of 15 characters.
    """
    if len(board) != N_SQUARES:
        raise ValueError(f"board_change: the board has {len(board)} cells, expected {N_SQUARES}")
    if len(grid) != SIZE or any(len(r) != SIZE for r in grid):
        raise ValueError("board_change: the reading must be 15 rows of 15 characters")
    chars = "".join(grid)
    skip = set(ignore)
    new: list[tuple[int, str]] = []
    problems: list[BoardProblem] = []
    for sq in range(N_SQUARES):
        if sq in skip:
            continue
        have, seen = board[sq], chars[sq]
        name = square_name(sq)
        if seen == UNSURE_CHAR:
            problems.append(BoardProblem(sq, "unsure", f"{name}: cannot be read (hand, glare?)"))
        elif not have:
            if seen != EMPTY_CHAR:
                new.append((sq, seen.upper() if seen != BLANK_CHAR else BLANK_CHAR))
        elif seen == EMPTY_CHAR:
            problems.append(BoardProblem(sq, "removed", f"{name}: the tile {have.upper()} is missing"))
        elif have.islower():
            if seen != BLANK_CHAR:
                problems.append(BoardProblem(sq, "blank_changed", f"{name}: the blank ({have.upper()}) reads as {seen}"))
        elif seen != have:
            what = "a blank" if seen == BLANK_CHAR else seen
            problems.append(BoardProblem(sq, "changed", f"{name}: the tile {have} reads as {what}"))
    return BoardChange(tuple(new), tuple(problems))
