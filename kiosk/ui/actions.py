"""What a tap on each button does: :data:`ACTIONS` maps a button's action name to its handler, which changes
the touchscreen's own state (:class:`TouchState`) and sends typed commands (:mod:`kiosk.control.commands`) to
the kiosk. Players for a command are taken from the kiosk's state at the moment of the tap."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from kiosk.control import commands as cmd
from kiosk.control.rules_choice import rules_choices, rules_preset
from kiosk.control.words import counted, refusal_sentence
from kiosk.referee.presets import bundled_presets
from kiosk.referee.state import NOT_STARTED, OVER
from kiosk.ui.problem_words import run_out
from kiosk.ui.touch_state import TouchState

log = logging.getLogger("kiosk.ui")

Action = Callable[[TouchState, Mapping[str, Any]], None]


# -------------------------------------------------------------------------------------------- players


def _challenger(ui: TouchState) -> int:
    """Who holds or challenges: the holder, else the player after the last play's, else the player on move."""
    st = ui.kiosk.state
    if st.hold_by is not None:
        return st.hold_by
    if st.last_play is not None:
        return ui.next_player(st.last_play.player)
    return st.on_move if st.on_move is not None else 0


def _hold(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.kiosk.handle(cmd.Hold(_challenger(ui)))


def _challenge(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The challenge of the player the button names (any other side, 3-4 players), else the next in turn."""
    ui.kiosk.handle(cmd.Challenge(kw["player"] if "player" in kw else _challenger(ui)))


def _done(ui: TouchState, kw: Mapping[str, Any]) -> None:
    st = ui.kiosk.state
    if st.on_move is not None:
        ui.kiosk.handle(cmd.Done(st.on_move))


def _withdraw(ui: TouchState, kw: Mapping[str, Any]) -> None:
    by = ui.kiosk.state.challenge_by
    if by is not None:
        ui.kiosk.handle(cmd.WithdrawChallenge(by))


def _release(ui: TouchState, kw: Mapping[str, Any]) -> None:
    st = ui.kiosk.state
    on_move = st.on_move if st.on_move is not None else 0
    ui.kiosk.handle(cmd.Release(st.hold_by if st.hold_by is not None else on_move))


def _courtesy_draw(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The held play's player draws his new tiles during the hold, kept apart (confirmed in a sentence)."""
    k = ui.kiosk
    lp = k.state.last_play
    if lp is not None and k.handle(cmd.CourtesyDraw(lp.player)):
        k.view.message = f"{k.state.players[lp.player]} may draw the new tiles now and keeps them apart."


def _exchange_open(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.overlay = "exchange"


def _exchange(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.kiosk.handle(cmd.Exchange(kw["count"]))
    ui.overlay = None


def _letter(ui: TouchState, kw: Mapping[str, Any]) -> None:
    st = ui.kiosk.state
    prompts = ui.kiosk.prompts()
    if st.pending_blanks and prompts:
        ui.kiosk.handle(cmd.Designate(prompts[0].player, st.pending_blanks[0], kw["letter"]))


def _accept_outplay(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The Accept of the opponent the button names (3-4 players: each accepts, 003/004), else the next in turn."""
    lp = ui.kiosk.state.last_play
    who = kw["player"] if "player" in kw else ui.next_player(lp.player if lp is not None else 0)
    ui.kiosk.handle(cmd.AcceptOutplay(who))


# -------------------------------------------------------------------------------------------- the PIN pad


PIN_TIMEOUT_MS = 30_000
"""An untouched PIN pad goes back to the game after this long (ms): nothing is logged against the judge."""


def _open_pin(ui: TouchState, purpose: str) -> None:
    ui.pin_purpose = purpose
    ui.overlay, ui.pin_buffer, ui.pin_touched_ms = "pin", "", ui.kiosk.now()


def _rule(ui: TouchState, kw: Mapping[str, Any]) -> None:
    _open_pin(ui, "rule:1" if kw["acceptable"] else "rule:0")


def _judge_open(ui: TouchState, kw: Mapping[str, Any]) -> None:
    _open_pin(ui, "judge")


def _pin_cancel(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Back to the game from the PIN pad: no PIN is checked, nothing is logged."""
    ui.overlay, ui.pin_buffer = None, ""


def answer_judge_call(ui: TouchState) -> None:
    """The table's judge button was pressed (``view.judge_called``): the PIN pad opens, unless the judge is at
    his menu or the pad already."""
    view = ui.kiosk.view
    if view.judge_called:
        view.judge_called = False
        if not (ui.overlay or "").startswith(("judge", "pin")):
            _open_pin(ui, "judge")


def expire_pin(ui: TouchState) -> bool:
    """Close the PIN pad when it has not been touched for :data:`PIN_TIMEOUT_MS`; returns whether it did."""
    if ui.overlay == "pin" and ui.kiosk.now() - ui.pin_touched_ms >= PIN_TIMEOUT_MS:
        _pin_cancel(ui, {})
        return True
    return False


def _pin_digit(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.pin_touched_ms = ui.kiosk.now()
    if len(ui.pin_buffer) < 8:
        ui.pin_buffer += kw["digit"]


def _pin_clear(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.pin_touched_ms = ui.kiosk.now()
    ui.pin_buffer = ""


EMPTY_PIN = "Type the PIN first, then OK."
"""What OK on an empty PIN pad says: no PIN was tried, none is counted against the judge."""


def _pin_ok(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Check the typed PIN (an empty pad is no try: it says so and counts nothing)."""
    entered, ui.pin_buffer, ui.pin_touched_ms = ui.pin_buffer, "", ui.kiosk.now()
    if not entered:
        ui.kiosk.view.message = EMPTY_PIN
        return
    if ui.pin_purpose.startswith("rule:"):
        res = ui.kiosk.handle(cmd.Rule(acceptable=ui.pin_purpose == "rule:1", pin=entered))
        if res.accepted or res.code != "pin":
            ui.overlay = None
        return
    if ui.kiosk.handle(cmd.JudgeUnlock(entered)).accepted:
        ui.overlay = "judge"


# -------------------------------------------------------------------------------------------- end racks


def _rack_letter(ui: TouchState, kw: Mapping[str, Any]) -> None:
    p, ui.rack_said = ui.rack_player, ""
    if len(ui.rack_list()[p]) < ui.kiosk.state.racks[p] and any(t == kw["letter"] for t, _ in ui.rack_choices()):
        ui.racks[p] += kw["letter"]


def _rack_back(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.rack_list()
    ui.rack_said = ""
    ui.racks[ui.rack_player] = ui.racks[ui.rack_player][:-1]


def _rack_next(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.rack_player = ui.next_player(ui.rack_player)


def _rack_done(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Send the racks; an incomplete one is not sent: the screen says whose and how many tiles are missing (and
    goes to that rack); a refusal of the referee is said in its sentence."""
    k, racks = ui.kiosk, ui.rack_list()
    for p, (typed, n) in enumerate(zip(racks, k.state.racks)):
        if len(typed) != n:
            name = k.state.players[p]
            ui.rack_player = p
            tiles = counted(n, "tile")
            ui.rack_said = (f"{name}'s rack has {tiles}; {len(typed)} entered. Enter the other {n - len(typed)}, "
                            "then Done." if typed else f"Enter {name}'s {tiles}, then Done.")
            return
    res = k.handle(cmd.Racks(tuple(racks)))
    ui.rack_said = "" if res else refusal_sentence(res)


# -------------------------------------------------------------------------------------------- the judge menu


def _judge_only(action: Action) -> Action:
    """The judge menu's actions: after its time is up they close it and ask for the PIN again."""

    def guarded(ui: TouchState, kw: Mapping[str, Any]) -> None:
        k = ui.kiosk
        if k.now() >= k.view.judge_until:
            ui.overlay = None
            k.view.message = "The judge's menu closed: its time was up. Judge: enter the PIN again."
            return
        action(ui, kw)

    return guarded


def _judge_close(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.overlay, ui.selected = None, None
    ui.kiosk.handle(cmd.JudgeDone())  # clocks the table's judge button stopped run again


def _judge_open_menu(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.overlay, ui.selected = "judge", None


def _judge_correct_open(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.overlay, ui.selected = "judge_correct", None


def _square(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.selected = kw["square"]


def _judge_correct(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The judge's tile for the selected square; a tile the set has run out of (the board and his other entries
    hold them all) is refused with a sentence, the square stays selected."""
    k = ui.kiosk
    if ui.selected is None:
        return
    why = run_out(k.tile_set, k.state.board, k.view.corrections, ui.selected, kw["char"])
    if why:
        k.view.message = why
        return
    k.handle(cmd.Correct(ui.selected, kw["char"]))  # the kiosk says what is on the square now
    ui.selected = None


def _judge_adjust_open(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The score adjustment screen, nobody chosen yet (a choice made on another judge screen does not carry over)."""
    ui.overlay, ui.adj_points, ui.adj_player = "judge_adjust", 0, None


def _adj_player(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.adj_player = kw["player"]


def _adj_points(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.adj_points += kw["delta"]


def _adj_reason(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.adj_reason = kw["reason"]


def _adj_apply(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The judge's score adjustment, confirmed in a sentence ("Bo: +5 points by the judge (misscored).")."""
    k, p, n = ui.kiosk, ui.adj_player, ui.adj_points
    if p is not None and k.handle(cmd.Adjust(p, n, ui.adj_reason)):
        k.view.message = f"{k.state.players[p]}: {counted(n, 'point', fmt='+d')} by the judge ({ui.adj_reason})."
        ui.overlay, ui.adj_points = "judge", 0


def _judge_removed(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.kiosk.handle(cmd.ConfirmRemoved())
    ui.overlay = None


def _judge_undo(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.kiosk.handle(cmd.Undo("taken back by the judge at the table"))
    ui.overlay = None


def _judge_end(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.kiosk.handle(cmd.CallGame("ended by the judge"))
    ui.overlay = None


def _judge_stop(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The director stops the game with the scores as they stand (seed 002 III.G): no racks, no adjustment."""
    ui.kiosk.handle(cmd.CallGame("stopped by the director: scores as they stand", as_it_stands=True))
    ui.overlay = None


def _judge_player_open(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The judge's player screen, nobody chosen yet (the score adjustment's choice does not carry over)."""
    ui.overlay, ui.late_minutes, ui.adj_player = "judge_player", 0, None


def _late_minutes(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.late_minutes = max(0, ui.late_minutes + kw["delta"])


def _judge_add_minute(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Seed 002 II.F / II.O: one more minute of playing time for the chosen player."""
    k, p = ui.kiosk, ui.adj_player
    if p is not None and k.handle(cmd.AddTime(p)):
        k.view.message = f"The judge gave {k.state.players[p]} one more minute."


def _judge_resign(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Resign asks first: the confirmation screen names the chosen player (a resignation ends the game)."""
    if ui.adj_player is not None:
        ui.overlay = "judge_resign"


def _judge_resign_confirm(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The chosen player resigns, confirmed: a forfeit loss with the scores as they stand (seed 002 III.G)."""
    k, p = ui.kiosk, ui.adj_player
    if p is not None and k.handle(cmd.Resign(p)):
        k.view.message = f"{k.state.players[p]} resigned."
        ui.overlay = None
    else:
        ui.overlay = "judge_player"


def _judge_resign_cancel(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Back to the player screen from the resignation's confirmation: nothing happens."""
    ui.overlay = "judge_player"


def _judge_late(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The chosen player arrived ``late_minutes`` late (before the first move; seed 000 rule 19, 002 I.F)."""
    k, p, n = ui.kiosk, ui.adj_player, ui.late_minutes
    if p is not None and k.handle(cmd.LateArrival(p, n * 60_000)):
        k.view.message = f"{k.state.players[p]} arrived {counted(n, 'minute')} late."
        ui.overlay = None if k.state.phase == OVER else "judge"


def _judge_preset(ui: TouchState, kw: Mapping[str, Any]) -> None:
    k = ui.kiosk
    k.view.message = "Choose the rules with Rules, then tap Start."
    ui.new_preset = k.state.preset if k.state.preset in bundled_presets() else ui.new_preset
    ui.overlay = "new_game"


# -------------------------------------------------------------------------------------------- new game


def _new_game_open(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """The new-game screen: what was said in the last game ("The judge gave Ann one more minute.") is not said
    there; it shows what the kiosk says from now on (a refused start, a journal that cannot be written)."""
    ui.overlay = "new_game"
    ui.kiosk.view.message = ""


def _new_cancel(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """Back to the game (or its final table) from the new-game screen: nothing changes."""
    ui.overlay = None


def _new_swap(ui: TouchState, kw: Mapping[str, Any]) -> None:
    ui.new_players = ui.new_players[1:] + ui.new_players[:1]


def _new_count(ui: TouchState, kw: Mapping[str, Any]) -> None:
    """2, 3, 4, then 2 players again: the names come from the configured names, then "Player 3", "Player 4"."""
    n = len(ui.new_players) + 1 if len(ui.new_players) < 4 else 2
    pool = list(ui.new_players) + [name for name in ui.name_pool if name not in ui.new_players]
    ui.new_players = tuple(pool[:n])


def _new_preset_next(ui: TouchState, kw: Mapping[str, Any]) -> None:
    names = rules_choices(ui.event_preset)
    i = names.index(ui.new_preset) if ui.new_preset in names else -1
    ui.new_preset = names[(i + 1) % len(names)]


def seats_sentence(name: str, lo: int, hi: int, n: int) -> str:
    """Why the rules ``name`` (for ``lo``-``hi`` players) cannot start at a table of ``n``, or "" when they
    can: "The nsf rules are for 2 players; this table has 3."."""
    if lo <= n <= hi:
        return ""
    seats = f"{lo}" if lo == hi else f"{lo} to {hi}"
    return f"The {name} rules are for {seats} players; this table has {n}."


def _new_start(ui: TouchState, kw: Mapping[str, Any]) -> None:
    rules = rules_preset(ui.new_preset)
    preset = rules.to_dict()
    st = ui.kiosk.state
    change = st.phase not in (NOT_STARTED, OVER) and not st.history  # the judge's rules change before move 1
    why = seats_sentence(rules.name, rules.min_players, rules.max_players,
                         len(st.players) if change else len(ui.new_players))
    if why:
        ui.kiosk.view.message = why
        return
    if change:
        res = ui.kiosk.handle(cmd.ChangePreset(preset, reason="changed before the first move"))
    else:
        res = ui.kiosk.handle(cmd.StartGame(preset, ui.new_players))
    if not res:
        ui.kiosk.view.message = refusal_sentence(res)
    elif change:
        ui.overlay = None
    else:
        ui.new_game()


_JUDGE_MENU: dict[str, Action] = {
    "judge_close": _judge_close, "judge_open_menu": _judge_open_menu, "judge_correct_open": _judge_correct_open,
    "square": _square, "judge_correct": _judge_correct, "judge_adjust_open": _judge_adjust_open,
    "adj_player": _adj_player, "adj_points": _adj_points, "adj_reason": _adj_reason, "adj_apply": _adj_apply,
    "judge_removed": _judge_removed, "judge_undo": _judge_undo, "judge_end": _judge_end,
    "judge_preset": _judge_preset, "judge_stop": _judge_stop, "judge_player_open": _judge_player_open,
    "late_minutes": _late_minutes, "judge_add_minute": _judge_add_minute, "judge_resign": _judge_resign,
    "judge_late": _judge_late, "judge_resign_confirm": _judge_resign_confirm,
    "judge_resign_cancel": _judge_resign_cancel,
}

ACTIONS: dict[str, Action] = {
    "hold": _hold, "challenge": _challenge, "release": _release, "courtesy_draw": _courtesy_draw,
    "exchange_open": _exchange_open, "exchange": _exchange, "letter": _letter, "accept_outplay": _accept_outplay,
    "rule": _rule, "judge_open": _judge_open, "pin_digit": _pin_digit, "pin_clear": _pin_clear, "pin_ok": _pin_ok,
    "pin_cancel": _pin_cancel, "withdraw": _withdraw,
    "rack_letter": _rack_letter, "rack_back": _rack_back, "rack_next": _rack_next, "rack_done": _rack_done,
    **{name: _judge_only(fn) for name, fn in _JUDGE_MENU.items()},
    "new_game_open": _new_game_open, "new_swap": _new_swap, "new_count": _new_count, "done": _done, "new_preset_next": _new_preset_next,
    "new_start": _new_start, "new_cancel": _new_cancel,
}
"""Every button action the screens draw, by name."""


def do(ui: TouchState, action: str, kw: Mapping[str, Any]) -> None:
    """Carry out a button's ``action`` with its arguments ``kw`` (an unknown action is logged, not raised)."""
    handler = ACTIONS.get(action)
    if handler is None:
        log.warning("unknown action %s", action)
        return
    handler(ui, kw)
