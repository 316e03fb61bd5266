"""The reading canvas: the board warped top-down at ``CELL_PX`` px per square, and per-square measurements.

The canvas is the canonical warp of :mod:`kiosk.vision.geometry` scaled to ``CELL_PX`` pixels per square with a
margin of ``PAD_PX`` (so tiles leaning over their square's edge stay in view). Square (row, col) occupies
``[PAD + col*CELL, PAD + (col+1)*CELL)`` horizontally, same vertically.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.rules.board import LAYOUT
from kiosk.vision.geometry import SIZE, WARP_CELL_PX, WARP_MARGIN_PX

CELL_PX = 48
PAD_PX = 12
CANVAS_PX = 2 * PAD_PX + SIZE * CELL_PX
_CORE = slice(10, CELL_PX - 10)   # the centre of a square, clear of its edges (px within the square)


def canvas_homography(h_img_to_canon: np.ndarray) -> np.ndarray:
    """Homography image px -> reading-canvas px, from the image -> canonical warp homography (3x3 float64)."""
    f = CELL_PX / WARP_CELL_PX
    off = PAD_PX - WARP_MARGIN_PX * f
    s = np.array([[f, 0, off], [0, f, off], [0, 0, 1]], np.float64)
    return s @ h_img_to_canon


def warp_canvas(image: np.ndarray, h_img_to_canon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(canvas BGR CANVAS_PX x CANVAS_PX x 3 uint8, inside mask CANVAS_PX^2 uint8 255 = seen by the camera)."""
    m = canvas_homography(h_img_to_canon)
    canvas = cv2.warpPerspective(image, m, (CANVAS_PX, CANVAS_PX), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    # the frame's outline mapped into the canvas (cheaper than warping a full-size mask)
    h, w = image.shape[:2]
    outline = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32).reshape(-1, 1, 2)
    poly = cv2.perspectiveTransform(outline, m).reshape(-1, 2)
    inside = np.zeros((CANVAS_PX, CANVAS_PX), np.uint8)
    if np.all(np.isfinite(poly)) and np.abs(poly).max() < 1e6:
        cv2.fillPoly(inside, [np.round(poly).astype(np.int32)], 255)
    return canvas, inside


def cell_origin(sq: int) -> tuple[int, int]:
    """(x0, y0) of square ``sq`` in the reading canvas, px."""
    r, c = divmod(sq, SIZE)
    return PAD_PX + c * CELL_PX, PAD_PX + r * CELL_PX


def cell_crop(canvas: np.ndarray, sq: int, grow: int = 0) -> np.ndarray:
    """The square ``sq`` of the canvas, grown by ``grow`` px on every side (view, not a copy)."""
    x0, y0 = cell_origin(sq)
    return canvas[y0 - grow:y0 + CELL_PX + grow, x0 - grow:x0 + CELL_PX + grow]


SAME_SQUARE_GREY = 6.0   # largest mean grey difference (0..255) of any 8x8 block of two crops of the same square


def same_square(a: np.ndarray, b: np.ndarray, most: float = SAME_SQUARE_GREY) -> bool:
    """Whether two grey crops (same shape, uint8) of a square show the same thing: every block of about 8x8 px
    differs by at most ``most`` grey levels on average (a letter changed, a tile laid or taken, a finger: far
    more; the camera's noise and a refitted grid's fraction of a pixel: less)."""
    if a.shape != b.shape:
        return False
    d = cv2.absdiff(a, b)
    blocks = cv2.resize(d, (max(1, d.shape[1] // 8), max(1, d.shape[0] // 8)), interpolation=cv2.INTER_AREA)
    return float(blocks.max()) <= most


@dataclass(frozen=True)
class CellStats:
    """Per-square measurements of one canvas (arrays of 225 rows).

    Attributes:
        colour: 225x3 float32, median BGR of each square's centre.
        texture: 225 float32, std of grey level in the centre (0..255 units).
        edges: 225 float32, fraction of edge pixels (Canny) in the centre.
        seen: 225 float32, fraction of the square inside the camera frame.
    """

    colour: np.ndarray
    texture: np.ndarray
    edges: np.ndarray
    seen: np.ndarray


def _core_medians(body: np.ndarray) -> np.ndarray:
    """Median BGR (225 x 3 float32, row-major squares) of each square's centre (``_CORE`` rows and columns) of
    the grid area ``body`` (SIZE*CELL_PX square, BGR uint8). Exactly ``np.median`` (the mean of the two middle
    values for an even count), from each square's and channel's values sorted by numpy's radix sort of uint8
    (``kind="stable"``): faster than a median's partition or per-square histograms on 225 x 3 x 784 bytes."""
    grid = body.reshape(SIZE, CELL_PX, SIZE, CELL_PX, 3)[:, _CORE, :, _CORE]     # row, y, col, x, channel
    rows = np.sort(grid.transpose(0, 2, 4, 1, 3).reshape(SIZE * SIZE * 3, -1), axis=1, kind="stable")
    k = rows.shape[1]
    return ((rows[:, (k - 1) // 2].astype(np.float32) + rows[:, k // 2]) / 2).reshape(SIZE * SIZE, 3)


def check_grey(canvas: np.ndarray, grey_canvas: np.ndarray | None) -> None:
    """Raise ValueError unless ``grey_canvas`` is None or a 2-D image of ``canvas``'s height and width (the
    canvas made grey, passed on so that it is made once)."""
    if grey_canvas is not None and grey_canvas.shape != canvas.shape[:2]:
        raise ValueError(f"grey canvas of shape {grey_canvas.shape}, the canvas's is {canvas.shape[:2]}")


def cell_stats(canvas: np.ndarray, inside: np.ndarray, grey_canvas: np.ndarray | None = None) -> CellStats:
    """Measure every square of a reading canvas (BGR) and its inside mask; ``grey_canvas``: the canvas made grey
    (``cv2.COLOR_BGR2GRAY``), when the caller has it (else made here). Raises ValueError for a ``grey_canvas`` of
    another size than the canvas."""
    check_grey(canvas, grey_canvas)
    g = PAD_PX
    n = SIZE * CELL_PX
    body = canvas[g:g + n, g:g + n]
    colour = _core_medians(body)
    grey = cv2.cvtColor(body, cv2.COLOR_BGR2GRAY) if grey_canvas is None else grey_canvas[g:g + n, g:g + n]
    gg = grey.reshape(SIZE, CELL_PX, SIZE, CELL_PX)[:, _CORE, :, _CORE].astype(np.float32)
    texture = gg.std(axis=(1, 3)).reshape(-1)
    edges_img = cv2.Canny(grey, 40, 120)
    ee = edges_img.reshape(SIZE, CELL_PX, SIZE, CELL_PX)[:, _CORE, :, _CORE]
    edges = (ee > 0).mean(axis=(1, 3)).reshape(-1).astype(np.float32)
    grid_inside = inside[g:g + n, g:g + n]
    if cv2.minMaxLoc(grid_inside)[0] > 0:     # the whole grid in view (the kiosk's usual frame): no share to count
        seen = np.ones(SIZE * SIZE, np.float64)
    else:
        seen = (grid_inside.reshape(SIZE, CELL_PX, SIZE, CELL_PX) > 0).mean(axis=(1, 3)).reshape(-1)
    return CellStats(colour, texture.astype(np.float32), edges, seen.astype(np.float32))


PREMIUM_CLASSES = np.array(list(LAYOUT))
