"""A clock press's answer from the vision worker that comes back while the clocks are stopped.

A player pressed the clock (his turn ends at the press's time: seed 002 II.K, "Start your opponent's clock, ending
your turn") and, before the board was read, the clocks were stopped: the pause button or the judge's button
(:mod:`kiosk.app.table_pause`). The referee takes no move while the clocks are stopped, so acting on the answer
then was refused, and the refusal was shown as a board problem: the players were told to fix a board that was
right. Now the answer, whatever it is (a reading, a failed reading, the camera-down hand-back), is kept with the
press and not acted on while the clocks stand still; the screen says in a sentence that the move is recorded when
play resumes. The first poll after the clocks run again acts on it exactly as if it had come then: a play or a pass
at the press's time, a board problem, no reading (the judge's entries made during the pause are the move). The
press stays journaled throughout, so nothing recorded is lost; a press no longer standing when the clocks run again
(the game ended meanwhile) drops its answer.

A reading kept so is also written into the journal's file (:mod:`kiosk.store.kept_reading`: the grid and the press it
belongs to), so that it survives a restart of the kiosk during the pause (a power cut, a crash, systemd): the restarted
kiosk finds it (:func:`restore_kept`) and, when play resumes, the press standing without its move takes it as its
move (:mod:`kiosk.app.unread_press`) instead of reading the board again, where a tile moved or picked up during the
pause would change the move. It is used only for the very press it was read for (the game, the press's place among
its events, the player, the press's time), and cleared from the journal once that press no longer stands (its move
recorded, the press taken back or undone, the game over: :func:`forget_stale`). It fails safe: a kept reading that
cannot be written (a full disk) stays in memory as before, logged, and nothing is said to the players; one the journal
holds damaged or unreadable is ignored with a log line, and the board is read afresh at the resume, as without it.
The judge's corrections made during the pause (a misread tile: :func:`kiosk.app.judge_entries.correct`) are the
move's as much as the reading: they are written with the kept reading (:func:`correction_kept`; those made before it
came go with it) and, after a restart, put back as they were made (:func:`restore_kept`,
:func:`kiosk.app.judge_entries.restore_fixes`): a confirmation of a tile on the board as a confirmation (it holds while
its tile stays, through an undo of the press too, and the camera is told), a correction of the move as a correction;
so the move recorded at the resume, and what the judge's confirmations do after it, are the same with a restart or
without. The correction's reply says that the move is recorded
with it when play resumes (no press is needed: the press stands); when it cannot be written into the journal (a full
disk) the reply adds that after a restart the judge enters it again.

When the journal file is deleted or moved during the pause, the game is written from memory into a new journal
(:meth:`kiosk.store.session.GameSession._journal_again`) and the kept reading with it, in one transaction
(:func:`carried`, also one held in memory only: both are written or neither, and the pause goes on until both are);
the kiosk then keeps what the new journal holds (:func:`carried_over`), so memory and journal agree, and the screen says that the journal works again and the pause's own sentence (the clocks stay stopped).
After a restart during the pause the screen says that the move is recorded when play resumes (the reading kept), or,
with none kept (the kiosk stopped before it came, or it could not be used), that the board is read for the move when
play resumes and the tiles are to be left as they are (:func:`kiosk.app.table_pause.stopped_sentence`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from kiosk.app.judge_entries import PRESS_AGAIN, restore_fixes
from kiosk.app.table_pause import paused_sentence, stopped_sentence
from kiosk.app.vision_worker import StableReading
from kiosk.control.port import KioskView
from kiosk.referee import events as ev
from kiosk.referee.state import DESIGNATING, PLAYING, GameState
from kiosk.store.journal import JournalError
from kiosk.store.kept_reading import KEY, KeptReading, KeptReadingDamaged, clear, load, save
from kiosk.store.session import GameSession
from kiosk.vision.reading import BoardReading

log = logging.getLogger("kiosk.app")
KEPT_TICKET = -1
"""The ticket of a kept reading taken back from the journal (no vision worker's ticket: those count from 1)."""


class Table(Protocol):
    """What the held answer needs of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView
    vision: Any    # the VisionWorker (told the judge's confirmations put back), or None
    pending: Any   # the PendingPress being read, or None
    session: GameSession
    kept: KeptReading | None   # the kept reading the journal holds (kiosk.store.kept_reading), or None

    @property
    def state(self) -> GameState: ...


def hold_reading(table: Table, ans: StableReading) -> str:
    """Keep ``ans`` (the answer to the pending press) when the clocks are stopped; returns what was done (for the
    log), or "" when they run and the answer is to be acted on now."""
    st, p = table.state, table.pending
    if not st.neutralised or p is None:
        return ""
    p.held, view, name = ans, table.view, st.players[p.player]
    view.waiting, view.camera_failed = False, ans.reading is None  # (the judge may enter the move meanwhile)
    if ans.reading is None:
        view.message = (f"{paused_sentence(st)} The camera gave no reading of {name}'s move ({ans.error}): when "
                        f"play resumes, {name} presses the clock again, unless the judge has entered the move.")
    else:
        view.message = stopped_sentence(st)
        _keep_durably(table, p.player, ans.reading.grid())
    return f"reading kept until the clocks run again ({st.neutralised})"


def held_reading(table: Table) -> list[StableReading]:
    """The kept answer, once the clocks run again (to act on now, as if it had just come), else nothing. A press no
    longer standing by then drops it."""
    p, st = table.pending, table.state
    if p is None or p.held is None or st.neutralised:
        return []
    ans, p.held = p.held, None
    if st.on_move != p.player or st.phase not in (PLAYING, DESIGNATING) or st.phase == PLAYING and st.pressed_at is None:
        table.pending = None
        return []
    return [ans]


def press_seq(events: Sequence[ev.Event], player: int, pressed_at: int | None) -> int | None:
    """The place (1-based) among the game's ``events`` of ``player``'s press at ``pressed_at``: the last clock press
    of the game, when it is that one; else None."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if isinstance(e, ev.ClockPressed):
            return i + 1 if e.player == player and e.t == pressed_at else None
    return None


def _stands(table: Table, k: KeptReading) -> bool:
    """Whether the press ``k`` was read for still stands without its move (its reading may still be used)."""
    st, s = table.state, table.session
    return (s.game == k.game and st.phase == PLAYING and st.on_move == k.player and st.pressed_at == k.pressed_at
            and press_seq(s.referee.events, k.player, k.pressed_at) == k.seq)


def _for_press(table: Table, player: int, grid: list[str]) -> KeptReading | None:
    """The reading ``grid`` as kept for ``player``'s standing press, or None when no press of his stands."""
    st, s = table.state, table.session
    seq = press_seq(s.referee.events, player, st.pressed_at)
    if s.game is None or seq is None or st.pressed_at is None:
        return None
    return KeptReading(s.game, seq, player, st.pressed_at, tuple(grid), _judge_fixes(table))


def _judge_fixes(table: Table) -> tuple[tuple[int, str], ...]:
    """The judge's corrections that the move is to take (:func:`kiosk.app.press.finish_press`): his confirmations of
    tiles on the board and his corrections of this move's squares, as (square, char) pairs."""
    view, board = table.view, table.state.board
    return tuple(sorted({**{sq: ch for sq, ch in view.confirmed.items() if board[sq]}, **view.corrections}.items()))


def _keep_durably(table: Table, player: int, grid: list[str]) -> None:
    """Write the kept reading ``grid`` of ``player``'s standing press into the journal (module doc); a failure is
    logged only: the reading stays kept in memory."""
    st, s = table.state, table.session
    kept = _for_press(table, player, grid)
    if kept is None:
        return
    try:
        save(s.journal, kept)
    except JournalError as exc:
        log.warning("the reading kept for %s's press at %s ms could not be written to the journal (%s): it is kept "
                    "in memory only (a restart before play resumes reads the board afresh)", st.players[player],
                    st.pressed_at, exc)
        return
    table.kept = kept


def _clear(table: Table, why: str) -> bool:
    """Remove the kept reading from the journal (``why``: for the log); False when that cannot be written now."""
    try:
        clear(table.session.journal)
    except JournalError as exc:
        log.warning("the reading kept in the journal could not be cleared (%s): it stays there until the next start "
                    "or the next reading kept, and is used for no other press", exc)
        return False
    log.info("the reading kept in the journal is cleared: %s", why)
    return True


def restore_kept(table: Table) -> KeptReading | None:
    """At start-up: the kept reading the journal holds for the press standing now (used when play resumes), else
    None; one of a press no longer standing is cleared, a damaged one ignored and cleared (logged)."""
    try:
        k = load(table.session.journal)
    except KeptReadingDamaged as exc:
        log.warning("the reading kept in the journal cannot be used (%s): it is ignored, and a press standing without "
                    "its move is read afresh when play resumes", exc)
        _clear(table, "damaged")
        return None
    if k is None:
        return None
    if not _stands(table, k):
        _clear(table, f"its press (game {k.game}, event {k.seq}) no longer stands")
        return None
    log.warning("%s's clock press at %s ms: the board as read at the press, kept in the journal during the pause, is "
                "the move when play resumes%s", table.state.players[k.player], k.pressed_at,
                f", with the judge's {len(k.fixes)} correction(s)" if k.fixes else "")
    restore_fixes(table, k.fixes)   # his confirmations as confirmations, his corrections as corrections
    return k


def correction_kept(table: Table, said: str) -> str:
    """After the judge's correction (its reply ``said``): while the clocks stop a press standing without its move,
    the move is recorded with the correction when play resumes, without a press: the reply says so, and the
    correction is written into the journal with the press's kept reading (a restart keeps it); when it cannot be
    written there the reply says to enter it again after a restart. Returns the reply."""
    st, view = table.state, table.view
    if st.phase != PLAYING or not st.neutralised or st.pressed_at is None or st.on_move is None:
        return said
    said = f"{said.removesuffix(PRESS_AGAIN).rstrip()} {st.players[st.on_move]}'s move is recorded with this " \
           "correction when play resumes."
    k, p = table.kept, table.pending
    durable = k is not None and _stands(table, k) or p is not None and p.held is None   # (a reading to come: with it)
    if k is not None and _stands(table, k):
        try:
            save(table.session.journal, replace(k, fixes=_judge_fixes(table)))
            table.kept = replace(k, fixes=_judge_fixes(table))
        except JournalError as exc:
            log.warning("the judge's correction could not be written to the journal with the kept reading (%s): a "
                        "restart before play resumes loses it", exc)
            durable = False
    if not durable:
        said += " (Should the kiosk restart before then, the judge enters it again.)"
    view.message = said
    return said


def kept_for_press(table: Table) -> StableReading | None:
    """The kept reading of the press standing now as an answer to act on (its ticket :data:`KEPT_TICKET`), or
    None when the journal holds none for it."""
    k = table.kept
    if k is None or not _stands(table, k):
        return None
    return StableReading(KEPT_TICKET, BoardReading.from_grid(list(k.grid)), frame_ms=0)


def forget_stale(table: Table) -> None:
    """After an event: a kept reading whose press no longer stands (its move recorded, the press taken back or
    undone, the game over or another begun) is cleared from the journal."""
    k = table.kept
    if k is not None and not _stands(table, k):
        _clear(table, "its press no longer stands")  # (a row that could not be cleared is never used: checked)
        table.kept = None   # tried once: a journal that cannot be written is not retried at every poll


def carried(table: Table, game: int) -> dict[str, str]:
    """The journal file was deleted or moved and the game is written into a new journal from memory
    (:meth:`kiosk.store.session.GameSession._journal_again`): the reading kept for the press standing now, as the new
    journal's row (``game``: the game's id there), so that a restart during the pause still finds it; one held in
    memory only (it could not be written before) goes too. Empty: none kept."""
    k, p = table.kept, table.pending
    if k is None or not _stands(table, k):
        held = p.held.reading if p is not None and p.held is not None else None
        k = _for_press(table, p.player, held.grid()) if p is not None and held is not None else None
    return {} if k is None else {KEY: replace(k, game=game).to_text()}


def carried_over(table: Table) -> None:
    """After the game was written into a new journal with its kept reading (:func:`carried`, one transaction): the
    kiosk's kept reading is the one the new journal holds."""
    table.kept = restore_kept(table)
