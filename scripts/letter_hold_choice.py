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

import numpy as np
from capture_frames import add_frame_options, frame_tasks, read_frame, watch_reading


def _tiles(task: tuple) -> list[tuple]:
    """(frame, truth, letter given without the rule, P(letter | tile), least P(letter | tile) read scaled) of
    every lettered reading of one rendered frame (squares under a hand left out)."""
    from kiosk.vision import reader as rm
    from kiosk.vision.cells import cell_crop
    from kiosk.vision.squarenet import scaled

    i, scales = task[0], task[6]
    rm.HOLD_P = 0.0                 # the reader as without the rule
    with watch_reading(preds=True) as seen:
        reader, fr, reading = read_frame(task)
    got = "".join(reading.grid())
    truth = "".join(fr.truth)
    if not seen["grey"]:
        return []
    grey, preds = seen["grey"][0], seen["preds"][0] if seen["preds"] else {}
    rows = [sq for sq in range(225) if got[sq].isalpha() and sq not in fr.occluded and sq in preds]
    crops = [scaled(cell_crop(grey, sq, rm.SQUARE_GROW_PX), f) for sq in rows for f in scales]
    shares = reader.squarenet.letter_shares(crops, [got[sq] for sq in rows for _ in scales]) if rows else []
    least = np.asarray(shares).reshape(len(rows), len(scales)).min(axis=1) if rows else []
    return [(i, truth[sq], got[sq], preds[sq].letter_if_tile, float(v)) for sq, v in zip(rows, least)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_frame_options(ap, frames=200, seed=11)
    ap.add_argument("--scale", type=float, default=0.06, help="read again this much larger and smaller")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    scales = (1 + args.scale, 1 - args.scale)
    tasks = [task + (scales,) for task in frame_tasks(args)[1]]
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
