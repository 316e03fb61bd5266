"""Shared by the journal tests: journal files written as the kiosk writes them, whole or with a damaged event."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kiosk.referee.simulate import random_game
from kiosk.store import GameSession, JournalCorrupt

FINISHED_GAME = random_game("nsf", seed=31)   # 93 events, the game over: a journal of several pages


def write_finished_journal(path: Path) -> Path:
    """Write :data:`FINISHED_GAME` into a fresh journal at ``path`` through a game session; returns ``path``."""
    s = GameSession.open(path)
    for ev in FINISHED_GAME:
        assert s.apply(ev), ev
    s.close()
    return path


def write_damaged_journal(path: str | Path, n: int = 20, seq: int = 12) -> None:
    """A journal of the first ``n`` events of :data:`FINISHED_GAME` at ``path`` (as given: relative to the current
    folder) whose event ``seq`` is damaged (its body changed, its checksum not), kept aside by the kiosk's open (its
    path blocked)."""
    s = GameSession.open(path)
    for ev in FINISHED_GAME[:n]:
        assert s.apply(ev)
    s.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = replace(body, '\"t\":', '\"t\": ') WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    with pytest.raises(JournalCorrupt):
        GameSession.open(path)
