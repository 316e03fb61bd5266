"""The data behind :mod:`kiosk.vision.presence`'s rule: its measures on boards and on frames without one.

Each frame with grid corners is fitted as the reader fits given corners (:func:`kiosk.vision.locate.fit_corners`:
were the corners confirmed by the printed lines?) and measured where the corners put the grid
(:func:`kiosk.vision.presence.evidence`): what the check would see had the lines not confirmed them.

* boards: every frame of ../shared/photos/scrabscrap/game01..04 (its game.ini corners), declanfinerty (its
  corners files), the lighting frames, kwwangkw and misc (corners from the reader's own grid search,
  :func:`kiosk.vision.locate.find_grid`; frames it finds no grid in are left out and named), synthetic frames
  (:func:`kiosk.vision.synth.render_board`: typical, hard, with a hand, blurred, glare, easy; their true corners);
* degraded boards (reported apart: not ruled on): blurred by 0.2 and 0.35 of a square, dimmed to 12 %, flat
  (15 % contrast), blurred and dimmed;
* no board at the corners: the boards turned 10, 20, 30 degrees and shifted by 1.5 to 3 squares under their
  corners, uniform and Gaussian noise, black, grey, colour and grey gradients, a table's wood strip, a board's
  corner zoomed (3 squares to the whole frame), a panel beside a vintage board, the table around synthetic boards.

Prints per group: how many were confirmed by the lines, each measure's range, and how many the rule calls a
board. Usage: ``PYTHONPATH=$PWD .venv/bin/python scripts/board_presence_data.py [--quick]`` (a few minutes; quick:
every 6th game frame, fewer synthetic ones); exit 0 (a measurement).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from kiosk.vision import locate, presence
from kiosk.vision.corners import CornersError, read_corners_file
from kiosk.vision.scrabscrap import WarpCoordError, read_warp_coord
from kiosk.vision.synth import LEVELS, render_board
from kiosk.vision.synth.boards import random_board

PHOTOS = Path(__file__).resolve().parents[1].parent / "shared" / "photos"
Frame = tuple[str, str, np.ndarray, np.ndarray, bool]   # (kind, name, image, corners, make variants of it)


def _square_px(corners: np.ndarray) -> float:
    return float(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 30


def _moved(img: np.ndarray, m: np.ndarray) -> np.ndarray:
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def turned_and_shifted(img: np.ndarray, c: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    centre = c.mean(axis=0)
    for deg in (10, 20, -30):
        yield f"turned {abs(deg)}", _moved(img, cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), deg, 1.0))
    sq = _square_px(c)
    for sx, sy in ((1.5, 0), (0, -2), (3, 3), (-1.5, 1.5)):
        yield "shifted", _moved(img, np.float32([[1, 0, sx * sq], [0, 1, sy * sq]]))


def degraded(img: np.ndarray, c: np.ndarray, rng: np.random.Generator) -> Iterator[tuple[str, np.ndarray]]:
    sq = _square_px(c)
    noise = rng.normal(0, 3, img.shape)
    yield "blur 0.2", cv2.GaussianBlur(img, (0, 0), 0.2 * sq)
    yield "blur 0.35", cv2.GaussianBlur(img, (0, 0), 0.35 * sq)
    yield "dim 12%", np.clip(img * 0.12 + noise, 0, 255).astype(np.uint8)
    yield "flat 15%", np.clip(128 + (img.astype(np.float32) - 128) * 0.15 + noise, 0, 255).astype(np.uint8)
    yield "blur+dim", np.clip(cv2.GaussianBlur(img, (0, 0), 0.2 * sq) * 0.2 + noise, 0, 255).astype(np.uint8)


def real_boards(step: int) -> Iterator[Frame]:
    for game in sorted((PHOTOS / "scrabscrap").glob("game0*")):
        c = read_warp_coord(game / "game.ini")   # WarpCoordError: a sentence naming the file (main)
        frames = sorted(game.glob("image-*.jpg"), key=lambda p: int(p.stem.split("-")[1]))
        for k, f in enumerate(frames[::step]):
            yield "board scrabscrap", f"{game.name}/{f.stem}", cv2.imread(str(f)), c, k % (6 // step) == 0
    for f in sorted(PHOTOS.glob("declanfinerty/*.jpg")):
        img = cv2.imread(str(f))
        yield "board declanfinerty", f.stem, img, read_corners_file(f.with_suffix(".corners.txt"), img.shape), True
    found = sorted(PHOTOS.glob("scrabscrap-lighting/*.jpg")) + sorted(PHOTOS.glob("kwwangkw/i*.*[gp]")) \
        + [PHOTOS / "misc" / "empty-board.jpg"]
    for k, f in enumerate(found[::step]):
        img = cv2.imread(str(f))
        h = locate.find_grid(img)
        if h is None:
            print(f"# {f.parent.name}/{f.name}: the grid search finds no grid (left out)")
            continue
        yield f"board {f.parent.name} (found)", f.stem, img, locate.grid_corners_in_image(h), k % 3 == 0


def synthetic_boards(n: int, rng: np.random.Generator) -> Iterator[Frame]:
    typical = LEVELS["typical"]
    specs = [("typical", typical, 4), ("hard", LEVELS["hard"], 6), ("hand", typical.with_(hand_prob=1.0), 2),
             ("blur", typical.with_(defocus_sigma_px=(2.5, 3.5), motion_blur_prob=1.0, motion_blur_px=(6.0, 10.0)), 2),
             ("glare", typical.with_(glare_prob=1.0, glare_spots=(2, 3), glare_strength=(0.5, 0.9)), 2),
             ("easy", LEVELS["easy"], 1)]
    for name, level, k in specs:
        for i in range(k * n):
            fr = render_board(random_board(100 + i, n_tiles=int(rng.integers(0, 90))), seed=5000 + 37 * i + len(name),
                              level=level)
            yield f"board synthetic {name}", str(i), fr.image, np.float32(fr.grid_corners_px), i < 3


def no_boards(table: np.ndarray, c_table: np.ndarray, real: np.ndarray, c_real: np.ndarray,
              panel: np.ndarray) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """(group, frame, corners) of frames without a board."""
    for w, h in ((992, 976), (2028, 1520), (1504, 1504)):
        c = np.float32([[0.1 * w, 0.1 * h], [0.9 * w, 0.1 * h], [0.9 * w, 0.9 * h], [0.1 * w, 0.9 * h]])
        for seed in range(3):
            r = np.random.default_rng(seed)
            yield "noise", r.integers(0, 256, (h, w, 3), dtype=np.uint8), c
            yield "noise", np.clip(r.normal(128, 40, (h, w, 1)).repeat(3, 2), 0, 255).astype(np.uint8), c
            yield "noise", cv2.GaussianBlur(np.clip(r.normal(128, 60, (h, w, 3)), 0, 255).astype(np.uint8), (0, 0), 3), c
        r = np.random.default_rng(9)
        yield "black, grey", np.clip(r.normal(8, 4, (h, w, 3)), 0, 255).astype(np.uint8), c
        yield "black, grey", np.clip(r.normal(128, 4, (h, w, 3)), 0, 255).astype(np.uint8), c
        g = np.tile(np.linspace(0, 255, w, dtype=np.float32), (h, 1))
        yield "gradient", np.dstack([g, g[::-1, ::-1] * 0.5, 255 - g]).astype(np.uint8), c
        yield "gradient", np.dstack([g, g, g]).astype(np.uint8), c
    hh, ww = real.shape[:2]
    yield "something else (real)", cv2.resize(real[:, 925:], (ww, hh), interpolation=cv2.INTER_CUBIC), c_real
    for y, x in ((300, 300), (100, 600), (600, 100)):
        yield "something else (real)", cv2.resize(real[y:y + 200, x:x + 200], (ww, hh), interpolation=cv2.INTER_CUBIC), c_real
    yield "something else (real)", cv2.resize(panel, (ww, hh), interpolation=cv2.INTER_CUBIC), c_real
    hh, ww = table.shape[:2]
    for x, y in ((0, 0), (ww - 300, 0), (0, hh - 300), (ww - 300, hh - 300)):
        yield "something else (synthetic table)", cv2.resize(table[y:y + 300, x:x + 300], (ww, hh)), c_table


class Tally:
    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[bool, presence.BoardEvidence, bool]]] = defaultdict(list)
        self.ms: list[float] = []

    def add(self, group: str, img: np.ndarray, corners: np.ndarray) -> None:
        h, confirmed = locate.fit_corners(img, corners)
        given = locate.homography_from_grid_corners(corners)
        t = time.perf_counter()
        e = presence.evidence(img, given)
        self.ms.append((time.perf_counter() - t) * 1000)
        self.rows[group].append((confirmed, e, presence.no_board(img, given) is None))

    def print(self) -> None:
        print(f"{'group':44s} {'n':>4s} {'lines':>5s}  {'aligned':>11s} {'colour':>13s} {'period':>15s} "
              f"{'|offset| if period>=min':>23s}  board")
        for group, rows in sorted(self.rows.items()):
            cells = []
            for f in ("aligned", "colour", "period"):
                v = sorted(getattr(e, f) for _, e, _ in rows)
                cells.append(f"{v[0]:.2f}..{v[-1]:.2f}" if f == "aligned" else f"{v[0]:.1f}..{v[-1]:.1f}")
            off = sorted(abs(e.offset) for _, e, _ in rows if e.period >= presence.PERIOD_MIN)
            cells.append(f"{off[0]:.2f}..{off[-1]:.2f}" if off else "-")
            print(f"{group:44s} {len(rows):4d} {sum(c for c, _, _ in rows):5d}  {cells[0]:>11s} {cells[1]:>13s} "
                  f"{cells[2]:>15s} {cells[3]:>23s}  {sum(b for _, _, b in rows):4d}")
        print(f"# evidence(): median {np.median(self.ms):.1f} ms, max {max(self.ms):.1f} ms per frame "
              "('lines': corners confirmed by the printed lines; 'board': the rule's verdict at the given corners)")


def main(argv: list[str]) -> int:
    try:
        return _tabulate("--quick" in argv)
    except (WarpCoordError, CornersError) as exc:   # the corners are needed: each frame is fitted from them
        print(f"board_presence_data: {exc}", file=sys.stderr)
        return 2


def _tabulate(quick: bool) -> int:
    rng = np.random.default_rng(1)
    tally = Tally()
    real = table = None
    panel = cv2.imread(str(PHOTOS / "kwwangkw" / "i03.jpg"))[:, :110]     # the letters' panel beside the board
    for kind, name, img, c, more in [*real_boards(6 if quick else 1), *synthetic_boards(1 if quick else 4, rng)]:
        source = kind.split(" ")[1].split("/")[0]
        tally.add(kind, img, c)
        if name == "game01/image-1":
            real, c_real = img, c
        if kind == "board synthetic typical" and name == "0":
            table, c_table = img, c
        if more:
            for what, x in turned_and_shifted(img, c):
                tally.add(f"no board: {what} ({'synthetic' if source == 'synthetic' else 'real'})", x, c)
            for what, x in degraded(img, c, rng):
                tally.add(f"degraded: {what} ({'synthetic' if source == 'synthetic' else 'real'})", x, c)
    assert real is not None and table is not None
    for group, x, c in no_boards(table, c_table, real, c_real, panel):
        tally.add("no board: " + group, x, c)
    tally.print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
