"""A player's clock press: from the button to the move the referee records (or the press handed back).

A clock press by the player on move ends his turn at the press's time (seed 002 II.K: "Start your opponent's
clock, ending your turn"): the press is journaled at once (:class:`~kiosk.referee.events.ClockPressed`) and the
kiosk asks the vision worker for a stable reading. The answer is compared with the referee's board
(:func:`kiosk.vision.diff.diff_boards`). No change is a pass (or the exchange the player chose on the screen), new
tiles are a play; anything the rules do not allow (an old tile changed or gone, a doubtful square, floating tiles)
is shown as a board problem with its squares: the player fixes the board and presses again, or the judge corrects
the squares. A press not taken (a board problem, a play the rules refuse, no reading) is handed back
(:class:`~kiosk.referee.events.PressWithdrawn`): the clocks stand as before it, the mover's running. With no
reading at all (camera down, no usable frame), the tiles the judge enters are the move when the next press again
gets none. The kiosk never scores a guess.

An answer that comes while the clocks are stopped is kept with the press (:mod:`kiosk.app.paused_reading`); a press
the journal holds without its move is finished by :mod:`kiosk.app.unread_press`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from kiosk.app.judge_entries import as_entered, confirmed_now, entry_clashes, judge_decided, promote
from kiosk.app.paused_reading import hold_reading
from kiosk.app.press_words import press_refusal
from kiosk.app.table_pause import press_judge, press_pause, stopped_sentence
from kiosk.app.table_rulings import exchange_at_press, exchange_sentence
from kiosk.app.vision_worker import StableReading
from kiosk.control.port import KioskView
from kiosk.control.side import Side
from kiosk.control.words import counted, play_place, refusal_sentence, sheet_rows
from kiosk.referee import events as ev
from kiosk.referee.presets import Preset
from kiosk.referee.state import DESIGNATING, PLAYING, REMOVING, GameState, Result
from kiosk.store.kept_reading import KeptReading
from kiosk.store.session import GameSession
from kiosk.vision.diff import Anomaly, BoardDiff
from kiosk.vision.reading import BoardReading

log = logging.getLogger("kiosk.app")


@dataclass
class PendingPress:
    """A clock press waiting for its stable reading (``t``: its event time, on the kiosk's clock)."""

    player: int
    t: int
    ticket: int
    exchange: int = 0
    held: StableReading | None = None  # its answer, come while the clocks were stopped (kiosk.app.paused_reading)


class Table(Protocol):
    """What a press needs of the kiosk (:class:`kiosk.app.kiosk.Kiosk`)."""

    view: KioskView
    session: GameSession
    vision: Any     # the VisionWorker, or None (no camera)
    pending: PendingPress | None
    kept: KeptReading | None   # a reading kept during a pause, in the journal (kiosk.app.paused_reading)

    @property
    def state(self) -> GameState: ...

    @property
    def preset(self) -> Preset | None: ...

    def now(self) -> int: ...

    def apply(self, event: ev.Event) -> Result: ...

    def board_change(self, grid: list[str]) -> BoardDiff: ...

    def ask_removal(self, t: int) -> None: ...


def press(table: Table, side: Side | str, t: int) -> str:
    """A clock button at ``t`` (ms, not before the last event): a player's :class:`Side` (or its name: "left",
    "right" ...), "pause" or "judge". Returns what the press did (for logs)."""
    st, view = table.state, table.view
    if side in ("judge", "pause"):
        return press_judge(table, t) if side == "judge" else press_pause(table, t)
    view.unusable_frame = ""  # it tells of this press only (a refused one, or one still reading: "")
    if table.session.paused:  # the journal cannot be written: nothing can be recorded, the clocks stand still
        view.message = table.session.pause_reason
        return view.message
    if isinstance(side, str):
        try:
            side = Side.named(side)
        except ValueError:
            return f"unknown side {side!r}"
    player = side.seat
    if st.players and player >= len(st.players):
        return f"unknown side {side.name!r}: {len(st.players)} players"
    if st.phase == REMOVING:
        table.ask_removal(t)
        return "checking the board for the withdrawn tiles"
    if st.phase == PLAYING and st.neutralised:  # the clocks are stopped (pause, a judge call): nobody's turn ends
        view.message = stopped_sentence(st)        # meanwhile, whoever presses
        return view.message
    if st.phase == DESIGNATING and st.on_move == player and view.corrections:
        pass  # the judge corrected the reading of a play waiting for its blanks: read it again
    elif st.phase != PLAYING or st.on_move != player:
        view.message = press_refusal(st, player)
        return view.message
    if table.pending is not None:
        return "already reading the board"
    if st.phase == PLAYING and st.pressed_at is None:
        table.apply(ev.ClockPressed(t=t, player=player))  # his time stops now, not when the reading comes
        if table.session.paused:
            return table.session.pause_reason
    if table.vision is None or view.exchange:  # an exchange lays no tile: it needs no reading (nor waits for one
        # with the camera down); no camera: the tiles the judge entered are the move (none: a pass)
        entered = as_entered(table) if view.corrections else None
        return finish_press(table, player, t, entered, view.exchange, by_judge=entered is not None)
    table.pending = PendingPress(player, t, table.vision.request(t), view.exchange)
    view.waiting = True
    view.message = "Reading the board: a moment, please."
    return "reading"


def on_reading(table: Table, ans: StableReading) -> str:
    """Act on the vision worker's answer ``ans`` to the pending press; returns what was done (for the log)."""
    p = table.pending
    if p is None or p.ticket != ans.ticket:
        return "stale reading"
    if held := hold_reading(table, ans):  # the clocks were stopped before it came: acted on when they run again
        return held
    table.pending, view = None, table.view
    view.waiting, view.unusable_frame = False, ans.unusable
    reading, view.camera_failed = ans.reading, ans.reading is None
    entered = reading is None and view.judge_entered and bool(view.corrections)
    if entered:  # no frame to read: the move is the referee's board as the judge entered it on the screen
        reading = as_entered(table)
        log.info("no reading (%s): the move is taken as the judge entered it", ans.error)
    else:
        view.read_this_turn = reading is not None
    if reading is None:
        take_back_press(table, p.player)
        show_problem(table, (), f"The camera gave no reading ({ans.error}). {table.state.players[p.player]}: press "
                     "the clock again, or call the judge to enter the move.", judge=True, squares=())
        return "no reading: " + ans.error
    return finish_press(table, p.player, max(p.t, table.state.last_t), reading, p.exchange, by_judge=entered)


def finish_press(table: Table, player: int, t: int, reading: BoardReading | None, exchange: int,
                 by_judge: bool = False) -> str:
    """End ``player``'s press at ``t`` with ``reading`` (None: no camera and no entries, a pass) or the ``exchange``
    of that many tiles chosen on the screen; ``by_judge``: the reading is the judge's entries. Returns what was done
    (for the log): "play", "pass", "board problem: ...", "refused: ..."."""
    view = table.view
    if exchange:
        done = len(table.state.history)
        said = exchange_at_press(table, player, t, exchange)
        if len(table.state.history) > done:  # recorded (or made a pass by the rules): the turn and its entries end
            clear_problem(table, Result(True, said))
            view.message = exchange_sentence(table.state, player, done, exchange)
        return said
    if reading is None:
        res = table.apply(ev.Pass(t=t, player=player))
        clear_problem(table, res)
        return "pass" if res else res.reason
    grid = list(reading.grid())
    if view.judge_entered and not by_judge:  # the camera is back: his entries complete this reading
        view.judge_entered, clash = False, entry_clashes(table, "".join(grid))
        if clash:  # ... unless it sees something else there: the judge looks first (pressed again: his stand)
            view.reading = reading
            take_back_press(table, player)
            show_problem(table, clash, "The camera sees other tiles on the marked squares than the judge entered. "
                         "Judge: check them, then the player presses the clock again.", judge=True)
            return "board problem: " + "; ".join(a.detail for a in clash)
    fixes = {**confirmed_now(table), **view.corrections}
    if fixes:
        chars = list("".join(grid))
        for sq, ch in fixes.items():
            chars[sq] = ch
        grid = ["".join(chars[r * 15:(r + 1) * 15]) for r in range(15)]
    change = table.board_change(grid)
    view.reading = reading
    if not change.clean:
        take_back_press(table, player)
        show_problem(table, change.anomalies, "The board does not read right: fix the marked squares and press the "
                     "clock again, or call the judge.", judge=any(p.kind != "unsure" for p in change.anomalies))
        return "board problem: " + "; ".join(p.detail for p in change.anomalies)
    if not change.placed:
        res = table.apply(ev.Pass(t=t, player=player))
        clear_problem(table, res)
        return "pass" if res else res.reason
    by_judge = by_judge or judge_decided(table, change.placed)
    res = table.apply(ev.Play(t=t, player=player, tiles=change.placed, by_judge=by_judge))
    if not res.accepted:
        if not table.session.paused:  # a journal that cannot be written is no board problem (its sentence shows)
            take_back_press(table, player)
            show_problem(table, tuple(Anomaly(res.code, sq, "", "", res.reason) for sq in res.squares),
                         refusal_sentence(res, sheet_rows(table.preset)), judge=res.judge,
                         squares=res.squares or tuple(sq for sq, _ in change.placed))
        return f"refused: {res.reason}"
    clear_problem(table, res)
    return "play"


def take_back_press(table: Table, player: int) -> None:
    """``player``'s press was not taken (a board problem, a play the rules refuse, no reading): the clocks go back to
    how they stood before it (:class:`~kiosk.referee.events.PressWithdrawn`). The turn is still his and he fixes
    his tiles on his own time, never the opponent's (seed 002 II.F: the board is not touched while the opponent's
    clock runs); he presses again when it is right."""
    st = table.state
    if st.phase == PLAYING and st.on_move == player and st.pressed_at is not None and not st.neutralised \
            and not table.session.paused:
        table.apply(ev.PressWithdrawn(t=table.now(), player=player))


def show_problem(table: Table, problems: tuple[Anomaly, ...], text: str, *, judge: bool,
                 squares: tuple[int, ...] | None = None) -> None:
    """Show a board problem: ``problems`` on ``squares`` (default: theirs), the sentence ``text``; ``judge``: it
    needs the judge (not only the player fixing his tiles)."""
    view = table.view
    view.problem, view.problem_text = problems, text
    view.problem_squares = tuple(squares if squares is not None else (p.square for p in problems))
    view.needs_judge = judge
    view.message = text


def clear_problem(table: Table, res: Result) -> None:
    """After an accepted move (``res``): the board problem and the judge's settled corrections end, and the message
    says the play or the pass."""
    if res.accepted:
        show_problem(table, (), "", judge=False, squares=())
        st = table.state
        if st.phase != DESIGNATING:  # the judge's corrections hold until the move is complete
            promote(table)
        lp, last = st.last_play, st.history[-1] if st.history else None
        table.view.message = ""
        if lp is not None and last is not None and last.kind == "play":
            table.view.message = (f"{st.players[lp.player]} played {lp.word} at "
                                  f"{play_place(lp.coordinate, sheet_rows(table.preset))} for "
                                  f"{counted(lp.score, 'point')}.")
        elif last is not None and last.kind == "pass":
            table.view.message = f"{st.players[last.player]} passed."
