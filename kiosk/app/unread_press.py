"""A clock press the journal holds without its move: the kiosk finishes it as soon as it can act again.

The kiosk journals a press (:class:`~kiosk.referee.events.ClockPressed`) the moment it happens, before the board is
read, so the press may be left without its move: the kiosk stopped while reading the board (a crash, a power cut,
``kill -9``; systemd's stop or restart, SIGTERM; a camera that gives no stable reading, when the reading waits up to
its timeout: a camera known down is tried once and the press handed back at once, here too), the
journal could not record the move (disk full, a failing card: the session paused) and took writes again later. (A
reading that comes while the clocks are stopped is kept with its press: :mod:`kiosk.app.paused_reading`.) The referee then has the presser on move
with his press standing and the opponent's clock running, and nobody's press is taken: the opponent's is not his
turn, and nothing reads the board until the presser happens to press again. The opponent is charged meanwhile.

What is done with it, and why: a press ends the mover's turn at the press's time (``ClockPressed``: "his turn
ends at t and the next player's time runs"; seed 002 II.K: "Start your opponent's clock, ending your turn"; II.G.3:
once the clock is started the exchange announced is made), and the move it ends is what lies on the board he left.
So the press is *finished*: the board is read now, the camera's current frame (the opponent does not touch the
board before the move is shown), and that reading is taken as the press's own
(:meth:`Kiosk.press` with the press standing: no second press, the turn still ends at the recorded time, the
downtime charged to nobody by ``kiosk_resumed``). Everything a press's reading may lead to follows as for any press:
a play or a pass; a board problem, a play the rules refuse or no reading at all (the camera down) take the press
back (:class:`~kiosk.referee.events.PressWithdrawn`), the mover's clock running again and the screen saying who
presses. Taking every such press back instead would charge the mover for the opponent's time since his press and
make him press again for a move already made.

With no camera at the table (no board reader) a press is the judge's entries: those made before it still on the
screen (the journal could not record the move) are the move; with none (a restart forgets them) the kiosk does not
guess a pass for a player who may have laid tiles: the press is taken back, with the sentence saying that the
judge enters the move and who presses the clock again (as at a table whose camera is down).

A press whose reading came while the clocks were stopped had that reading kept (:mod:`kiosk.app.paused_reading`) and
written into the journal's file (:mod:`kiosk.store.kept_reading`). When the kiosk restarted during that pause, or the
journal could not record the move when play resumed, the press stands without its move although the board was read at
the press: that reading is its move (the press's own, as with the clocks running), not a reading of the board now,
where a tile moved or lifted during the pause (the judge examines tiles, a player bumps the board) would change the
move. It is taken only for the very press it was read for; a damaged one is ignored and the board read afresh.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from kiosk.app.paused_reading import KEPT_TICKET, kept_for_press
from kiosk.app.press import PendingPress
from kiosk.control.port import KioskView
from kiosk.control.side import Side
from kiosk.referee import events as ev
from kiosk.referee.state import PLAYING, GameState, Result
from kiosk.store.kept_reading import KeptReading
from kiosk.store.session import GameSession

log = logging.getLogger("kiosk.app")


class Table(Protocol):
    """What :func:`finish_unread_press` needs of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView
    session: GameSession
    vision: Any    # the VisionWorker, or None (no board reader)
    pending: Any   # the press being read, or None
    kept: KeptReading | None   # the reading kept for a press during a pause (kiosk.app.paused_reading)

    @property
    def state(self) -> GameState: ...

    def now(self) -> int: ...

    def apply(self, event: ev.Event) -> Result: ...

    def press(self, side: Side | str, t_ms: int | None = None) -> str: ...


def unread_press(kiosk: Table) -> int | None:
    """The seat whose recorded clock press has no move and is not being read now, or None. While the journal cannot
    be written or the clocks are stopped nothing is done about it yet (nothing could be recorded, or no turn may
    end); it is done when they work again."""
    st = kiosk.state
    if st.phase != PLAYING or st.pressed_at is None or st.on_move is None or st.neutralised \
            or kiosk.pending is not None or kiosk.session.paused:
        return None
    return st.on_move


def finish_unread_press(kiosk: Table) -> list[str]:
    """Finish the recorded press that has no move (module doc): read the board for it, or with no board reader take
    the judge's entries as the move or, without them, take the press back. Called from the kiosk's poll; returns
    what was done (for the log), empty when there is no such press."""
    player = unread_press(kiosk)
    if player is None:
        return []
    st, view = kiosk.state, kiosk.view
    name = st.players[player]
    log.warning("%s's clock press at %s ms has no move in the journal: the kiosk finishes it", name, st.pressed_at)
    kept = kept_for_press(kiosk)
    if kept is not None:  # the board as read at the press, kept through the pause: the kiosk's poll acts on it now
        kiosk.pending = PendingPress(player, st.pressed_at or kiosk.now(), KEPT_TICKET, held=kept)
        return [f"{name}'s press without its move: the reading kept at the press is its move"]
    if kiosk.vision is not None or view.corrections:  # a reading of the board now, or the judge's entries
        return [f"{name}'s press without its move: {kiosk.press(Side(player))}"]
    kiosk.apply(ev.PressWithdrawn(t=kiosk.now(), player=player))
    text = (f"{name}'s clock press was recorded, but not the move, and there is no camera to read it: {name}'s "
            f"clock runs again. Call the judge to enter the move, then {name} presses the clock again.")
    view.problem, view.problem_text, view.problem_squares, view.needs_judge = (), text, (), True
    view.message = text
    return [f"{name}'s press without its move taken back: no camera"]
