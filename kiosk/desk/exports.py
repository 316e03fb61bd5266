"""Exports of the stored results: results.json rows, results.csv, tsh ``.t`` text per division, round zips."""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

from kiosk.desk.event import EventConfig, name_key
from kiosk.desk.store import Result
from kiosk.desk.tsh import Game, TshError, blank_t, merge_round, read_t, render_t
from kiosk.stream.files import safe_name

#: the columns of results.csv for two-player games; with 3-4 players: player3, score3 ... and spread1..spreadN,
#: win1..winN. winN: the referee's verdict (1 won, 0.5 a draw, 0 lost; empty when not recorded), which may differ
#: from the scores: a tie on points broken before the rack adjustment, a forfeit
CSV_FIELDS = ["round", "division", "board", "game_id", "player1", "score1", "player2", "score2", "spread",
              "win1", "win2", "corrected", "gcg"]
#: what a spreadsheet takes for a formula at the start of a cell (OWASP "CSV injection"), tab and CR included
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def gcg_path(r: Result) -> str:
    """The desk's URL path of a game's GCG (relative to the server root)."""
    return f"games/{r.board}/{safe_name(r.game_id)}.gcg"


def result_row(r: Result, base: str = "/") -> dict[str, Any]:
    """``{"round", "board", "division", "players": [{"name", "score", "win"}], "game_id", "gcg": URL}`` plus
    ``corrected``, ``preset`` and ``replaced_at``; ``win``: the referee's win credit (1, 0.5, 0; null when not
    recorded); ``replaced_at``: when the director took another version of the game (ms since the epoch, desk
    clock), or null."""
    wins = r.wins if len(r.wins) == len(r.players) else (None,) * len(r.players)
    return {"round": r.round, "board": r.board, "division": r.division,
            "players": [{"name": n, "score": s, "win": w} for (n, s), w in zip(r.players, wins)],
            "game_id": r.game_id,
            "gcg": base + gcg_path(r), "corrected": r.corrected, "preset": r.preset, "replaced_at": r.replaced_ts}


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting with ``= + - @``, a tab or a carriage return gets a
    single quote in front (OWASP's advice against CSV injection), so ``=HYPERLINK(...)`` is no formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def _spreads(scores: tuple[int, ...]) -> list[int]:
    """Each player's spread as the kiosk's result file has it: the score minus the best other score."""
    return [s - max((o for j, o in enumerate(scores) if j != i), default=0) for i, s in enumerate(scores)]


def results_csv(results: list[Result], base: str = "/") -> str:
    """One CSV line per finished game. Two-player games only: the columns of :data:`CSV_FIELDS` (``spread`` =
    score1 - score2). With a 3-4 player game among them every player has a name and score column
    (``player1, score1 ... playerN, scoreN``) and a spread each (``spread1 ... spreadN``: the player's score minus
    the best other score, as in the kiosk's result file: the winner's margin, the others' distance from the top);
    a game of fewer players leaves its extra cells empty; then ``win1 ... winN`` (the referee's verdict). Text cells are made safe for spreadsheets
    (:func:`csv_cell`)."""
    n = max([2, *(len(r.players) for r in results)])
    header = ["round", "division", "board", "game_id"]
    for i in range(1, n + 1):
        header += [f"player{i}", f"score{i}"]
    header += ["spread"] if n == 2 else [f"spread{i}" for i in range(1, n + 1)]
    header += [f"win{i}" for i in range(1, n + 1)]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header + ["corrected", "gcg"])
    for r in results:
        players: list[tuple[str, int | str]] = [(csv_cell(name), score) for name, score in r.players]
        players += [("", "")] * (n - len(players))
        spreads: list[int | str] = list(_spreads(r.scores))
        spreads = spreads[:1] if n == 2 else spreads + [""] * (n - len(spreads))
        wins = [f"{x:g}" for x in r.wins] if len(r.wins) == len(r.players) else [""] * len(r.players)
        w.writerow([r.round if r.round is not None else "", csv_cell(r.division or ""), r.board,
                    csv_cell(r.game_id), *(x for p in players for x in p), *spreads,
                    *wins, *[""] * (n - len(wins)), int(r.corrected), csv_cell(base + gcg_path(r))])
    return buf.getvalue()


def round_zip(results: list[Result]) -> bytes:
    """A zip of the GCG of every given game: ``round{R}/board{N}-{game_id}.gcg``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for r in results:
            z.writestr(f"round{r.round}/board{r.board}-{safe_name(r.game_id)}.gcg", r.gcg)
    return buf.getvalue()


def tsh_games(config: EventConfig, division: str, rnd: int, results: list[Result]) -> list[Game]:
    """The two-player results of ``division`` in round ``rnd`` as tsh games (player numbers from the event).
    Raises :class:`TshError` for a player the event does not know."""
    out = []
    for r in results:
        if r.round != rnd or r.division != division or len(r.players) != 2:
            continue
        nums = []
        for name, _ in r.players:
            p = config.player(name)
            if p is None or p.division != division:
                raise TshError(f"round {rnd} board {r.board}: {name!r} is not a player of division {division}")
            nums.append(p.number)
        out.append(Game(nums[0], r.players[0][1], nums[1], r.players[1][1], r.board, a_first=True))
    return out


def tsh_hidden_verdicts(division: str, results: list[Result], rnd: int | None = None) -> list[str]:
    """A sentence for each two-player game of ``division`` (rounds up to ``rnd``, or every round) whose verdict its
    scores do not show: a ``.t`` holds scores only, so tsh takes such a game the other way (a tie on points the
    referee broke before the rack adjustment: a draw in tsh; a forfeit with the more points: a win)."""
    out = []
    for r in results:
        if r.division != division or not r.round or (rnd is not None and r.round > rnd) or len(r.players) != 2 \
                or len(r.wins) != 2:
            continue
        (a, sa), (b, sb) = r.players
        by_points = (sa > sb) - (sa < sb)
        by_verdict = (r.wins[0] > r.wins[1]) - (r.wins[0] < r.wins[1])
        if by_points != by_verdict:
            verdict = "a draw" if by_verdict == 0 else f"won by {a if by_verdict > 0 else b}"
            out.append(f"division {division} round {r.round} board {r.board}: {a} {sa} - {b} {sb} was {verdict} "
                       "at the table, which the .t cannot show (tsh decides by the scores): correct it in tsh")
    return out


def tsh_text(config: EventConfig, division: str, results: list[Result], rnd: int | None = None) -> str:
    """The division's ``.t`` text with round ``rnd`` merged (or every round that has results, in order) into a
    copy of its tfile, or into a fresh file of its players (then with every round played up to ``rnd``: the
    file has none). A player without a game in a merged round has a bye there only if that round has results
    (a round nobody has finished is no round of byes). (:meth:`EventConfig.byes_in`). Raises
    :class:`TshError`, KeyError for an unknown division."""
    div = config.divisions[division]
    fresh = div.tfile is None
    lines = read_t(div.tfile) if div.tfile is not None else blank_t(div)
    path = str(div.tfile or f"division {division}")
    played = sorted({r.round for r in results if r.division == division and r.round})
    if fresh:   # the desk's own file holds no round: every round played up to ``rnd`` goes in
        rounds = [n for n in played if rnd is None or n < rnd] + ([rnd] if rnd is not None else [])
    else:
        rounds = played if rnd is None else [rnd]
    for n in rounds:
        games = tsh_games(config, division, n, results)
        seen = {name_key(p.name) for p in div.players if p.number in {x for g in games for x in (g.a, g.b)}}
        byes = [(p.number, spread) for p, spread in config.byes_in(division, n, seen)]
        lines = merge_round(lines, n, games, div, path, byes, fresh)
    return render_t(lines)
