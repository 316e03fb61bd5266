"""Where the shared real data is (``../shared`` beside the project) and a skip marker for when it is absent.

Import as ``from shared_data import SHARED, needs_shared`` (``tests/`` is on ``sys.path`` through its conftest).
"""

from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
HAVE_SHARED = SHARED.is_dir()

needs_shared = pytest.mark.skipif(not HAVE_SHARED, reason=f"../shared is absent ({SHARED}): real-data test skipped")


def benchmark_frame(level: str, index: int):
    """Frame ``index`` of ``kiosk bench-vision`` at ``level`` (default seed and size: the frames the vision
    figures are measured on) and its tile set: (SyntheticFrame, TileSet). Needs ``../shared`` (its games)."""
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    sample = bench.corpus_samples(SHARED, 500, 0, ("english", "german"))[index]
    frame = render_board(sample.board, seed=bench.frame_seed(level, index, 0), level=level,
                         tile_set=sample.tile_set, size=(2028, 1520))
    return frame, sample.tile_set


@cache
def validation_frame(frames: int, seed: int, index: int):
    """Frame ``index`` of ``kiosk bench-vision --level typical --frames FRAMES --seed SEED --fonts validation`` and
    its tile set: (SyntheticFrame, TileSet), rendered once per process. Needs ``../shared`` (its games)."""
    from kiosk.rules.board import Board
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    s = bench.corpus_samples(SHARED, frames, seed=seed)[index]
    fr = render_board(Board(s.board.cells), seed=bench.frame_seed("typical", index, seed),
                      level=bench.level_params("typical", "validation"), tile_set=s.tile_set, size=(2028, 1520))
    return fr, s.tile_set


def game_corners(game):  # -> np.ndarray (4 x 2 float32)
    """The grid corners (px, A1, O1, O15, A15) of a ScrabScrap game folder (``game``: a name under
    ``../shared/photos/scrabscrap`` or a path), read from its ``game.ini`` as the recording demo and the vision
    scripts read them (:func:`kiosk.vision.scrabscrap.read_warp_coord`; a folder without them is an error)."""
    from kiosk.vision.scrabscrap import read_warp_coord

    folder = Path(game) if isinstance(game, Path) else SHARED / "photos" / "scrabscrap" / game
    return read_warp_coord(folder / "game.ini")
