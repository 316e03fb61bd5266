"""One table's kiosk: the event loop's owner of the referee (through the journaled session).

Everything that happens at the table arrives here as a call on the loop's thread: clock presses
(:meth:`Kiosk.press`), touchscreen commands (:meth:`Kiosk.handle`, :mod:`kiosk.control.commands`), and
:meth:`Kiosk.poll` from the loop's timer, which collects the vision worker's answers and the referee's due time
events. Every referee event goes through :class:`kiosk.store.GameSession` (journal first), then to the listeners
(screen, stream).

A clock press by the player on move is journaled at once and ends his turn at its time; the board's reading then
makes it a play, a pass, the exchange chosen on the screen, or a board problem for the player or the judge, the
press handed back (:mod:`kiosk.app.press`). The kiosk never scores a guess.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from typing import Any

from kiosk.app.judge_entries import confirmed_now, correct, drop_entries, promote
from kiosk.app.paused_reading import carried, carried_over, correction_kept, forget_stale, held_reading, restore_kept
from kiosk.app.pin import PinGate
from kiosk.app.press import PendingPress, on_reading, press
from kiosk.app.press_words import press_refusal
from kiosk.app.removal import check_removed, record_removed
from kiosk.app.table_pause import PIN_OPEN, judge_done, stopped_sentence, undo_sentence
from kiosk.app.table_rulings import judge_event
from kiosk.app.unread_press import finish_unread_press
from kiosk.app.vision_worker import StableReading, VisionWorker
from kiosk.control import commands as cmd
from kiosk.control.port import KioskView, act
from kiosk.control.side import Side
from kiosk.control.words import BAD_INPUT, counted, refusal_sentence, ruling_sentence, sheet_rows
from kiosk.referee import events as ev
from kiosk.referee.presets import Preset
from kiosk.referee.state import DESIGNATING, PLAYING, REMOVING, GameState, Prompt, Result
from kiosk.rules.tiles import TileSet
from kiosk.store.session import GameSession
from kiosk.vision.diff import BoardDiff, diff_boards

log = logging.getLogger("kiosk.app")

LOCKED = "The judge's menu is locked. Judge: enter the PIN."
"""What a judge's command says when the menu's time is up (or it was never opened)."""
RESUMED = "The journal works again: the game goes on."
"""What the screen says when the journal takes writes again after a pause (:func:`resumed_sentence`)."""


def resumed_sentence(st: GameState) -> str:
    """What the screen says when the journal takes writes again: :data:`RESUMED`, or, while the table's pause or
    the judge's call still stops the clocks, that the journal works and the pause's own sentence
    (:func:`kiosk.app.table_pause.stopped_sentence`): the game does not go on before the clocks run."""
    return f"The journal works again. {stopped_sentence(st)}" if st.phase == PLAYING and st.neutralised else RESUMED


class Kiosk:
    """The controller of one table.

    Args:
        session: the journaled game (:meth:`GameSession.open`).
        vision: the camera worker, or None (no camera: presses are passes only unless the judge enters moves).
        lexicon: ``word in lexicon`` for the ruling suggested to the judge (upper-case words).
        pin: the judge's PIN gate.
        clock: event time, ms (``kiosk run``: wall ms paced by the monotonic clock, ``EventClock``; a demo: simulated).
        listeners: called with (event, state) after each accepted event (screen refresh, stream).
    """

    def __init__(self, session: GameSession, vision: VisionWorker | None, lexicon: Any, pin: PinGate,
                 clock: Callable[[], int],
                 listeners: list[Callable[[ev.Event, GameState], None]] | None = None) -> None:
        self.session = session
        self.vision = vision
        self.lexicon = lexicon
        self.pin = pin
        self.clock = clock
        self.listeners = list(listeners or [])
        self.view = KioskView()
        self.pending: PendingPress | None = None
        self._removal_ticket: int | None = None
        self._exchange_by: int | None = None   # who chose the exchange on the screen (view.exchange)
        self.kept = restore_kept(self)  # a reading kept during a pause, written in the journal (a restart then)
        session.carry = functools.partial(carried, self)  # ... and into a new journal, the file deleted or moved
        if self.state.phase == PLAYING and self.state.neutralised:  # (a restart while the clocks stood)
            self.view.message = stopped_sentence(self.state, read_again=self.kept is None)

    # -------------------------------------------------------------------------------------------- state
    @property
    def state(self) -> GameState:
        return self.session.state

    @property
    def preset(self) -> Preset | None:
        """The rules of the game in progress (None before a game)."""
        return self.session.referee.preset

    @property
    def tile_set(self) -> TileSet | None:
        """The tile set of the game in progress (None before a game)."""
        return self.session.referee.tile_set

    def prompts(self) -> list[Prompt]:
        return self.session.referee.pending_prompts()

    def now(self) -> int:
        """The kiosk's time for the next event: the clock, never before the last event (ms)."""
        return max(self.clock(), self.state.last_t)

    def remaining_ms(self, player: int) -> int | None:
        """``player``'s clock at the kiosk's time (paused: at the pause's start; overtime: < 0), None without one."""
        return self.session.referee.clock_remaining(player, self.session.clock_time(self.now()))

    def ruling_suggestion(self) -> ev.ChallengeRuled | None:
        """The lexicon's ruling on the open challenge (for the judge to confirm), or None."""
        if self.lexicon is None:
            return None
        return self.session.referee.challenge_ruling(self.lexicon, self.now())

    # -------------------------------------------------------------------------------------------- events
    def apply(self, event: ev.Event) -> Result:
        """Journal and apply ``event``; tell the listeners. A refusal is shown as the message."""
        res = self.session.apply(event)
        if res.accepted:
            st = self.session.state
            if isinstance(event, ev.BlankDesignated) and st.phase != DESIGNATING:
                promote(self)
            confirmed_now(self)  # a confirmed tile withdrawn or taken back leaves the camera's readings at once
            forget_stale(self)  # a kept reading whose press no longer stands leaves the journal
            if self.view.exchange and st.on_move != self._exchange_by:  # a chosen exchange ends with its turn
                self.view.exchange = 0
            for fn in self.listeners:
                try:
                    fn(event, st)
                except Exception:  # a listener (stream, screen) must never stop the referee
                    log.exception("listener failed on %s", event.type)
        else:
            self.view.message = refusal_sentence(res, sheet_rows(self.preset))
            log.info("refused %s: %s", event.type, res.reason)
        return res

    def start_game(self, preset: Mapping[str, Any], players: tuple[str, ...], first: int = 0,
                   game_id: str = "") -> Result:
        """Start a game (``preset``: :meth:`Preset.to_dict`). Nothing of the last game carries over: its messages
        and problems, a press still being read, the judge's settled squares (the devices' notes are the table's)."""
        res = self.apply(ev.GameStarted(t=self.clock(), preset=dict(preset), players=players, first=first,
                                        game_id=game_id))
        if res:  # (a refused start, e.g. a game in progress, leaves that game's screen as it is)
            self.view, self.pending, self._removal_ticket = KioskView(devices=self.view.devices), None, None
            promote(self)  # the vision worker forgets the last game's settled squares
        return res

    # -------------------------------------------------------------------------------------------- clock
    def press(self, side: Side | str, t_ms: int | None = None) -> str:
        """A clock button: a player's :class:`Side` (or its name: "left", "right" ...), "pause" or "judge", at
        ``t_ms`` (default: now; never before the last event). Returns what the press did (for logs). The player on
        move ends his turn by pressing his own side; the move is taken from the next stable reading
        (:mod:`kiosk.app.press`)."""
        return press(self, side, self.now() if t_ms is None else max(t_ms, self.state.last_t))

    def ask_removal(self, t: int) -> None:
        """Ask the vision worker (once at a time) whether the withdrawn tiles are off the board."""
        if self.vision is not None and self._removal_ticket is None:
            self._removal_ticket = self.vision.request(t, at_once_if_down=False)  # no press waits: no hurry

    # -------------------------------------------------------------------------------------------- loop
    def poll(self) -> list[str]:
        """Collect stable readings and apply due time events; returns outcome lines (for logs)."""
        out: list[str] = []
        answers = self.vision.results() if self.vision is not None else []
        for ans in [*answers, *held_reading(self)]:  # a kept answer once the clocks run again
            out.append(self._on_reading(ans))
        if self.vision is not None and self.state.phase == REMOVING and self._removal_ticket is None \
                and not self.vision.waiting():
            self.ask_removal(self.now())
        paused = self.session.paused  # the journal cannot be written: advance() tries it again every few seconds
        journal = self.session.journal
        if self.session.in_game or paused:
            for event, res in self.session.advance(self.now()):
                if res.accepted:
                    for fn in self.listeners:
                        fn(event, self.state)
                    out.append(event.type)
        if self.session.journal is not journal:  # written again from memory (the file deleted or moved)
            carried_over(self)
        out += finish_unread_press(self)  # a press journaled without its move (a restart, the journal back)
        out += [self._on_reading(ans) for ans in held_reading(self)]  # (its reading kept in the journal: at once)
        forget_stale(self)  # (after the referee's own time events too)
        if paused:  # shown until writing works again, whatever else happens on the screen
            self.view.message = self.session.pause_reason or resumed_sentence(self.state)
        return out

    def _on_reading(self, ans: StableReading) -> str:
        if self._removal_ticket == ans.ticket:
            self._removal_ticket = None
            return check_removed(self, ans)
        return on_reading(self, ans)

    # -------------------------------------------------------------------------------------------- touch
    def handle(self, command: cmd.Command) -> Result:
        """Carry out a touchscreen command (:mod:`kiosk.control.commands`) at the kiosk's time.

        Commands behind the judge's PIN (:class:`~kiosk.control.commands.JudgeCommand`) are refused while the
        judge menu is locked. Returns the referee's result (or a local one); the referee's refusals and bad input
        are also shown as the message.
        """
        t = self.now()
        if isinstance(command, cmd.JudgeCommand) and t >= self.view.judge_until:
            self.view.message = LOCKED
            return Result(False, LOCKED, "pin")
        try:
            return self._on(command, t)
        except (KeyError, TypeError, ValueError) as exc:
            msg = f"{command.name}: bad input ({exc})"
            self.view.message = BAD_INPUT
            return Result(False, msg, "bad_input")

    def act(self, action: str, **kw: Any) -> Result:
        """The command named ``action`` with loose keyword values (scripts, the simulated players): see
        :func:`kiosk.control.port.act`. Bad input is a refusal, never raised."""
        return act(self, action, kw)

    @functools.singledispatchmethod
    def _on(self, command: cmd.Command, t: int) -> Result:
        return Result(False, f"unknown action {command.name!r}", "bad_input")

    @_on.register
    def _hold(self, c: cmd.Hold, t: int) -> Result:
        refused = self._move_unshown(c.player)
        return refused if refused is not None else self.apply(ev.Hold(t=t, player=c.player))

    @_on.register
    def _release(self, c: cmd.Release, t: int) -> Result:
        return self.apply(ev.HoldReleased(t=t, player=c.player))

    @_on.register
    def _challenge(self, c: cmd.Challenge, t: int) -> Result:
        refused = self._move_unshown(c.player)
        return refused if refused is not None else self.apply(ev.Challenge(t=t, player=c.player, words=c.words))

    def _move_unshown(self, player: int) -> Result | None:
        """A refusal of ``player``'s hold or challenge while the mover's pressed move is not recorded yet (it cannot
        be held or challenged before it is shown; the referee's "too late" would say the play stands), else None."""
        st = self.state
        if st.pressed_at is None or st.on_move is None or player == st.on_move:
            return None
        who = st.players[st.on_move]
        self.view.message = f"{who}'s move is not recorded yet: hold or challenge it once it is shown."
        return Result(False, self.view.message, "press_unrecorded")

    @_on.register
    def _withdraw(self, c: cmd.WithdrawChallenge, t: int) -> Result:
        return self.apply(ev.ChallengeWithdrawn(t=t, player=c.player))

    @_on.register
    def _courtesy_draw(self, c: cmd.CourtesyDraw, t: int) -> Result:
        return self.apply(ev.CourtesyDraw(t=t, player=c.player))

    @_on.register
    def _designate(self, c: cmd.Designate, t: int) -> Result:
        return self.apply(ev.BlankDesignated(t=t, player=c.player, square=c.square, letter=c.letter))

    @_on.register
    def _accept_outplay(self, c: cmd.AcceptOutplay, t: int) -> Result:
        return self.apply(ev.OutplayAccepted(t=t, player=c.player))

    @_on.register
    def _done(self, c: cmd.Done, t: int) -> Result:
        st = self.state
        if not 0 <= c.player < len(st.players) or st.phase == PLAYING and st.on_move != c.player:
            self.view.message = press_refusal(st, c.player)
            return Result(False, self.view.message, "wrong_player")
        return Result(True, self.press(Side(c.player), t))

    @_on.register
    def _rule(self, c: cmd.Rule, t: int) -> Result:
        ok, msg = self.pin.check(c.pin, t, "challenge ruling")
        if not ok:
            self.view.message = msg
            return Result(False, msg, "pin")
        sugg = self.ruling_suggestion()
        invalid = c.invalid or (sugg.invalid if sugg and not c.acceptable else ())
        res = self.apply(ev.ChallengeRuled(t=t, acceptable=c.acceptable, invalid=invalid, judge=c.judge))
        if res:
            self.view.message = ruling_sentence(self.state.ruling)
        return res

    @_on.register
    def _racks(self, c: cmd.Racks, t: int) -> Result:
        return self.apply(ev.RacksEntered(t=t, racks=c.racks))

    @_on.register
    def _judge_unlock(self, c: cmd.JudgeUnlock, t: int) -> Result:
        ok, msg = self.pin.check(c.pin, t, "judge menu")
        self.view.message = PIN_OPEN if ok else msg
        if ok:
            self.view.judge_until = t + 120_000
        return Result(ok, msg, "" if ok else "pin")

    @_on.register
    def _start_game(self, c: cmd.StartGame, t: int) -> Result:
        return self.start_game(c.preset, c.players, c.first, c.game_id)

    @_on.register
    def _change_preset(self, c: cmd.ChangePreset, t: int) -> Result:
        res = self.apply(ev.PresetChanged(t=t, preset=dict(c.preset), reason=c.reason))
        if res:
            self.view.message = f"The game now follows the {self.state.preset} rules."
        return res

    @_on.register
    def _adjust(self, c: cmd.Adjust, t: int) -> Result:
        return self.apply(ev.JudgeAdjustment(t=t, player=c.player, points=c.points, reason=c.reason))

    @_on.register
    def _confirm_removed(self, c: cmd.ConfirmRemoved, t: int) -> Result:
        return record_removed(self, t)  # the judge saw the withdrawn tiles go (the camera could not)

    @_on.register
    def _call_game(self, c: cmd.CallGame, t: int) -> Result:
        refused = self._press_unrecorded()
        return refused if refused is not None else self.apply(ev.GameCalled(t=t, reason=c.reason,
                                                                            as_it_stands=c.as_it_stands))

    @_on.register
    def _judge_event(self, c: cmd.JudgeEventCommand, t: int) -> Result:
        refused = self._press_unrecorded() if isinstance(c, cmd.Resign) else None
        return refused if refused is not None else self.apply(judge_event(c, t))

    def _press_unrecorded(self) -> Result | None:
        """A refusal to end the game while a clock press's move is not recorded yet (ending it then would drop
        that move, which the press completed: seed 002 II.K), else None."""
        st = self.state
        if st.pressed_at is None or st.on_move is None:
            return None
        who = st.players[st.on_move]
        self.view.message = f"{who}'s clock press is not recorded yet: " + (
            "wait a moment for the board to be read, then end the game." if self.view.waiting or not st.neutralised
            else f"close the judge's menu or press pause so that play resumes and {who}'s move is recorded, or undo "
            "the press; then end the game.")
        return Result(False, self.view.message, "press_unrecorded")

    @_on.register
    def _undo(self, c: cmd.Undo, t: int) -> Result:
        """Judge: take back the last turn (:class:`MoveUndone`; at the final table, a resignation or a called game
        alone; a press not yet scored, its answer kept while the clocks stood: that press); the board problem, the
        corrections for that move and a kept answer are dropped; clocks the table stopped (his call, the pause)
        stay stopped (journaled again after the undo). The player on move presses the clock again."""
        if self.pending is not None and self.pending.held is None:
            return Result(False, "The board is being read. Wait for the reading, then undo.", "busy")
        stopped, pressed = self.state.neutralised, self.state.pressed_at is not None
        res = self.apply(ev.MoveUndone(t=t, reason=c.reason.strip() or "taken back by the judge"))
        if res:
            self.pending = None
            self.view.problem, self.view.problem_text, self.view.problem_squares = (), "", ()
            self.view.needs_judge, self.view.exchange, self.view.waiting = False, 0, False
            drop_entries(self.view)  # the corrections and entries of the undone turn end with it
            confirmed_now(self)
            if stopped and self.state.phase == PLAYING and not self.state.neutralised:
                self.apply(ev.ClockNeutralised(t=t, reason=stopped))
            self.view.message = undo_sentence(self.state, pressed, stopped)
            log.info("judge undo: %s", c.reason)
        return res

    @_on.register
    def _exchange(self, c: cmd.Exchange, t: int) -> Result:
        """The player on move will exchange ``c.count`` tiles at his next press (0 cancels)."""
        st, count = self.state, c.count
        if st.phase != PLAYING or st.on_move is None:
            self.view.message = "An exchange can be chosen only during a player's turn."
            return Result(False, self.view.message, "wrong_phase")
        if st.pressed_at is not None:   # his turn ended at the press (seed 002 II.K): it is a move already
            name = st.players[st.on_move]
            self.view.message = (f"{name} has pressed the clock: the move is the board as {name} left it. An "
                                 "exchange is chosen on the screen before pressing the clock.")
            return Result(False, self.view.message, "pressed")
        name, most = st.players[st.on_move], st.racks[st.on_move]
        if count < 0 or count > most:
            self.view.message = f"{name} can exchange 1 to {most} tiles."
            return Result(False, self.view.message, "bad_count")
        self.view.exchange, self._exchange_by = count, st.on_move
        self.view.message = (f"{name} exchanges {counted(count, 'tile')}: put them in the bag, draw "
                             "new ones, then press the clock." if count else f"{name}'s exchange is cancelled.")
        return Result(True, self.view.message)

    @_on.register
    def _judge_done(self, c: cmd.JudgeDone, t: int) -> Result:
        return judge_done(self, t)  # the clocks his call stopped run again

    @_on.register
    def _correct(self, c: cmd.Correct, t: int) -> Result:
        """Judge: what the camera should have read on ``c.square`` (:func:`kiosk.app.judge_entries.correct`)."""
        res = correct(self, c.square, c.char)
        return Result(True, correction_kept(self, res.reason)) if res else res  # (a press standing through a pause)

    # -------------------------------------------------------------------------------------------- misc
    def board_change(self, grid: list[str]) -> BoardDiff:
        """What ``grid`` (15 strings as :meth:`BoardReading.grid`) shows against the referee's board: placed
        tiles and anomalies for the judge (:func:`kiosk.vision.diff.diff_boards`)."""
        return diff_boards("".join(c or "." for c in self.state.board), grid)
