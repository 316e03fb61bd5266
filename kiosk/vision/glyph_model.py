"""Letter reading: normalise a tile's glyph, describe it with HOG-style features, classify it.

A tile crop (grey, any polarity: dark ink on a light tile or light ink on a dark tile) is normalised by
:func:`normalise_glyph`: contrast stretched, turned so that ink is bright, cut to the bounding box of the ink
(letter *and* value digit, which fixes the tile's orientation), padded square and resized to ``GLYPH_PX``.
:func:`glyph_features` gives a HOG-style descriptor plus a coarse intensity map.

The classifier (:class:`GlyphClassifier`) has one class per (letter, quarter turn): ``"A0"``, ``"A1"`` ...
so a tile lying rotated by 90/180/270 degrees is still read (the digit's place tells the turns apart, e.g.
N from a turned Z). :func:`build_glyph_classifier` trains one from labelled samples and reports its
cross-validated accuracy; the calibration tools call it.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.vision.mlp import Classifier, ModelError, data_problem

GLYPH_PX = 32
MIN_CONTRAST = 12          # grey levels between tile face and ink below which the tile shows no glyph
MIN_REL_CONTRAST = 0.2     # ... and as a fraction of the brightest grey level in the tile's middle
MIN_INK_FRACTION = 0.012   # ink pixels (fraction of the crop) below which the tile is a blank
BLANK = "?"
MIN_LETTER_IMAGE_PX = GLYPH_PX // 2
"""A letter image (calibration material: one tile's letter, tightly cropped) narrower or lower than this cannot hold
a tile's letter: the glyph model reads letters at ``GLYPH_PX``, and a letter on the reading canvas (squares of
:data:`kiosk.vision.cells.CELL_PX`, 48 px) is about 26-36 px, as ScrabScrap's letter images are."""


def letter_image_problem(grey: np.ndarray) -> str | None:
    """Why the grey ``grey`` cannot be a letter image (a clause: too small to hold a tile's letter, one flat colour
    all over), or None. The caller names the file."""
    h, w = grey.shape[:2]
    if min(h, w) < MIN_LETTER_IMAGE_PX:
        return (f"{w}x{h} px is too small to hold a tile's letter (a letter image is at least {MIN_LETTER_IMAGE_PX}x"
                f"{MIN_LETTER_IMAGE_PX} px; the letters of a camera's tiles are about 26-36 px)")
    if int(grey.min()) == int(grey.max()):
        return f"one flat colour all over (grey level {int(grey.min())}): no letter in it"
    return None


@dataclass(frozen=True)
class GlyphPrediction:
    """The letter read on one tile: ``letter`` (upper-case, or ``"?"`` for a blank), its probability, the
    runner-up and the number of quarter turns the tile lies rotated (0..3, counter-clockwise)."""

    letter: str
    confidence: float
    runner_up: str
    margin: float
    turns: int


def _ink_mask(norm: np.ndarray, cut: int = 0) -> np.ndarray:
    """Ink (bright after normalisation) without the parts touching the crop border (neighbours, edges).

    ``cut``: px of the thresholded crop's outer band to clear first (parts the letter touches there).
    """
    _, mask = cv2.threshold(norm, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    if cut:
        inner = np.zeros_like(mask)
        inner[cut:-cut, cut:-cut] = mask[cut:-cut, cut:-cut]
        mask = inner
    n, lab, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    band = max(3, int(0.12 * min(h, w)))    # tile edges, gaps and neighbours' ink live near the crop border
    keep = np.zeros(n, bool)
    areas = stats[1:, cv2.CC_STAT_AREA]
    if n <= 1:
        return keep[lab]
    biggest = 0
    for i in range(1, n):
        x, y, ww, hh, area = stats[i]
        touches = x <= 0 or y <= 0 or x + ww >= w or y + hh >= h
        cx, cy = cents[i]
        in_band = cx < band or cy < band or cx > w - band or cy > h - band
        # the tile's own edge or the gap to a neighbour: a long thin line near the crop border
        edge_line = (min(ww, hh) <= 4 and max(ww, hh) >= 0.22 * min(h, w)
                     and min(cx, cy, w - cx, h - cy) < 0.22 * min(h, w))
        if not touches and not in_band and not edge_line and area >= 3:
            keep[i] = True
            biggest = max(biggest, area)
    for i in range(1, n):  # specks far smaller than the letter are noise (umlaut dots are ~5% of it)
        if keep[i] and stats[i][4] < 0.03 * biggest:
            keep[i] = False
    del areas
    return keep[lab]


def normalise_glyph(grey: np.ndarray) -> np.ndarray | None:
    """``GLYPH_PX`` square float32 image (ink bright, 0..1) of the ink on a tile crop, or None for no ink.

    ``grey``: the tile (a square crop a little larger than the square, uint8). None means a blank tile
    (no contrast or too little ink).
    """
    g = grey.astype(np.float32)
    h, w = g.shape
    centre = g[h // 4:h - h // 4, w // 4:w - w // 4]
    c_lo, c_hi = np.percentile(centre, (2, 98))
    # the tile's middle is plain (wood grain, mottling): a blank. Contrast relative to the brightest part, so
    # that a dim frame's ink still counts
    if c_hi - c_lo < MIN_CONTRAST or (c_hi - c_lo) < MIN_REL_CONTRAST * c_hi:
        return None
    lo, hi = np.percentile(g, (3, 97))
    if hi - lo < MIN_CONTRAST:      # the ink too little to reach the crop's percentiles (a small mark): the centre's
        lo, hi = c_lo, c_hi         # (the span would be 0, every pixel NaN)
    face = float(np.median(centre))
    if face > (lo + hi) / 2:        # light tile, dark ink: turn ink bright
        g = hi - g
        span = hi - lo
    else:
        g = g - lo
        span = hi - lo
    norm = np.clip(g / span * 255, 0, 255).astype(np.uint8)
    ink = _ink_mask(norm)
    if ink.mean() < MIN_INK_FRACTION:
        # the letter may touch a dark tile edge / gap (Otsu joins them into one border component, which is
        # dropped): cut the crop's outer band off and look again
        ink = _ink_mask(norm, cut=max(3, int(0.12 * min(norm.shape))))
        if ink.mean() < MIN_INK_FRACTION:
            return None
    n_big = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)[2][1:, cv2.CC_STAT_AREA]
    if n_big.size == 0 or n_big.max() < 0.5 * MIN_INK_FRACTION * ink.size:  # only specks: a blank
        return None
    ys, xs = np.nonzero(ink)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    crop = np.where(ink, norm, 0)[y0:y1, x0:x1].astype(np.float32) / 255.0
    side = max(crop.shape) + 2
    sq = np.zeros((side, side), np.float32)
    oy, ox = (side - crop.shape[0]) // 2, (side - crop.shape[1]) // 2
    sq[oy:oy + crop.shape[0], ox:ox + crop.shape[1]] = crop
    return cv2.resize(sq, (GLYPH_PX, GLYPH_PX), interpolation=cv2.INTER_AREA)


_BINS = 9
_GRID = 6
_CY = (np.arange(GLYPH_PX) * _GRID) // GLYPH_PX
_CELL_INDEX = (_CY[:, None] * _GRID + _CY[None, :]).ravel()


def glyph_features(glyph: np.ndarray) -> np.ndarray:
    """Descriptor of a normalised glyph (float32 vector): HOG-style gradient histograms (6x6 cells x 9
    orientations, signed, per-cell L2-normalised) and the glyph at 8x8."""
    gx = cv2.Sobel(glyph, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(glyph, cv2.CV_32F, 0, 1, ksize=3)
    mag, ang = cv2.cartToPolar(gx, gy, angleInDegrees=True)
    b = (ang * (_BINS / 360.0)).astype(np.int32) % _BINS
    flat = _CELL_INDEX * _BINS + b.ravel()
    hist = np.bincount(flat, weights=mag.ravel(), minlength=_GRID * _GRID * _BINS).astype(np.float32)
    hist = hist.reshape(_GRID, _GRID, _BINS)
    hist /= np.linalg.norm(hist, axis=2, keepdims=True) + 1e-3
    small = glyph.reshape(8, GLYPH_PX // 8, 8, GLYPH_PX // 8).mean(axis=(1, 3))
    return np.concatenate([hist.ravel(), small.ravel()]).astype(np.float32)


def rotations(glyph: np.ndarray) -> list[np.ndarray]:
    """The glyph turned 0, 1, 2, 3 quarter turns counter-clockwise."""
    return [np.ascontiguousarray(np.rot90(glyph, k)) for k in range(4)]


class GlyphClassifier:
    """Letter classifier over :func:`glyph_features`; labels are letter + quarter turns (``"Q2"``)."""

    def __init__(self, net: Classifier, tile_set_name: str = "") -> None:
        self.net = net
        self.tile_set_name = tile_set_name
        letters = sorted({lab[:-1] for lab in net.labels})
        self.letters = letters
        self._letter_of = np.array([letters.index(lab[:-1]) for lab in net.labels])
        self._turns_of = np.array([int(lab[-1]) for lab in net.labels])

    def predict(self, glyphs: Sequence[np.ndarray]) -> list[GlyphPrediction]:
        """Read normalised glyphs (each ``GLYPH_PX`` square float32); one prediction per glyph."""
        if not glyphs:
            return []
        x = np.stack([glyph_features(g) for g in glyphs])
        p = self.net.predict_proba(x)
        out = []
        for row in p:
            per_letter = np.zeros(len(self.letters), np.float32)
            np.add.at(per_letter, self._letter_of, row)
            order = np.argsort(per_letter)[::-1]
            best, second = int(order[0]), int(order[1])
            turns = int(self._turns_of[int(np.argmax(np.where(self._letter_of == best, row, -1)))])
            out.append(GlyphPrediction(self.letters[best], float(per_letter[best]), self.letters[second],
                                       float(per_letter[best] - per_letter[second]), turns))
        return out

    def to_text(self) -> str:
        """The model as base64 text (for embedding in a calibration profile)."""
        return base64.b64encode(self.net.to_bytes()).decode("ascii")

    @classmethod
    def from_text(cls, text: str, origin: str = "glyph model", tile_set_name: str = "") -> GlyphClassifier:
        """Load a model written by :meth:`to_text`; raises ModelError naming ``origin``."""
        try:
            raw = base64.b64decode(text.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError) as exc:
            raise ModelError(f"{origin}: not base64 model data ({data_problem(exc)})") from None
        net = Classifier.from_bytes(raw, origin)
        if any(len(lab) < 2 or not lab[-1].isdigit() for lab in net.labels):
            raise ModelError(f"{origin}: labels are not letter+turns")
        return cls(net, tile_set_name)


def _augment(glyph: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A slightly rotated / scaled / blurred / thickened copy of a normalised glyph."""
    ang = rng.uniform(-5, 5)
    sc = rng.uniform(0.92, 1.06)
    m = np.asarray(cv2.getRotationMatrix2D((GLYPH_PX / 2, GLYPH_PX / 2), ang, sc), np.float64)
    m[:, 2] += rng.uniform(-1.2, 1.2, 2)
    out = cv2.warpAffine(glyph, m, (GLYPH_PX, GLYPH_PX), flags=cv2.INTER_LINEAR)
    r = rng.random()
    if r < 0.25:
        out = cv2.dilate(out, np.ones((2, 2), np.uint8))
    elif r < 0.5:
        out = cv2.erode(out, np.ones((2, 2), np.uint8))
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.0))
    return out


def training_set(samples: Sequence[tuple[np.ndarray, str]], augment: int = 2, seed: int = 0
                 ) -> tuple[np.ndarray, list[str], np.ndarray]:
    """(features N x F, labels letter+turns, group id per row) from upright glyph samples, all 4 turns, with
    ``augment`` jittered copies each. Group ids tie every row to its source sample (for cross-validation)."""
    rng = np.random.default_rng(seed)
    feats, labels, groups = [], [], []
    for gi, (glyph, letter) in enumerate(samples):
        variants = [glyph] + [_augment(glyph, rng) for _ in range(augment)]
        for v in variants:
            for k, r in enumerate(rotations(v)):
                feats.append(glyph_features(r))
                labels.append(f"{letter}{k}")
                groups.append(gi)
    return np.stack(feats), labels, np.array(groups)


def build_glyph_classifier(samples: Sequence[tuple[np.ndarray, str]], *, folds: int = 4, augment: int = 2,
                           seed: int = 0, tile_set_name: str = "", hidden: int = 128, epochs: int = 40
                           ) -> tuple[GlyphClassifier, float]:
    """Train a glyph classifier from labelled samples and measure it.

    Args:
        samples: ``(image, letter)`` pairs. ``image`` is either a tile crop (grey or BGR uint8, the tile a
            little larger than its face, any polarity) or an already normalised glyph (float32,
            ``GLYPH_PX`` square); ``letter`` is the upper-case letter, upright in the image.
        folds: k for k-fold cross-validation (grouped by sample, so augmented copies never straddle folds);
            ``folds < 2`` skips it.
    Returns:
        (classifier trained on all samples, cross-validated letter accuracy 0..1; NaN when skipped).
    Raises:
        ModelError: fewer than 2 distinct letters, or a sample without ink.
    """
    glyphs: list[tuple[np.ndarray, str]] = []
    for i, (img, letter) in enumerate(samples):
        if not isinstance(letter, str) or len(letter) != 1 or not letter.isupper():
            raise ModelError(f"sample {i}: label {letter!r} is not one upper-case letter")
        g = as_glyph(img)
        if g is None:
            raise ModelError(f"sample {i} ({letter}): no ink found on the tile")
        glyphs.append((g, letter))
    if len({lab for _, lab in glyphs}) < 2:
        raise ModelError("need samples of at least 2 letters")
    x, y, groups = training_set(glyphs, augment=augment, seed=seed)
    acc = float("nan")
    if folds >= 2:
        rng = np.random.default_rng(seed)
        fold_of = rng.integers(0, folds, size=len(glyphs))[groups]
        right = total = 0
        letters = np.array([lab[:-1] for lab in y])
        for k in range(folds):
            test = fold_of == k
            if not test.any() or test.all():
                continue
            net = Classifier.fit(x[~test], np.array(y)[~test], hidden=hidden, epochs=epochs, seed=seed)
            clf = GlyphClassifier(net)
            p = net.predict_proba(x[test])
            per = np.zeros((len(p), len(clf.letters)), np.float32)
            for j in range(p.shape[1]):
                per[:, clf._letter_of[j]] += p[:, j]
            pred = np.array(clf.letters)[per.argmax(axis=1)]
            right += int((pred == letters[test]).sum())
            total += int(test.sum())
        acc = right / total if total else float("nan")
    net = Classifier.fit(x, np.array(y), hidden=hidden, epochs=epochs, seed=seed)
    return GlyphClassifier(net, tile_set_name), acc


def as_glyph(img: np.ndarray) -> np.ndarray | None:
    """A normalised glyph from a tile crop (uint8 grey/BGR) or pass a normalised glyph through."""
    a = np.asarray(img)
    if a.dtype == np.float32 and a.shape == (GLYPH_PX, GLYPH_PX):
        return a
    if a.ndim == 3:
        a = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY)
    if a.dtype != np.uint8 or a.ndim != 2 or min(a.shape) < 8:
        raise ModelError(f"glyph sample: expected a uint8 grey/BGR image, got {a.dtype} {a.shape}")
    return normalise_glyph(a)
