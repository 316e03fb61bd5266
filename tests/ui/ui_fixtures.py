"""Shared set-up for the UI tests: a kiosk on a temporary journal driven into each screen's state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest
from common_fixtures import PIN, ManualClock
from common_fixtures import make_kiosk as _make_kiosk

from kiosk.app.kiosk import Kiosk
from kiosk.referee.events import Play
from kiosk.referee.simulate import tiles_for

__all__ = ["ARTIFACTS", "PIN", "display", "make_kiosk", "play"]

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "ui"


@pytest.fixture(scope="module", autouse=True)
def display() -> Iterator[None]:
    """pygame's display (the dummy driver, see tests/conftest.py) and fonts, for every test of a module that
    imports this fixture (autouse); the display is closed after the module."""
    pygame.display.init()
    pygame.font.init()
    yield
    pygame.display.quit()


def make_kiosk(tmp: Path, preset: str = "nsf", start: bool = True) -> tuple[Kiosk, ManualClock]:
    """A kiosk without a camera, its game between Annabel and Bartholomew started (with ``start``)."""
    return _make_kiosk(tmp, preset, players=("Annabel", "Bartholomew"), start=start)


def play(kiosk: Kiosk, clock: ManualClock, player: int, coord: str, word: str, dt: int = 30_000):
    clock.t += dt
    return kiosk.apply(Play(t=clock.t, player=player, tiles=tiles_for(kiosk.state.board, coord, word)))
