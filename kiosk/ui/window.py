"""A pygame window (or the Pi's framebuffer) showing :class:`KioskUI`, for ``kiosk demo`` and ``kiosk run``."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from kiosk.control.port import KioskPort
from kiosk.ui.app import KioskUI


class DemoWindow:
    """Opens the display at ``size`` px; :meth:`frame` (called every loop turn) handles input and redraws.

    ``keys``: an optional handler for key events (the keyboard clock buttons); ``players`` / ``preset``: the
    new-game screen's defaults.
    """

    def __init__(self, size: tuple[int, int] = (800, 480), fullscreen: bool = False,
                 keys: Callable[[pygame.event.Event], object] | None = None, fps: int = 30,
                 players: tuple[str, ...] = ("Player 1", "Player 2"), preset: str = "nsf") -> None:
        pygame.display.init()
        pygame.font.init()
        flags = pygame.FULLSCREEN if fullscreen else 0
        self.display = pygame.display.set_mode(size, flags)
        pygame.display.set_caption("Scrabble referee kiosk")
        self.keys = keys
        self.ui: KioskUI | None = None
        self.clock = pygame.time.Clock()
        self.fps = fps
        self.players = tuple(players)
        self.preset = preset

    def frame(self, kiosk: KioskPort) -> bool:
        """One turn: events, draw, flip. Returns False when the window was closed."""
        if self.ui is None or self.ui.kiosk is not kiosk:
            self.ui = KioskUI(kiosk, surface=self.display, players=self.players, preset=self.preset)
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                return False
            if event.type in (pygame.KEYDOWN, pygame.KEYUP) and self.keys is not None:
                self.keys(event)
            self.ui.handle_event(event)
        self.ui.draw()
        pygame.display.flip()
        self.clock.tick(self.fps)
        return True

    def close(self) -> None:
        pygame.display.quit()
