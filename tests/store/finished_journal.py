"""Shared by the journal tests: a journal file holding one finished game, written as the kiosk writes it."""

from __future__ import annotations

from pathlib import Path

from kiosk.referee.simulate import random_game
from kiosk.store import GameSession

FINISHED_GAME = random_game("nsf", seed=31)   # 93 events, the game over: a journal of several pages


def write_finished_journal(path: Path) -> Path:
    """Write :data:`FINISHED_GAME` into a fresh journal at ``path`` through a game session; returns ``path``."""
    s = GameSession.open(path)
    for ev in FINISHED_GAME:
        assert s.apply(ev), ev
    s.close()
    return path
