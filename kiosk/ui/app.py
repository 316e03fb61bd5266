"""The kiosk's touchscreen: one :class:`KioskUI` draws the screen the kiosk's state calls for and turns taps
into the actions of :mod:`kiosk.ui.actions` (which send the kiosk typed commands).

Input: finger events (``FINGERDOWN``/``FINGERUP``, normalised coordinates) and mouse clicks. SDL also turns
each touch into a synthetic mouse event (``event.touch`` true); those are ignored, so a tap acts once. A tap
is a press and a release on the same button.
"""

from __future__ import annotations

import logging
from typing import Any

import pygame

from kiosk.control.port import KioskPort
from kiosk.referee.state import RACK_ENTRY
from kiosk.ui import actions
from kiosk.ui.screens import SCREENS, screen_for
from kiosk.ui.touch_state import TouchState
from kiosk.ui.widgets import BG, Button, Canvas, Overflow

log = logging.getLogger("kiosk.ui")

WARNED_KEPT = 256
"""How many (screen, text) overflows :class:`KioskUI` remembers having logged."""


class KioskUI(TouchState):
    """The screen of one kiosk (its state between taps: :class:`TouchState`).

    Args:
        kiosk: the table's kiosk (:class:`KioskPort`). size: screen size (w, h) px. surface: draw here
        (default: a new surface of ``size``). players / preset: the new-game screen's defaults.
    """

    def __init__(self, kiosk: KioskPort, size: tuple[int, int] = (800, 480), surface: pygame.Surface | None = None,
                 players: tuple[str, ...] = ("Player 1", "Player 2"), preset: str = "nsf") -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        super().__init__(kiosk, players, preset)
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.size = self.surface.get_size()
        self.buttons: list[Button] = []
        self.overflows: list[Overflow] = []
        self.texts: list[str] = []
        self.text_px: list[int] = []
        self.screen = "main"
        self._down: Button | None = None
        self._warned: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------------------------------ drawing
    def draw(self) -> str:
        """Paint the current screen; returns its name. Text overflows are kept in :attr:`overflows`, the lines
        drawn (names cut to fit with an ellipsis) in :attr:`texts`, the px each was drawn at in :attr:`text_px`."""
        actions.expire_pin(self)
        actions.answer_judge_call(self)
        self.screen = screen_for(self)
        if self.kiosk.state.phase != RACK_ENTRY:
            self.racks, self.rack_player = [""] * self.player_count(), 0
        self.surface.fill(BG)
        w, h = self.size
        cv = Canvas(self.surface, min(w, h) / 480, names=(*self.kiosk.state.players, *self.new_players))
        SCREENS[self.screen](self, cv)
        self.buttons = cv.buttons
        self.overflows = cv.overflows
        self.texts = cv.texts
        self.text_px = cv.sizes
        for o in cv.overflows:
            self._warn_once(o.text)
        return self.screen

    def _warn_once(self, text: str) -> None:
        """Log a text that does not fit its box once per screen and text, not at every frame (30 a second filled
        journald); the last :data:`WARNED_KEPT` are remembered, so a text that comes back much later is logged again."""
        key = (self.screen, text)
        if key in self._warned:
            return
        if len(self._warned) >= WARNED_KEPT:
            self._warned.clear()
        self._warned.add(key)
        log.warning("screen %s: text does not fit its box: %r", self.screen, text)

    def unit_px(self, design: float) -> int:
        """``design`` px of the 480-px short side in this screen's px (as :meth:`Canvas.px`)."""
        return max(1, round(design * min(self.size) / 480))

    # ------------------------------------------------------------------------------------------ input
    def handle_event(self, event: pygame.event.Event) -> str | None:
        """Take one pygame event; returns the action a completed tap triggered (or None)."""
        w, h = self.size
        if event.type == pygame.FINGERDOWN:
            self._down = self.hit((int(event.x * w), int(event.y * h)))
            return None
        if event.type == pygame.FINGERUP:
            return self._release((int(event.x * w), int(event.y * h)))
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            if getattr(event, "touch", False) or getattr(event, "button", 1) != 1:
                return None  # SDL's mouse copy of a touch: the finger event acts
            if event.type == pygame.MOUSEBUTTONDOWN:
                self._down = self.hit(event.pos)
                return None
            return self._release(event.pos)
        return None

    def _release(self, pos: tuple[int, int]) -> str | None:
        down, self._down = self._down, None
        up = self.hit(pos)
        if down is None or up is None or up is not down:
            return None
        self.do(up.action, dict(up.kw))
        return up.action

    def hit(self, pos: tuple[int, int]) -> Button | None:
        """The enabled button under ``pos`` (the last drawn wins), or None."""
        for b in reversed(self.buttons):
            if b.enabled and b.rect.collidepoint(pos):
                return b
        return None

    def tap(self, label_or_action: str, **match: Any) -> str:
        """Tap the first drawn button whose label or action is ``label_or_action`` (tests, scripted demos).
        The screen is redrawn first. Raises LookupError when the screen has no such enabled button."""
        self.draw()
        for b in self.buttons:
            if b.enabled and label_or_action in (b.label, b.action) and all(b.kw.get(k) == v for k, v in match.items()):
                self.do(b.action, dict(b.kw))
                return b.action
        raise LookupError(f"screen {self.screen}: no enabled button {label_or_action!r} {match or ''}")

    # ------------------------------------------------------------------------------------------ actions
    def do(self, action: str, kw: dict[str, Any]) -> None:
        """Carry out a button's action (:data:`kiosk.ui.actions.ACTIONS`)."""
        actions.do(self, action, kw)
