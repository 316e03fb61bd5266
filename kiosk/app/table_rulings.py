"""The kiosk's rulings that are one referee event each: an exchange at the clock press (taken back when the
referee refuses it) and the judge's commands recorded as they are (:class:`~kiosk.control.commands.JudgeEventCommand`).
Kept beside :mod:`kiosk.app.kiosk` so that module stays one controller."""

from __future__ import annotations

import functools
from typing import Protocol

from kiosk.control import commands as cmd
from kiosk.control.port import KioskView
from kiosk.control.words import counted
from kiosk.referee import events as ev
from kiosk.referee.state import GameState, Result


class Table(Protocol):
    """What :func:`exchange_at_press` needs of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView

    @property
    def state(self) -> GameState: ...

    def apply(self, event: ev.Event) -> Result: ...


def exchange_at_press(kiosk: Table, player: int, t: int, count: int) -> str:
    """``player`` pressed his clock (at ``t`` ms) to exchange ``count`` tiles; returns what happened (for logs).

    A refused exchange whose press still stands (e.g. team, fewer tiles in the bag than it needs) takes the
    press back (:class:`~kiosk.referee.events.PressWithdrawn`): the time since the press is the mover's, the
    opponent is not charged, the mover is still on move. Where the preset makes an improper exchange a pass
    (seed 002 II.H) the referee accepts it as one and there is nothing to take back.
    """
    kiosk.view.exchange = 0
    res = kiosk.apply(ev.Exchange(t=t, player=player, count=count))
    if res.code in ("journal_full", "journal_failed"):  # not recorded: the press stands, and is finished as the
        kiosk.view.exchange = count                     # exchange when the journal works again (kiosk.app.unread_press)
    elif not res.accepted and kiosk.state.pressed_at is not None and kiosk.state.on_move == player:
        kiosk.apply(ev.PressWithdrawn(t=t, player=player))
    return f"exchange {count}: {'ok' if res else res.reason}"


def exchange_sentence(st: GameState, player: int, since: int, count: int) -> str:
    """What the screen says after ``player``'s exchange of ``count`` tiles was recorded: his own history line
    from index ``since`` on (another player's line, e.g. a lost turn, may follow it) is the exchange, or the pass
    the rules made of it."""
    mine = [h for h in st.history[since:] if h.player == player]
    name = st.players[player]
    if mine and mine[0].kind == "exchange":
        return f"{name} exchanged {counted(count, 'tile')}."
    return f"{name}'s exchange counts as a pass."


@functools.singledispatch
def judge_event(command: cmd.JudgeEventCommand, t: int) -> ev.Event:
    """The referee event that records the judge's ``command`` at ``t`` ms.

    Raises:
        TypeError: a command type with no event here (a new :class:`JudgeEventCommand` must be added).
    """
    raise TypeError(f"{command.name}: no referee event for this command")


@judge_event.register
def _add_time(c: cmd.AddTime, t: int) -> ev.Event:
    return ev.TimeAdded(t=t, player=c.player, added_ms=c.ms, reason=c.reason)


@judge_event.register
def _resign(c: cmd.Resign, t: int) -> ev.Event:
    return ev.Resigned(t=t, player=c.player, reason=c.reason)


@judge_event.register
def _late(c: cmd.LateArrival, t: int) -> ev.Event:
    return ev.LateArrival(t=t, player=c.player, late_ms=c.late_ms)
