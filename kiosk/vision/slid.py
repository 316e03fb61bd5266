"""A tile lying across two squares: seen by its colour, made a doubt on both squares.

A tile slid about half a square off its place covers part of two squares. Read square by square it can read as
no tile at all (each half alone looks like board), or as another letter (the part of the letter on the nearer
square: an A reads N), silently. A tile placed within its square, even a fifth of a square off centre, fills
both outer thirds of that square with its own colour; a slid tile fills one outer third of each square it
covers, the thirds facing each other across their common edge, and leaves the far third of each in the board's
colour. That pattern is what :func:`slid_pairs` looks for, with the frame's tile colour taken from the squares
read as sure letters.

Conventions: squares are numbered row-major 0..224 (``row * 15 + column``, A1 = 0); the canvas is the reader's
(:mod:`kiosk.vision.cells`: ``CELL_PX`` px a square, a ``PAD_PX`` margin); colours are BGR, distances Euclidean
in BGR units (0..441).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiosk.vision.cells import CELL_PX, PAD_PX, SIZE
from kiosk.vision.reading import Doubt, DoubtKind, SquareReading, SquareState

N_SQUARES = SIZE * SIZE
SHRINK = 4                       # the thirds are measured on every SHRINK-th px of the canvas
THIRD = (3, 16)                  # px within a square: the outer third on the low side (the other is mirrored)
ALONG = (6, CELL_PX - 6)         # px within a square: the band along the edge, clear of the corners
TILE_NEAR = 0.35                 # a facing third is tile-coloured within this share of the far thirds' distance
FAR_TILE_SHARE = 0.1             # ... and the far thirds hold at most this share of tile-coloured px
NEAR_QUANTILE = 0.4              # the facing thirds: this quantile of their px distances (ink lies there)
MIN_CONTRAST = 50.0              # BGR units: both far thirds at least this far from the tile colour (board)
MIN_LETTERS = 3                  # sure letters needed for the frame's tile colour
SLID_DOUBT = Doubt(DoubtKind.SLID, "a tile across two squares? (put it on one square)")


def _third_pixels(canvas: np.ndarray) -> np.ndarray:
    """The sampled pixels of each square's four outer thirds: 225 x 4 x K x 3 float32 BGR (left, right, top,
    bottom), every ``SHRINK``-th px of the canvas."""
    n = SIZE * CELL_PX
    cell = CELL_PX // SHRINK
    small = canvas[PAD_PX:PAD_PX + n:SHRINK, PAD_PX:PAD_PX + n:SHRINK]
    body = small.reshape(SIZE, cell, SIZE, cell, 3)
    t0, t1 = -(-THIRD[0] // SHRINK), -(-THIRD[1] // SHRINK)
    lo, hi = slice(t0, t1), slice(cell - t1, cell - t0)
    along = slice(-(-ALONG[0] // SHRINK), cell - -(-ALONG[0] // SHRINK))
    parts = (body[:, along, :, lo], body[:, along, :, hi],                     # row, y, col, x, channel
             body[:, lo, :, along].transpose(0, 3, 2, 1, 4), body[:, hi, :, along].transpose(0, 3, 2, 1, 4))
    return np.stack([part.transpose(0, 2, 1, 3, 4).reshape(N_SQUARES, -1, 3) for part in parts], axis=1
                    ).astype(np.float32)


def slid_pairs(canvas: np.ndarray, squares: Sequence[SquareReading], tile_colour: np.ndarray | None = None,
               skip: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Pairs of neighbouring squares ``(a, b)`` (``b`` right of or below ``a``) that a tile seems to lie across.

    ``canvas``: the reading canvas (BGR uint8); ``squares``: the 225 readings so far; ``tile_colour``: BGR of the
    frame's tiles, by default the median colour of the outer thirds of the squares read as letters (fewer than
    ``MIN_LETTERS``: no pair is given). A pair counts when the thirds of ``a`` and ``b`` that face each other are
    tile-coloured (at least ``NEAR_QUANTILE`` of their px within ``TILE_NEAR`` of the contrast) and the two far
    thirds hold almost no tile colour (at most ``FAR_TILE_SHARE`` of their px within that distance; a letter's
    ink in a far third of a tile placed on its square leaves more). The contrast: the smaller of the far thirds' median distances
    to the tile colour, at least ``MIN_CONTRAST`` (tiles as light as the board are not judged). ``skip``: 225
    bools, squares not judged (under glare, whose white passes for a light tile's colour; under the hand)."""
    px = _third_pixels(canvas)
    if tile_colour is None:
        lettered = [i for i, s in enumerate(squares) if s.state is SquareState.TILE and s.letter]
        if len(lettered) < MIN_LETTERS:
            return []
        # the outer thirds of the lettered squares: the tile's own colour (the ink lies mostly in the centre)
        tile_colour = np.median(np.ascontiguousarray(px[lettered].reshape(-1, 3).T), axis=1)
    diff = px - np.asarray(tile_colour, np.float32)
    dist = np.sqrt(np.einsum("sfkc,sfkc->sfk", diff, diff))                      # 225 x 4 x K
    med = np.median(dist, axis=2)                                                # 225 x 4
    low = np.partition(dist, int(dist.shape[2] * NEAR_QUANTILE), axis=2)[:, :, int(dist.shape[2] * NEAR_QUANTILE)]
    grid, mgrid, lgrid = dist.reshape(SIZE, SIZE, 4, -1), med.reshape(SIZE, SIZE, 4), low.reshape(SIZE, SIZE, 4)
    pairs: list[tuple[int, int]] = []
    # across: a's right third and b's left third face each other; down: a's bottom third and b's top third
    for near_a, far_a, near_b, far_b, sa, sb, step in ((1, 0, 0, 1, np.s_[:, :-1], np.s_[:, 1:], 1),
                                                       (3, 2, 2, 3, np.s_[:-1], np.s_[1:], SIZE)):
        ma, mb, da, db, la, lb = mgrid[sa], mgrid[sb], grid[sa], grid[sb], lgrid[sa], lgrid[sb]
        contrast = np.minimum(ma[..., far_a], mb[..., far_b])
        tol = TILE_NEAR * contrast
        near_ok = np.maximum(la[..., near_a], lb[..., near_b]) <= tol
        far_share = np.maximum((da[..., far_a, :] <= tol[..., None]).mean(axis=-1),
                               (db[..., far_b, :] <= tol[..., None]).mean(axis=-1))
        hit = (contrast >= MIN_CONTRAST) & near_ok & (far_share <= FAR_TILE_SHARE)
        if skip is not None:
            sk = skip.reshape(SIZE, SIZE)
            hit &= ~(sk[sa] | sk[sb])
        rows, cols = np.nonzero(hit)
        pairs.extend((int(r * SIZE + c), int(r * SIZE + c + step)) for r, c in zip(rows, cols))
    return sorted(pairs)


def doubt_slid_tiles(canvas: np.ndarray, squares: list[SquareReading], doubts: dict[int, Doubt],
                     skip: np.ndarray | None = None) -> list[int]:
    """Make both squares of every pair of :func:`slid_pairs` a doubt ("a tile across two squares?"), whatever
    they were read as; returns the squares doubted, in order. ``squares`` and ``doubts`` are changed in place;
    ``skip`` as for :func:`slid_pairs`."""
    hit = sorted({sq for pair in slid_pairs(canvas, squares, skip=skip) for sq in pair})
    for sq in hit:
        squares[sq] = SquareReading(SquareState.UNSURE, None, 0.0)
        doubts[sq] = SLID_DOUBT
    return hit
