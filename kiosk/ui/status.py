"""What every screen shows at the top of its panel: the clocks of all players (so a hold, a challenge or
the PIN pad never hides them) and a line for each device that is down or degraded (README: a device
problem is shown, the game goes on without it)."""

from __future__ import annotations

import pygame

from kiosk.ui.touch_state import TouchState
from kiosk.ui.widgets import AMBER, DIM, FG, GREEN, PANEL, RED, Canvas, rows_of, split_h

STRIP_H = 30  # design px of the clock strip
DEVICE_H = 24  # design px of one device line


def clock_text(ms: int | None, tenths: bool = True) -> str:
    """A clock as the clock displays show it (kiosk.devices.sevenseg.clock_face): ``m:ss`` of the time left
    rounded up (a clock shows 0:01 until it runs out), ``-m:ss`` of the overtime rounded down; below 10 s
    left, with ``tenths``, ``0:0s.t`` (tenths rounded up). ``--:--`` without a chess clock."""
    if ms is None:
        return "--:--"
    if ms < 0:
        s = -ms // 1000
        return f"-{s // 60}:{s % 60:02d}"
    if tenths and 0 < ms < 10_000:
        t = -(-ms // 100)
        return f"0:0{t // 10}.{t % 10}" if t < 100 else "0:10"
    s = -(-ms // 1000)
    return f"{s // 60}:{s % 60:02d}"


def clock_strip(ui: TouchState, cv: Canvas, area: pygame.Rect) -> None:
    """Each player's name and clock side by side in ``area`` (the player on move in green, overtime red);
    with more than two players the names are cut to 3 letters."""
    st = ui.kiosk.state
    n = len(st.players)
    pygame.draw.rect(cv.surface, PANEL, area, border_radius=cv.px(6))
    for p, cell in enumerate(split_h(area.inflate(-cv.px(8), 0), max(1, n), cv.px(6))):
        rem = ui.kiosk.remaining_ms(p)
        name, clock = split_h(cell, 2, cv.px(2)) if n <= 2 else rows_of(cell, [0, 0])
        colour = GREEN if st.on_move == p else FG
        cv.text(st.players[p] if n <= 2 else st.players[p][:3], name, 20, colour, min_size=11)
        cv.text(clock_text(rem), clock, 20, RED if rem is not None and rem < 0 else colour,
                align="right" if n <= 2 else "left", min_size=11)


def panel_top(ui: TouchState, cv: Canvas, inner: pygame.Rect, *, clocks: bool) -> pygame.Rect:
    """Draw the clock strip (with ``clocks`` and a game) and one line of device problems (when there are
    any) at the top of the panel's ``inner`` rect; returns what is left of it for the screen."""
    notes = " ".join(ui.kiosk.view.devices)
    strip = clocks and bool(ui.kiosk.state.players)
    heights = ([cv.px(STRIP_H)] if strip else []) + ([cv.px(DEVICE_H)] if notes else [])
    if not heights:
        return inner
    *rows, rest = rows_of(inner, [*heights, 0], cv.px(4))
    if strip:
        clock_strip(ui, cv, rows[0])
    if notes:
        cv.text(notes, rows[-1], 18, RED if "not working" in notes else AMBER, min_size=11)
    return rest


def rack_key(cv: Canvas, rect: pygame.Rect, tile: str, points: int, left: int) -> None:
    """A rack-entry key drawn like a tile: the letter large ("blank" for ``?``), its ``points`` small at the
    bottom right, how many are ``left`` to enter small at the top left ("x9"), so "A 1 x9" never reads as
    a coordinate."""
    label = "blank" if tile == "?" else tile
    cv.button(rect, label, "rack_letter", letter=tile, size=26 if tile != "?" else 16)
    corner = pygame.Rect(0, 0, rect.w // 2, rect.h // 3)
    if tile != "?":
        cv.text(str(points), corner.move(rect.right - corner.w - cv.px(3), rect.bottom - corner.h), 12, DIM,
                align="right", min_size=8)
    if left > 1:
        cv.text(f"x{left}", corner.move(rect.x + cv.px(3), rect.y), 12, DIM, min_size=8)


__all__ = ["clock_strip", "clock_text", "panel_top", "rack_key"]
