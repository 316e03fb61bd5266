"""Diff: previous accepted board + new reading -> newly placed tiles and anomalies, for the referee.

A placed tile is ``(square, tile)`` with ``tile`` the upper-case letter, or ``"?"`` for a blank tile (its
designated letter is not visible; the referee asks for it). Anything else that changed is an
:class:`Anomaly` for the judge -- never folded into a move:

* ``vanished``: a tile of the previous board reads empty now;
* ``changed``: a tile reads as another letter (or a blank became lettered, or vice versa);
* ``moved``: a tile vanished and a tile of the same letter appeared elsewhere in the same step;
* ``unsure``: a square the camera could not read where a new tile may lie (the referee should not decide
  the move before the judge or a better frame settles it).

Squares unsure in the new reading but holding a tile before keep that tile (a hand or glare over an old tile
is not a change). Cost: a few hundred microseconds for a full board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kiosk.rules.board import square_name
from kiosk.vision.reading import BLANK_CHAR, EMPTY_CHAR, N_SQUARES, SIZE, UNSURE_CHAR, BoardReading


@dataclass(frozen=True)
class Anomaly:
    """Something the judge must look at: ``kind`` (vanished/changed/moved/unsure; ``entry``: the camera reads
    otherwise than the judge entered, :func:`kiosk.app.judge_entries.entry_clashes`), the square, what was
    there before (or entered) and what is read now (grid characters), and a sentence for the screen."""

    kind: str
    square: int
    before: str
    after: str
    detail: str


@dataclass(frozen=True)
class BoardDiff:
    """Result of :func:`diff_boards`.

    Attributes:
        placed: newly placed tiles, (square, letter or "?"), in square order.
        anomalies: changes that are not placements (see the module docstring).
        board: the resulting board as 15 grid strings (previous board + placements; old tiles kept where the
            new reading is unsure).
    """

    placed: tuple[tuple[int, str], ...]
    anomalies: tuple[Anomaly, ...] = field(default_factory=tuple)
    board: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        """True when there is nothing for the judge (the placements can go straight to the referee)."""
        return not self.anomalies

    def placements(self) -> dict[int, str]:
        """{square: tile} of the placed tiles (``"?"`` for a blank), as the referee takes them."""
        return dict(self.placed)


def _chars(board: BoardReading | list[str] | tuple[str, ...] | str) -> str:
    if isinstance(board, BoardReading):
        flat = "".join(board.grid())
    elif isinstance(board, str):
        flat = "".join(board.split())
    else:
        flat = "".join(board)
    if len(flat) != N_SQUARES:
        raise ValueError(f"a board needs {N_SQUARES} squares, got {len(flat)}")
    return flat


def diff_boards(previous: BoardReading | list[str] | tuple[str, ...] | str,
                new: BoardReading | list[str] | tuple[str, ...] | str) -> BoardDiff:
    """Compare the previous accepted board with a new reading (grids or readings; see module docstring).

    Lower-case letters in ``previous`` (designated blanks from the referee) count as blank tiles.
    Raises ValueError when a board does not have 225 squares.
    """
    before = _chars(previous)
    after = _chars(new)
    placed: list[tuple[int, str]] = []
    vanished: list[int] = []
    anomalies: list[Anomaly] = []
    result = list(before)
    for sq in range(N_SQUARES):
        b, a = before[sq], after[sq]
        if b.islower():
            b = BLANK_CHAR
        if b == a:
            continue
        if b in (EMPTY_CHAR, UNSURE_CHAR):
            if a == UNSURE_CHAR:
                anomalies.append(Anomaly("unsure", sq, b, a, f"{square_name(sq)}: cannot tell whether a tile "
                                                             f"lies there"))
            elif a != EMPTY_CHAR:
                placed.append((sq, a))
                result[sq] = a
            continue
        # a tile was there before
        if a == UNSURE_CHAR:
            continue  # covered or doubtful now: keep the old tile
        if a == EMPTY_CHAR:
            vanished.append(sq)
            continue
        anomalies.append(Anomaly("changed", sq, b, a, f"{square_name(sq)}: the tile read {b} before and {a} now"))
    # a vanished tile whose letter appears among the placements has probably been moved
    for sq in vanished:
        b = before[sq] if not before[sq].islower() else BLANK_CHAR
        match = next((i for i, (dst, t) in enumerate(placed) if t == b), None)
        if match is not None:
            dst, _ = placed.pop(match)
            result[dst] = before[dst]
            anomalies.append(Anomaly("moved", sq, b, b, f"{square_name(sq)}: tile {b} seems moved to "
                                                        f"{square_name(dst)}"))
        else:
            anomalies.append(Anomaly("vanished", sq, b, EMPTY_CHAR, f"{square_name(sq)}: tile {b} is gone"))
    board = "".join(result)
    return BoardDiff(tuple(placed), tuple(anomalies), tuple(board[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)))
