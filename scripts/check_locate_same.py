#!/usr/bin/env python3
"""Does this checkout's grid fit give the same grids as an earlier commit's? Max differences, in px.

    PYTHONPATH=$PWD .venv/bin/python scripts/check_locate_same.py [--base 9ecf490] [--synthetic 12]

``kiosk/vision/locate.py`` of ``--base`` (read with ``git show``) is loaded beside this checkout's and both fit:

* every frame of ``../shared/photos/scrabscrap/game01..04`` from its ``game.ini`` ``warp-coord`` corners
  (``locate.from_corners``), and each frame's grid tracked into the next (``locate.track_grid``);
* ``--synthetic`` frames of the synthetic camera (levels typical and hard, 2028 x 1520, boards of 0-99 tiles)
  from their true corners and without corners (``locate.find_grid``).

Every call of ``_fit_lines`` and ``_layout_fits`` made on the way is also made with the base's and the
answers compared (offset and pitch in px of the 660 px search canvas, score and contrast as numbers; the
premium-layout fits, Lab units). Prints the largest
difference of each kind; exits 1 when a fitted grid corner differs by more than ``--tolerance`` px (0.05) or
one finds a grid where the other finds none.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _base_locate(commit: str) -> ModuleType:
    """kiosk/vision/locate.py as it was at ``commit``, loaded as its own module. Raises CalledProcessError."""
    src = subprocess.run(["git", "show", f"{commit}:kiosk/vision/locate.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "locate_base.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("locate_base", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Compare:
    """Largest differences seen between this checkout's and the base's answers."""

    def __init__(self) -> None:
        self.fit_calls = 0
        self.fit_diff = np.zeros(4)         # offset, pitch, score, contrast
        self.layout_calls = 0
        self.layout_diff = 0.0              # premium-layout fit (Lab units), largest over the shifts tried
        self.corner_px = 0.0
        self.grids = 0
        self.mismatched: list[str] = []

    def grid(self, name: str, new: np.ndarray | None, old: np.ndarray | None, corners_of) -> None:
        if (new is None) != (old is None):
            self.mismatched.append(f"{name}: {'no grid' if new is None else 'a grid'} here, "
                                   f"{'no grid' if old is None else 'a grid'} in the base")
            return
        self.grids += 1
        if new is not None and old is not None:
            self.corner_px = max(self.corner_px, float(np.abs(corners_of(new) - corners_of(old)).max()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="9ecf490", help="the commit to compare with (default 9ecf490)")
    ap.add_argument("--synthetic", type=int, default=12, help="synthetic frames per level (default 12)")
    ap.add_argument("--tolerance", type=float, default=0.05, help="largest corner difference allowed, px")
    args = ap.parse_args()
    import cv2

    cv2.setNumThreads(1)
    from kiosk.vision import locate

    base = _base_locate(args.base)
    cmp = Compare()
    fit_new = locate._fit_lines

    def both(*a, **kw):
        got = fit_new(*a, **kw)
        was = base._fit_lines(*a, **kw)
        cmp.fit_calls += 1
        cmp.fit_diff = np.maximum(cmp.fit_diff, np.abs(np.subtract(got, was)))
        return got

    locate._fit_lines = both
    layout_new = locate._layout_fits

    def both_layouts(*a, **kw):
        got = layout_new(*a, **kw)
        was = base._layout_fits(*a, **kw)
        cmp.layout_calls += 1
        cmp.layout_diff = max(cmp.layout_diff, max(abs(g[0] - w[0]) for g, w in zip(got, was)))
        return got

    locate._layout_fits = both_layouts
    from kiosk.vision.scrabscrap import WarpCoordError
    try:
        _real(locate, base, cmp)
    except WarpCoordError as exc:   # the games' corners are needed: each frame is fitted from them
        print(f"check_locate_same: {exc}", file=sys.stderr)
        return 2
    _synthetic(locate, base, cmp, args.synthetic)
    print(f"{cmp.grids} grids compared, {cmp.fit_calls} _fit_lines calls, {cmp.layout_calls} _layout_fits calls")
    print(f"largest corner difference {cmp.corner_px:.6f} px; _fit_lines: offset {cmp.fit_diff[0]:.6g} px, "
          f"pitch {cmp.fit_diff[1]:.6g} px, score {cmp.fit_diff[2]:.3g}, contrast {cmp.fit_diff[3]:.3g}; "
          f"_layout_fits: layout fit {cmp.layout_diff:.3g}")
    for m in cmp.mismatched:
        print("MISMATCH", m)
    return 1 if cmp.mismatched or cmp.corner_px > args.tolerance else 0


def _real(locate: ModuleType, base: ModuleType, cmp: Compare) -> None:
    """Every frame of the four scrabscrap games: from its corners, and tracked from the frame before. Raises
    WarpCoordError (kiosk.vision.scrabscrap) for a game without usable corners."""
    from kiosk.vision.images import read_image
    from kiosk.vision.scrabscrap import read_warp_coord

    for game in sorted((ROOT.parent / "shared" / "photos" / "scrabscrap").glob("game0[1-4]")):
        corners = read_warp_coord(game / "game.ini")   # WarpCoordError: a sentence naming the file (main)
        paths = sorted(game.glob("image-*.jpg"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
        last = None
        for p in paths:
            img = read_image(p)
            new, old = locate.from_corners(img, corners), base.from_corners(img, corners)
            cmp.grid(f"{game.name}/{p.name} from corners", new, old, locate.grid_corners_in_image)
            if last is not None:
                cmp.grid(f"{game.name}/{p.name} tracked", locate.track_grid(img, last), base.track_grid(img, last),
                         locate.grid_corners_in_image)
            last = new
        print(f"{game.name}: {len(paths)} frames; so far largest corner difference {cmp.corner_px:.6f} px",
              file=sys.stderr)


def _synthetic(locate: ModuleType, base: ModuleType, cmp: Compare, n: int) -> None:
    """Synthetic frames (typical and hard): from their true corners, and searched without corners."""
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.synth import render_board
    from kiosk.vision.synth.boards import random_board

    for level in ("typical", "hard"):
        for i in range(n):
            fr = render_board(random_board(300 + i, (i * 9) % 100, ENGLISH), seed=300 + i, level=level)
            c = fr.grid_corners_px
            cmp.grid(f"synthetic {level} {i} from corners", locate.from_corners(fr.image, c),
                     base.from_corners(fr.image, c), locate.grid_corners_in_image)
            cmp.grid(f"synthetic {level} {i} searched", locate.find_grid(fr.image), base.find_grid(fr.image),
                     locate.grid_corners_in_image)
        print(f"synthetic {level}: {n} frames; so far largest corner difference {cmp.corner_px:.6f} px",
              file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
