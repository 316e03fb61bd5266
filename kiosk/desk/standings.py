"""Standings per division from the stored results: wins (a tie counts half), losses, spread (points) and the
number of the division's games still running."""

from __future__ import annotations

from dataclasses import dataclass

from kiosk.desk.event import EventConfig, name_key
from kiosk.desk.store import Result


@dataclass
class Standing:
    """One player's line. ``wins``/``losses`` count ties as 0.5 each; ``spread`` = points for minus against."""

    name: str
    number: int
    rating: int
    wins: float = 0.0
    losses: float = 0.0
    spread: int = 0
    games: int = 0


def standings(config: EventConfig, results: list[Result], running: dict[str, int]) -> dict[str, dict]:
    """``{division: {"players": [Standing as dict, best first], "running": n}}``.

    Args:
        results: finished games (only those with a division count; a 3-4 player game counts each pair).
            Who won is the referee's verdict (:attr:`Result.wins`: its preset's tie rule, a forfeit), not a
            comparison of the finals: a tie on points broken before the rack adjustment is a win and a loss.
        running: games still running per division.
    A bye (:meth:`EventConfig.byes_in`, in a round the division has results of) counts its spread: a win when
    above 0, a loss below, half each at 0.
    Order: wins, then spread, then rating, then name.
    """
    table: dict[str, dict[str, Standing]] = {
        d.name: {name_key(p.name): Standing(p.name, p.number, p.rating) for p in d.players}
        for d in config.divisions.values()}
    for r in results:
        rows = table.get(r.division or "")
        if rows is not None:
            _count(rows, r)
    for div, rows in table.items():   # byes, as the .t export writes them: in the rounds with results
        for n in sorted({r.round for r in results if r.division == div and r.round}):
            played = {name_key(name) for r in results if r.division == div and r.round == n for name, _ in r.players}
            for p, spread in config.byes_in(div, n, played):
                me = rows[name_key(p.name)]
                me.games += 1
                me.spread += spread
                me.wins += 1 if spread > 0 else 0.5 if spread == 0 else 0
                me.losses += 1 if spread < 0 else 0.5 if spread == 0 else 0
    out: dict[str, dict] = {}
    for div, rows in table.items():
        ordered = sorted(rows.values(), key=lambda s: (-s.wins, -s.spread, -s.rating, s.name))
        out[div] = {"players": [vars(s) for s in ordered], "running": running.get(div, 0)}
    return out


def _count(rows: dict[str, Standing], r: Result) -> None:
    """Add one game to its players' lines. Each pair of players is one game between them: the one with more win
    credit (the referee's :attr:`Result.wins`) wins it, equal credit is half each - except that two players
    without credit in a 3-4 player game are told apart by their finals. Without the credit (a result stored by
    an earlier desk) the finals decide, a tie half each."""
    credit = r.wins if len(r.wins) == len(r.players) else tuple(float(s) for s in r.scores)
    multi = len(r.players) > 2 and len(r.wins) == len(r.players)
    for i, (name, score) in enumerate(r.players):
        me = rows.get(name_key(name))
        if me is None:
            continue
        for j, (_, other) in enumerate(r.players):
            if i == j:
                continue
            me.games += 1
            me.spread += score - other
            mine, theirs = credit[i], credit[j]
            if multi and mine == theirs == 0:
                mine, theirs = score, other
            if mine > theirs:
                me.wins += 1
            elif mine < theirs:
                me.losses += 1
            else:
                me.wins += 0.5
                me.losses += 0.5
