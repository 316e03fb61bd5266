"""Plain-text overlay fields for broadcast scenes (OBS "text from file" sources), plus the public GCG.

Scrabble streams already show these fields from files; the kiosk writes the same ones into a folder and
serves them over HTTP (``/overlay/<name>``), so existing scenes work unchanged. Fields (one file each, UTF-8,
no trailing newline), for players 1-4 (``N``):

* ``score.txt`` ``"NNN - NNN"``; ``playerN_score.txt``; ``playerN_name.txt``; ``playerN_clock.txt``
  (``"24:31"``, ``"-1:05"`` in overtime, ``""`` without a chess clock); ``on_move.txt`` (a name);
* ``unseen.txt`` (unseen tiles grouped by letter, ``"AAAA BB C ... ??"``) and ``unseen_count.txt``;
  ``bag_count.txt``; ``last_play.txt`` (``"Ann: 8D QUIZ 34"``); ``blanks.txt`` (``"8H=E 10C=S"``);
  ``table.txt`` (``"Table 7"``); ``game.gcg`` (the game so far, public channel).

This is a public-channel sink: everything here is behind the broadcast delay.
"""

from __future__ import annotations

import logging
from itertools import groupby
from pathlib import Path
from typing import Any

from kiosk.files import write_atomic
from kiosk.referee.state import GameState
from kiosk.stream.records import gcg_text

log = logging.getLogger(__name__)


def clock_text(remaining_ms: int | None) -> str:
    """``"M:SS"`` of a remaining time (``"-M:SS"`` in overtime; whole seconds, rounded towards zero)."""
    if remaining_ms is None:
        return ""
    sign = "-" if remaining_ms < 0 else ""
    s = abs(remaining_ms) // 1000
    return f"{sign}{s // 60}:{s % 60:02d}"


def unseen_text(tiles: str) -> str:
    """Unseen tiles grouped by letter, blanks last: ``"AAB?"`` -> ``"AA B ?"``."""
    ordered = sorted(tiles, key=lambda t: (t == "?", t))
    return " ".join("".join(g) for _, g in groupby(ordered))


def fields(state: dict[str, Any], board: int) -> dict[str, str]:
    """Overlay field name -> text, from a public snapshot dict (:func:`kiosk.stream.snapshot.snapshot`)."""
    players = state["players"]
    scores = state["scores"]
    out: dict[str, str] = {
        "score.txt": " - ".join(str(s) for s in scores),
        "unseen.txt": unseen_text(state["unseen"]["tiles"]),
        "unseen_count.txt": str(state["unseen"]["count"]),
        "bag_count.txt": str(state["bag"]),
        "last_play.txt": state["last_move"],
        "blanks.txt": " ".join(f"{b['square']}={b['letter']}" for b in state["blanks"]),
        "table.txt": f"Table {board}",
        "on_move.txt": players[state["on_move"]] if state["on_move"] is not None else "",
    }
    clock = state.get("clock") or {}
    remaining = clock.get("remaining_ms")
    for i in range(4):
        present = i < len(players)
        out[f"player{i + 1}_name.txt"] = players[i] if present else ""
        out[f"player{i + 1}_score.txt"] = str(scores[i]) if present else ""
        out[f"player{i + 1}_clock.txt"] = clock_text(remaining[i]) if present and remaining else ""
    return out


class OverlayWriter:
    """Public-channel sink keeping the overlay fields in memory (:attr:`current`) and, if ``folder`` is given,
    in files there (written only when they change; write failures are logged, never raised)."""

    channels = frozenset({"public"})

    def __init__(self, folder: str | Path | None, board: int) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.board = board
        self.current: dict[str, str] = {}
        self.errors: list[str] = []
        self._update({"table.txt": f"Table {board}"})

    def on_message(self, msg: dict[str, Any], state: GameState | None) -> None:
        if msg["kind"] == "snapshot":
            new = fields(msg["state"], self.board)
            if state is not None:
                new["game.gcg"] = gcg_text(state, game_id=msg["game_id"], board=self.board)
        elif msg["kind"] == "tick":
            remaining = (msg.get("clock") or {}).get("remaining_ms") or []
            new = {f"player{i + 1}_clock.txt": clock_text(r) for i, r in enumerate(remaining)}
        else:
            return
        self._update(new)

    def _update(self, new: dict[str, str]) -> None:
        for name, text in new.items():
            if self.current.get(name) == text:
                continue
            self.current[name] = text
            if self.folder is None:
                continue
            try:
                write_atomic(self.folder / name, text, durable=False)   # fields change every second
            except OSError as exc:
                msg = f"overlay: cannot write {self.folder / name}: {exc}"
                log.warning("%s", msg)
                self.errors.append(msg)
                del self.errors[:-50]
