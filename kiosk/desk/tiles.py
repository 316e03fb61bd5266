"""The desk page's view of one board (JSON-ready): its tile (names, scores, miniature board, clock, whose turn,
flags, final) and its full detail (the tile plus the stream snapshot of its game and the other versions of its
games waiting for the director)."""

from __future__ import annotations

from typing import Any

from kiosk.desk.event import EventConfig
from kiosk.desk.games import Table
from kiosk.desk.versions import summary
from kiosk.referee.state import CHALLENGED, NOT_STARTED, OVER
from kiosk.stream.snapshot import board_rows, snapshot, turn_text


def tile(t: Table, config: EventConfig | None) -> dict[str, Any]:
    """The desk page's tile of a board (JSON-ready): names, scores, miniature board, clock, whose turn, move
    number, flags, final, ``corrected`` and ``replaced_at`` (desk wall ms the director took another version of the
    game, or None). Clock: ``remaining_ms`` per player at ``clock_wall`` (desk wall ms). ``config``: the event (a
    game it cannot pair is flagged unpaired) or None."""
    g = t.game
    out: dict[str, Any] = {"board": t.board, "online": t.online, "version": t.version,
                           "flags": _flags(t, config), "game_id": g.game_id if g else None}
    if g is None or not g.applied:
        out.update(phase=NOT_STARTED, players=[], scores=[], rows=None)
        return out
    s = g.ref.state
    p = g.pairing
    out.update(
        phase=s.phase, players=list(s.players), scores=list(s.scores), on_move=s.on_move, rows=board_rows(s.board),
        move=len(s.history), last_move=turn_text(s.players, s.history[-1]) if s.history else "",
        round=p.round if p else None, division=p.division if p else None, ts=g.last_ts,
        final=list(s.result.final) if s.result and s.phase == OVER else None, corrected=g.corrected,
        replaced_at=g.replaced_at,
        clock=t.clock, clock_wall=t.clock_wall)
    if t.clock is None and s.clock is not None:  # before the first tick: the clock as of the last event
        out["clock"] = {"running": None, "remaining_ms": None if s.clock.game_ms is None else
                        [s.clock.remaining_ms(i, s.clock.at_ms) for i in range(len(s.players))]}
    return out


def _flags(t: Table, config: EventConfig | None) -> dict[str, Any]:
    g = t.game
    s = g.ref.state if g is not None and g.applied else None
    return {
        "judge_called": bool(t.flags.get("judge_called")),
        "challenge": bool(s is not None and (s.phase == CHALLENGED or s.hold_by is not None)),
        "offline": t.online is False,
        "degraded": sorted(k for k, v in t.flags.get("devices", {}).items() if v in ("degraded", "down")),
        "journal": t.flags.get("journal"),
        "waiting": bool(g is not None and g.waiting),
        "unpaired": bool(g is not None and s is not None and s.players and config is not None
                         and g.pairing is None),
        "other_version": any(x.other is not None for x in t.games()),   # of any of its games in memory
    }


def detail(t: Table, config: EventConfig | None) -> dict[str, Any]:
    """The full live view of a board: the stream snapshot of its game (board, history, unseen, ...) plus the
    tile fields, and ``other_versions``: the other version waiting for the director of each of its games
    (:func:`kiosk.desk.versions.summary`)."""
    out = tile(t, config)
    if t.game is not None and t.game.applied:
        out["state"] = snapshot(t.game.ref.state)
    out["other_versions"] = [summary(g, g.other) for g in t.games() if g.other is not None]
    return out
