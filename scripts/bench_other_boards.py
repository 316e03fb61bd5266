#!/usr/bin/env python3
"""The shipped reader (no calibration) on the other boards of ``../shared/photos``: how often it is right, how
often it flags a doubt ('#') and how often it guesses wrong.

    .venv/bin/python scripts/bench_other_boards.py [--shared ../shared]

``declanfinerty/``: phone photos of a standard board, read with the given corners (``*.corners.txt``: TL TR BR
BL, the grid's outer corners); ``kwwangkw/``: vintage boards, found by the reader itself. Ground truth from
``*.gt.txt`` (a lower-case letter is a blank tile, counted right when read '?').
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from kiosk.rules.tiles import ENGLISH  # noqa: E402
from kiosk.vision.corners import CornersError, read_corners_file  # noqa: E402
from kiosk.vision.reader import BoardReader  # noqa: E402


def _rows(path: str) -> list[str]:
    return [ln.strip() for ln in open(path, encoding="utf-8") if ln.strip() and not ln.startswith("#")]


def score(reader: BoardReader, name: str, items: list[tuple[str, list[str], np.ndarray | None]]) -> None:
    """Print one line of counts for ``items`` (image path, 15 truth rows, corners or None)."""
    c: collections.Counter[str] = collections.Counter()
    found = 0
    for img, truth, corners in items:
        r = reader.read(cv2.imread(img), corners)
        if not r.quality.board_found:
            c["no board"] += 1
            continue
        found += 1
        for tr, rr in zip(truth, r.grid()):
            for a, b in zip(tr, rr):
                a = "?" if a.islower() else a
                if a == ".":
                    c["empty ok" if b == "." else "empty read #" if b == "#" else "phantom tile"] += 1
                else:
                    c["tile right" if a == b else "tile read #" if b == "#" else "tile read empty" if b == "."
                      else "tile wrong letter"] += 1
    wrong = c["tile wrong letter"] + c["tile read empty"] + c["phantom tile"]
    print(f"{name}: boards read {found}/{len(items)}; " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
          + f"; guessed wrong {wrong}, flagged {c['tile read #'] + c['empty read #']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parent.parent.parent / "shared"))
    args = ap.parse_args()
    photos = Path(args.shared) / "photos"
    if not photos.is_dir():
        print(f"error: {photos}: no such folder (the shared data is needed)")
        return 2
    reader = BoardReader(ENGLISH)
    df = []
    for f in sorted(glob.glob(str(photos / "declanfinerty" / "*.jpg"))):
        base = f[:-4]
        try:
            corners = read_corners_file(base + ".corners.txt")
        except CornersError as exc:   # a sentence naming the file and what is wrong
            print(f"error: {exc}", file=sys.stderr)
            return 2
        df.append((f, _rows(base + ".gt.txt"), corners))
    score(reader, "declanfinerty (given corners)", df)
    kw = []
    for t in sorted(glob.glob(str(photos / "kwwangkw" / "i*.gt.txt"))):
        base = t[:-len(".gt.txt")]
        img = next((p for p in (base + ".jpg", base + ".png") if os.path.isfile(p)), None)
        truth = _rows(t)
        if img and len(truth) == 15:
            kw.append((img, truth, None))
    score(reader, "kwwangkw (board found by the reader)", kw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
