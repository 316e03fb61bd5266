"""The referee's scores for a recorded game against the record's own, line by line, as ``kiosk replay`` checks a
record (:class:`~kiosk.rules.replay.ReplayProblem`, kind "mismatch": the line, the recorded and the computed
points).

Each entry of the referee's scoresheet is put on the record line it answers: the line whose events made it,
except the end of the game (rack points on the player's end-rack line, an overtime penalty on his ``(time)``
line: the referee counts them when the game ends, which may be while acting an earlier line) and a phony's
penalty (on the negative ``(challenge)`` line after the withdrawal, where the kiosk's own export writes it).
Then, for each record line, the points the referee gave that line's player there must be the line's score
(a legacy withdrawal line ``-- +0`` gives only its total) and his running total the line's total. After a
difference the comparison goes on from the recorded total, as the replay does, so one wrong line is named once;
the final scores are compared last (an entry with no line of its own: an overtime penalty the record lacks).
"""

from __future__ import annotations

from collections.abc import Sequence

from kiosk.referee.state import TurnRecord
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame
from kiosk.rules.replay import ReplayProblem

END_ENTRIES = {"end_rack": EventKind.END_RACK, "own_rack": EventKind.END_RACK, "time_penalty": EventKind.TIME_PENALTY}
"""Scoresheet entries of the game's end -> the kind of record line that holds them."""

PENALTY_ENTRIES = ("phony_penalty", "challenge_penalty")

LINE_WORDS = {EventKind.PASS: "pass", EventKind.EXCHANGE: "exchange", EventKind.WITHDRAWN: "withdrawn play",
              EventKind.END_RACK: "end-of-game rack points", EventKind.TIME_PENALTY: "overtime penalty",
              EventKind.ADJUSTMENT: "judge's adjustment"}


def _seats(game: GcgGame, nick: str) -> list[int]:
    return [i for i, pl in enumerate(game.players) if pl.nick == nick]


def attribute(game: GcgGame, history: Sequence[TurnRecord], lines: Sequence[int]) -> list[int]:
    """The record line each scoresheet entry answers (see module doc); ``lines``: the line whose events made
    each entry (0: none). An end entry whose player has no such line in the record: 0."""
    out = list(lines)
    for i, h in enumerate(history):
        nicks = game.players[h.player].nick if h.player < len(game.players) else None
        if h.kind in END_ENTRIES:
            out[i] = next((e.line for e in game.events if e.kind is END_ENTRIES[h.kind] and e.nick == nicks), 0)
        elif h.kind in PENALTY_ENTRIES:
            nxt = next((e for e in game.events if e.line > lines[i]), None)
            if nxt is not None and nxt.kind is EventKind.CHALLENGE_BONUS and nxt.score < 0 and nxt.nick == nicks:
                out[i] = nxt.line
    return out


def line_words(ev: GcgEvent) -> str:
    """What a record line is, for a message: "play 8D RETAINS", "challenge bonus", "overtime penalty" ..."""
    if ev.kind is EventKind.PLAY:   # letters played through in parentheses, as GCG writes them
        word = "".join(f"({c})" if i in ev.through else c for i, c in enumerate(ev.word)).replace(")(", "")
        return f"play {ev.coordinate or ''} {word}".replace("  ", " ")
    if ev.kind is EventKind.CHALLENGE_BONUS:
        return "challenge bonus" if ev.score >= 0 else "challenge penalty"
    return LINE_WORDS.get(ev.kind, str(ev.kind.value))


def score_mismatches(game: GcgGame, history: Sequence[TurnRecord], lines: Sequence[int]) -> list[ReplayProblem]:
    """Every record line whose score or total differs from the referee's (empty: they agree), then each
    final score that differs. ``history``: the referee's scoresheet after the walk; ``lines``: the record line
    whose events made each entry (:meth:`RefereeEvents.entry_lines <kiosk.referee.records.RefereeEvents.entry_lines>`)."""
    by_line: dict[int, list[TurnRecord]] = {}
    for h, line in zip(history, attribute(game, history, lines)):
        by_line.setdefault(line, []).append(h)
    n = len(game.players)
    kiosk, offset, recorded = [0] * n, [0] * n, [0] * n
    out: list[ReplayProblem] = []
    for ev in game.events:
        got = by_line.get(ev.line, []) if ev.line else []
        for h in got:
            kiosk[h.player] += h.points
        seats = _seats(game, ev.nick)
        mine = [h for h in got if h.player in seats]
        if not seats:
            continue
        p = mine[0].player if mine else seats[0]
        recorded[p] = ev.cumulative
        points = sum(h.points for h in mine)
        legacy = ev.kind is EventKind.WITHDRAWN and ev.score == 0   # old "-- +0" lines: only the total drops
        if points != ev.score and not legacy:
            out.append(ReplayProblem(game.name, ev.line, "mismatch", f"{ev.nick}'s {line_words(ev)}",
                                     points, ev.score))
        elif kiosk[p] + offset[p] != ev.cumulative:
            out.append(ReplayProblem(game.name, ev.line, "mismatch", f"{ev.nick}'s total after this line",
                                     kiosk[p] + offset[p], ev.cumulative))
        offset[p] = ev.cumulative - kiosk[p]
    for h in by_line.get(0, []):
        kiosk[h.player] += h.points
    for p in range(n):
        if game.events and kiosk[p] + offset[p] != recorded[p]:
            out.append(ReplayProblem(game.name, 0, "mismatch", f"{game.players[p].nick}'s final score",
                                     kiosk[p] + offset[p], recorded[p]))
    return out
