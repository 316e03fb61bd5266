"""A withdrawn play's tiles leaving the board: the kiosk checks each stable reading while the referee waits for
them (phase ``removing``, after a phony is ruled unacceptable), and records :class:`~kiosk.referee.events.TilesRemoved`
once none of them is read there. Kept beside :mod:`kiosk.app.kiosk` so that module stays one controller."""

from __future__ import annotations

from typing import Protocol

from kiosk.app.judge_entries import drop_entries
from kiosk.app.vision_worker import StableReading
from kiosk.control.port import KioskView
from kiosk.control.words import sheet_rows, square_label
from kiosk.referee import events as ev
from kiosk.referee.presets import Preset
from kiosk.referee.state import REMOVING, GameState, Result


class Table(Protocol):
    """What :func:`check_removed` needs of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView

    @property
    def state(self) -> GameState: ...

    @property
    def preset(self) -> Preset | None: ...

    def apply(self, event: ev.Event) -> Result: ...

    def now(self) -> int: ...


def check_removed(kiosk: Table, ans: StableReading) -> str:
    """Compare the stable reading ``ans`` with the withdrawn play's squares: the tiles still read there are
    marked for the players (``view.removal_left``); none left records that they are gone. Returns what happened
    (for logs)."""
    st = kiosk.state
    if st.phase != REMOVING or ans.reading is None:
        return "removal check skipped"
    lp = st.last_play
    squares = tuple(sq for sq, _ in lp.tiles) if lp else ()
    grid = "".join(ans.reading.grid())
    left = [sq for sq in squares if grid[sq] != "."]
    kiosk.view.reading = ans.reading
    if left:
        kiosk.view.removal_left = tuple(left)
        rows = sheet_rows(kiosk.preset)
        who = f"{st.players[lp.player]}: t" if lp is not None else "T"
        kiosk.view.message = f"{who}ake the withdrawn tiles off {', '.join(square_label(s, rows) for s in left)}."
        return "tiles still on the board"
    res = record_removed(kiosk, kiosk.now())
    if res:
        on_move = kiosk.state.on_move
        kiosk.view.message = "The withdrawn tiles are off the board." + (
            f" It is {kiosk.state.players[on_move]}'s turn." if on_move is not None else "")
    return "tiles removed" if res else res.reason


def record_removed(kiosk: Table, t: int) -> Result:
    """Record that the withdrawn play's tiles are off the board at ``t`` ms (the camera saw them go, or the judge
    confirmed it): nothing is left to take off, and the turn's corrections and entries end with them."""
    res = kiosk.apply(ev.TilesRemoved(t=t))
    if res:
        kiosk.view.removal_left = ()
        drop_entries(kiosk.view)
    return res
