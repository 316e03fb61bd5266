"""How a game ends: the scoreless run, the out-play, a called game, entered racks, the final result."""

from __future__ import annotations

from typing import NoReturn

from kiosk.referee import endgame
from kiosk.referee.events import Event, GameCalled, LateArrival, RacksEntered, Resigned
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.model import GameModel, Refused, handles, refusal_for
from kiosk.referee.phase import Phase
from kiosk.referee.state import GameResult

ENDED = frozenset({Phase.RACK_ENTRY, Phase.OVER})
"""The phases of a game that has ended (its racks still to enter, or its result standing)."""
DECISIONS = (GameCalled, Resigned, LateArrival)
"""The judge's and the director's events that may end a game: not a move of the players' and not the clock."""


def ended_by_decision(before: GameModel, ev: Event, after: GameModel) -> bool:
    """True when ``ev``, a judge's or director's decision (:data:`DECISIONS`), ended the game ``before`` was
    still playing: the judge's undo from the end (:class:`~kiosk.referee.events.MoveUndone`) takes back that
    decision alone, never the move before it."""
    return isinstance(ev, DECISIONS) and before.phase not in ENDED and after.phase in ENDED


def scoreless_end(g: GameModel) -> bool:
    """True when the run of scoreless turns ends the game (the preset's ``end.scoreless_turns``)."""
    n = g.preset.end.scoreless_turns
    if n is None or g.scoreless < n:
        return False
    return not (g.preset.end.scoreless_needs_nonzero and all(s == 0 for s in g.scores))


def end_without_out(g: GameModel, t: int, reason: EndReason) -> None:
    """The game ends at ``t`` ms without an out-play: the clock stops and players enter their racks (RACK_ENTRY)."""
    g.close_window()
    g.clock.stop(t)
    g.phase = Phase.RACK_ENTRY
    g.end_reason = reason
    g.went_out = None
    g.on_move = None


def unknown_racks(g: GameModel) -> tuple[str, ...]:
    """Empty racks for every player (a game lost by rule ends without entered racks)."""
    return ("",) * g.n


def finish(g: GameModel, t: int, reason: EndReason, racks: tuple[str, ...], went_out: int | None,
            forfeit: int | None = None, *, as_it_stands: bool = False) -> None:
    """End the game: rack adjustments, overtime penalties, win credit; phase OVER. ``as_it_stands``: no
    rack adjustment and no overtime penalty (the director stopped the game, seed 002 III.G)."""
    g.close_window()
    g.clock.stop(t)
    p = g.preset
    values = [g.tile_set.rack_value(r) for r in racks]
    adj = [0] * g.n if forfeit is not None or as_it_stands else endgame.rack_adjustments(p, values, went_out)
    before = tuple(g.scores)
    # rack lines are written even when worth 0, so that a record's end (and any time penalty after it) is complete
    if forfeit is None and went_out is not None:
        rule = p.end.out_adjustment
        if rule in ("standard", "double"):
            others = "".join(r for j, r in enumerate(racks) if j != went_out)
            g.record("end_rack", went_out, adj[went_out], rack=others)
        if rule in ("standard", "own_only"):
            for i in range(g.n):
                if i != went_out:
                    g.record("own_rack", i, adj[i], rack=racks[i])
    elif forfeit is None and not as_it_stands and p.end.no_out_adjustment == "own_rack":
        for i in range(g.n):
            g.record("own_rack", i, adj[i], rack=racks[i])
    pen = [0] * g.n if as_it_stands else endgame.time_penalties(p, g.clock.used)
    for i in range(g.n):
        if pen[i]:
            g.record("time_penalty", i, -pen[i], note=f"{g.clock.used[i] - (p.clock.game_ms or 0)} ms overtime")
    final = tuple(g.scores)
    wins = endgame.win_credit(p, final, before, forfeit)
    g.result = GameResult(reason, final, before, tuple(adj), tuple(pen), racks, wins, went_out, forfeit)
    g.phase = Phase.OVER
    g.on_move = None
    g.neutralised = ""


def end_outplay(g: GameModel, t: int) -> None:
    """The out-play stands at ``t`` ms: with two players the opponent's rack is known and the game is OVER; with
    more, the others enter their racks (RACK_ENTRY)."""
    lp = g.last_play
    assert lp is not None
    g.window.open = False
    g.hold.by = None
    if g.n == 2:
        opp = endgame.rack_string(g.unseen())
        racks = ("", opp) if lp.player == 0 else (opp, "")
        finish(g, t, EndReason.OUT_PLAY, racks, lp.player)
    else:
        g.clock.stop(t)
        g.phase = Phase.RACK_ENTRY
        g.end_reason = EndReason.OUT_PLAY
        g.went_out = lp.player
        g.on_move = None


def end_called(g: GameModel, t: int, reason: EndReason) -> None:
    """The game is ended at ``t`` ms for ``reason`` (called, time limit): an open out-play stands, tiles of a
    withdrawn play need not come off."""
    if g.phase == Phase.OUTPLAY:
        end_outplay(g, t)
        return
    if g.phase == Phase.REMOVING:
        g.removing = ()
    end_without_out(g, t, reason)


def why_not_end(g: GameModel) -> NoReturn:
    """The game cannot be ended in the middle of a blank designation or a challenge."""
    raise Refused(f"finish the {g.phase} step before ending the game", Code.WRONG_PHASE)


@refusal_for(GameCalled)
def _why_not_game_called(g: GameModel, ev: GameCalled) -> NoReturn:
    game_call_reason(ev)
    why_not_end(g)


def game_call_reason(ev: GameCalled) -> None:
    """Raise :class:`Refused` (no_reason) when the call gives no reason."""
    if not ev.reason.strip():
        raise Refused("game_called: give a reason (e.g. 'no plays possible', 'time called')", Code.NO_REASON)


@handles(GameCalled)
def _on_game_called(g: GameModel, ev: GameCalled) -> None:
    game_call_reason(ev)
    if ev.as_it_stands and g.phase != Phase.OUTPLAY:  # an out-play on the board ends the game as usual
        g.notes.append(f"{ev.t}: the director stopped the game with the scores as they stand: {ev.reason}")
        finish(g, ev.t, EndReason.STOPPED, unknown_racks(g), None, as_it_stands=True)
        return
    if g.phase == Phase.RACK_ENTRY:
        raise Refused("game_called: the game has ended already; enter the racks (or stop it as it stands)",
                      Code.WRONG_PHASE)
    end_called(g, ev.t, EndReason.CALLED)
    g.notes.append(f"{ev.t}: game called: {ev.reason}")


@handles(Resigned)
def _on_resigned(g: GameModel, ev: Resigned) -> None:
    g.notes.append(f"{ev.t}: {g.name(ev.player)} resigned" + (f": {ev.reason.strip()}" if ev.reason.strip() else ""))
    finish(g, ev.t, EndReason.RESIGNED, unknown_racks(g), None, forfeit=ev.player, as_it_stands=True)


@handles(RacksEntered)
def _on_racks_entered(g: GameModel, ev: RacksEntered) -> None:
    racks = tuple(r.upper().replace(" ", "") for r in ev.racks)
    why = endgame.check_racks(racks, g.racks, g.unseen(), g.bag, g.tile_set, g.players)
    if why:
        raise Refused(f"racks_entered: {why}", Code.BAD_RACKS)
    assert g.end_reason is not None  # set when the game entered RACK_ENTRY
    finish(g, ev.t, g.end_reason, racks, g.went_out)
