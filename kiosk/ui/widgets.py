"""Drawing helpers: fitted text (never outside its box: shrunk, and any overflow recorded), buttons, layout."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pygame

from kiosk.ui.fonts import TextFont

BG = (24, 28, 33)
PANEL = (38, 44, 52)
FG = (236, 238, 240)
DIM = (150, 158, 168)
RED = (230, 60, 55)
GREEN = (70, 180, 90)
AMBER = (240, 180, 40)
BLUE = (70, 130, 220)
BUTTON = (64, 74, 88)
BUTTON_OFF = (46, 50, 56)

_FONTS: dict[int, TextFont] = {}
ELLIPSIS = "\u2026"
NAME_MIN = 18
"""Design px below which a line holding a player's name is not shrunk: the name is cut with an ellipsis instead
(long names in a 3-4 player game shrank to 8 px on the scores and the final table)."""


def font(px: int) -> TextFont:
    """The screen's text at ``px`` design pixels (cached): the wide-coverage chain of :mod:`kiosk.ui.fonts`."""
    px = max(6, int(px))
    f = _FONTS.get(px)
    if f is None:
        f = _FONTS[px] = TextFont(px)
    return f


@lru_cache(maxsize=1024)
def cut_to_width(f: TextFont, text: str, width: int) -> str:
    """``text`` as drawn by ``f`` within ``width`` px: whole, or its longest start (whole characters with
    their marks) that fits with an ellipsis after it."""
    if f.size(text)[0] <= width:
        return text
    chars = list(text)
    lo, hi = 0, len(chars)  # the longest start that fits: binary search (a name may be hundreds of letters)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if f.size("".join(chars[:mid]).rstrip() + ELLIPSIS)[0] <= width:
            lo = mid
        else:
            hi = mid - 1
    while 0 < lo < len(chars) and unicodedata.combining(chars[lo]):
        lo -= 1  # never split a letter from its accents
    return "".join(chars[:lo]).rstrip() + ELLIPSIS


def _cut_names(f: TextFont, text: str, names: tuple[str, ...], width: int) -> str:
    """``text`` with its ``names`` (longest first) cut with an ellipsis until it fits ``width`` px drawn by
    ``f``; if cutting them is not enough, the whole line is cut."""
    for name in sorted({n for n in names if n and n in text}, key=len, reverse=True):
        extra = f.size(text)[0] - width
        if extra <= 0:
            break
        text = text.replace(name, cut_to_width(f, name, max(0, f.size(name)[0] - extra)))
    return cut_to_width(f, text, width)


def wrap_lines(f: TextFont, text: str, width: int) -> list[str]:
    """``text``'s words in lines as ``f`` draws them within ``width`` px (a word wider than that keeps a line
    of its own)."""
    lines: list[str] = []
    for word in text.split():
        if lines and f.size(lines[-1] + " " + word)[0] <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


@dataclass
class Overflow:
    """Text that did not fit its box even at the smallest size: ``text``, box, needed width (px)."""

    text: str
    rect: tuple[int, int, int, int]
    width: int


@dataclass
class Canvas:
    """A surface plus the drawing context of one frame: ``unit`` (px per design px of the 480-px short side),
    the buttons drawn (for hit tests), text overflows (for the screenshot tests) and the players' ``names``
    (a name may be any length: one that does not fit is cut with an ellipsis, not an overflow); ``texts``:
    the lines drawn, as drawn (cut or whole); ``sizes``: the px each of them was drawn at."""

    surface: pygame.Surface
    unit: float
    buttons: list[Button] = field(default_factory=list)
    overflows: list[Overflow] = field(default_factory=list)
    names: tuple[str, ...] = ()
    texts: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def px(self, v: float) -> int:
        return max(1, round(v * self.unit))

    def text(self, text: str, rect: pygame.Rect, size: float, color: tuple[int, int, int] = FG,
             align: str = "left", min_size: float = 14) -> pygame.Rect:
        """Draw ``text`` inside ``rect`` at ``size`` design px, shrunk down to ``min_size`` (a line holding a
        player's name: :data:`NAME_MIN` at least) to fit; if it still
        does not fit and it holds players' :attr:`names` (any length), they are cut with an ellipsis (the whole
        line as a last resort), else it is cut at the box's edge and recorded in :attr:`overflows` (a layout
        fault). Returns the drawn text's rect."""
        px = self.px(size)
        lo = self.px(min_size)
        lo_w = lo  # too wide: a line with a name shrinks only so far, then its names are cut with an ellipsis
        if any(n and n in text for n in self.names):
            lo_w = max(lo, min(px, self.px(NAME_MIN)))
        f = font(px)
        w, h = f.size(text)
        while px > lo and (h > rect.h or (w > rect.w and px > lo_w)):
            px -= 1
            f = font(px)
            w, h = f.size(text)
        if w > rect.w and any(n and n in text for n in self.names):
            text = _cut_names(f, text, self.names, rect.w)
            w = f.size(text)[0]
        if w > rect.w or h > rect.h:
            self.overflows.append(Overflow(text, (rect.x, rect.y, rect.w, rect.h), w))
        self.texts.append(text)
        self.sizes.append(px)
        img = f.render(text, True, color)
        if align == "center":
            pos = img.get_rect(center=rect.center)
        elif align == "right":
            pos = img.get_rect(midright=rect.midright)
        else:
            pos = img.get_rect(midleft=rect.midleft)
        clip = self.surface.get_clip()
        self.surface.set_clip(rect)
        self.surface.blit(img, pos)
        self.surface.set_clip(clip)
        return pos.clip(rect)

    def paragraph(self, text: str, rect: pygame.Rect, size: float, color: tuple[int, int, int] = FG,
                  min_size: float = 16) -> None:
        """Draw ``text`` word-wrapped inside ``rect``, shrinking down to ``min_size`` until the lines fit
        (recorded in :attr:`overflows` if they never do)."""
        px, lo = self.px(size), self.px(min_size)
        while True:
            f = font(px)
            lines = wrap_lines(f, text, rect.w)
            line_h = f.get_linesize()
            fits = len(lines) * line_h <= rect.h and all(f.size(ln)[0] <= rect.w for ln in lines)
            if fits or px <= lo:
                break
            px -= 1
        if not fits:
            widest = max((f.size(ln)[0] for ln in lines), default=0)
            self.overflows.append(Overflow(text, (rect.x, rect.y, rect.w, rect.h), widest))
        y = rect.y
        for ln in lines:
            self.text(ln, pygame.Rect(rect.x, y, rect.w, line_h), px / self.unit, color, min_size=px / self.unit)
            y += line_h

    def button(self, rect: pygame.Rect, label: str, action: str, *, enabled: bool = True,
               color: tuple[int, int, int] = BUTTON, size: float = 24, **kw: Any) -> Button:
        """Draw a button and register it for taps (a disabled one is drawn dim and ignores taps)."""
        b = Button(pygame.Rect(rect), label, action, kw, enabled)
        pygame.draw.rect(self.surface, color if enabled else BUTTON_OFF, b.rect, border_radius=self.px(8))
        inner = b.rect.inflate(-self.px(8), -self.px(4))
        self.text(label, inner, size, FG if enabled else DIM, align="center", min_size=14)
        self.buttons.append(b)
        return b


@dataclass
class Button:
    """A tappable area: ``action`` and its arguments ``kw`` go to the UI's action handler."""

    rect: pygame.Rect
    label: str
    action: str
    kw: dict[str, Any]
    enabled: bool = True


def grid_rects(area: pygame.Rect, n: int, cols: int, gap: int) -> list[pygame.Rect]:
    """``n`` equal cells in ``cols`` columns filling ``area`` (row-major), ``gap`` px apart."""
    rows = max(1, -(-n // cols))
    w = (area.w - gap * (cols - 1)) // cols
    h = (area.h - gap * (rows - 1)) // rows
    return [pygame.Rect(area.x + (i % cols) * (w + gap), area.y + (i // cols) * (h + gap), w, h) for i in range(n)]


def rows_of(area: pygame.Rect, heights: list[int], gap: int = 0) -> list[pygame.Rect]:
    """Split ``area`` top to bottom into rows of ``heights`` px; a 0 height shares what the others leave. Rows that
    do not fit are shrunk in proportion, so none reaches past ``area`` (the 720x1280 score adjustment's last row
    lay under its Apply and Back buttons)."""
    gaps = gap * (len(heights) - 1)
    total = sum(heights)
    if total and total + gaps > area.h:
        scale = max(0, area.h - gaps) / total
        heights = [int(h * scale) for h in heights]
    fixed = sum(heights) + gaps
    n_rest = heights.count(0)
    rest = max(0, area.h - fixed) // max(1, n_rest)
    out, y = [], area.y
    for h in heights:
        hh = h or rest
        out.append(pygame.Rect(area.x, y, area.w, hh))
        y += hh + gap
    return out


def split_h(area: pygame.Rect, n: int, gap: int) -> list[pygame.Rect]:
    """``n`` equal side-by-side parts of ``area``."""
    return grid_rects(area, n, n, gap)


Handler = Callable[[str, dict[str, Any]], None]
