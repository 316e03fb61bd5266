"""The board as read: premium squares, tiles, the last play's new tiles highlighted, blanks marked (their
designated letter in blue on a circle), squares in question framed in red, doubtful readings hatched."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pygame

from kiosk.control.words import LINE_LABELS, square_label
from kiosk.rules.board import LAYOUT, SIZE
from kiosk.ui.widgets import BLUE, RED, Button, Canvas, font

PREMIUM_COLOURS = {"T": (200, 60, 50), "D": (225, 150, 150), "t": (60, 110, 200), "d": (150, 195, 230),
                   ".": (205, 200, 175)}
TILE = (245, 226, 180)
TILE_NEW = (255, 200, 70)
INK = (30, 30, 30)


def _premium(sq: int) -> tuple[int, int, int]:
    return PREMIUM_COLOURS.get(LAYOUT[sq], PREMIUM_COLOURS["."])


def draw_board(cv: Canvas, area: pygame.Rect, cells: Sequence[str], *, new: Iterable[int] = (),
               marked: Iterable[int] = (), doubtful: Iterable[int] = (), pending: dict[int, str] | None = None,
               tappable: bool = False, values: dict[str, int] | None = None, rows: str = "numbers") -> pygame.Rect:
    """Draw the 15x15 board (``cells``: 225 strings, "" empty, "A" tile, "a" blank as A) in the largest square
    that fits ``area`` with coordinate labels. ``pending``: tiles not yet on the referee's board (drawn new).
    ``tappable`` registers every square as a button ("square", square=index). ``values``: letter -> points,
    printed small in a tile's corner as on the tiles (a blank shows none). ``rows``: the labels of the lines
    (:data:`LINE_LABELS`). Returns the grid rect."""
    s = cv.surface
    side = min(area.w, area.h)
    label = max(8, side // 32)
    cell = (side - label) // SIZE
    grid = pygame.Rect(area.x + label + (area.w - side) // 2, area.y + label + (area.h - side) // 2,
                       cell * SIZE, cell * SIZE)
    lab = font(max(8, int(label * 0.95)))
    col_labels, row_labels = LINE_LABELS[rows]
    for i in range(SIZE):
        img = lab.render(col_labels[i], True, (170, 170, 170))
        s.blit(img, img.get_rect(center=(grid.x + i * cell + cell // 2, grid.y - label // 2)))
        img = lab.render(row_labels[i], True, (170, 170, 170))
        s.blit(img, img.get_rect(center=(grid.x - label // 2, grid.y + i * cell + cell // 2)))
    new_set, marked_set, doubt_set = set(new), set(marked), set(doubtful)
    pending = pending or {}
    tile_font = font(int(cell * 0.8))
    value_font = font(max(7, int(cell * 0.42)))
    for sq in range(SIZE * SIZE):
        r, c = divmod(sq, SIZE)
        rect = pygame.Rect(grid.x + c * cell, grid.y + r * cell, cell, cell)
        tile = cells[sq] or pending.get(sq, "")
        if tile:
            pygame.draw.rect(s, TILE_NEW if (sq in new_set or sq in pending) else TILE, rect.inflate(-1, -1),
                             border_radius=max(1, cell // 8))
            if tile == "?":
                pygame.draw.circle(s, BLUE, rect.center, cell // 3, width=max(1, cell // 12))
            elif tile.islower():
                pygame.draw.circle(s, (200, 220, 255), rect.center, cell * 2 // 5)
                img = tile_font.render(tile.upper(), True, BLUE)
                s.blit(img, img.get_rect(center=rect.center))
            else:
                img = tile_font.render(tile, True, INK)
                points = (values or {}).get(tile)
                s.blit(img, img.get_rect(center=(rect.centerx - (cell // 10 if points is not None else 0),
                                                 rect.centery)))
                if points is not None:
                    val = value_font.render(str(points), True, INK)
                    s.blit(val, val.get_rect(bottomright=(rect.right - max(2, cell // 12), rect.bottom - 1)))
        else:
            pygame.draw.rect(s, _premium(sq), rect.inflate(-1, -1))
        if sq in doubt_set:
            for k in range(0, cell, max(3, cell // 4)):
                pygame.draw.line(s, (120, 60, 160), (rect.x + k, rect.y), (rect.x, rect.y + k), 2)
        if sq in marked_set:
            pygame.draw.rect(s, RED, rect, width=max(2, cell // 8))
        if tappable:
            cv.buttons.append(_square_button(rect, sq))
    return grid


__all__ = ["LINE_LABELS", "draw_board", "square_label"]


def _square_button(rect: pygame.Rect, sq: int) -> Button:
    return Button(rect, "", "square", {"square": sq}, True)
