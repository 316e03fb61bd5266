"""The recording demo's judge: what a person at the table sees, taken from the recording's ``game.csv``.

The judge never reads a truth file. After each row of ``game.csv`` the table shows the board the record's plays
have built so far: a play row lays its word's new tiles (``.`` = a tile already there, ``_`` or a lower-case
letter = a blank, shown as ``?``), a withdrawn row (``--``, after a successful challenge) takes the last play's
tiles of that word off again. :func:`table_boards` gives that board per ``game.csv`` line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kiosk.app.recorded_moves import RecordRow, word_squares
from kiosk.rules.board import square_name
from kiosk.vision.reading import BLANK_CHAR, EMPTY_CHAR, N_SQUARES


def _squares(coord: str, length: int) -> list[int] | None:
    """:func:`~kiosk.app.recorded_moves.word_squares`, or None when it is not a coordinate or runs off the board."""
    try:
        return word_squares(coord, length)
    except ValueError:
        return None


def table_boards(rows: Sequence[RecordRow]) -> dict[int, str]:
    """``game.csv`` line -> the board on the table after that row (225 grid characters: ``.``, letter, ``?``).

    Rows whose coordinate is not a board coordinate (passes, exchanges, pauses) leave the board as it was; a
    row that would lay a tile on a covered square or off the board lays nothing (the referee names the fault).
    """
    board = [EMPTY_CHAR] * N_SQUARES
    laid: list[tuple[str, list[int]]] = []   # (word, squares laid) of each play, newest last
    out: dict[int, str] = {}
    for r in rows:
        coord = r.coord.strip()
        if coord == "--":
            for i in range(len(laid) - 1, -1, -1):
                if laid[i][0] == r.word:
                    for sq in laid.pop(i)[1]:
                        board[sq] = EMPTY_CHAR
                    break
        elif r.button in ("green", "red"):
            _lay(board, laid, coord, r.word)
        out[r.line] = "".join(board)
    return out


def _lay(board: list[str], laid: list[tuple[str, list[int]]], coord: str, word: str) -> None:
    squares = _squares(coord, len(word)) if word and coord not in ("", "-") else None
    if squares is None:
        return
    new = [(sq, ch) for sq, ch in zip(squares, word) if ch != "."]
    if any(board[sq] != EMPTY_CHAR for sq, _ in new):
        return
    for sq, ch in new:
        board[sq] = BLANK_CHAR if ch == "_" or ch.islower() else ch
    laid.append((word, [sq for sq, _ in new]))


def correct_from(seen: str, kiosk: Any, squares: Sequence[int], pin: str) -> str:
    """The judge unlocks ``kiosk`` with ``pin`` and sets each of ``squares`` to what the table shows (``seen``,
    225 grid characters); returns what he said (``H7 is D, B1 is .``)."""
    kiosk.act("judge_unlock", pin=pin)
    for sq in squares:
        kiosk.act("correct", square=sq, char=seen[sq])
    return ", ".join(f"{square_name(sq)} is {seen[sq]}" for sq in squares)
