"""The table's pause and judge buttons (BCM 22 and 23; the keyboard's space and j).

At a tournament a player stops the clock to call the judge, to challenge or to resolve a discrepancy (seed 002
II.L.1 "call challenge and neutralize the clock", L.4 "neutralize the clock, alert the Word Judge", II.N
"neutralize the clock only to resolve a discrepancy", III.B): neither player's time runs until the clock is
started again. The pause button does that (:class:`~kiosk.referee.events.ClockNeutralised`, journaled with its
reason) and, pressed again, starts the clock that ran when it stopped (:class:`~kiosk.referee.events.ClockResumed`:
the player on move's, or after his press whose reading is awaited, the opponent's).
The judge button stops the clocks the same way and opens the judge's PIN pad; the clocks run again when the
judge closes his menu (:class:`~kiosk.control.commands.JudgeDone`) or a player presses pause.
"""

from __future__ import annotations

from typing import Protocol

from kiosk.control.port import KioskView
from kiosk.referee import events as ev
from kiosk.referee.state import NOT_STARTED, OVER, PLAYING, GameState, Result
from kiosk.store.session import GameSession

PAUSED = "paused at the table"
"""The reason journaled for a pause by the table's pause button."""
JUDGE_CALLED = "judge called at the table"
"""The reason journaled when the judge button stopped the clocks."""
PIN_OPEN = "PIN accepted: the judge's menu is open."
"""What the screen says when the judge's PIN opens his menu."""


class Table(Protocol):
    """What the buttons need of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView
    session: GameSession

    @property
    def state(self) -> GameState: ...

    def apply(self, event: ev.Event) -> Result: ...


def _has_clocks(st: GameState) -> bool:
    """Whether the game runs chess clocks (3-4 sides under some presets play without: seed team)."""
    return st.clock is not None and st.clock.game_ms is not None


def paused_sentence(st: GameState) -> str:
    """What the screen says while the clocks are stopped by the table: why, and how the game goes on (the judge's
    button adds that he enters his PIN, :func:`press_judge`)."""
    clocks = _has_clocks(st)
    if st.neutralised == JUDGE_CALLED:
        return "The judge is called: " + ("the clocks are stopped until he is done." if clocks else
                                          "play stops until he is done.")
    stopped = ("both clocks are stopped" if len(st.players) == 2 else "the clocks are stopped") if clocks else ""
    return f"The game is paused{': ' + stopped if stopped else ''}. Press pause again to go on."


def stopped_sentence(st: GameState, *, read_again: bool = False) -> str:
    """:func:`paused_sentence`, and, while a clock press awaits its move (its reading kept, also through a restart:
    :mod:`kiosk.app.paused_reading`), that the move is recorded when play resumes; ``read_again``: after a restart
    the press has no reading kept (the kiosk stopped before it came), so the board is read for it when play resumes
    and the sentence says to leave the tiles as they are."""
    said = paused_sentence(st)
    if st.pressed_at is not None and st.on_move is not None:
        name = st.players[st.on_move]
        said += f" {name} pressed the clock before {'the clocks stopped' if _has_clocks(st) else 'the pause'}: "
        said += (f"the board is read for {name}'s move when play resumes; leave the tiles as they are." if read_again
                 else f"{name}'s move is recorded when play resumes.")
    return said


def _goes_on(st: GameState) -> str:
    """Whose clock runs now (after a press awaiting its reading, the opponent's: the press started it), as the end
    of a sentence; in a game without chess clocks, who is to move."""
    runs = st.clock.running if st.clock is not None and _has_clocks(st) else None
    if runs is None:
        return f"{st.players[st.on_move]} to move" if st.on_move is not None else "play goes on"
    return f"{st.players[runs]}'s clock runs"


def press_pause(table: Table, t: int) -> str:
    """The pause button at ``t`` ms: stops both clocks, or, when they are stopped, starts again the clock that ran
    (:func:`_goes_on`). Returns what it did (for the log); the screen says it in a sentence."""
    st, view = table.state, table.view
    if table.session.paused:  # the journal cannot be written: the clocks stand still already
        view.message = table.session.pause_reason
    elif st.phase in (NOT_STARTED, OVER):
        view.message = "There is no game in progress to pause."
    elif st.phase == PLAYING and st.neutralised:
        if table.apply(ev.ClockResumed(t=t)):
            view.message = f"The game goes on: {_goes_on(table.state)}."
    elif st.phase == PLAYING:
        if table.apply(ev.ClockNeutralised(t=t, reason=PAUSED)):
            view.message = stopped_sentence(table.state)
    elif st.clock is not None and st.clock.running is None:
        view.message = "Both clocks are stopped already until this step is done."
    else:
        view.message = "The game cannot be paused during this step: finish it first, or call the judge."
    return view.message


def press_judge(table: Table, t: int) -> str:
    """The judge button at ``t`` ms: the judge's PIN pad opens on the screen (``view.judge_called``) and, while a
    player is on move, both clocks stop until the judge is done (:func:`judge_done`)."""
    st, view = table.state, table.view
    view.judge_called = True
    if st.phase == PLAYING and not st.neutralised and not table.session.paused:
        if table.apply(ev.ClockNeutralised(t=t, reason=JUDGE_CALLED)):
            view.message = stopped_sentence(table.state) + " Judge: enter the PIN."
            return view.message
        return view.message  # refused: the refusal's sentence shows
    view.message = "The judge is called. Judge: enter the PIN."
    return view.message


def judge_done(table: Table, t: int) -> Result:
    """The judge closed his menu: the clock his call stopped runs again (:func:`_goes_on`; nothing else
    changes; clocks stopped by the pause button stay stopped until pause is pressed)."""
    st = table.state
    if st.phase == PLAYING and st.neutralised and st.neutralised != JUDGE_CALLED:  # still paused: say so
        table.view.message = stopped_sentence(st)
    if st.phase != PLAYING or st.neutralised != JUDGE_CALLED:
        if table.view.message == PIN_OPEN:   # nothing else to say: the menu's opening is over
            table.view.message = "The judge is done."
        return Result(True)
    res = table.apply(ev.ClockResumed(t=t))
    if res:
        table.view.message = f"The judge is done: {_goes_on(table.state)} again." if _has_clocks(table.state) \
            else f"The judge is done: {_goes_on(table.state)}."
    return res


def undo_sentence(st: GameState, pressed: bool, stopped: str) -> str:
    """What the screen says after the judge's undo (``st``: the game after it; ``pressed``: a clock press not yet
    scored was taken back; ``stopped``: why the clocks were stopped at the undo, "" when they ran)."""
    who = st.players[st.on_move] if st.on_move is not None else "nobody"
    if st.notes and "took back the end of the game" in st.notes[-1]:  # the move before it stands
        said = f"The judge took back the end of the game: it goes on, {who} to move."
    elif pressed:
        said = f"The judge took back {who}'s clock press: {who} to move. Undo again to take back the turn before it."
    else:
        said = f"The judge took the last turn back: {who} to move; fix the board, then press the clock."
    what = "The clocks stay stopped" if _has_clocks(st) else "Play stays stopped"
    if stopped == JUDGE_CALLED and st.neutralised:
        said += f" {what} until the judge is done."
    elif stopped and st.neutralised:
        said += f" {what}: press pause to go on."
    return said
