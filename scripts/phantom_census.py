"""Count tiles read where none lies (phantom tiles) on empty boards and first-move boards, by premium class and
board style: the census of ``kiosk/vision/models/README.md`` ("A premium square's print read as a tile").

Renders with :func:`kiosk.vision.synth.render_board` (2028x1520, the seed also picks the board style) an empty
board, a first move (:func:`kiosk.vision.synth.boards.random_board` with one word through H8) or a lone tile on
H8 (a move being laid), for seeds ``SEED0 .. SEED0 + SEEDS - 1`` of each level and tile set, reads each frame
alone with :class:`kiosk.vision.reader.BoardReader` and prints one line per group: phantom tiles (a letter or a
blank read on an empty square) and doubts (``#``) on empty squares, each by class (``star`` is H8) and board
style, and the tiles read wrong or ``#``. Squares under a drawn hand are left out of those; phantom tiles there
are counted apart, by the frame's verdict (one read under a hand the reader did not find has verdict "ok").

Usage: ``PYTHONPATH=. .venv/bin/python scripts/phantom_census.py [--seeds 200] [--levels typical hard]
[--sets english german] [--kinds empty first lone]``; exit 0 always (a measurement).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from kiosk.rules.board import CENTRE, PREMIUM_NAMES, Board
from kiosk.rules.tiles import TileSet, load_tile_set
from kiosk.vision.cells import PREMIUM_CLASSES
from kiosk.vision.reader import BoardReader
from kiosk.vision.synth import render_board
from kiosk.vision.synth.boards import random_board


def _class(sq: int) -> str:
    """The census's name of square ``sq``'s class: ``star`` for H8, ``TWS`` ... ``DLS``, ``plain``."""
    return "star" if sq == CENTRE else (PREMIUM_NAMES[str(PREMIUM_CLASSES[sq])] or "plain")


def _board(kind: str, seed: int, tile_set: TileSet) -> Board:
    """The board of census ``kind`` (``empty``, ``first``, ``lone``) for ``seed``."""
    if kind == "empty":
        return Board.from_rows(["." * 15] * 15)
    if kind == "first":
        return random_board(seed, n_tiles=1, tile_set=tile_set)     # the opening word alone (2-7 tiles)
    cells = [""] * 225
    cells[CENTRE] = str(np.random.default_rng(seed).choice(list(tile_set.letters)))
    return Board(cells)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("--levels", nargs="+", default=["typical", "hard"])
    ap.add_argument("--sets", nargs="+", default=["english", "german"])
    ap.add_argument("--kinds", nargs="+", default=["empty", "first"], choices=["empty", "first", "lone"])
    a = ap.parse_args()
    t0 = time.perf_counter()
    for set_name in a.sets:
        tile_set = load_tile_set(set_name)
        reader = BoardReader(tile_set)
        for level in a.levels:
            for kind in a.kinds:
                phantom: Counter[tuple[str, str]] = Counter()
                doubt: Counter[tuple[str, str]] = Counter()
                tiles = wrong = unsure = unread = 0
                under_hand: Counter[str] = Counter()     # phantom tiles under the drawn hand, by verdict
                for seed in range(a.seed0, a.seed0 + a.seeds):
                    frame = render_board(_board(kind, seed, tile_set), seed=seed, level=level, tile_set=tile_set)
                    reader.forget_board_pose()
                    reading = reader.read(frame.image)
                    if not reading.quality.board_found:
                        unread += 1
                        continue
                    got, truth, style = "".join(reading.grid()), "".join(frame.truth), frame.meta["board_style"]
                    under_hand[reading.quality.verdict] += sum(
                        truth[sq] == "." and got[sq] not in ".#" for sq in set(frame.occluded))
                    for sq in set(range(225)) - set(frame.occluded):
                        if truth[sq] == ".":
                            if got[sq] == "#":
                                doubt[(_class(sq), style)] += 1
                            elif got[sq] != ".":
                                phantom[(_class(sq), style)] += 1
                        else:
                            tiles += 1
                            unsure += got[sq] == "#"
                            wrong += got[sq] not in ("#", truth[sq])
                print(f"{kind} board, {set_name}, {level}, {a.seeds} seeds ({unread} without a board found): "
                      f"phantom tiles {sum(phantom.values())} {dict(sorted(phantom.items()))}; '#' on empty squares "
                      f"{sum(doubt.values())} {dict(sorted(doubt.items()))}; tiles {tiles}: {wrong} wrong, "
                      f"{unsure} '#'; phantom tiles under the drawn hand {sum(under_hand.values())} "
                      f"{dict(sorted((v, n) for v, n in under_hand.items() if n))}", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
