"""A refereed game backed by the journal: nothing accepted is ever lost.

:class:`GameSession` puts :class:`kiosk.referee.Referee` and :class:`kiosk.store.journal.Journal` together in
the only safe order: check the event (``Referee.prepare``), append it durably, then let it take effect
(``Referee.commit``) - so the screen and the stream only ever show recorded events. On start it resumes the
latest unfinished game to the identical state; the time the kiosk was down (from the last heartbeat or event
to the restart) is charged to nobody and logged as a ``kiosk_resumed`` event.
"""

from __future__ import annotations

from pathlib import Path

from kiosk.referee.events import Event, GameStarted, KioskResumed
from kiosk.referee.referee import Referee
from kiosk.referee.state import NOT_STARTED, OVER, GameState, Result
from kiosk.store.journal import Journal, JournalError


class GameSession:
    """One kiosk's current game, journaled.

    Use :meth:`open` at start-up; then :meth:`apply` for every event, :meth:`advance` from the event loop's
    timer, :meth:`heartbeat` every few seconds. ``referee`` is the live referee (read ``state``,
    ``pending_prompts()`` from it; never call its ``apply`` directly).
    """

    def __init__(self, journal: Journal, referee: Referee, game: int | None) -> None:
        self.journal = journal
        self.referee = referee
        self.game = game

    @classmethod
    def open(cls, path: str | Path, *, max_bytes: int | None = None) -> GameSession:
        """Open the journal at ``path`` and rebuild the latest unfinished game (if any) exactly as it was.

        Call :meth:`resume` next with the current time to log the downtime and restart the clock.

        Raises:
            JournalCorrupt: the journal is damaged (kept aside; the kiosk must not start over it silently).
            JournalError: the journal cannot be opened, or its events no longer replay (names the event).
        """
        journal = Journal(path, max_bytes=max_bytes)
        game = journal.unfinished_game()
        ref = Referee()
        events = journal.events(game) if game is not None else []
        if not events:  # an empty game record (older journals wrote it apart from its first event)
            game = None
        if game is not None:
            try:
                ref = Referee.from_events(events)
            except ValueError as exc:
                journal.close()
                raise JournalError(f"{path}: game {game} does not replay: {exc}") from None
            if ref.state.phase == OVER:  # finished but not marked (crash between the two): nothing to resume
                game = None
                ref = Referee()
        return cls(journal, ref, game)

    @property
    def state(self) -> GameState:
        return self.referee.state

    @property
    def in_game(self) -> bool:
        """A game is in progress (started, not over)."""
        return self.game is not None and self.referee.state.phase not in (OVER, NOT_STARTED)

    def resume(self, now_ms: int) -> Result | None:
        """After :meth:`open`: record that the kiosk was down from the last sign of life until ``now_ms``.

        Returns the result of the ``kiosk_resumed`` event, or None when no game was in progress.
        """
        if not self.in_game:
            return None
        assert self.game is not None
        last = self.referee.state.last_t
        beat = self.journal.last_heartbeat(self.game) or last
        down_since = max(last, beat)
        now = max(now_ms, down_since)
        return self.apply(KioskResumed(t=now, down_since=down_since))

    def apply(self, event: Event) -> Result:
        """Check ``event``; if acceptable, journal it durably, then apply it. Returns the referee's result.

        A ``game_started`` event opens a new game record (refused while a game is in progress).

        Raises:
            JournalFull / JournalError: the event could not be recorded; the state is unchanged.
        """
        if isinstance(event, GameStarted):
            if self.in_game:
                return Result(False, "a game is in progress: finish it (or have the judge call it) first",
                              "already_started")
            fresh = Referee()
            prepared = fresh.prepare(event)
            if not prepared.result.accepted:
                return prepared.result
            game = self.journal.start_game(event)
            fresh.commit(prepared)
            self.referee, self.game = fresh, game
            return prepared.result
        if self.game is None:
            return Result(False, f"no game in progress: start a game before '{event.type}'", "not_started")
        prepared = self.referee.prepare(event)
        if not prepared.result.accepted:
            return prepared.result
        self.journal.append(self.game, event, finished=prepared.ends_game)
        self.referee.commit(prepared)
        return prepared.result

    def advance(self, now_ms: int, limit: int = 16) -> list[tuple[Event, Result]]:
        """Apply the due time events at ``now_ms`` (window closed, courtesy notice, overtime ...), one at a time."""
        done: list[tuple[Event, Result]] = []
        for _ in range(limit):
            due = self.referee.tick(now_ms)
            if not due:
                break
            res = self.apply(due[0])
            done.append((due[0], res))
            if not res.accepted:
                break
        return done

    def heartbeat(self, now_ms: int) -> None:
        """Record that the kiosk is alive (call every few seconds during a game)."""
        if self.in_game:
            assert self.game is not None
            self.journal.heartbeat(self.game, now_ms)

    def close(self) -> None:
        self.journal.close()
