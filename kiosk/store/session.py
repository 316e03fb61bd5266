"""A refereed game backed by the journal: nothing accepted is ever lost.

:class:`GameSession` puts :class:`kiosk.referee.Referee` and :class:`kiosk.store.journal.Journal` together in
the only safe order: check the event (``Referee.prepare``), append it durably, then let it take effect
(``Referee.commit``) - so the screen and the stream only ever show recorded events. On start it resumes the
latest unfinished game to the identical state; the time the kiosk was down (from the last heartbeat or event
to the restart) is charged to nobody and logged as a ``kiosk_resumed`` event.

A journal that cannot be written never escapes as an exception: the session *pauses*. A full journal (disk
full, or its size cap) is said with :data:`JOURNAL_FULL` (code ``journal_full``); any other write failure (a
disk I/O error: a failing SD card, a file size limit; a read-only file system; the file locked by another
program, deleted or moved) with :data:`JOURNAL_FAILED` and its cause (code ``journal_failed``) -
:func:`pause_sentence` classes them, for the kiosk's screen, its log and ``kiosk demo`` alike. While paused
every event is refused with that sentence, nothing recorded is lost, and :meth:`advance` tries again every
:data:`RETRY_MS`; when writing works again, the pause is logged as a ``kiosk_resumed`` event (charged to
nobody, like a restart) and the game goes on by itself.

A journal file deleted or moved away mid-game is written again from memory into a new journal at its path
(:meth:`GameSession._journal_again`), with what the kiosk keeps beside the events (:attr:`GameSession.carry`: a
press's reading kept during a pause, :mod:`kiosk.store.kept_reading`) in the same transaction: the new journal
holds both or neither (a failure leaves no file there, and the next try writes both).

The event that could not be written is not applied, and not held to be applied later: what the screen shows
is always what the journal holds, and an event held through a pause would take effect at a time nobody saw.
The player repeats it (presses the clock again) once the game goes on; the clocks stand still meanwhile.
"""

from __future__ import annotations

import logging
from pathlib import Path

from kiosk.referee.events import Event, GameStarted, KioskResumed
from kiosk.referee.referee import Referee
from kiosk.referee.state import NOT_STARTED, OVER, GameState, Result
from kiosk.store.journal import (
    MOVED,
    Carried,
    Journal,
    JournalError,
    JournalFull,
    JournalReplayError,
    journal_again,
)

JOURNAL_FULL = "The journal is full: the game is paused. Free space on its disk or call the tournament director."
#: any other journal write failure; ``{cause}``: :attr:`JournalError.cause` ("disk I/O error")
JOURNAL_FAILED = ("The journal cannot be written: {cause}. The game is paused; every move before it is kept. "
                  "Call the tournament director.")
#: the journal file deleted or moved while the game was on: its moves are in this kiosk's memory alone (a restart
#: would not find them) until the kiosk has written them into a new journal at the path (GameSession._journal_again,
#: at the next try), so the sentence says not to switch it off
JOURNAL_GONE = ("The journal file was deleted or moved: this game's moves are only in the kiosk's memory until it "
                "has written them into a new journal, in a few seconds. The game is paused meanwhile. Do not switch "
                "the kiosk off; if the game does not go on, call the tournament director.")
#: the journal's path taken by something that is no file (a folder) after the journal was deleted
BLOCKED = "something that is no file stands at the journal's path"
JOURNAL_BLOCKED = ("The journal file was deleted and something that is no file (a folder?) now stands at its path: "
                   "this game's moves are only in the kiosk's memory. Remove it, and the kiosk writes them into a "
                   "new journal there. Do not switch the kiosk off; call the tournament director.")
#: the start-up's wait for a journal that cannot be opened yet (no game is going on: nothing is "paused")
OPEN_WAIT = ("The journal {path} cannot be opened: {cause}. The kiosk tries again every few seconds; every move "
             "recorded in it is kept. Free space on its disk or call the tournament director.")
log = logging.getLogger("kiosk.store")
RETRY_MS = 2_000  # while paused, how often (ms of kiosk time) the journal is tried again


def open_wait_sentence(path: str | Path, exc: JournalError) -> str:
    """The sentence while ``kiosk run`` waits at start-up for the journal at ``path`` that ``exc`` says cannot be
    opened yet (a full disk, a failing disk): :data:`OPEN_WAIT`."""
    cause = "the disk is full" if isinstance(exc, JournalFull) else exc.cause or "it cannot be read"
    return OPEN_WAIT.format(path=path, cause=cause)


def pause_sentence(exc: JournalError) -> Result:
    """The refusal (code ``journal_full`` or ``journal_failed``) and its sentence for the screen and the log for
    the journal write failure ``exc``: one classing for ``kiosk run`` and ``kiosk demo``."""
    if isinstance(exc, JournalFull):
        return Result(False, JOURNAL_FULL, "journal_full")
    if exc.cause == MOVED:
        return Result(False, JOURNAL_GONE, "journal_failed")
    if exc.cause == BLOCKED:
        return Result(False, JOURNAL_BLOCKED, "journal_failed")
    return Result(False, JOURNAL_FAILED.format(cause=exc.cause or str(exc)), "journal_failed")


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
        self.paused_since: int | None = None  # ms: the journal could not be written from then on (None: not paused)
        self.paused_detail = ""  # the journal's message (for logs)
        self._refusal: Result | None = None  # while paused: every event's refusal (pause_sentence)
        self._last_try = 0
        self.carry: Carried | None = None
        """What the kiosk keeps in the journal's ``meta`` beside the game's events, as rows for the game's id in a new
        journal (a press's reading kept during a pause, :mod:`kiosk.store.kept_reading`): written into the new journal
        in the events' own transaction when the file was deleted or moved (:meth:`_journal_again`)."""

    @classmethod
    def open(cls, path: str | Path, *, max_bytes: int | None = None) -> GameSession:
        """Open the journal at ``path`` and rebuild the latest unfinished game (if any) exactly as it was.

        Call :meth:`resume` next with the current time to log the downtime and restart the clock.

        Raises:
            JournalCorrupt: the journal is damaged (kept aside; the kiosk must not start over it silently).
            JournalReplayError: its unfinished game's events no longer replay (names the event).
            JournalError: the journal cannot be opened.
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
                raise JournalReplayError(f"{path}: game {game} does not replay: {exc}", game) from None
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

    @property
    def paused(self) -> bool:
        """The journal cannot be written: every event is refused (:attr:`pause_reason`) until it can again."""
        return self.paused_since is not None

    @property
    def pause_reason(self) -> str:
        """While :attr:`paused`: what happened and what to do, in a sentence (:func:`pause_sentence`); else ""."""
        return self._refusal.reason if self.paused_since is not None and self._refusal is not None else ""

    def clock_time(self, now_ms: int) -> int:
        """The time the clocks show at ``now_ms``: while :attr:`paused`, the pause's start (they stand still)."""
        return now_ms if self.paused_since is None else min(now_ms, self.paused_since)

    def apply(self, event: Event) -> Result:
        """Check ``event``; if acceptable, journal it durably, then apply it. Returns the referee's result.

        A ``game_started`` event opens a new game record (refused while a game is in progress). An event the
        journal cannot record is not applied (the state is unchanged) and the session is :attr:`paused`: it and
        every event after it are refused with :func:`pause_sentence` (code ``journal_full`` or
        ``journal_failed``) until the journal takes writes again. Never raises :class:`JournalError`.
        """
        if self.paused_since is not None and self._refusal is not None:
            return self._refusal
        try:
            return self._apply(event)
        except JournalError as exc:
            since = event.down_since if isinstance(event, KioskResumed) else event.t
            return self._pause(max(since, self.referee.state.last_t), exc)

    def _pause(self, since: int, exc: JournalError) -> Result:
        """Pause from ``since`` (ms) for the write failure ``exc``; logged once per pause (and when its cause
        changes), not at every retry. Returns the refusal."""
        res = pause_sentence(exc)
        if self._refusal is None or self._refusal.reason != res.reason:
            log.error("%s (%s)", res.reason, exc)
        self.paused_since, self.paused_detail, self._refusal = since, str(exc), res
        self._last_try = max(self._last_try, since)  # a failed retry waits RETRY_MS from the retry, not the pause
        return res

    def try_resume(self, now_ms: int) -> Result | None:
        """While :attr:`paused`: try the journal again. In a game the pause is recorded as a ``kiosk_resumed``
        event (its time charged to nobody) and its result returned; None: still paused, or no game (then a
        probe write decides). Never raises :class:`JournalError`."""
        if self.paused_since is None:
            return None
        self._last_try = now_ms
        since = self.paused_since
        if not self.in_game:
            try:
                self.journal.probe()
            except JournalError as exc:
                self._pause(since, exc)
                return None
            self.paused_since, self._refusal = None, None
            log.warning("journal writable again: the kiosk goes on")
            return None
        if MOVED in self.paused_detail or self.journal.closed:   # (closed: no new journal could be written yet)
            path = self.journal.path
            if path.exists() and not path.is_file():   # a folder made where the deleted journal was
                blocked = JournalError(f"{path}: {MOVED}, and something that is no file stands there")
                blocked.cause = BLOCKED
                self._pause(since, blocked)
                return None
            if (self.journal.closed or not path.exists()) and not self._journal_again(since):
                return None
        self.paused_since = None
        res = self.apply(KioskResumed(t=max(now_ms, since), down_since=since))
        if self.paused_since is not None:  # still failing: keep the pause's start
            self.paused_since = since
            return None
        self._refusal = None
        log.warning("journal writable again: the game goes on (%s)", res.reason or "ok")
        return res

    def _journal_again(self, since: int) -> bool:
        """The journal file was deleted or moved away mid-game and nothing is at its path: write the game from
        memory into a new journal there (:func:`kiosk.store.journal.journal_again`), so that a restart finds it.
        False (still paused, the cause said) when that fails too."""
        events = self.referee.events
        try:   # the events and what the kiosk keeps beside them: one transaction, all or nothing
            self.journal, self.game = journal_again(self.journal, events, self.carry)
        except JournalError as exc:
            self._pause(since, exc)
            return False
        log.warning("the journal file %s was deleted or moved: this game's %d events were written again from the "
                    "kiosk's memory into a new journal there", self.journal.path, len(events))
        return True

    def _apply(self, event: Event) -> Result:
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
        reopens = self.referee.state.phase == OVER and not prepared.ends_game  # the judge's undo at the end
        self.journal.append(self.game, event, finished=prepared.ends_game, reopened=reopens)
        self.referee.commit(prepared)
        return prepared.result

    def advance(self, now_ms: int, limit: int = 16) -> list[tuple[Event, Result]]:
        """Apply the due time events at ``now_ms`` (window closed, courtesy notice, overtime ...), one at a time."""
        done: list[tuple[Event, Result]] = []
        if self.paused_since is not None:
            if now_ms - self._last_try < RETRY_MS:
                return done
            since = self.paused_since
            res = self.try_resume(now_ms)
            if res is None:
                return done
            done.append((self.referee.events[-1] if res.accepted else KioskResumed(t=now_ms, down_since=since), res))
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
        """Record that the kiosk is alive (call every few seconds during a game). A journal that cannot be
        written pauses the session (see :attr:`paused`); a paused session without a game probes the journal
        here. Never raises :class:`JournalError`."""
        if self.paused_since is not None:
            if not self.in_game:
                self.try_resume(now_ms)
            return
        if self.in_game:
            assert self.game is not None
            try:
                self.journal.heartbeat(self.game, now_ms)
            except JournalError as exc:
                self._pause(max(now_ms, self.referee.state.last_t), exc)

    def close(self) -> None:
        self.journal.close()
