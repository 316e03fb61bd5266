"""Records of a game: its GCG (updated after every move, final at the end) and its result file.

:func:`gcg_text` is the referee's own GCG export (:mod:`kiosk.referee.gcg_export`: plays, passes, exchanges,
withdrawn phonies, challenge bonuses, end racks, time penalties; penalties GCG has no line for become
``#note`` lines) plus the kiosk's game id and the table number as title.

:func:`result_dict` is the result file: players, scores, spread, preset, adjustments. :class:`RecordsWriter`
is the hub sink writing both files for every game into a records folder (judge channel: always live).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from kiosk.files import describe_os_error, replace_target, write_atomic
from kiosk.referee.gcg_export import to_gcg_game
from kiosk.referee.state import GameState
from kiosk.rules.gcg import GcgGame, write_gcg
from kiosk.stream.files import safe_name

log = logging.getLogger(__name__)


class RecordsError(ValueError):
    """A game's record file cannot be written in the records folder (the message names it and why)."""


def gcg_game(state: GameState, *, game_id: str = "", title: str = "", board: int | None = None) -> GcgGame:
    """The game so far as a :class:`GcgGame` (the referee's export, ``incomplete`` until the game is over),
    with ``#id kiosk <game_id>`` and ``#title`` (default ``Table N``)."""
    game = to_gcg_game(state, title=title or (f"Table {board}" if board is not None else None))
    if game_id:
        game.pragmas["id"] = [f"kiosk {game_id}"]
    return game


def gcg_text(state: GameState, **kw: Any) -> str:
    """The game so far as GCG text (UTF-8 header, LF line ends); ``""`` before a game. See :func:`gcg_game`."""
    if not state.players:
        return ""
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
    (rewritten after every move, ``"finished": true`` at the end). Write failures are logged once each (and kept
    in :attr:`errors`), never raised; :meth:`check` looks at both files before a game."""

    channels = frozenset({"judge"})

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.errors: list[str] = []

    def paths(self, game_id: str) -> tuple[Path, Path]:
        """(gcg path, result path) of a game."""
        stem = safe_name(game_id)
        return self.folder / f"{stem}.gcg", self.folder / f"{stem}.result.json"

    def check(self, game_id: str) -> None:
        """Before a game: raise :class:`RecordsError` when one of its two files cannot be written (a device, a
        FIFO, a folder or a link to one of them, or to nothing, is in the way): neither is written then."""
        for path in self.paths(game_id):
            try:
                replace_target(path)
            except OSError as exc:
                raise RecordsError(describe_os_error(exc)) from None

    def on_message(self, msg: dict[str, Any], state: GameState | None) -> None:
        if msg["kind"] != "snapshot" or state is None:
            return
        gcg_path, result_path = self.paths(msg["game_id"])
        try:
            write_atomic(gcg_path, gcg_text(state, game_id=msg["game_id"], board=msg["board"]), durable=True)
            result = result_dict(state, game_id=msg["game_id"], board=msg["board"])
            write_atomic(result_path, json.dumps(result, indent=1, ensure_ascii=False) + "\n", durable=True)
        except OSError as exc:   # said once, not once for every event
            text = f"records: cannot write the game's files in {gcg_path.parent}: {describe_os_error(exc)}"
            if text not in self.errors:
                log.warning("%s", text)
                self.errors.append(text)
