"""The synthetic scenes of issue 22's failure kinds (item 5), shared by ``scripts/vision_failure_kinds.py`` (the
figures in kiosk/vision/README.md, "Failure kinds") and ``tests/vision/test_failure_kinds.py``: a still board with
two blanks, and the camera's exposure changed over it."""

from __future__ import annotations

import numpy as np

from kiosk.rules.board import Board
from kiosk.rules.tiles import ENGLISH
from kiosk.vision.reading import EMPTY_CHAR
from kiosk.vision.synth.boards import random_board
from kiosk.vision.synth.levels import get_level
from kiosk.vision.synth.render import render_board

EXPOSURES = (0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6)   # the exposure sweep's gains
RAMP = np.linspace(0.5, 1.7, 20)   # the frame's gain over 20 frames: auto exposure settling from dark to bright


def scene_with_two_blanks(scene: int) -> tuple[np.ndarray, str]:
    """Scene ``scene``: 30 English tiles (board ``5000 + scene``), two of them blanks, one "typical" frame
    without a hand (seed ``900000 + scene``). Returns (frame BGR uint8, truth: 225 chars, ``?`` a blank)."""
    board = random_board(5000 + scene, n_tiles=30, tile_set=ENGLISH)
    cells = [c.upper() if c else c for c in board.cells]
    tiles = [i for i, c in enumerate(cells) if c]
    rng = np.random.default_rng(5000 + scene)
    for i in rng.choice(tiles, 2, replace=False):
        cells[i] = cells[i].lower()
    frame = render_board(Board(cells), seed=900000 + scene, level=get_level("typical").with_(hand_prob=0.0),
                         tile_set=ENGLISH)
    return frame.image, "".join("?" if c and c.islower() else (c or EMPTY_CHAR) for c in cells)


def with_gain(image: np.ndarray, gain: float) -> np.ndarray:
    """The frame as the camera gives it at another exposure: every level times ``gain``, clipped at full scale."""
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def scene_with_slid_tile(scene: int, frac: float) -> tuple[np.ndarray, str, int] | None:
    """Scene ``scene`` of the slid-tile kind: 20 English tiles (board ``8000 + scene``), one "typical" frame
    without a hand (seed ``920000 + scene``) where one tile with an empty square on its right lies ``frac`` of a
    square (0..1) towards it. Returns (frame BGR uint8, truth: 225 chars as placed, ``?`` a blank, the slid
    tile's square), or None when no tile has an empty right neighbour."""
    from kiosk.vision.synth import render as rd

    cells = list(random_board(8000 + scene, n_tiles=20, tile_set=ENGLISH).cells)
    squares = [i for i, c in enumerate(cells) if c]
    cand = [i for i in squares if i % 15 < 14 and not cells[i + 1]]
    if not cand:
        return None
    target = int(np.random.default_rng(scene).choice(cand))
    k, calls, orig = squares.index(target), [0], rd._clipped_normal

    def slid(rng: np.random.Generator, sd: float, n: int = 1) -> np.ndarray:
        out = orig(rng, sd, n)
        if n == 2:   # a tile's offset (mm): the renderer draws the tiles in square order
            if calls[0] == k:
                out = np.array([rd.DEFAULT_GEOMETRY.cell_mm * frac, 0.0])
            calls[0] += 1
        return out

    rd._clipped_normal = slid
    rd._TILED.clear()
    try:
        frame = rd.render_board(Board(cells), seed=920000 + scene, level=get_level("typical").with_(hand_prob=0.0),
                                tile_set=ENGLISH)
    finally:
        rd._clipped_normal = orig
        rd._TILED.clear()
    return frame.image, "".join("?" if c and c.islower() else (c or EMPTY_CHAR) for c in cells), target
