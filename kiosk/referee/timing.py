"""Time: which time events are due (:func:`due_events`) and their handlers (warnings, limits, overtime)."""

from __future__ import annotations

from dataclasses import replace
from typing import NoReturn

from kiosk.referee.ending import end_called, end_outplay, finish, unknown_racks, why_not_end
from kiosk.referee.events import (
    CourtesyNotice,
    Event,
    OvertimeCapExceeded,
    OvertimeStarted,
    SessionTimeUp,
    TimeWarning,
    TurnTimeExpired,
    WindowClosed,
)
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.model import GameModel, Refused, handles, refusal_for
from kiosk.referee.phase import Phase
from kiosk.referee.turns import next_turn


def due_events(g: GameModel | None, now_ms: int) -> list[Event]:
    """Time events of game ``g`` due at ``now_ms``, earliest first; each has the ``t`` it fell due (not before
    the last event). Apply them in order (a later one may be refused if an earlier one ended the situation)."""
    if g is None or g.phase == Phase.OVER:
        return []
    due = [*_window_events(g, now_ms), *_game_time_events(g, now_ms), *_turn_time_events(g, now_ms),
           *_session_events(g, now_ms)]
    for i, ev in enumerate(due):
        if ev.t < g.last_t:  # fell due before the last event: due now
            due[i] = replace(ev, t=g.last_t)
    due.sort(key=lambda e: e.t)
    return due


def _window_events(g: GameModel, now_ms: int) -> list[Event]:
    """The challenge or out-play window running out; the courtesy time of a hold passing."""
    due: list[Event] = []
    ch = g.preset.challenge
    if g.hold.by is None and g.window.open and g.window.until is not None and now_ms >= g.window.until \
            and g.phase in (Phase.PLAYING, Phase.OUTPLAY) and not g.neutralised:
        due.append(WindowClosed(t=g.window.until))
    if g.hold.by is not None and not g.hold.courtesy_given and ch.courtesy_ms is not None and g.phase == Phase.PLAYING \
            and g.hold.since is not None and now_ms >= g.hold.since + ch.courtesy_ms:
        due.append(CourtesyNotice(t=g.hold.since + ch.courtesy_ms))
    return due


def _game_time_events(g: GameModel, now_ms: int) -> list[Event]:
    """The running player's game time running out (overtime) and passing the overtime cap."""
    due: list[Event] = []
    ck, r = g.clock, g.clock.running
    if r is not None and ck.game_ms is not None:
        used_now = ck.used[r] + max(0, now_ms - ck.since)
        if not g.overtime_notified[r] and used_now >= ck.game_ms:
            due.append(OvertimeStarted(t=ck.since + ck.game_ms - ck.used[r], player=r))
        cap = g.preset.clock.overtime_cap_ms
        if cap is not None and used_now > ck.game_ms + cap:
            due.append(OvertimeCapExceeded(t=ck.since + ck.game_ms + cap - ck.used[r] + 1, player=r))
    return due


def _turn_time_events(g: GameModel, now_ms: int) -> list[Event]:
    """The per-turn limit's warnings and its expiry, for the player on move."""
    due: list[Event] = []
    ck, r, clk = g.clock, g.clock.running, g.preset.clock
    if g.phase == Phase.PLAYING and r is not None and r == g.on_move and clk.turn_limit_ms is not None:
        used_turn = ck.turn_used_at(now_ms)
        base = ck.since - ck.turn_used
        for w in clk.turn_warnings_ms:
            key = f"turn{g.turn}:{w}"
            if key not in g.warnings and used_turn >= clk.turn_limit_ms - w:
                due.append(TimeWarning(t=base + clk.turn_limit_ms - w, kind="turn", remaining_ms=w, player=r))
        if f"turn{g.turn}:expired" not in g.warnings and used_turn >= clk.turn_limit_ms:
            due.append(TurnTimeExpired(t=base + clk.turn_limit_ms, player=r))
    return due


def _session_events(g: GameModel, now_ms: int) -> list[Event]:
    """The session limit's warnings and its end (downtime not counted)."""
    due: list[Event] = []
    clk = g.preset.clock
    if clk.session_limit_ms is not None and g.phase not in (Phase.RACK_ENTRY, Phase.OVER):
        end = g.started_t + g.downtime + clk.session_limit_ms
        for w in clk.session_warnings_ms:
            key = f"session:{w}"
            if key not in g.warnings and now_ms >= end - w:
                due.append(TimeWarning(t=end - w, kind="session", remaining_ms=w))
        if now_ms >= end:
            due.append(SessionTimeUp(t=end))
    return due


@handles(TimeWarning)
def _on_time_warning(g: GameModel, ev: TimeWarning) -> None:
    key = f"turn{g.turn}:{ev.remaining_ms}" if ev.kind == "turn" else f"session:{ev.remaining_ms}"
    if ev.kind not in ("turn", "session"):
        raise Refused(f"time_warning: kind must be 'turn' or 'session', not '{ev.kind}'", Code.BAD_EVENT)
    if key in g.warnings:
        raise Refused(f"time_warning: {key} already given", Code.ALREADY_GIVEN)
    g.warnings = (*g.warnings, key)
    g.notes.append(f"{ev.t}: {ev.kind} warning, {ev.remaining_ms // 1000} s left")


@handles(TurnTimeExpired)
def _on_turn_time_expired(g: GameModel, ev: TurnTimeExpired) -> None:
    lim = g.preset.clock.turn_limit_ms
    key = f"turn{g.turn}:expired"
    if lim is None or g.on_move != ev.player or key in g.warnings:
        raise Refused("turn_time_expired: no per-turn limit running for this player", Code.NO_LIMIT)
    if g.clock.running != ev.player or g.clock.turn_used_at(ev.t) < lim:
        raise Refused(f"turn_time_expired: {g.name(ev.player)} has not used {lim // 1000} s yet", Code.TOO_EARLY)
    g.warnings = (*g.warnings, key)
    if g.preset.clock.turn_limit_action == "lose_turn":
        g.close_window()
        g.record("lost_turn", ev.player, 0, note="turn time limit")
        g.scoreless += 1
        g.last_play = None
        next_turn(g, ev.player, ev.t)
    else:
        g.notes.append(f"{ev.t}: {g.name(ev.player)} is over the turn limit")


@handles(OvertimeStarted)
def _on_overtime_started(g: GameModel, ev: OvertimeStarted) -> None:
    rem = g.clock.remaining(ev.player, ev.t)
    if rem is None or rem > 0 or g.overtime_notified[ev.player]:
        raise Refused(f"overtime_started: {g.name(ev.player)} is not (newly) out of time", Code.NOT_OVERTIME)
    g.overtime_notified[ev.player] = True
    if ev.player in g.late and g.preset.clock.late_clock_runs and g.phase == Phase.PLAYING:
        # seed 002 I.F: "if your 25 minutes runs out the game will be awarded to your opponent"
        g.clock.advance(ev.t)
        g.notes.append(f"{ev.t}: {g.name(ev.player)} arrived late and his time ran out: the game is awarded")
        finish(g, ev.t, EndReason.LATE_FORFEIT, unknown_racks(g), None, forfeit=ev.player, as_it_stands=True)
        return
    g.notes.append(f"{ev.t}: {g.name(ev.player)} is in overtime")


@handles(OvertimeCapExceeded)
def _on_overtime_cap(g: GameModel, ev: OvertimeCapExceeded) -> None:
    cap = g.preset.clock.overtime_cap_ms
    rem = g.clock.remaining(ev.player, ev.t)
    if cap is None or rem is None or -rem <= cap:
        raise Refused(f"overtime_cap_exceeded: {g.name(ev.player)} is not past the overtime cap", Code.NOT_OVERTIME)
    g.clock.advance(ev.t)
    if g.phase == Phase.OUTPLAY:
        # the holder's time ran out while deciding on the out-play: not challenging it accepts it (seed 002
        # III.B), so the out-play stands with its rack points; the overtime penalties still apply
        g.notes.append(f"{ev.t}: {g.name(ev.player)} ran past the overtime cap holding the out-play: it stands")
        end_outplay(g, ev.t)
        return
    finish(g, ev.t, EndReason.OVERTIME_CAP, unknown_racks(g), None, forfeit=ev.player)


def session_due(g: GameModel, ev: SessionTimeUp) -> None:
    """Raise :class:`Refused` (too_early) unless the session time is up at ``ev.t`` (downtime not counted)."""
    lim = g.preset.clock.session_limit_ms
    if lim is None or ev.t < g.started_t + g.downtime + lim:
        raise Refused("session_time_up: the session time is not up", Code.TOO_EARLY)


@refusal_for(SessionTimeUp)
def _why_not_session_time_up(g: GameModel, ev: SessionTimeUp) -> NoReturn:
    session_due(g, ev)
    if g.phase == Phase.RACK_ENTRY:
        raise Refused("session_time_up: the game has ended already", Code.WRONG_PHASE)
    why_not_end(g)


@handles(SessionTimeUp)
def _on_session_time_up(g: GameModel, ev: SessionTimeUp) -> None:
    session_due(g, ev)
    end_called(g, ev.t, EndReason.TIME_LIMIT)
