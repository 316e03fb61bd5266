"""Count what ``measure.py read`` does not print: letters read wrong without doubt, and doubts.

Reads every frame of ../shared/photos/scrabscrap/game01..04 with ``kiosk read-board`` (the game's corners from
its ``game.ini``, German tiles, any extra arguments given here, e.g. ``--sequence`` or ``--calibration FILE``)
and compares it square by square with ``truth/image-N.txt``:

* letters right: a tile read as its letter (or ``?`` as a blank);
* silent wrong: a tile read as another letter or as a blank, or a blank read as a letter (issue 22's bar:
  at most 0.1% of tiles uncalibrated, 0 calibrated);
* doubts: a tile read ``#``;
* occupancy errors: a tile read empty, or an empty square read as a tile or ``#`` (as measure.py counts them).

Usage: ``.venv/bin/python scripts/read_errors.py [READ-BOARD ARGS...]``; exit 0 always (a measurement).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from kiosk.rules.board import square_name
from kiosk.vision.scrabscrap import WarpCoordError, read_warp_coord

HERE = Path(__file__).resolve().parents[1]
GAMES = HERE.parent / "shared" / "photos" / "scrabscrap"


def _frames(game: Path) -> tuple[list[Path], list[list[str]]]:
    truths = sorted((game / "truth").glob("image-*.txt"), key=lambda p: int(re.findall(r"\d+", p.stem)[0]))
    return ([game / f"{t.stem}.jpg" for t in truths],
            [t.read_text(encoding="utf-8").split() for t in truths])


def _read(game: Path, images: list[Path], extra: list[str]) -> list[list[str]]:
    corners = " ".join(f"{x},{y}" for x, y in read_warp_coord(game / "game.ini").tolist())
    kiosk = Path(sys.executable).with_name("kiosk")
    out = subprocess.run([str(kiosk), "read-board", *map(str, images), "--tiles", "german", "--corners", corners,
                          *extra], capture_output=True, text=True).stdout
    # each board read is 15 rows (a row may start with #) and its line "# IMAGE: ..."; an image without a board
    # read prints nothing: the boards are paired with their images by that line, not by their order
    by_image: dict[str, list[str]] = {}
    rows: list[str] = []
    for line in out.splitlines():
        if len(line.strip()) == 15:
            rows.append(line.strip())
        elif line.startswith("# ") and len(rows) >= 15:
            by_image[line[2:].split(": ", 1)[0]] = rows[-15:]
            rows = []
    return [by_image.get(str(image), []) for image in images]


def main(extra: list[str]) -> int:
    if not GAMES.is_dir():
        print(f"read_errors: {GAMES}: not found (the shared data belongs beside the project)", file=sys.stderr)
        return 2
    total = {"tiles": 0, "right": 0, "silent": 0, "doubts": 0, "occupancy": 0}
    for game in sorted(GAMES.glob("game0*")):
        images, truths = _frames(game)
        try:
            boards = _read(game, images, extra)
        except WarpCoordError as exc:   # the game's corners are needed: --corners of each read
            print(f"read_errors: {exc}", file=sys.stderr)
            return 2
        n = dict.fromkeys(total, 0)
        wrong: list[str] = []
        for k, (truth, got) in enumerate(zip(truths, boards)):
            for r, (tr, gr) in enumerate(zip(truth, got)):
                for c, (a, b) in enumerate(zip(tr, gr)):
                    if a != ".":
                        n["tiles"] += 1
                        n["right"] += a == b
                        n["doubts"] += b == "#"
                        if b not in (a, "#", "."):
                            n["silent"] += 1
                            wrong.append(f"{images[k].stem}:{square_name(r * 15 + c)} {a}>{b}")
                    n["occupancy"] += (a == ".") != (b == ".")
        unread = sum(1 for got in boards if not got)
        print(f"{game.name}: {n['right']}/{n['tiles']} letters right, {n['silent']} silent wrong, {n['doubts']} "
              f"doubts, {n['occupancy']} occupancy errors, {unread} frames unread; {' '.join(wrong[:12])}")
        for key in total:
            total[key] += n[key]
    t = max(total["tiles"], 1)
    print(f"all: letters {100 * total['right'] / t:.2f}% of {total['tiles']}, silent wrong {total['silent']} "
          f"({100 * total['silent'] / t:.3f}% of tiles), doubts {total['doubts']}, "
          f"occupancy errors {total['occupancy']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
