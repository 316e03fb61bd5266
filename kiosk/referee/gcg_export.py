"""GCG export of a refereed game (written with :mod:`kiosk.rules.gcg`, read back by ``kiosk replay``).

Lines written from the referee's history: plays, passes (a turn lost to a failed challenge or the turn limit
is a pass), exchanges (``-N``: the kiosk knows only the count), withdrawn phonies (``--``), challenge bonuses
(``(challenge)``), end-of-game rack points (out player's ``(RACK) +N``; each player's own-rack ``-N``) and
overtime penalties (``(time)``). The camera cannot see racks, so the rack field is left out where the
referee does not know it (the GCG spec allows it; ``kiosk replay`` accepts it).

Every line counts in the GCG running totals, so the file's last totals are the kiosk's result
(``docs/gcg_export.md``): a challenge penalty (``team``: the challenger of a good play, or the side whose
play came off) is a ``(challenge)`` line with a negative score on the penalised player, right after the
challenge's other lines; a judge's adjustment, which GCG has no line for, is the kiosk's ``(adjust)`` line
with the reason as its note. ``kiosk replay`` reads both. Holds, courtesy draws and rulings are notes.
"""

from __future__ import annotations

import re

from kiosk.referee.state import GameState, TurnRecord
from kiosk.rules.board import parse_coordinate
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame, Player, write_gcg


def _nicks(names: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for i, name in enumerate(names):
        nick = re.sub(r"[^\w]", "_", name.strip()) or f"p{i + 1}"
        while nick in out:
            nick += f"_{i + 1}"
        out.append(nick)
    return out


def to_gcg_game(state: GameState, *, lexicon: str | None = None, title: str | None = None) -> GcgGame:
    """The refereed game (a :class:`GameState`, e.g. ``Referee.state``) as a :class:`GcgGame`.

    Raises:
        ValueError: the game has not started.
    """
    if not state.players:
        raise ValueError("no game to export: the game has not started")
    nicks = _nicks(state.players)
    game = GcgGame(name=title or "kiosk game", players=[Player(n, name) for n, name in zip(nicks, state.players)])
    if title:
        game.pragmas["title"] = [title]
    if lexicon:
        game.pragmas["lexicon"] = [lexicon]
    game.pragmas["description"] = [f"refereed by the kiosk under preset {state.preset}"]
    # the judge's undos and rules changes (GCG has no line for them): notes at the top, with their times
    # and why a game ended without its racks or was timed differently (resigned, stopped as it stands, late)
    told = (": judge ", " resigned", "stopped the game", "minutes late", "time ran out")
    game.notes += [n for n in state.notes if any(k in n for k in told)]
    totals = [0] * len(state.players)
    for rec in state.history:
        totals[rec.player] += rec.points
        game.events.append(_history_line(state, rec, nicks[rec.player], totals[rec.player]))
    if state.result is None:
        game.incomplete = True
    return game


def _history_line(state: GameState, rec: TurnRecord, nick: str, total: int) -> GcgEvent:
    """One line of the game's history (a :class:`TurnRecord`) as a GCG event of ``nick`` with ``total`` points.

    Raises:
        ValueError: a history kind the export does not know.
    """
    p = rec.player
    kind = rec.kind
    ev: GcgEvent
    if kind == "play":
        lp = rec.play
        assert lp is not None
        ev = GcgEvent(EventKind.PLAY, nick, score=rec.points, cumulative=total,
                      coordinate=parse_coordinate(lp.coordinate), word=lp.word)
        if rec.note:  # the judge entered or corrected its tiles
            ev.notes.append(f"{state.players[p]}'s {rec.note}")
    elif kind in ("pass", "lost_turn"):
        ev = GcgEvent(EventKind.PASS, nick, score=0, cumulative=total)
        if kind == "lost_turn":
            ev.notes.append(f"{state.players[p]} loses this turn ({rec.note})")
    elif kind == "exchange":
        ev = GcgEvent(EventKind.EXCHANGE, nick, score=0, cumulative=total, count=rec.count)
    elif kind == "withdrawn":
        ev = GcgEvent(EventKind.WITHDRAWN, nick, score=rec.points, cumulative=total)
    elif kind in ("challenge_bonus", "challenge_penalty", "phony_penalty"):
        ev = GcgEvent(EventKind.CHALLENGE_BONUS, nick, score=rec.points, cumulative=total)
        if kind != "challenge_bonus":
            what = "a failed challenge" if kind == "challenge_penalty" else "a play challenged off"
            ev.notes.append(f"{state.players[p]} {rec.points:+d}: penalty for {what}")
    elif kind == "judge":
        ev = GcgEvent(EventKind.ADJUSTMENT, nick, score=rec.points, cumulative=total)
        ev.notes.append(f"judge adjustment: {rec.note}")
    elif kind == "end_rack":
        ev = GcgEvent(EventKind.END_RACK, nick, score=rec.points, cumulative=total, tiles=rec.rack)
    elif kind == "own_rack":
        ev = GcgEvent(EventKind.END_RACK, nick, rack=rec.rack, score=rec.points, cumulative=total,
                      tiles=rec.rack)
    elif kind == "time_penalty":
        ev = GcgEvent(EventKind.TIME_PENALTY, nick, score=rec.points, cumulative=total)
    else:  # pragma: no cover - every history kind is handled above
        raise ValueError(f"unknown history line {kind}")
    return ev


def export_gcg(state: GameState, *, lexicon: str | None = None, title: str | None = None) -> str:
    """GCG text of the refereed game (UTF-8, LF). See :func:`to_gcg_game`."""
    return write_gcg(to_gcg_game(state, lexicon=lexicon, title=title))
