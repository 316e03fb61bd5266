"""Records of a game: its GCG (updated after every move, final at the end) and its result file.

:func:`gcg_text` writes the referee's scoresheet (``GameState.history``) in GCG (:mod:`kiosk.rules.gcg`).
GCG has no line for some kiosk entries; they are written as the nearest GCG line with a ``#note`` saying what
happened, so the cumulative totals always match the kiosk's scores:

* lost turn (failed challenge under double challenge, turn time limit) -> a pass (``-``) +0;
* challenge penalty / phony penalty / judge adjustment -> a ``(challenge)`` line with the signed points;
* time penalty -> ``(time)``; rack adjustments -> ``(RACK)`` lines.

Racks are unknown to the kiosk (it sees only the board), so event lines carry no rack.

:func:`result_dict` is the result file: players, scores, spread, preset, adjustments. :class:`RecordsWriter`
is the hub sink writing both files for every game into a records folder (judge channel: always live).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from kiosk.referee.state import OVER, GameState, PlayRecord, TurnRecord
from kiosk.rules.board import parse_coordinate
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame, Player, write_gcg
from kiosk.stream.files import safe_name, write_atomic

log = logging.getLogger(__name__)


def nicknames(players: tuple[str, ...] | list[str]) -> list[str]:
    """GCG nicknames for player names: no spaces, unique (``"Ann Lee"`` -> ``"Ann_Lee"``)."""
    out: list[str] = []
    for i, name in enumerate(players):
        nick = "_".join(name.split()) or f"player{i + 1}"
        while nick in out:
            nick += f"_{i + 1}"
        out.append(nick)
    return out


def _word_and_through(play: PlayRecord) -> tuple[str, tuple[int, ...]]:
    placed = {sq for sq, _ in play.tiles}
    try:
        squares = parse_coordinate(play.coordinate).squares(len(play.word))
    except ValueError:
        return play.word, ()
    through = tuple(i for i, sq in enumerate(squares) if sq not in placed)
    if 0 in through and len(play.word) - 1 in through:
        # "(O)XUE(T)" would read back as an end-of-game rack: write played-through squares as "." instead
        return "".join("." if i in through else ch for i, ch in enumerate(play.word)), ()
    return play.word, through


def _gcg_line(nick: str, rec: TurnRecord) -> GcgEvent:
    base = {"nick": nick, "score": rec.points, "cumulative": rec.total}
    k = rec.kind
    if k == "play" and rec.play is not None:
        word, through = _word_and_through(rec.play)
        return GcgEvent(EventKind.PLAY, coordinate=parse_coordinate(rec.play.coordinate), word=word,
                        through=through, **base)
    if k == "withdrawn":
        return GcgEvent(EventKind.WITHDRAWN, **base)
    if k == "pass":
        return GcgEvent(EventKind.PASS, **base)
    if k == "lost_turn":
        return GcgEvent(EventKind.PASS, notes=[f"{nick} loses the turn" + (f" ({rec.note})" if rec.note else "")],
                        **base)
    if k == "exchange":
        return GcgEvent(EventKind.EXCHANGE, count=max(1, rec.count), **base)
    if k == "challenge_bonus":
        return GcgEvent(EventKind.CHALLENGE_BONUS, **base)
    if k in ("challenge_penalty", "phony_penalty", "judge"):
        what = {"challenge_penalty": "penalty for a failed challenge", "phony_penalty": "penalty for a phony",
                "judge": "judge adjustment"}[k]
        return GcgEvent(EventKind.CHALLENGE_BONUS, notes=[what + (f": {rec.note}" if rec.note else "")], **base)
    if k in ("end_rack", "own_rack"):
        if rec.rack:
            return GcgEvent(EventKind.END_RACK, tiles=rec.rack, **base)
        return GcgEvent(EventKind.TIME_PENALTY, notes=[f"rack adjustment ({k})"], **base)
    if k == "time_penalty":
        return GcgEvent(EventKind.TIME_PENALTY, notes=[rec.note] if rec.note else [], **base)
    return GcgEvent(EventKind.CHALLENGE_BONUS, notes=[f"{k}: {rec.note}"], **base)


def gcg_game(state: GameState, *, game_id: str = "", title: str = "", board: int | None = None) -> GcgGame:
    """The game so far as a :class:`GcgGame` (``incomplete`` until the game is over)."""
    nicks = nicknames(state.players)
    game = GcgGame(players=[Player(n, name) for n, name in zip(nicks, state.players)])
    if game_id:
        game.pragmas["id"] = [f"kiosk {game_id}"]
    if title or board is not None:
        game.pragmas["title"] = [title or f"Table {board}"]
    if state.preset:
        game.pragmas["description"] = [f"refereed by the Scrabble referee kiosk, preset {state.preset}"]
    game.events = [_gcg_line(nicks[r.player], r) for r in state.history]
    game.incomplete = state.phase != OVER
    return game


def gcg_text(state: GameState, **kw: Any) -> str:
    """The game so far as GCG text (UTF-8 header, LF line ends); see :func:`gcg_game` for ``kw``."""
    return write_gcg(gcg_game(state, **kw))


def result_dict(state: GameState, *, game_id: str = "", board: int | None = None) -> dict[str, Any]:
    """The result file's content.

    ``players``: [{name, score, spread, win}] - spread = score minus the best other score (points); ``scores``;
    ``preset``; ``reason`` (how it ended, None while running); ``finished``; ``adjustments``: ``rack`` and
    ``time_penalty`` per player (points) and the ``judge``/``challenge`` entries of the scoresheet.
    """
    r = state.result
    scores = list(r.final) if r else list(state.scores)
    n = len(scores)
    spread = [scores[i] - max((scores[j] for j in range(n) if j != i), default=0) for i in range(n)]
    extra = [{"player": h.player, "kind": h.kind, "points": h.points, "note": h.note} for h in state.history
             if h.kind in ("judge", "challenge_penalty", "phony_penalty", "challenge_bonus", "time_penalty")]
    return {
        "v": 1, "game_id": game_id, "board": board, "preset": state.preset, "finished": r is not None,
        "reason": r.reason if r else None,
        "players": [{"name": state.players[i], "score": scores[i], "spread": spread[i],
                     "win": r.wins[i] if r else None} for i in range(n)],
        "scores": scores, "spread": spread[0] if n == 2 else spread,
        "adjustments": {"rack": list(r.rack_adjust) if r else [0] * n,
                        "time_penalty": list(r.time_penalty) if r else [0] * n,
                        "racks": list(r.racks) if r else [], "entries": extra},
        "went_out": r.went_out if r else None, "forfeit": r.forfeit if r else None,
        "started_t": state.started_t, "last_t": state.last_t, "events": state.events,
    }


class RecordsWriter:
    """Hub sink (judge channel): ``{folder}/{game_id}.gcg`` after every move and ``{game_id}.result.json``
    (rewritten after every move, ``"finished": true`` at the end). Write failures are logged, never raised."""

    channels = frozenset({"judge"})

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.errors: list[str] = []

    def paths(self, game_id: str) -> tuple[Path, Path]:
        """(gcg path, result path) of a game."""
        stem = safe_name(game_id)
        return self.folder / f"{stem}.gcg", self.folder / f"{stem}.result.json"

    def on_message(self, msg: dict[str, Any], state: GameState | None) -> None:
        if msg["kind"] != "snapshot" or state is None:
            return
        gcg_path, result_path = self.paths(msg["game_id"])
        try:
            write_atomic(gcg_path, gcg_text(state, game_id=msg["game_id"], board=msg["board"]), durable=True)
            result = result_dict(state, game_id=msg["game_id"], board=msg["board"])
            write_atomic(result_path, json.dumps(result, indent=1, ensure_ascii=False) + "\n", durable=True)
        except OSError as exc:
            text = f"records: cannot write {gcg_path.parent}: {exc}"
            log.warning("%s", text)
            self.errors.append(text)
