"""Shared set-up for the UI tests: a kiosk on a temporary journal driven into each screen's state."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from kiosk.app.kiosk import Kiosk  # noqa: E402
from kiosk.app.pin import PinGate  # noqa: E402
from kiosk.referee.events import Play  # noqa: E402
from kiosk.referee.presets import load_preset  # noqa: E402
from kiosk.referee.simulate import tiles_for  # noqa: E402
from kiosk.store import GameSession  # noqa: E402

PIN = "2468"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "ui"


class Clock:
    """A settable kiosk clock (ms)."""

    def __init__(self) -> None:
        self.t = 0

    def __call__(self) -> int:
        return self.t


def make_kiosk(tmp: Path, preset: str = "nsf", start: bool = True) -> tuple[Kiosk, Clock]:
    clock = Clock()
    session = GameSession.open(tmp / "journal.sqlite")
    kiosk = Kiosk(session, None, None, PinGate(PIN), clock)
    if start:
        res = kiosk.start_game(load_preset(preset).to_dict(), ("Annabel", "Bartholomew"))
        assert res.accepted, res.reason
    return kiosk, clock


def play(kiosk: Kiosk, clock: Clock, player: int, coord: str, word: str, dt: int = 30_000):
    clock.t += dt
    return kiosk.apply(Play(t=clock.t, player=player, tiles=tiles_for(kiosk.state.board, coord, word)))
