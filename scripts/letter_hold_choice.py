"""How the letter-holds rule (``reader._letters_not_held``) was chosen: per tile, the reader's letter without the
rule, the truth, and the network's P(that letter | tile) read again scaled; then, per (check-below, doubt-below)
pair, the right letters it would make ``#`` and the wrong letters it would catch.

Renders ``--frames`` positions as ``kiosk bench-vision`` does (same positions, scenes and seeds for the same
``--seed``) in the faces of ``--fonts`` (choose on ``validation``, or measure the cost on ``training`` / ``level``;
never choose on ``held-out``). Usage::

    PYTHONPATH=. .venv/bin/python scripts/letter_hold_choice.py --fonts validation --level typical --frames 200 --seed 11

Prints one line per pair: ``lost`` right letters made doubtful (in how many frames), ``caught`` wrong letters of all
wrong letters given. Exit 0 (a measurement).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
_READERS: dict = {}


def _tiles(task: tuple) -> list[tuple]:
    """(frame, truth, letter given without the rule, P(letter | tile), least P(letter | tile) read scaled) of
    every lettered reading of one rendered frame (squares under a hand left out)."""
    from kiosk.rules.board import Board
    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision import reader as rm
    from kiosk.vision.cells import cell_crop
    from kiosk.vision.squarenet import scaled
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    i, cells, ts_name, level, fonts, seed, scales = task
    rm.HOLD_P = 0.0                 # the reader as without the rule
    ts = load_tile_set(ts_name)
    if ts_name not in _READERS:
        _READERS[ts_name] = rm.BoardReader(ts)
    reader = _READERS[ts_name]
    reader.forget_board_pose()
    seen: dict = {}
    inner = rm.combine_net

    def spy(*a, **k):  # noqa: ANN002, ANN003 - records the network's predictions the reader combines
        seen.setdefault("preds", dict(a[7]))
        return inner(*a, **k)
    rm.combine_net = spy
    grab = rm.BoardReader._squares_net

    def canvas_spy(self, canvas, *a, **k):  # noqa: ANN001, ANN002, ANN003
        seen.setdefault("grey", cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY))
        return grab(self, canvas, *a, **k)
    rm.BoardReader._squares_net = canvas_spy
    try:
        fr = render_board(Board(cells), seed=bench.frame_seed(level, i, seed), level=bench.level_params(level, fonts),
                          tile_set=ts, size=(2028, 1520))
        got = "".join(reader.read(fr.image).grid())
    finally:
        rm.combine_net, rm.BoardReader._squares_net = inner, grab
    truth = "".join(fr.truth)
    if "grey" not in seen:
        return []
    rows = [sq for sq in range(225) if got[sq].isalpha() and sq not in fr.occluded and sq in seen["preds"]]
    crops = [scaled(cell_crop(seen["grey"], sq, rm.SQUARE_GROW_PX), f) for sq in rows for f in scales]
    shares = reader.squarenet.letter_shares(crops, [got[sq] for sq in rows for _ in scales]) if rows else []
    least = np.asarray(shares).reshape(len(rows), len(scales)).min(axis=1) if rows else []
    return [(i, truth[sq], got[sq], seen["preds"][sq].letter_if_tile, float(v)) for sq, v in zip(rows, least)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fonts", default="validation", choices=["level", "training", "validation"])
    ap.add_argument("--level", default="typical", choices=["typical", "hard"])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--scale", type=float, default=0.06, help="read again this much larger and smaller")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    from kiosk.vision.train import bench

    samples = bench.corpus_samples(SHARED, args.frames, seed=args.seed)
    scales = (1 + args.scale, 1 - args.scale)
    tasks = [(i, s.board.cells, s.tile_set.name, args.level, args.fonts, args.seed, scales)
             for i, s in enumerate(samples)]
    rows: list[tuple] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for res in pool.map(_tiles, tasks, chunksize=2):
            rows += res
    frame = np.array([r[0] for r in rows])
    right = np.array([r[1] == r[2] for r in rows])
    p = np.array([r[3] for r in rows])
    held = np.array([r[4] for r in rows])
    print(f"{args.fonts} {args.level}, {args.frames} frames (seed {args.seed}): {len(rows)} letters given, "
          f"{int((~right).sum())} wrong")
    for below in (0.9, 0.95, 0.99):
        for hold in (0.3, 0.5, 0.7):
            flag = (p < below) & (held < hold)
            print(f"  check below {below}, doubt below {hold}: lost {int((flag & right).sum())} "
                  f"({len(set(frame[flag & right]))} frames), caught {int((flag & ~right).sum())}/{int((~right).sum())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
