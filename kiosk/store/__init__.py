"""Durable storage: the SQLite event journal and the journaled game session (I/O lives here, not in the referee)."""

from kiosk.store.journal import (
    GameRecord,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalLocked,
    acknowledge_corruption,
)
from kiosk.store.session import JOURNAL_FULL, GameSession

__all__ = ["JOURNAL_FULL", "GameRecord", "GameSession", "Journal", "JournalCorrupt", "JournalError", "JournalFull",
           "JournalLocked", "acknowledge_corruption"]
