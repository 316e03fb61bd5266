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
