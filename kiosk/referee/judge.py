"""The judge's events (neutralise, resume, adjust, undo, change the rules), the kiosk's restart, and the
lexicon's suggested ruling (:func:`suggest_ruling`).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import replace
from typing import NoReturn

from kiosk.referee import endgame
from kiosk.referee.clock import ChessClock
from kiosk.referee.ending import finish, unknown_racks
from kiosk.referee.events import (
    ChallengeRuled,
    ClockNeutralised,
    ClockResumed,
    JudgeAdjustment,
    KioskResumed,
    LateArrival,
    MoveUndone,
    PresetChanged,
    TimeAdded,
)
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.model import GameModel, Refused, handles, refusal_for
from kiosk.referee.phase import Phase
from kiosk.referee.presets import PresetError, preset_from_dict
from kiosk.rules.counts import counted


def suggest_ruling(g: GameModel | None, lexicon: Container[str], t: int) -> ChallengeRuled | None:
    """The ruling ``lexicon`` suggests at ``t`` ms for the open challenge (for the judge to confirm), or None.

    ``lexicon`` supports ``word in lexicon`` (upper-case words). A first play off the centre under a
    preset with ``off_centre_challengeable`` is unacceptable regardless of its words.
    """
    if g is None or g.phase != Phase.CHALLENGED or g.last_play is None:
        return None
    bad = tuple(w for w in g.challenge.words if w.upper() not in lexicon)
    off = g.last_play.off_centre_first and g.preset.challenge.off_centre_challengeable and g.challenge.by is not None
    return ChallengeRuled(t=t, acceptable=not bad and not off, invalid=bad)


@handles(ClockNeutralised)
def _on_clock_neutralised(g: GameModel, ev: ClockNeutralised) -> None:
    if g.neutralised:
        raise Refused(f"clock_neutralised: already neutralised ({g.neutralised})", Code.NEUTRALISED)
    if not ev.reason.strip():
        raise Refused("clock_neutralised: give a reason (judge call, recount ...)", Code.NO_REASON)
    g.neutralised = ev.reason
    g.clock.stop(ev.t)


@handles(ClockResumed)
def _on_clock_resumed(g: GameModel, ev: ClockResumed) -> None:
    if not g.neutralised:
        raise Refused("clock_resumed: the clock is not neutralised", Code.NOT_NEUTRALISED)
    g.neutralised = ""
    assert g.on_move is not None
    # the clock that ran when it stopped: after a press awaiting its reading, the opponent's (the press started it)
    pressed = g.pending.pressed_at is not None and g.phase == Phase.PLAYING
    g.clock.start(g.nxt(g.on_move) if pressed else g.on_move, ev.t, new_turn=False)
    after = g.preset.challenge.after_neutral_ms
    if after is not None and g.window.open and g.window.until is not None:
        g.window.until = max(g.window.until, ev.t + after)  # seed 002 II.P: five seconds after returning


@handles(JudgeAdjustment)
def _on_judge_adjustment(g: GameModel, ev: JudgeAdjustment) -> None:
    if not ev.reason.strip():
        raise Refused("judge_adjustment: give a reason", Code.NO_REASON)
    if ev.points == 0:
        raise Refused("judge_adjustment: 0 points changes nothing", Code.NO_POINTS)
    g.record("judge", ev.player, ev.points, note=ev.reason)
    r = g.result
    if g.phase == Phase.OVER and r is not None:  # a scoring error corrected after the end (seed 002 III.E/F)
        final = tuple(s + (ev.points if i == ev.player else 0) for i, s in enumerate(r.final))
        before = tuple(s + (ev.points if i == ev.player else 0) for i, s in enumerate(r.before_racks))
        g.result = replace(r, final=final, before_racks=before,
                           wins=endgame.win_credit(g.preset, final, before, r.forfeit))


@handles(MoveUndone)
def _undo_turn(current: GameModel, ev: MoveUndone) -> GameModel:
    """The judge takes back the last turn (:class:`MoveUndone`): the game returns to how it stood before that
    turn's first event; the clocks keep the time used so far and the mover's time runs again from ``ev.t``.

    From the end of a game a judge's decision ended (resigned, called, stopped: ``end_start``), only that
    decision is taken back: the game goes on as it stood just before it, its time from the end to the undo
    charged to nobody. Either way the judge's own score adjustments made since stay (his decisions, journaled
    apart; he adjusts again to take one back), as do the extra time he gave and the notes."""
    if not ev.reason.strip():
        raise Refused("move_undone: give a reason", Code.NO_REASON)
    ending = current.end_start if current.phase in (Phase.RACK_ENTRY, Phase.OVER) else None
    base = ending if ending is not None else current.turn_start
    if base is None:
        raise Refused("move_undone: no turn to take back", Code.NOTHING_TO_UNDO)
    g = base.copy()
    g.clock = _clock_after_undo(current, base, ev.t, ending is not None)
    kept = [h for h in current.history[len(base.history):] if h.kind == "judge"]
    taken = [h for h in current.history[len(base.history):] if h.kind != "judge"]
    for h in kept:
        g.record("judge", h.player, h.points, note=h.note)
    if ending is not None:
        _shift_windows(g, ev.t - current.ended_t)
        what = f"the end of the game ({current.end_reason or (current.result.reason if current.result else '?')})"
    else:
        what = ", ".join(f"{h.kind} by {current.players[h.player]} ({h.points:+d})" for h in taken) or \
            "a clock press not yet scored"
    g.notes = list(current.notes) + [f"{ev.t}: judge took back {what}: {ev.reason.strip()}"]
    g.downtime = current.downtime
    g.overtime_notified = list(current.overtime_notified)
    for p, used in enumerate(g.clock.used):   # a press taken back gave the opponent time back (_clock_after_undo)
        if used < current.clock.used[p] and (g.clock.remaining(p, ev.t) or 0) > 0:
            g.overtime_notified[p] = False
    g.end_start = None
    g.last_t = ev.t
    return g


def _clock_after_undo(current: GameModel, base: GameModel, t: int, ending: bool) -> ChessClock:
    """The clock after an undo at ``t`` ms back to ``base``: the time used so far stays; the time that ran in
    ``base`` runs again from ``t`` (an undone ending: whoever's ran then; an undone turn: the mover's, unless the
    clock was neutralised). A clock press not yet scored that is taken back alone gives the presser the time the
    opponent's clock ran since it, as :class:`PressWithdrawn` does (the turn never ended)."""
    clock = current.clock.copy()
    moved = 0
    presser = current.on_move
    if not ending and current.pending.pressed_at is not None and presser is not None:   # (the turn is the press)
        clock.advance(t)
        moved = clock.turn_used   # the opponent's since the press (his clock ran, stopped or not, in this stretch)
        clock.used[current.nxt(presser)] -= moved
        clock.used[presser] += moved
    runs = base.clock.running if ending else (base.on_move if not base.neutralised else None)
    if runs is not None:
        clock.start(runs, t, new_turn=False)
    else:
        clock.stop(t)
    if not ending:
        pressed = current.pending.pressed_at
        in_turn = base.clock.turn_used_at(pressed) if moved and pressed is not None and \
            base.clock.running == presser else base.clock.turn_used
        clock.turn_used = in_turn + moved
    return clock


def _shift_windows(g: GameModel, stood: int) -> None:
    """The game stood over for ``stood`` ms before the judge's undo reopened it: the hold or challenge window and
    a hold open then lose none of their time (charged to nobody, as a restart's downtime)."""
    if g.window.until is not None:
        g.window.until += stood
    if g.hold.since is not None:
        g.hold.since += stood


@refusal_for(PresetChanged)
def _why_not_preset_changed(g: GameModel, ev: PresetChanged) -> NoReturn:
    raise Refused("preset_changed: the rules can change only before the first move", Code.GAME_UNDER_WAY)


@handles(PresetChanged)
def _on_preset_changed(g: GameModel, ev: PresetChanged) -> GameModel:
    """The game starts afresh under the new rules; players, first player, time used and notes stay."""
    if g.history or g.turn_start is not None or g.pending.pressed_at is not None:
        _why_not_preset_changed(g, ev)
    try:
        preset = preset_from_dict(ev.preset)
        preset.scoring_rules()
    except (PresetError, ValueError, TypeError) as exc:
        raise Refused(f"preset_changed: bad preset: {exc}", Code.BAD_PRESET) from None
    if preset.tile_set != g.tile_set.name:
        raise Refused(f"preset_changed: '{preset.name}' uses the {preset.tile_set} tiles, this game the "
                      f"{g.tile_set.name} tiles: start a new game", Code.BAD_PRESET)
    if not preset.min_players <= g.n <= preset.max_players:
        raise Refused(f"preset_changed: '{preset.name}' is for {preset.seats}", Code.BAD_PLAYERS)
    fresh = GameModel.fresh(preset, g.tile_set, g.players, g.started_t)
    fresh.on_move = g.on_move
    fresh.clock = g.clock.copy()  # the time used so far stays; the new rules' game time applies
    fresh.clock.game_ms = preset.clock.game_ms if g.n == 2 else None
    fresh.notes = list(g.notes) + [f"{ev.t}: judge changed the rules to '{preset.name}'"
                                   + (f": {ev.reason.strip()}" if ev.reason.strip() else "")]
    fresh.downtime = g.downtime
    fresh.late = g.late
    return fresh


@refusal_for(LateArrival)
def _why_not_late_arrival(g: GameModel, ev: LateArrival) -> NoReturn:
    raise Refused("late_arrival: a late arrival is told before the first move", Code.GAME_UNDER_WAY)


@handles(LateArrival)
def _on_late_arrival(g: GameModel, ev: LateArrival) -> None:
    """Seed 000 rule 19 (points per three minutes, forfeit after 15) and 002 I.F (the time off his clock)."""
    if ev.player in g.late:
        raise Refused(f"late_arrival: {g.name(ev.player)}'s late arrival is recorded already", Code.ALREADY_GIVEN)
    if any(h.kind != "judge" for h in g.history) or g.turn_start is not None or g.pending.pressed_at is not None:
        _why_not_late_arrival(g, ev)
    if ev.late_ms <= 0:
        raise Refused("late_arrival: late_ms must be more than 0 ms", Code.BAD_EVENT)
    clk = g.preset.clock
    g.late = (*g.late, ev.player)
    mins = ev.late_ms / 60_000
    g.notes.append(f"{ev.t}: {g.name(ev.player)} arrived {mins:.1f} minutes late")
    if clk.late_forfeit_ms is not None and ev.late_ms >= clk.late_forfeit_ms:
        finish(g, ev.t, EndReason.LATE_FORFEIT, unknown_racks(g), None, forfeit=ev.player, as_it_stands=True)
        return
    units = ev.late_ms // clk.late_penalty_unit_ms
    if clk.late_penalty_points and units:
        # a judge's line of the scoresheet (seed 000 rule 19), so every reader of the history counts it
        g.record("judge", ev.player, -clk.late_penalty_points * units,
                 note=f"late arrival: {mins:.1f} minutes late, -{clk.late_penalty_points} per "
                      f"{counted(clk.late_penalty_unit_ms // 60_000, 'minute')} (seed 000 rule 19)")
    if clk.late_clock_runs and g.clock.game_ms is not None:
        g.clock.used[ev.player] += ev.late_ms
        if g.clock.remaining(ev.player, ev.t) is not None and (g.clock.remaining(ev.player, ev.t) or 0) <= 0:
            finish(g, ev.t, EndReason.LATE_FORFEIT, unknown_racks(g), None, forfeit=ev.player, as_it_stands=True)


@handles(TimeAdded)
def _on_time_added(g: GameModel, ev: TimeAdded) -> None:
    """Seed 002 II.F / II.O: the director gives a player an extra minute of playing time."""
    if g.clock.game_ms is None:
        raise Refused("time_added: this game has no chess clock", Code.NO_LIMIT)
    if ev.added_ms <= 0:
        raise Refused("time_added: added_ms must be more than 0 ms", Code.BAD_EVENT)
    if not ev.reason.strip():
        raise Refused("time_added: give a reason (e.g. 'three timely objections')", Code.NO_REASON)
    g.clock.advance(ev.t)
    g.clock.used[ev.player] -= ev.added_ms
    rem = g.clock.remaining(ev.player, ev.t)
    if rem is not None and rem > 0:
        g.overtime_notified[ev.player] = False  # back in time: overtime starts again when it runs out
    g.notes.append(f"{ev.t}: judge gave {g.name(ev.player)} {ev.added_ms // 1000} s more: {ev.reason.strip()}")


@handles(KioskResumed)
def _on_kiosk_resumed(g: GameModel, ev: KioskResumed) -> None:
    if not g.last_t <= ev.down_since <= ev.t:
        raise Refused(f"kiosk_resumed: down_since {ev.down_since} ms must lie between the last event "
                      f"({g.last_t} ms) and now ({ev.t} ms)", Code.TIME_ORDER)
    down = ev.t - ev.down_since
    g.clock.advance(ev.down_since)
    g.clock.skip(ev.t)
    g.downtime += down
    if g.window.until is not None:
        g.window.until += down
    if g.hold.since is not None:
        g.hold.since += down
    g.notes.append(f"{ev.t}: kiosk resumed after {down} ms down (charged to nobody)")
