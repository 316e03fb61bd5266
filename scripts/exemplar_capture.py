"""Capture, per rendered frame, what the same-board exemplar rule (:mod:`kiosk.vision.exemplars`) works on: every
square the reader read as a letter or doubted, with its grey crop from the reading canvas, the truth, the reader's
reading and doubt, and the font drawn. Used to choose the rule's measurements offline (``--analyse``).

Renders ``--frames`` positions as ``kiosk bench-vision`` does (same positions, scenes and seeds for the same
``--seed``) in the faces of ``--fonts`` (choose on ``validation``; never on ``held-out``). Usage::

    PYTHONPATH=. .venv/bin/python scripts/exemplar_capture.py --level typical --frames 150 --seed 31 --out /tmp/c.npz

Exit 0 (a measurement).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
_READERS: dict = {}


def _frame(task: tuple) -> list[tuple]:
    """(frame, square, truth, read, doubt, font, crop) of each square of one rendered frame read as a letter or
    doubted where a lettered tile lies (squares under a hand left out)."""
    from kiosk.rules.board import Board
    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision import reader as rm
    from kiosk.vision.cells import cell_crop
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    i, cells, ts_name, level, fonts, seed = task
    ts = load_tile_set(ts_name)
    if ts_name not in _READERS:
        _READERS[ts_name] = rm.BoardReader(ts)
    reader = _READERS[ts_name]
    reader.forget_board_pose()
    seen: dict = {}
    grab = rm.BoardReader._squares_net

    def canvas_spy(self, canvas, *a, **k):  # noqa: ANN001, ANN002, ANN003
        seen["grey"] = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
        return grab(self, canvas, *a, **k)
    rm.BoardReader._squares_net = canvas_spy
    try:
        fr = render_board(Board(cells), seed=bench.frame_seed(level, i, seed), level=bench.level_params(level, fonts),
                          tile_set=ts, size=(2028, 1520))
        reading = reader.read(fr.image)
    finally:
        rm.BoardReader._squares_net = grab
    got = "".join(reading.grid())
    truth = "".join(fr.truth)
    if "grey" not in seen:
        return []
    out = []
    for sq in range(225):
        if sq in fr.occluded or not (got[sq].isalpha() or (got[sq] == "#" and truth[sq].isalpha())):
            continue
        out.append((i, sq, truth[sq], got[sq], reading.doubts.get(sq, ""), str(fr.meta.get("font")),
                    cell_crop(seen["grey"], sq, rm.SQUARE_GROW_PX)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fonts", default="validation", choices=["level", "training", "validation"])
    ap.add_argument("--level", default="typical", choices=["typical", "hard"])
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from kiosk.vision.train import bench

    samples = bench.corpus_samples(SHARED, args.frames, seed=args.seed)
    rows: list[tuple] = []
    for i, s in enumerate(samples):
        rows += _frame((i, s.board.cells, s.tile_set.name, args.level, args.fonts, args.seed))
    np.savez_compressed(args.out, frame=np.array([r[0] for r in rows]), sq=np.array([r[1] for r in rows]),
                        truth=np.array([r[2] for r in rows]), read=np.array([r[3] for r in rows]),
                        doubt=np.array([r[4] for r in rows]), font=np.array([r[5] for r in rows]),
                        tile_set=np.array([samples[r[0]].tile_set.name for r in rows]),
                        crop=np.stack([r[6] for r in rows]))
    print(f"{len(rows)} squares of {args.frames} frames to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
