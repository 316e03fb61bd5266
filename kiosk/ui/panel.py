"""What every screen is drawn on: the layout of board and panel (:func:`layout`), the board with the marks of
the kiosk's state and the panel's top (:func:`board_and_panel`), and the game's small facts the screens ask
for (holds, the sheet's row labels, the tile set's letters)."""

from __future__ import annotations

import pygame

from kiosk.referee.state import DESIGNATING, PLAYING, REMOVING
from kiosk.ui.board_view import draw_board
from kiosk.ui.status import panel_top
from kiosk.ui.touch_state import TouchState
from kiosk.ui.widgets import BG, Canvas

BUTTON_H = 56
"""A button's height in design px (a fingertip)."""


def layout(size: tuple[int, int]) -> tuple[pygame.Rect, pygame.Rect]:
    """(board area, panel area) for a screen of ``size`` px."""
    w, h = size
    if w >= h:
        side = min(h, w * 3 // 5)
        return pygame.Rect(0, 0, side, h), pygame.Rect(side, 0, w - side, h)
    side = min(w, h * 11 // 20)  # portrait: the board on top, at most 55% of the height (480x800 kept 320 px)
    return pygame.Rect(0, 0, w, side), pygame.Rect(0, side, w, h - side)


def holds(ui: TouchState) -> bool:
    """The game's rules allow holds."""
    preset = ui.kiosk.preset
    return preset is not None and preset.challenge.holds


def sheet_rows(ui: TouchState) -> str:
    """How the game's sheet labels the board's rows (preset ``board.rows``)."""
    preset = ui.kiosk.preset
    return preset.board.rows if preset is not None else "numbers"


def letters(ui: TouchState) -> list[str]:
    """The letters of the game's tile set (none before a game)."""
    tile_set = ui.kiosk.tile_set
    return list(tile_set.letters) if tile_set else []


def board(ui: TouchState, cv: Canvas, area: pygame.Rect, *, tappable: bool = False) -> None:
    """Draw the board in ``area``: the last play new, problem and withdrawn squares marked, the judge's entries
    and pending blanks shown, the judge's selected square marked (``tappable``: squares are buttons)."""
    st = ui.kiosk.state
    view = ui.kiosk.view
    lp = st.last_play
    new = [sq for sq, _ in lp.tiles] if lp is not None and not lp.withdrawn else []
    marked = set(view.problem_squares) | set(view.removal_left)
    if st.phase == REMOVING and lp is not None:
        marked |= {sq for sq, _ in lp.tiles}
    cells = list(st.board)
    # the tiles the judge entered for the move being read (no reading from the camera, a doubt) show as new
    pending = {sq: ch for sq, ch in view.corrections.items() if ch != "." and not cells[sq] and st.phase == PLAYING}
    if st.phase == DESIGNATING:  # the play waits for its blanks: all its tiles stay in view, its blanks marked
        pending = designating_tiles(ui)
        marked |= set(st.pending_blanks)
    doubtful: list[int] = []
    if view.reading is not None and st.phase == PLAYING and view.problem_text:
        doubtful = [i for i, ch in enumerate("".join(view.reading.grid())) if ch == "#"]
    if ui.selected is not None:
        marked.add(ui.selected)
    tile_set = ui.kiosk.tile_set
    draw_board(cv, area, cells, new=new, marked=marked, doubtful=doubtful, pending=pending, tappable=tappable,
               values=dict(tile_set.values) if tile_set else None, rows=sheet_rows(ui))



def designating_tiles(ui: TouchState) -> dict[int, str]:
    """The tiles of the play whose blanks are being designated (square -> tile, its blanks "?"): the referee
    keeps them aside until then, so they are taken as the press's reading and the judge's entries show them
    (the C and T of CAT vanished while its blank was designated)."""
    st, view = ui.kiosk.state, ui.kiosk.view
    cells = st.board
    tiles: dict[int, str] = {}
    if view.reading is not None:
        for sq, ch in enumerate("".join(view.reading.grid())):
            if not cells[sq] and (ch.isalpha() or ch == "?"):
                tiles[sq] = ch
    for sq, ch in view.corrections.items():
        if not cells[sq]:
            if ch in (".", "#"):
                tiles.pop(sq, None)
            else:
                tiles[sq] = ch
    tiles.update({sq: "?" for sq in st.pending_blanks})
    return tiles


def board_and_panel(ui: TouchState, cv: Canvas, *, tappable: bool = False, clocks: bool = True) -> pygame.Rect:
    """Draw the board in its area, clear the panel and draw its top (:func:`kiosk.ui.status.panel_top`: the
    clocks unless the screen shows the scores with theirs, device problems); returns the rest for the screen."""
    area, panel = layout(cv.surface.get_size())
    board(ui, cv, area, tappable=tappable)
    pygame.draw.rect(cv.surface, BG, panel)
    return panel_top(ui, cv, panel.inflate(-cv.px(12), -cv.px(12)), clocks=clocks)

