"""What the "Check the board" screen and the judge's correction screen say, in sentences: each board problem
once, tiles as players call them ("a blank", never ``?``), never the referee's internal reason (the screen's
headline already says a refused play's sentence, :func:`kiosk.control.words.refusal_sentence`)."""

from __future__ import annotations

from collections import Counter

from kiosk.control.port import KioskView
from kiosk.control.words import counted, tile_words
from kiosk.referee.kinds import Code
from kiosk.rules.tiles import TileSet
from kiosk.ui.board_view import square_label

__all__ = ["problem_lines", "problem_sentence", "run_out", "sentence", "tile_words"]

SEEN_KINDS = ("unsure", "changed", "moved", "vanished", "entry")
"""The board problems the camera finds (:mod:`kiosk.vision.diff`, :func:`kiosk.app.judge_entries.entry_clashes`);
any other kind is a refused play's code, said once by the screen's headline."""


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter and a full stop (or its own ``?``/``!``)."""
    text = text.strip()
    if not text:
        return ""
    return text[0].upper() + text[1:] + ("" if text[-1] in ".?!" else ".")


def problem_sentence(kind: str, square: int, before: str, after: str, detail: str, rows: str) -> str:
    """One camera problem (:data:`SEEN_KINDS`) in a sentence naming its square as the sheet does, or "" for a
    refused play's code (the headline says it)."""
    at = square_label(square, rows)
    if kind == "unsure":
        return f"{at}: the camera cannot tell whether a tile lies there."
    if kind == "changed":
        return f"{at}: the tile read {tile_words(before)} before and {tile_words(after)} now."
    if kind == "vanished":
        return f"{at}: tile {tile_words(before)} is gone."
    if kind == "moved":
        dest = detail.rsplit(" ", 1)[-1] if " moved to " in detail else "another square"
        return f"{at}: tile {tile_words(before)} seems moved to {dest}."
    if kind == "entry":
        return f"{at}: the judge entered {tile_words(before)}, the camera reads {tile_words(after)}."
    return ""


def problem_lines(view: KioskView, rows: str, mover: str = "", rack: int = 0) -> list[str]:
    """The screen's lines under the headline: each camera problem once, in order; a refused play's squares
    (one problem each, the referee's reason) give none, but more tiles than the ``mover``'s ``rack`` holds
    are counted in one sentence."""
    out: list[str] = []
    refused = [p for p in view.problem if p.kind == Code.IMPOSSIBLE_TILES]
    if mover and len(refused) > rack:
        were = "was" if len(refused) == 1 else "were"
        out.append(f"{counted(len(refused), 'tile')} {were} placed, but {mover}'s rack holds only {rack}.")
    for p in view.problem:
        line = problem_sentence(p.kind, p.square, p.before, p.after, p.detail, rows)
        if line and line not in out:
            out.append(line)
    return out


def run_out(tile_set: TileSet | None, board: tuple[str, ...], entered: dict[int, str], square: int,
            char: str) -> str:
    """Why the judge may not enter ``char`` on ``square`` (a sentence), or "" when he may: the set holds no more
    of that tile than the board and his other entries (``entered``: square -> char) already show."""
    if tile_set is None or char in (".", "#"):
        return ""
    shown: Counter[str] = Counter()
    for sq, cell in enumerate(board):
        if cell and sq != square and sq not in entered:
            shown["?" if cell.islower() else cell] += 1
    for sq, ch in entered.items():
        if ch not in (".", "#") and sq != square:
            shown["?" if ch.islower() else ch] += 1
    tile = "?" if char.islower() else char
    has = tile_set.blanks if tile == "?" else tile_set.counts.get(tile, 0)
    if shown[tile] < has:
        return ""
    name = "blank" if tile == "?" else tile
    if not has:
        return f"This set has no {name}."
    if has == 1:
        return f"The set has only one {name}, and it is on the board already."
    return f"The set has only {has} {name}s, and all of them are on the board already."
