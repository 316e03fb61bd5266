"""Capture, per rendered frame, what the same-board exemplar rule (:mod:`kiosk.vision.exemplars`) works on: every
square the reader read as a letter or doubted, with its grey crop from the reading canvas, the truth, the reader's
reading and doubt (and the doubt's kind), and the font drawn. Used to choose the rule's measurements offline
(``--analyse``).

Renders ``--frames`` positions as ``kiosk bench-vision`` does (same positions, scenes and seeds for the same
``--seed``) in the faces of ``--fonts`` (choose on ``validation``; never on ``held-out``). Usage::

    PYTHONPATH=. .venv/bin/python scripts/exemplar_capture.py --level typical --frames 150 --seed 31 --out /tmp/c.npz
    PYTHONPATH=. .venv/bin/python scripts/exemplar_capture.py --analyse /tmp/c.npz

``--analyse`` prints, per (likeness, margin) of the glyph descriptors, the letter doubts the rule of
:mod:`kiosk.vision.exemplars` gives right and wrong (its other guards as shipped; the frame's doubt share counted
over the captured squares). Exit 0 (a measurement).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from capture_frames import add_frame_options, frame_tasks, read_frame, watch_reading


def _frame(task: tuple) -> list[tuple]:
    """(frame, square, truth, read, doubt, font, crop, the doubt's kind or "") of each square of one rendered frame
    read as a letter or doubted where a lettered tile lies (squares under a hand left out)."""
    from kiosk.vision import reader as rm
    from kiosk.vision.cells import cell_crop
    from kiosk.vision.reading import kind_of

    i = task[0]
    with watch_reading() as seen:
        _, fr, reading = read_frame(task)
    got = "".join(reading.grid())
    truth = "".join(fr.truth)
    if not seen["grey"]:
        return []
    grey = seen["grey"][-1]
    out = []
    for sq in range(225):
        if sq in fr.occluded or not (got[sq].isalpha() or (got[sq] == "#" and truth[sq].isalpha())):
            continue
        why = reading.doubts.get(sq, "")
        out.append((i, sq, truth[sq], got[sq], why, str(fr.meta.get("font")),
                    cell_crop(grey, sq, rm.SQUARE_GROW_PX), kind_of(why).value if why else ""))
    return out


def _frame_letters(d: dict, idx: np.ndarray, similar: float, margin: float) -> list[tuple[str, str | None]]:
    """(truth, letter given or None) of each letter doubt of one captured frame under the rule with ``similar`` and
    ``margin`` in place of the shipped SIMILAR and MARGIN."""
    from kiosk.vision import exemplars as ex
    from kiosk.vision.reader import default_square_net
    from kiosk.vision.reading import Doubt, DoubtKind

    net = default_square_net(str(d["tile_set"][idx[0]]))
    crops = {int(d["sq"][i]): d["crop"][i] for i in idx}
    sqs = list(crops)
    shares, turns = net.letter_table([crops[sq] for sq in sqs])
    read = {int(d["sq"][i]): str(d["read"][i]) for i in idx}
    why = {int(d["sq"][i]): Doubt(DoubtKind(str(d["kind"][i])), str(d["doubt"][i])) if d["kind"][i] else ""
           for i in idx}
    sure: dict[str, list[int]] = {}
    for k, sq in enumerate(sqs):
        j = int(np.argmax(shares[k]))
        if read[sq] == net.letters[j] and not why[sq] and shares[k, j] >= ex.EXEMPLAR_P:
            sure.setdefault(read[sq], []).append(k)
    todo = [k for k, sq in enumerate(sqs) if read[sq] == "#" and ex.letter_doubt(why[sq])]
    if not todo or sum(read[sq] == "#" for sq in sqs) > ex.MAX_DOUBT_SHARE * len(sqs):
        return [(str(d["truth"][idx[k]]), None) for k in todo]
    up = {(k, t): ex.upright_features(crops[sqs[k]], t) for k in range(len(sqs)) for t in range(4)}
    out = []
    for k in todo:
        cand = {net.letters[j]: float(shares[k, j]) for j in np.flatnonzero(shares[k] >= ex.CANDIDATE_SHARE)}
        alike, other = {}, -1.0
        for lt, members in sure.items():
            for letter in ([lt] if lt in cand else [max(cand, key=lambda c: cand[c])]):
                v = up[(k, int(turns[k, net.letters.index(letter)]))]
                got = [float(f @ v) for m in members[:ex.EXEMPLARS_PER_LETTER] if v is not None
                       and (f := up[(m, int(turns[m, net.letters.index(lt)]))]) is not None]
                if got and lt in cand:
                    alike[lt] = max(got)
                elif got:
                    other = max(other, max(got))
        ex.SIMILAR, ex.MARGIN = similar, margin
        out.append((str(d["truth"][idx[k]]), ex.exemplar_letter(cand, alike, other)))
    return out


def analyse(path: str) -> None:
    """Print the right and wrong letters the rule gives the captured letter doubts of ``path`` per setting."""
    d = dict(np.load(path))
    if "kind" not in d:
        raise SystemExit(f"exemplar_capture: {path} was written before doubts had kinds: capture it again")
    for similar in (0.7, 0.8, 0.9):
        for margin in (0.0, 0.05, 0.1):
            rows = [r for fi in sorted(set(d["frame"].tolist()))
                    for r in _frame_letters(d, np.flatnonzero(d["frame"] == fi), similar, margin)]
            right = sum(g == t for t, g in rows)
            wrong = sum(g is not None and g != t for t, g in rows)
            print(f"alike >= {similar}, margin {margin}: {len(rows)} letter doubts, given right {right}, wrong {wrong}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_frame_options(ap, frames=150, seed=31)
    ap.add_argument("--out")
    ap.add_argument("--analyse", metavar="FILE", help="analyse a file written by --out instead")
    args = ap.parse_args()
    if args.analyse:
        analyse(args.analyse)
        return 0
    if not args.out:
        ap.error("--out FILE is needed (or --analyse FILE)")
    samples, tasks = frame_tasks(args)
    rows: list[tuple] = []
    for task in tasks:
        rows += _frame(task)
    np.savez_compressed(args.out, frame=np.array([r[0] for r in rows]), sq=np.array([r[1] for r in rows]),
                        truth=np.array([r[2] for r in rows]), read=np.array([r[3] for r in rows]),
                        doubt=np.array([r[4] for r in rows]), kind=np.array([r[7] for r in rows]),
                        font=np.array([r[5] for r in rows]),
                        tile_set=np.array([samples[r[0]].tile_set.name for r in rows]),
                        crop=np.stack([r[6] for r in rows]))
    print(f"{len(rows)} squares of {args.frames} frames to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
