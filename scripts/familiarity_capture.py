"""Capture, per rendered frame, what the frame-level familiarity rule (:mod:`kiosk.vision.familiarity`) judges:
every lettered tile it counts (read letters and letter doubts) with the network's P(letter | tile), the truth and
the reader's reading without the rule; then try the rule's settings offline (``--analyse``).

Renders ``--frames`` positions as ``kiosk bench-vision`` does (same positions, scenes and seeds for the same
``--seed``) in the faces of ``--fonts`` (choose on ``validation``, measure the cost on ``training`` and ``level``;
never on ``held-out`` or ``held-out-2``). Usage::

    PYTHONPATH=. .venv/bin/python scripts/familiarity_capture.py --fonts validation --level typical --frames 200 \\
        --seed 11 --out /tmp/v11t.npz
    PYTHONPATH=. .venv/bin/python scripts/familiarity_capture.py --analyse /tmp/v11t.npz /tmp/tr.npz

``--analyse`` prints, per file and per (least sharpness, share below FAMILIAR_P, strict P) setting (at least
MIN_TILES lettered tiles), the wrong letters
given without doubt that the rule makes ``#`` (caught) and the right letters it makes ``#`` (lost), of all the
file's letters. The rule applies last in the reader, so the offline figures are the reader's. Exit 0.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from capture_frames import add_frame_options, frame_tasks, read_frame


def _frame(task: tuple) -> tuple[list[tuple], int, int]:
    """Rows (frame, square, truth, read, P(letter | tile), font, the frame's sharpness) of the lettered tiles the
    rule counts in one rendered frame read without the rule (squares under a hand left out), the frame's letters
    and its tiles."""
    from kiosk.vision import familiarity

    i = task[0]
    familiarity.ENABLED = False
    reader, fr, reading = read_frame(task)
    got = "".join(reading.grid())
    truth = "".join(fr.truth)
    font = str(fr.meta.get("font"))
    fam = reader.familiarity
    rows = [(i, sq, truth[sq], got[sq], p, font, fam.sharp) for sq, p in fam.letter_p.items()
            if sq not in fr.occluded]
    seen = [sq for sq in range(225) if sq not in fr.occluded and truth[sq] != "."]
    return rows, sum(truth[sq] not in ".?" for sq in seen), len(seen)


def analyse(paths: list[str]) -> None:
    """Print the rule's caught and lost letters per setting for each captured file of ``paths``."""
    from kiosk.vision.familiarity import FAMILIAR_P, MIN_TILES

    for path in paths:
        d = dict(np.load(path))
        frame, truth, read, p, sharp = d["frame"], d["truth"], d["read"], d["p"], d["sharp"]
        letters, tiles = int(d["letters"]), int(d["tiles"])
        frames = sorted(set(frame.tolist()))
        wrong = (read != truth) & (read != "#")
        right = read == truth
        print(f"{path}: {len(frames)} frames with lettered tiles, {letters} letters, {tiles} tiles; "
              f"wrong letters given {int(wrong.sum())} ({100 * wrong.sum() / tiles:.3f}% of tiles)")
        idx = {f: np.flatnonzero(frame == f) for f in frames}
        for sharp_min in (0.0, 2500.0, 3500.0, 4500.0):
            for share in (0.2, 0.25, 0.3, 0.4):
                unf = {f for f, ix in idx.items() if len(ix) >= MIN_TILES and sharp[ix[0]] >= sharp_min
                       and np.mean(p[ix] < FAMILIAR_P) > share}
                in_unf = np.isin(frame, list(unf))
                for strict in (0.99, 0.995):
                    flag = in_unf & (p < strict) & (read != "#")
                    print(f"  sharp >= {sharp_min:4.0f}, share > {share:.2f}, strict {strict}: {len(unf):4d} frames "
                          f"unfamiliar; caught {int((flag & wrong).sum())}/{int(wrong.sum())}, lost "
                          f"{int((flag & right).sum())} ({100 * (flag & right).sum() / letters:.3f}% of letters)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_frame_options(ap, frames=200, seed=11)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--analyse", nargs="+", metavar="FILE", help="analyse files written by --out instead")
    args = ap.parse_args()
    if args.analyse:
        analyse(args.analyse)
        return 0
    if not args.out:
        ap.error("--out FILE is needed (or --analyse FILE...)")
    tasks = frame_tasks(args)[1]
    rows: list[tuple] = []
    letters = tiles = 0
    with ProcessPoolExecutor(args.workers) as pool:
        for got, n_letters, n_tiles in pool.map(_frame, tasks, chunksize=2):
            rows += got
            letters += n_letters
            tiles += n_tiles
    np.savez_compressed(args.out, frame=np.array([r[0] for r in rows]), sq=np.array([r[1] for r in rows]),
                        truth=np.array([r[2] for r in rows]), read=np.array([r[3] for r in rows]),
                        p=np.array([r[4] for r in rows]), font=np.array([r[5] for r in rows]),
                        sharp=np.array([r[6] for r in rows]),
                        letters=letters, tiles=tiles)
    print(f"{len(rows)} lettered tiles of {args.frames} frames to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
