"""The judge's corrections and entries on the kiosk's screen: what the camera should have read on a square.

A correction completes a camera reading (a doubtful square, a misread tile) or, while the camera gives no reading
at all, is the judge's entry of the whole move (:attr:`~kiosk.control.port.KioskView.judge_entered`). Entries end
with their turn (:func:`promote`); a correction that confirms a tile already on the referee's board holds as long
as that tile stays (:func:`confirmed_now`: the camera missed it once, it will likely miss it again). Kept beside
:mod:`kiosk.app.kiosk` so that module stays one controller.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from kiosk.control.port import KioskView
from kiosk.control.words import sheet_rows, square_label, tile_words
from kiosk.referee.presets import Preset
from kiosk.referee.state import GameState, Result
from kiosk.rules.board import square_name
from kiosk.vision.diff import Anomaly
from kiosk.vision.reading import EMPTY_CHAR, UNSURE_CHAR, BoardReading, board_rows, seen_as

log = logging.getLogger("kiosk.app")
PRESS_AGAIN = "Press the clock again when the board is right."
"""How a correction's reply ends (a press standing through a pause says otherwise:
:func:`kiosk.app.paused_reading.correction_kept`)."""


class Seen(Protocol):
    """What the judge's confirmations need of the kiosk (:class:`kiosk.app.kiosk.Kiosk`): its screen's view, the
    camera's worker and the referee's state."""

    view: KioskView
    vision: Any   # the VisionWorker (set_overrides), or None

    @property
    def state(self) -> GameState: ...


class Table(Seen, Protocol):
    """What these functions need of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    @property
    def preset(self) -> Preset | None: ...


def correct(kiosk: Table, square: int, char: str) -> Result:
    """The judge says what the camera should have read on ``square`` (0..224): ``char`` a letter, ``"?"`` a
    blank or ``"."`` empty. The tile's own letter on a square holding a tile confirms it (and takes back an
    entry made there); ``"."`` on an empty square where the judge entered a tile takes that entry back; any
    other correction holds for the move being read. Returns the sentence said ("H8 is a blank now. Press the clock
    again when the board is right."; refused: bad square or char, the reason for the log)."""
    if not 0 <= square < 225:
        return Result(False, f"square {square} is not on the board", "bad_input")
    ch = char.upper() if char not in (".", "?") else char
    if len(ch) != 1:
        return Result(False, "correct: one character (letter, '?' blank or '.' empty)", "bad_input")
    view, have = kiosk.view, kiosk.state.board[square]
    if confirms(kiosk.state.board, square, ch):
        view.confirmed[square] = ch
        view.corrections.pop(square, None)     # a wrong entry on a tile taken back
        if kiosk.vision is not None:
            kiosk.vision.set_overrides(confirmed_now(kiosk))
    elif not have and ch == EMPTY_CHAR and view.corrections.get(square, EMPTY_CHAR) != EMPTY_CHAR:
        del view.corrections[square]           # his own entry taken back: the camera reads the square again
    else:
        view.corrections[square] = ch
        view.judge_entered |= view.camera_failed and not view.read_this_turn
    view.problem_squares = tuple(s for s in view.problem_squares if s != square)
    what = "empty" if ch == EMPTY_CHAR else tile_words(ch)
    view.message = f"{square_label(square, sheet_rows(kiosk.preset))} is {what} now. {PRESS_AGAIN}"
    log.info("judge correction %s -> %s", square_name(square), ch)
    return Result(True, view.message)


def promote(kiosk: Table) -> None:
    """The move is complete: corrections that put a tile now on the referee's board keep holding as
    confirmations; the others, and the judge's entry of the move, end with it."""
    view, board = kiosk.view, kiosk.state.board
    for sq, ch in view.corrections.items():
        if confirms(board, sq, ch):
            view.confirmed[sq] = ch
    drop_entries(view)
    if kiosk.vision is not None:
        kiosk.vision.set_overrides(confirmed_now(kiosk))


def confirms(board: Sequence[str], square: int, char: str) -> bool:
    """Whether the judge's ``char`` on ``square`` (0..224) is the tile the referee's ``board`` (225 cells) holds
    there: his confirmation of that tile, which holds as long as it stays (:func:`confirmed_now`), not a
    correction of the move being read."""
    have = board[square]
    return bool(have) and char == seen_as(have)


def restore_fixes(kiosk: Seen, fixes: Sequence[tuple[int, str]]) -> None:
    """Put back the judge's ``fixes`` ((square, char), ...: his confirmations and corrections, as written with a
    press's kept reading, :mod:`kiosk.app.paused_reading`) after a restart, each as what it was when he made it: a
    confirmation where it confirms the tile on the board (:func:`confirms`; the vision worker told), else a
    correction of the move being read."""
    view, board = kiosk.view, kiosk.state.board
    for sq, ch in fixes:
        (view.confirmed if confirms(board, sq, ch) else view.corrections)[sq] = ch
    if kiosk.vision is not None and view.confirmed:
        kiosk.vision.set_overrides(confirmed_now(kiosk))


def drop_entries(view: KioskView) -> None:
    """The turn's corrections end (its move complete, taken back, or its withdrawn tiles gone), and with them
    the judge's entry of a move and what the turn's readings said (:attr:`KioskView.read_this_turn`)."""
    view.corrections, view.read_this_turn, view.judge_entered = {}, False, False


def confirmed_now(kiosk: Seen) -> dict[int, str]:
    """The judge's confirmations whose tile is still on the referee's board (square -> char); the vision
    worker is told when one leaves with its tile."""
    view, board = kiosk.view, kiosk.state.board
    keep = {sq: ch for sq, ch in view.confirmed.items() if board[sq]}
    if len(keep) != len(view.confirmed):
        view.confirmed = keep
        if kiosk.vision is not None:
            kiosk.vision.set_overrides(keep)
    return keep


def entry_clashes(kiosk: Table, grid: str) -> tuple[Anomaly, ...]:
    """The squares where a camera reading (``grid``: 225 grid characters) is sure of another tile than the judge
    entered while the camera was failing (a tile where he entered empty, another letter or a blank): one
    :class:`Anomaly` (kind ``"entry"``) each, for the judge to look at before his entry is taken over what the
    camera sees. A square the camera reads empty or unsure is no clash: entering the tiles a camera cannot see
    (a hand, a frozen or stale frame) is what his entry is for."""
    rows = sheet_rows(kiosk.preset)
    return tuple(Anomaly("entry", sq, ch, grid[sq], f"{square_label(sq, rows)}: the judge entered {ch}, the camera "
                         f"reads {grid[sq]}") for sq, ch in sorted(kiosk.view.corrections.items())
                 if grid[sq] not in (ch, UNSURE_CHAR, EMPTY_CHAR))


def as_entered(kiosk: Table) -> BoardReading:
    """The referee's board as a sure reading: with the judge's corrections laid over it
    (:func:`kiosk.app.press.finish_press`), the move as he entered it when the camera gives none."""
    return BoardReading.from_grid(board_rows(kiosk.state.board))


def judge_decided(kiosk: Table, placed: tuple[tuple[int, str], ...]) -> bool:
    """Whether the judge's corrections decided any of the ``placed`` tiles ((square, tile), ...) of a play:
    then the play is recorded as his (:attr:`kiosk.referee.events.Play.by_judge`)."""
    return any(sq in kiosk.view.corrections for sq, _ in placed)
