"""Durable storage: the SQLite event journal and the journaled game session (I/O lives here, not in the referee)."""

from kiosk.store.journal import (
    GameRecord,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalLocked,
    JournalPathError,
    JournalReplayError,
    acknowledge_corruption,
)
from kiosk.store.session import JOURNAL_FAILED, JOURNAL_FULL, GameSession, open_wait_sentence, pause_sentence

__all__ = ["JOURNAL_FAILED", "JOURNAL_FULL", "GameRecord", "GameSession", "Journal", "JournalCorrupt", "JournalError",
           "JournalFull", "JournalLocked", "JournalPathError", "JournalReplayError", "acknowledge_corruption",
           "open_wait_sentence", "pause_sentence"]
