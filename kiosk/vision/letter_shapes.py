"""A second reader of a tile's letter, of another kind than the letter network: the directions of the letter's
strokes.

The letter network reads a face it never drew as surely as one it knows, and where it is wrong on such a face a
second network of the same kind is wrong the same way (``kiosk/vision/models/README.md``, "Two letter networks").
This reader is built otherwise: hand-made features of the network's own input turned upright by the letter's read
quarter turns, gradient histograms (9 unsigned directions in each of 4x4 cells of 8 px, each cell scaled to unit
length) and the glyph at 8x8, read by a small numpy classifier (:class:`kiosk.vision.mlp.Classifier`, one hidden
layer) trained on the same rendered tiles as the letter network (``python -m kiosk.vision.train shapes``). Its
letters are worse than the network's on every face, but its mistakes are others: on an unfamiliar face it mostly
gives the letter the network read some probability when the network is right, and next to none when the network
reads a letter the tile does not show (an inline S read I, a K read N).

:func:`letters_unlike` lists the letters the network gives below :data:`CHECK_BELOW_P` (of the lettered classes)
to which this reader gives less than :data:`UNLIKE_P`; the reader (:mod:`kiosk.vision.reader`) makes them doubts
("letter I? its strokes look like an A ..."). A letter the network gives at :data:`CHECK_BELOW_P` or more is not
checked: the faces it knows read that surely.

Network input: :func:`kiosk.vision.squarenet.prepare`'s (INPUT_PX square, robustly normalised grey levels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from kiosk.vision.mlp import Classifier, ModelError

MODEL_FILE = "shapes.npz"
"""The shipped model, in :mod:`kiosk.vision.models`."""

CELL_PX = 8
"""Side of a gradient histogram's cell, in input pixels (the input is 32 px: 4x4 cells)."""

BINS = 9
"""Unsigned stroke directions per cell (20 degrees each)."""

CHECK_BELOW_P = 0.999
"""A letter the letter network gives P(letter | a lettered tile) below this is checked (0..1)."""

UNLIKE_P = 0.05
"""... and doubted when this reader gives it less than this (0..1) at every one of :data:`SHIFTS`."""

SHIFTS = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
"""Where the input is read, moved by whole input pixels (x, y; an input pixel is about 1.8 px of the square's
crop): a gradient histogram's cells lie still, so a letter lying off the square's centre (a tile at the board's
edge, laid askew) reads as another letter in them; read at each, its letter counts where it reads best."""

SHARP_MIN = 2000.0
"""Only a frame at least this sharp is checked (the grid's variance of the Laplacian, grey levels squared,
:func:`kiosk.vision.quality.sharpness`): a blurred letter's strokes are not its face's, and there the reader
disagrees with right letters far more often. Under the familiarity rule's 4,500, which the unfamiliar faces' typical
frames often are not; over most motion-blurred frames."""

INPUT_PX = 32
SMALL_PX = 8
FEATURES = (INPUT_PX // CELL_PX) ** 2 * BINS + SMALL_PX * SMALL_PX


def shape_features(x: np.ndarray) -> np.ndarray:
    """Features of upright network inputs ``x`` (N x 32 x 32 float32, :func:`kiosk.vision.squarenet.prepare`'s
    values): per 8 px cell a histogram of the grey gradients' magnitude over 9 unsigned directions, scaled to unit
    length (a faint and a dark stroke alike), then the input averaged to 8x8 (clipped to +-1.5). Returns N x
    :data:`FEATURES` float32. Raises ValueError for inputs of another size."""
    x = np.asarray(x, np.float32)
    if x.ndim != 3 or x.shape[1:] != (INPUT_PX, INPUT_PX):
        raise ValueError(f"shape features: inputs of {INPUT_PX}x{INPUT_PX} expected, got {x.shape}")
    n, g = len(x), INPUT_PX // CELL_PX
    gy, gx = np.gradient(x, axis=(1, 2))
    mag = np.hypot(gx, gy)
    direction = np.minimum(((np.arctan2(gy, gx) % np.pi) * (BINS / np.pi)).astype(np.int64), BINS - 1)
    cell_of = np.arange(INPUT_PX) // CELL_PX
    cell = (cell_of[:, None] * g + cell_of[None, :]).ravel()
    flat = (np.arange(n)[:, None] * (g * g * BINS) + cell[None, :] * BINS + direction.reshape(n, -1)).ravel()
    hist = np.bincount(flat, weights=mag.ravel(), minlength=n * g * g * BINS).reshape(n, g * g, BINS)
    hist = (hist / (np.linalg.norm(hist, axis=2, keepdims=True) + 1e-2)).astype(np.float32)
    step = INPUT_PX // SMALL_PX
    small = x.reshape(n, SMALL_PX, step, SMALL_PX, step).mean(axis=(2, 4)).reshape(n, SMALL_PX * SMALL_PX)
    return np.concatenate([hist.reshape(n, -1), np.clip(small, -1.5, 1.5)], axis=1)


def upright(inputs: Sequence[np.ndarray], turns: Sequence[int]) -> np.ndarray:
    """Network inputs (each 32x32, or 1x32x32) turned upright: ``turns[i]`` is the letter's quarter turns
    counter-clockwise as read (:attr:`kiosk.vision.squarenet.SquarePrediction.turns`). Returns N x 32 x 32."""
    if not len(inputs):
        return np.zeros((0, INPUT_PX, INPUT_PX), np.float32)
    return np.stack([np.rot90(np.asarray(a, np.float32).reshape(INPUT_PX, INPUT_PX), -int(k))
                     for a, k in zip(inputs, turns)])


def _moved(x: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """Inputs ``x`` (N x 32 x 32 float32) moved by ``dx``, ``dy`` whole pixels, edges replicated."""
    m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    return np.stack([cv2.warpAffine(a, m, (INPUT_PX, INPUT_PX), borderMode=cv2.BORDER_REPLICATE) for a in x])


class ShapeReader:
    """The stroke-direction reader: :func:`shape_features` into a :class:`~kiosk.vision.mlp.Classifier` whose
    labels are letters. Raises ModelError when the model's features or labels do not fit."""

    def __init__(self, model: Classifier, origin: str = MODEL_FILE) -> None:
        if model.n_features != FEATURES:
            raise ModelError(f"{origin}: a shape model reads {FEATURES} features, this one {model.n_features}")
        if not model.labels or any(len(lab) != 1 or not lab.isalpha() for lab in model.labels):
            raise ModelError(f"{origin}: a shape model's labels are single letters, not {model.labels[:5]}")
        self.model = model
        self.index = {lab: i for i, lab in enumerate(model.labels)}

    @classmethod
    def from_bytes(cls, data: bytes, origin: str = MODEL_FILE) -> ShapeReader:
        """A reader from a model blob (:meth:`kiosk.vision.mlp.Classifier.to_bytes`); raises ModelError."""
        return cls(Classifier.from_bytes(data, origin), origin)

    def shares(self, inputs: np.ndarray, letters: Sequence[str]) -> tuple[np.ndarray, list[str]]:
        """P(``letters[i]``) of upright input ``inputs[i]`` (N x 32 x 32), the highest of its readings moved by
        each of :data:`SHIFTS`, and the reader's most likely letter for each (the same way): (N floats 0..1, N
        letters). A letter the model does not know gets 0."""
        if not len(inputs):
            return np.zeros(0, np.float32), []
        x = np.asarray(inputs, np.float32)
        moved = np.concatenate([_moved(x, dx, dy) for dx, dy in SHIFTS])
        p = self.model.predict_proba(shape_features(moved)).reshape(len(SHIFTS), len(x), -1).max(axis=0)
        idx = np.array([self.index.get(lt, -1) for lt in letters])
        share = np.where(idx >= 0, p[np.arange(len(p)), np.maximum(idx, 0)], 0.0).astype(np.float32)
        return share, [self.model.labels[k] for k in p.argmax(axis=1)]


def letters_unlike(reader: ShapeReader, inputs: Mapping[int, np.ndarray], letters: Mapping[int, str],
                   turns: Mapping[int, int]) -> dict[int, tuple[float, str]]:
    """The squares whose letter the shape reader gives less than :data:`UNLIKE_P`: {square: (its P of the
    letter read, its own most likely letter)}. ``inputs``: each checked square's network input (32x32, as read,
    not turned); ``letters`` and ``turns``: the letter network's letter and its quarter turns for it (the caller
    picks the squares: letters given below :data:`CHECK_BELOW_P`)."""
    squares = [sq for sq in inputs if sq in letters]
    if not squares:
        return {}
    shares, best = reader.shares(upright([inputs[sq] for sq in squares], [turns[sq] for sq in squares]),
                                 [letters[sq] for sq in squares])
    return {sq: (float(p), b) for sq, p, b in zip(squares, shares, best) if p < UNLIKE_P}
