"""The part the offline capture scripts (``letter_hold_choice.py``, ``exemplar_capture.py``,
``familiarity_capture.py``) share: their frame options, the bench positions to render, one reader per tile set (kept
per process), one rendered bench frame read, and a watch on what the reader works on inside a reading.

A frame is a task ``(i, cells, tile set name, level, fonts, seed)`` (a script may add its own items after these
six): the ``i``-th position of ``kiosk bench-vision`` for the same ``--seed``, rendered at 2028x1520 as the bench
renders it. Import it from a script in this folder (``from capture_frames import ...``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
_READERS: dict = {}


def add_frame_options(ap: argparse.ArgumentParser, *, frames: int, seed: int) -> None:
    """Add ``--fonts`` (never ``held-out``), ``--level``, ``--frames`` and ``--seed`` with these defaults."""
    ap.add_argument("--fonts", default="validation", choices=["level", "training", "validation", "validation-2"])
    ap.add_argument("--level", default="typical", choices=["typical", "hard"])
    ap.add_argument("--frames", type=int, default=frames)
    ap.add_argument("--seed", type=int, default=seed)


def frame_tasks(args: argparse.Namespace) -> tuple[list, list[tuple]]:
    """(the bench's corpus samples, a frame task each) for ``args.frames`` positions of ``args.seed``."""
    from kiosk.vision.train import bench

    samples = bench.corpus_samples(SHARED, args.frames, seed=args.seed)
    tasks = [(i, s.board.cells, s.tile_set.name, args.level, args.fonts, args.seed) for i, s in enumerate(samples)]
    return samples, tasks


def read_frame(task: tuple) -> tuple[Any, Any, Any]:
    """(reader, rendered frame, reading) of one frame task: the tile set's reader of this process (made once, with
    the reader module's settings as they stand then), its board pose forgotten, reading the frame rendered as the
    bench renders it."""
    from kiosk.rules.board import Board
    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision import reader as rm
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    i, cells, ts_name, level, fonts, seed = task[:6]
    ts = load_tile_set(ts_name)
    if ts_name not in _READERS:
        _READERS[ts_name] = rm.BoardReader(ts)
    reader = _READERS[ts_name]
    reader.forget_board_pose()
    fr = render_board(Board(cells), seed=bench.frame_seed(level, i, seed), level=bench.level_params(level, fonts),
                      tile_set=ts, size=(2028, 1520))
    return reader, fr, reader.read(fr.image)


@contextmanager
def watch_reading(*, preds: bool = False) -> Iterator[dict[str, list]]:
    """Within the block, record in ``seen["grey"]`` each reading canvas the reader's square network is given (grey,
    uint8, in call order) and, with ``preds``, in ``seen["preds"]`` a copy of each {square: prediction} the reader
    combines; the reader's own code is back in place after the block, whatever happens in it."""
    from kiosk.vision import reader as rm

    seen: dict[str, list] = {"grey": [], "preds": []}
    grab, inner = rm.BoardReader._squares_net, rm.combine_net

    def canvas_spy(self, canvas, *a, **k):  # noqa: ANN001, ANN002, ANN003
        seen["grey"].append(canvas if canvas.ndim == 2 else cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY))
        return grab(self, canvas, *a, **k)

    def spy(*a, **k):  # noqa: ANN002, ANN003
        seen["preds"].append(dict(a[7]))
        return inner(*a, **k)
    rm.BoardReader._squares_net = canvas_spy  # type: ignore[method-assign]
    if preds:
        rm.combine_net = spy
    try:
        yield seen
    finally:
        rm.combine_net, rm.BoardReader._squares_net = inner, grab  # type: ignore[method-assign]
