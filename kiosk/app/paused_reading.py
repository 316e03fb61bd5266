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
"""

from __future__ import annotations

from typing import Any, Protocol

from kiosk.app.table_pause import paused_sentence, stopped_sentence
from kiosk.app.vision_worker import StableReading
from kiosk.control.port import KioskView
from kiosk.referee.state import DESIGNATING, PLAYING, GameState


class Table(Protocol):
    """What the held answer needs of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView
    pending: Any   # the PendingPress being read, or None

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
