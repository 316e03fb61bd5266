"""Per-frame quality: sharpness, glare and a hand or arm over the board, measured on the reading canvas.

All functions take the reading canvas (BGR, see :mod:`kiosk.vision.cells`) and return per-square masks or
numbers; the reader turns them into :class:`kiosk.vision.reading.FrameQuality` and unsure squares.
"""

from __future__ import annotations

import cv2
import numpy as np

from kiosk.vision.cells import CELL_PX, PAD_PX, PREMIUM_CLASSES
from kiosk.vision.geometry import SIZE

SHARPNESS_MIN = 60.0         # variance of the Laplacian of the grid area (grey levels^2) below = blurred
GLARE_LEVEL = 245            # a pixel this bright in every channel is blown out
GLARE_SQUARE_FRACTION = 0.12  # a square with this much blown-out area cannot be read
HAND_SQUARE_FRACTION = 0.35  # a square this much covered by skin-coloured pixels is occluded


_STEP = 2  # masks are measured on every second pixel (the fractions hardly change, the cost halves twice)


def _per_square(mask: np.ndarray) -> np.ndarray:
    """Mean of a mask over each square; ``mask`` is the grid area sampled every ``_STEP`` px."""
    c = CELL_PX // _STEP
    return mask.astype(np.float32).reshape(SIZE, c, SIZE, c).mean(axis=(1, 3)).reshape(-1)


def _grid_area(canvas: np.ndarray) -> np.ndarray:
    n = SIZE * CELL_PX
    return canvas[PAD_PX:PAD_PX + n:_STEP, PAD_PX:PAD_PX + n:_STEP]


def sharpness(canvas: np.ndarray) -> float:
    """Variance of the Laplacian over the grid (grey levels^2); a sharp board with lines is well above 100."""
    n = SIZE * CELL_PX
    grey = cv2.cvtColor(canvas[PAD_PX:PAD_PX + n, PAD_PX:PAD_PX + n], cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(grey, cv2.CV_32F, ksize=3).var())


def glare_squares(canvas: np.ndarray) -> np.ndarray:
    """Fraction (225 floats) of each square that is blown out (all channels >= GLARE_LEVEL)."""
    return _per_square(_grid_area(canvas).min(axis=2) >= GLARE_LEVEL)


def skin_squares(canvas: np.ndarray, empty: np.ndarray | None = None) -> np.ndarray:
    """Fraction (225 floats) of each square covered by skin-coloured pixels not explained by the board.

    Skin: YCrCb chroma in the usual skin range. A premium class whose own colour falls in that range (pink
    squares) is judged against its class: only skin well beyond the class's typical fraction counts, the
    typical fraction being taken over the class's squares that look empty (``empty``, 225 bool, if given).
    """
    ycc = cv2.cvtColor(np.ascontiguousarray(_grid_area(canvas)), cv2.COLOR_BGR2YCrCb)
    y, cr, cb = ycc[..., 0], ycc[..., 1], ycc[..., 2]
    frac = _per_square((cr >= 138) & (cr <= 178) & (cb >= 80) & (cb <= 128) & (y >= 40))
    out = frac.copy()
    for c in np.unique(PREMIUM_CLASSES):
        m = c == PREMIUM_CLASSES
        out[m] = np.clip(frac[m] - np.median(frac[m]), 0, 1)
    return out


def hand_squares(canvas: np.ndarray, not_board: np.ndarray, empty: np.ndarray | None = None,
                 tile: np.ndarray | None = None, unlike_empty: np.ndarray | None = None) -> np.ndarray:
    """Boolean 225: squares a hand/arm covers -- skin-coloured and part of a connected blob of >= 3 such
    squares (side by side), or squares unlike both board and tile (``not_board``, 225 bool) joined to such a
    blob. ``empty`` (225 bool): squares that look empty, the reference for each premium class's colour;
    ``tile`` (225 bool): squares that clearly hold a tile (under warm light tiles look skin-coloured);
    ``unlike_empty`` (225 bool): squares that do not look like an empty square of their class (tan boards
    are skin-coloured themselves)."""
    skin = skin_squares(canvas, empty) >= HAND_SQUARE_FRACTION
    if tile is not None:
        skin &= ~tile
    if unlike_empty is not None:
        skin &= unlike_empty
    grid = skin.reshape(SIZE, SIZE).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(grid, connectivity=4)
    hand = np.zeros((SIZE, SIZE), bool)
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] >= 3:
            hand |= lab == i
    if hand.any():
        grown = cv2.dilate(hand.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        hand |= grown & not_board.reshape(SIZE, SIZE)
    return hand.reshape(-1)
