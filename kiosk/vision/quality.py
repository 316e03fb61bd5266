"""Per-frame quality: sharpness, glare and a hand or arm over the board, measured on the reading canvas.

All functions take the reading canvas (BGR, see :mod:`kiosk.vision.cells`) and return per-square masks or
numbers; the reader turns them into :class:`kiosk.vision.reading.FrameQuality` and unsure squares.
"""

from __future__ import annotations

import cv2
import numpy as np

from kiosk.vision.cells import CELL_PX, PAD_PX, PREMIUM_CLASSES, check_grey
from kiosk.vision.geometry import SIZE

SHARPNESS_MIN = 60.0         # variance of the Laplacian of the grid area (grey levels^2) below = blurred
GLARE_LEVEL = 245            # a pixel this bright in every channel is blown out
GLARE_SQUARE_FRACTION = 0.12  # a square with this much blown-out area cannot be read
HAND_SQUARE_FRACTION = 0.35  # a square this much covered by skin-coloured pixels is occluded
HAND_REACH_FRACTION = 0.2   # ... this much, next to a square of the hand: the hand reaches over it (fingers)


_STEP = 2  # masks are measured on every second pixel (the fractions hardly change, the cost halves twice)


def _per_square(mask: np.ndarray) -> np.ndarray:
    """Mean of a mask over each square; ``mask`` is the grid area sampled every ``_STEP`` px."""
    c = CELL_PX // _STEP
    return mask.astype(np.float32).reshape(SIZE, c, SIZE, c).mean(axis=(1, 3)).reshape(-1)


def _grid_area(canvas: np.ndarray) -> np.ndarray:
    """The grid's pixels, every ``_STEP``-th in both directions, as a contiguous array (OpenCV's resize with
    nearest-neighbour picks exactly those pixels, several times faster than copying a strided view)."""
    n = SIZE * CELL_PX
    return cv2.resize(canvas[PAD_PX:PAD_PX + n, PAD_PX:PAD_PX + n], (n // _STEP, n // _STEP),
                      interpolation=cv2.INTER_NEAREST)


def sharpness(canvas: np.ndarray, grey_canvas: np.ndarray | None = None) -> float:
    """Variance of the Laplacian over the grid (grey levels^2) of a reading canvas (BGR; ``grey_canvas``: the same
    made grey, when the caller has it); a sharp board with lines is well above 100. Raises ValueError for a
    ``grey_canvas`` of another size than the canvas."""
    check_grey(canvas, grey_canvas)
    n = SIZE * CELL_PX
    body = (slice(PAD_PX, PAD_PX + n), slice(PAD_PX, PAD_PX + n))
    grey = cv2.cvtColor(canvas[body], cv2.COLOR_BGR2GRAY) if grey_canvas is None else grey_canvas[body]
    return float(cv2.Laplacian(grey, cv2.CV_32F, ksize=3).var())


SKIN_YCRCB_LOW = (40, 138, 80)     # skin: Y >= 40, Cr 138..178, Cb 80..128 (the usual YCrCb skin range)
SKIN_YCRCB_HIGH = (255, 178, 128)
GLARE_SPOT_PX = 3            # a blown-out patch narrower than this (sampled px: 6 canvas px) is ink, not glare


def glare_squares(canvas: np.ndarray) -> np.ndarray:
    """Fraction (225 floats) of each square that is blown out (all channels >= GLARE_LEVEL) in patches at least
    GLARE_SPOT_PX wide (a morphological opening). White ink on a dark tile (tournament tiles) is blown out too,
    but in strokes a few px wide (a W's strokes covered 12% of its square and were taken for glare), where a
    glare spot is a broad patch. A wider opening would also eat the noise-speckled rim of a glare spot (a Y under
    glare then read A, silently); a local mean instead of the opening flags bright cream blanks."""
    blown = cv2.inRange(_grid_area(canvas), (GLARE_LEVEL,) * 3, (255,) * 3) // 255   # every channel blown
    spots = cv2.morphologyEx(blown, cv2.MORPH_OPEN, np.ones((GLARE_SPOT_PX, GLARE_SPOT_PX), np.uint8))
    return _per_square(spots)


def skin_squares(canvas: np.ndarray, empty: np.ndarray | None = None) -> np.ndarray:
    """Fraction (225 floats) of each square covered by skin-coloured pixels not explained by the board.

    Skin: YCrCb chroma in the usual skin range. A premium class whose own colour falls in that range (pink
    squares) is judged against its class: only skin well beyond the class's typical fraction counts, the
    typical fraction being taken over the class's squares that look empty (``empty``, 225 bool, if given).
    """
    ycc = cv2.cvtColor(_grid_area(canvas), cv2.COLOR_BGR2YCrCb)
    frac = _per_square(cv2.inRange(ycc, SKIN_YCRCB_LOW, SKIN_YCRCB_HIGH) > 0)
    out = frac.copy()
    for c in np.unique(PREMIUM_CLASSES):
        m = c == PREMIUM_CLASSES
        out[m] = np.clip(frac[m] - np.median(frac[m]), 0, 1)
    return out


_HALF = CELL_PX // _STEP
_RIM_PX = 3              # a square's rim at half resolution (6 canvas px): where grid lines and tile edges lie
_CELL_MASK = np.zeros((_HALF, _HALF), np.float32)
_CELL_MASK[:_RIM_PX] = _CELL_MASK[-_RIM_PX:] = 1
_CELL_MASK[:, :_RIM_PX] = _CELL_MASK[:, -_RIM_PX:] = 1
_RIM_SHARE = float(_CELL_MASK.mean())
_RIM_W = np.tile(_CELL_MASK, (SIZE, SIZE))
_RING = np.zeros((SIZE, SIZE), bool)     # the board's outer squares: an arm reaches in over them
_RING[[0, -1], :] = _RING[:, [0, -1]] = True

HAND_FLAT = 0.35        # rim contrast below this share of an empty square's (of its class): no line shows
HAND_FLAT_EDGE = 0.6    # ... below this for a square next to such a blob: partly covered
HAND_COLOUR = 12.0      # Lab distance from its class's empty colour beyond which a flat square is no bare board
HAND_MIN_SQUARES = 3    # a hand covers at least this many squares side by side
HAND_BIG = 8            # a flat blob this large is a hand even if it does not reach the board's edge


def _square_views(canvas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rim contrast 225 float32, mean BGR of each square's middle third 15x15x3 uint8), at half resolution
    (averaged, which with the Sobel's own smoothing keeps sensor noise from passing for grid lines)."""
    n = SIZE * CELL_PX
    h = n // _STEP
    g = cv2.resize(canvas[PAD_PX:PAD_PX + n, PAD_PX:PAD_PX + n], (h, h), interpolation=cv2.INTER_AREA)
    grey = cv2.GaussianBlur(cv2.cvtColor(g, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    mag = cv2.add(cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 1, 0)),
                  cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 0, 1)))

    def means(img: np.ndarray) -> np.ndarray:
        return cv2.resize(img, (SIZE, SIZE), interpolation=cv2.INTER_AREA)

    rim = means(cv2.multiply(mag, _RIM_W, dtype=cv2.CV_32F)).reshape(-1) / _RIM_SHARE
    level = means(grey.astype(np.float32)).reshape(-1)
    rim = rim / (level + 20.0)   # contrast, not brightness
    core = cv2.resize(g, (3 * SIZE, 3 * SIZE), interpolation=cv2.INTER_AREA)[1::3, 1::3]   # middle third
    return rim.astype(np.float32), core


def _class_reference(values: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """For every square, the median of ``values`` over the ``ref`` squares of its premium class (all ``ref``
    squares when its class has fewer than 4 of them; all squares when there are none)."""
    base = ref if ref.sum() >= 4 else np.ones(len(ref), bool)
    overall = np.median(values[base], axis=0)
    out = np.empty_like(values)
    for c in np.unique(PREMIUM_CLASSES):
        m = c == PREMIUM_CLASSES
        out[m] = np.median(values[m & base], axis=0) if (m & base).sum() >= 4 else overall
    return out


def flat_squares(canvas: np.ndarray, empty: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(flatness 225 float, unlike 225 bool): each square's rim contrast as a share of an empty square's of its
    class (a hand or arm hides grid lines and tile edges: it is smooth and out of focus), and whether its colour
    is unlike an empty square of its class and not blown out (``empty``: 225 bool, the squares that look empty;
    default all). No tile colour test: a tile is never flat (its edges and glyph), and light skin is tile-coloured."""
    rim, core = _square_views(canvas)
    col = cv2.cvtColor(core, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    emp = empty if empty is not None else np.ones(SIZE * SIZE, bool)
    flat = rim / np.maximum(_class_reference(rim, emp), 1e-3)
    dist = np.linalg.norm(col - _class_reference(col, emp), axis=1)
    blown = core.reshape(-1, 3).min(axis=1) >= GLARE_LEVEL - 10   # glare: flat and white, but no hand
    return flat, (dist > HAND_COLOUR) & ~blown


def hand_squares(canvas: np.ndarray, not_board: np.ndarray, empty: np.ndarray | None = None,
                 tile: np.ndarray | None = None, unlike_empty: np.ndarray | None = None) -> np.ndarray:
    """Boolean 225: squares a hand/arm covers.

    Two cues, either suffices: (1) skin-coloured squares in a connected blob of >= 3 (side by side), grown by
    squares unlike both board and tile (``not_board``, 225 bool); (2) a flat blob: squares whose rims show no
    grid line or tile edge (see :func:`flat_squares`) and whose colour is not the board's, >= 3 side by side and
    reaching the board's outer squares (an arm comes from outside) or large, grown by neighbours nearly as flat
    and as unlike the board (partly covered). Glare (blown-out squares) is no hand. ``empty`` (225 bool): squares that
    look empty, the reference for each premium class's colour; ``tile`` (225 bool): squares that clearly hold a
    tile (under warm light tiles look skin-coloured); ``unlike_empty`` (225 bool): squares that do not look like
    an empty square of their class (tan boards are skin-coloured themselves)."""
    skin_share = skin_squares(canvas, empty)
    skin = skin_share >= HAND_SQUARE_FRACTION
    reach = skin_share >= HAND_REACH_FRACTION
    if tile is not None:
        skin &= ~tile
        if tile.sum() >= 4:   # tiles count by the skin they show beyond the frame's typical tile (warm light)
            reach[tile] = skin_share[tile] - np.median(skin_share[tile]) >= HAND_REACH_FRACTION
        else:
            reach &= ~tile
    if unlike_empty is not None:
        skin &= unlike_empty
    hand = _blobs(skin.reshape(SIZE, SIZE), HAND_MIN_SQUARES)
    if hand.any():
        grown = cv2.dilate(hand.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        hand |= grown & not_board.reshape(SIZE, SIZE)
    flat, unlike = flat_squares(canvas, empty)
    core = ((flat < HAND_FLAT) & unlike).reshape(SIZE, SIZE)
    arm = _blobs(core, HAND_MIN_SQUARES, touching=_RING, big=HAND_BIG)
    if arm.any():
        near = cv2.dilate(arm.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        arm |= near & ((flat < HAND_FLAT_EDGE) & unlike).reshape(SIZE, SIZE)
    found = hand | arm
    if found.any():
        found = _grow(found, (reach | ((flat < HAND_FLAT_EDGE) & unlike)).reshape(SIZE, SIZE))
    return found.reshape(-1)


def _grow(seed: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """``seed`` (15x15 bool) grown square by square (4-connected) through ``reach`` (15x15 bool) until it stops."""
    n, lab = cv2.connectedComponents((seed | reach).astype(np.uint8), connectivity=4)
    keep = np.unique(lab[seed])
    return np.isin(lab, keep[keep > 0])


def _blobs(mask: np.ndarray, min_area: int, touching: np.ndarray | None = None, big: int = 0) -> np.ndarray:
    """The 4-connected blobs of ``mask`` (15x15 bool) of >= ``min_area`` squares (and, if ``touching`` is given,
    that overlap it or have >= ``big`` squares)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    out = np.zeros(mask.shape, bool)
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area < min_area:
            continue
        blob = lab == i
        if touching is None or area >= big or (blob & touching).any():
            out |= blob
    return out
