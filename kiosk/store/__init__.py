"""Durable storage: the SQLite event journal and the journaled game session (I/O lives here, not in the referee)."""

from kiosk.store.journal import GameRecord, Journal, JournalCorrupt, JournalError, JournalFull, acknowledge_corruption
from kiosk.store.session import GameSession

__all__ = ["GameRecord", "GameSession", "Journal", "JournalCorrupt", "JournalError", "JournalFull",
           "acknowledge_corruption"]
