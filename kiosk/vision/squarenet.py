"""The square classifier: a small convolutional network (ONNX, run by OpenCV's dnn module) that reads one
square of the reading canvas as ``empty``, ``blank`` (a tile without glyph) or a letter with its quarter turns.

Input: the square's grey crop grown by ``GROW_PX`` on each side (``CELL_PX + 2 * GROW_PX`` px square, see
:func:`kiosk.vision.cells.cell_crop`), resized to ``INPUT_PX`` square (area interpolation) and normalised per
crop: minus its median, divided by a robust spread (2nd..98th percentile, at least ``MIN_SPREAD`` grey
levels), so light level and contrast matter little while a plain crop stays plain.

Labels: ``"empty"``, ``"blank"`` and letter + quarter turns counter-clockwise (``"A0"`` ... ``"Z3"``, German
adds ``Ä`` ``Ö`` ``Ü``), as :class:`kiosk.vision.glyph_model.GlyphClassifier`. The network is trained by
:mod:`kiosk.vision.squarenet_train` (torch, only needed to train); the package ships the ONNX files and
their label lists (``squares_<set>.onnx`` + ``squares_<set>.json``), and the letter network read beside it
(``letters_<set>.onnx`` + ``.json``, :mod:`kiosk.vision.letternet_train`; see :class:`SquareNet`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.vision.cells import CELL_PX
from kiosk.vision.cvcompat import read_onnx
from kiosk.vision.mlp import ModelError

INPUT_PX = 32
GROW_PX = 5
CROP_PX = CELL_PX + 2 * GROW_PX
MIN_SPREAD = 16.0
LETTER_NET_FROM = 0.02
"""A square network with a letter network (:class:`SquareNet` ``letters``) asks it which letter only where it
gives a lettered tile at least this probability (0..1)."""
EMPTY = "empty"
BLANK = "blank"


def prepare(crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """Network input (N x 1 x INPUT_PX x INPUT_PX float32) from grey uint8 crops of ``CROP_PX`` square
    (other sizes are resized too)."""
    out = np.empty((len(crops), 1, INPUT_PX, INPUT_PX), np.float32)
    for i, c in enumerate(crops):
        out[i, 0] = cv2.resize(c, (INPUT_PX, INPUT_PX), interpolation=cv2.INTER_AREA)
    return normalise(out)


def scaled(crop: np.ndarray, factor: float) -> np.ndarray:
    """``crop`` (grey uint8) scaled by ``factor`` about its centre, the same size (edges replicated): the glyph
    drawn a few percent larger or smaller, as another font or camera distance would."""
    h, w = crop.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2 - 0.5, h / 2 - 0.5), 0.0, factor)
    return cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


SAME_INPUT = 0.1   # largest mean difference (normalised units) of any 4x4 block of two inputs of the same square
REMEMBERED = 1024   # crops whose probabilities a SquareNet remembers (a board's worth, and the frames' new reads)


def same_input(a: np.ndarray, b: np.ndarray, most: float = SAME_INPUT) -> bool:
    """Whether two network inputs of a square (made by :func:`prepare`, INPUT_PX square, any leading axes of
    size 1) show the same thing to the network: every 4x4 block differs by at most ``most`` on average. The
    inputs are normalised per crop, so a change of light or exposure over the board changes them little (a
    letter changed, a tile laid or taken, a finger: far more; the network reads what it is given, so a square
    whose input stays the same keeps its reading)."""
    if a.size != INPUT_PX * INPUT_PX or b.size != INPUT_PX * INPUT_PX:
        return False
    d = cv2.resize(cv2.absdiff(a.reshape(INPUT_PX, INPUT_PX), b.reshape(INPUT_PX, INPUT_PX)), (INPUT_PX // 4, INPUT_PX // 4), interpolation=cv2.INTER_AREA)
    return float(d.max()) <= most


def softmax_rows(z: np.ndarray) -> np.ndarray:
    """Each row of network outputs ``z`` (N x K float32 logits) made probabilities summing to 1, in place; returns
    ``z``."""
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


def normalise(x: np.ndarray) -> np.ndarray:
    """Per-crop robust normalisation of ``x`` (N x ... float32 grey levels), in place; returns ``x``: minus the
    median, divided by the 2nd..98th percentile spread (order statistics; at least MIN_SPREAD)."""
    if not len(x):
        return x
    flat = x.reshape(len(x), -1)
    n = flat.shape[1]
    ks = [int(0.02 * (n - 1)), (n - 1) // 2, int(round(0.98 * (n - 1)))]
    lo, med, hi = np.partition(flat, ks, axis=1)[:, ks].T
    spread = np.maximum(hi - lo, MIN_SPREAD)
    flat -= med[:, None]
    flat /= spread[:, None]
    return x


def _labels_of(meta_json: bytes | str, origin: str) -> list[str]:
    """The labels of a network's JSON file; raises ModelError for a bad file or other crop sizes."""
    try:
        meta = json.loads(meta_json)
        labels = [str(x) for x in meta["labels"]]
        px, grow = int(meta.get("input_px", INPUT_PX)), int(meta.get("grow_px", GROW_PX))
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{origin}: bad label file ({exc})") from None
    if (px, grow) != (INPUT_PX, GROW_PX):
        raise ModelError(f"{origin}: made for {px} px input / {grow} px grown crops, this reader uses "
                         f"{INPUT_PX} / {GROW_PX}")
    return labels


@dataclass(frozen=True)
class SquarePrediction:
    """The network's reading of one square.

    Attributes:
        p_empty: P(no tile), 0..1.
        p_blank: P(blank tile), 0..1.
        letter: most likely letter (turns summed), upper-case.
        p_letter: its probability (0..1, of all classes).
        runner_up: the next most likely letter.
        turns: quarter turns counter-clockwise of the best letter.
        own: the square network's own reading where a letter network gave the letters (None without one).
    """

    p_empty: float
    p_blank: float
    letter: str
    p_letter: float
    runner_up: str
    turns: int
    own: SquarePrediction | None = None

    @property
    def square(self) -> SquarePrediction:
        """The square network's own reading (:attr:`own`, else this one): what the tile-or-empty rules weigh, as
        the settle model was trained on it and a letter network never saw an empty square's print."""
        return self.own if self.own is not None else self

    @property
    def p_tile(self) -> float:
        """P(a tile, lettered or blank)."""
        return 1.0 - self.p_empty

    @property
    def blank_if_tile(self) -> float:
        """P(blank | a tile, lettered or blank)."""
        return self.p_blank / max(self.p_tile, 1e-9)

    @property
    def letter_if_tile(self) -> float:
        """P(this letter | a tile, lettered or blank): low for a tile the network calls a blank (unlike
        :attr:`letter_given_tile`)."""
        return self.p_letter / max(self.p_tile, 1e-9)

    @property
    def letter_given_tile(self) -> float:
        """P(letter | a lettered tile): the letter's share of the lettered classes (a blank's best letter can
        score high here; :attr:`letter_if_tile` does not)."""
        rest = 1.0 - self.p_empty - self.p_blank
        return self.p_letter / rest if rest > 1e-9 else 0.0


class SquareNet:
    """A trained square network with its labels. :meth:`predict` is not thread-safe (one per reader).

    The class probabilities of crops read by :meth:`predict_inputs` with ``crops`` given are remembered (at most
    :data:`REMEMBERED`, the least lately used dropped first): :meth:`probabilities` (and so :meth:`letter_table`,
    :meth:`letter_shares`) gives those crops (the same array objects, made read-only; only arrays that own their
    pixels, not views of a frame) their remembered rows without reading them again. The network gave a crop the
    same row in any batch on this machine (bit for bit on 100 real crops); elsewhere a row may differ in its last
    digits.

    ``letters``: a letter network (ONNX bytes, its labels: the letter labels ``labels[2:]`` in the same order,
    its origin for errors) trained on lettered tiles only (:mod:`kiosk.vision.letternet_train`). With one, the
    square network still gives P(empty) and P(blank), and the letter network shares the rest among the letters
    wherever that rest is at least :data:`LETTER_NET_FROM` (a call of each network per batch: where a method
    below says one network call, it means one of each). Raises ModelError for a network OpenCV cannot load or
    run, a letter network whose outputs or labels do not match.
    """

    def __init__(self, onnx: bytes, labels: list[str], origin: str = "square model",
                 letters: tuple[bytes, list[str], str] | None = None) -> None:
        if len(labels) < 3 or labels[0] != EMPTY or labels[1] != BLANK or \
                any(len(lab) < 2 or not lab[-1].isdigit() for lab in labels[2:]):
            raise ModelError(f"{origin}: labels must be 'empty', 'blank', then letter+turns")
        try:
            self.net = read_onnx(onnx)
        except cv2.error as exc:
            raise ModelError(f"{origin}: OpenCV cannot load the ONNX network ({str(exc).strip()[:200]})") from None
        self.labels = labels
        self.letter_net: cv2.dnn.Net | None = None
        if letters is not None:
            l_onnx, l_labels, l_origin = letters
            if l_labels != labels[2:]:
                raise ModelError(f"{l_origin}: its labels are not the letter labels of {origin}")
            try:
                self.letter_net = read_onnx(l_onnx)
                self.letter_net.setInput(np.zeros((1, 1, INPUT_PX, INPUT_PX), np.float32))
                n_out = self.letter_net.forward().size
            except cv2.error as exc:
                raise ModelError(f"{l_origin}: OpenCV cannot load or run the ONNX network "
                                 f"({str(exc).strip()[:200]})") from None
            if n_out != len(l_labels):
                raise ModelError(f"{l_origin}: {n_out} outputs for its {len(l_labels)} letter labels")
        self.letters = sorted({lab[:-1] for lab in labels[2:]})
        self._rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}   # id(crop) -> (crop, its probabilities)
        self._letter_of = np.array([self.letters.index(lab[:-1]) for lab in labels[2:]])
        self._turns_of = np.array([int(lab[-1]) for lab in labels[2:]])
        self._one_hot = np.zeros((len(labels) - 2, len(self.letters)), np.float32)
        self._one_hot[np.arange(len(labels) - 2), self._letter_of] = 1.0
        # _turned[k][j]: the class that label j becomes when the crop is turned k quarter turns counter-clockwise
        # (None when some letter lacks a turn: then a crop is read once)
        index = {lab: j for j, lab in enumerate(labels)}
        turned = [np.array([j if j < 2 else index.get(f"{lab[:-1]}{(int(lab[-1]) + k) % 4}", -1)
                            for j, lab in enumerate(labels)]) for k in range(4)]
        self._turned: list[np.ndarray] | None = None if any((t < 0).any() for t in turned) else turned

    @classmethod
    def from_files(cls, onnx: bytes, meta_json: bytes | str, origin: str = "square model",
                   letters: tuple[bytes, bytes | str, str] | None = None) -> SquareNet:
        """Load from the ONNX bytes and the JSON beside it (``{"labels": [...], "input_px": 32, ...}``);
        ``letters``: a letter network's ONNX bytes, its JSON and its origin, loaded the same way. Raises
        ModelError."""
        labels = _labels_of(meta_json, origin)
        with_letters = None if letters is None else (letters[0], _labels_of(letters[1], letters[2]), letters[2])
        return cls(onnx, labels, origin, with_letters)

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (N x len(labels) float32, rows sum to 1) of grey crops (see :func:`prepare`); a
        remembered crop's (class docstring) as remembered."""
        if not len(crops):
            return np.zeros((0, len(self.labels)), np.float32)
        found = [self._remembered(c) for c in crops]
        todo = [i for i, row in enumerate(found) if row is None]
        out = np.empty((len(crops), len(self.labels)), np.float32)
        for i, row in enumerate(found):
            if row is not None:
                out[i] = row
        if todo:
            out[todo] = self.probabilities_of_inputs(prepare([crops[i] for i in todo]))
        return out

    def _remembered(self, crop: np.ndarray) -> np.ndarray | None:
        """The remembered probabilities of this very crop object, or None (marked lately used)."""
        hit = self._rows.pop(id(crop), None)
        if hit is None or hit[0] is not crop:
            return None
        self._rows[id(crop)] = hit
        return hit[1]

    def _remember(self, crops: Sequence[np.ndarray], p: np.ndarray) -> None:
        """Remember the probabilities ``p`` (one row per crop) of ``crops`` that own their pixels, made read-only (a
        crop changed in place would keep rows no longer its own)."""
        for crop, row in zip(crops, p):
            if crop.base is not None:   # a view: what it shows may change through its base
                continue
            crop.flags.writeable = False
            self._rows.pop(id(crop), None)
            self._rows[id(crop)] = (crop, row.copy())
        while len(self._rows) > REMEMBERED:
            del self._rows[next(iter(self._rows))]

    def probabilities_of_inputs(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities (as :meth:`probabilities`) of network inputs already made by :func:`prepare`
        (N x 1 x INPUT_PX x INPUT_PX float32)."""
        return self._both(x)[0]

    def _both(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(class probabilities with the letter network's letters, the square network's own; None without a letter
        network) of network inputs."""
        if not len(x):
            return np.zeros((0, len(self.labels)), np.float32), None
        x = np.ascontiguousarray(x, np.float32)
        self.net.setInput(x)
        z = self.net.forward().reshape(len(x), -1).astype(np.float32)
        if z.shape[1] != len(self.labels):
            raise ModelError(f"square model: {z.shape[1]} outputs for {len(self.labels)} labels")
        own = softmax_rows(z)
        if self.letter_net is None:
            return own, None
        p = own.copy()
        lettered = p[:, 2:].sum(axis=1)
        rows = np.flatnonzero(lettered >= LETTER_NET_FROM)
        if len(rows):
            self.letter_net.setInput(np.ascontiguousarray(x[rows]))
            q = self.letter_net.forward().reshape(len(rows), -1).astype(np.float32)
            p[rows, 2:] = softmax_rows(q) * lettered[rows, None]
        return p, own

    def probabilities_turned(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (as :meth:`probabilities`) averaged over each crop read in its four quarter turns
        (each turned reading mapped back to the crop's own orientation). A letter the network reads poorly in one
        orientation (a worn stroke, a value digit against the glyph) it often reads surely in the others; costs
        four readings per crop (of each network). Labels without all four turns fall back to one reading."""
        return self._both_turned(crops)[0]

    def _both_turned(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`probabilities_turned`, and the square network's own likewise (as :meth:`_both`)."""
        turned = self._turned
        if not len(crops) or turned is None:
            return self._both(prepare(crops))
        n = len(crops)

        def folded(p: np.ndarray) -> np.ndarray:     # each turned reading mapped back, the four averaged
            return sum((p[k * n:(k + 1) * n][:, turned[k]] for k in range(1, 4)), p[0:n][:, turned[0]]) / 4.0

        p, own = self._both(prepare([np.ascontiguousarray(np.rot90(c, k)) for k in range(4) for c in crops]))
        return folded(p), None if own is None else folded(own)

    def letter_shares(self, crops: list[np.ndarray], letters: list[str]) -> np.ndarray:
        """P(letter | a tile) of ``letters[i]`` (turns summed) in grey crop ``crops[i]`` (N floats 0..1; one network
        call; 0 for a letter the network does not know)."""
        if not len(crops):
            return np.zeros(0, np.float32)
        p = self.probabilities(crops)
        per_letter = p[:, 2:] @ self._one_hot
        known = np.array([lt in self.letters for lt in letters])
        idx = np.array([self.letters.index(lt) if lt in self.letters else 0 for lt in letters])
        share = per_letter[np.arange(len(crops)), idx] / np.maximum(1.0 - p[:, 0], 1e-9)
        return np.where(known, share, 0.0).astype(np.float32)

    def letter_table(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Per grey crop and letter of :attr:`letters`: P(letter | a tile) (turns summed; N x L float32, as
        :attr:`SquarePrediction.letter_if_tile`) and the letter's most likely quarter turns (N x L int). One network
        call."""
        p = self.probabilities(crops)
        per_letter = p[:, 2:] @ self._one_hot
        shares = per_letter / np.maximum(1.0 - p[:, :1], 1e-9)
        # the turns of each letter: its class with the highest probability (classes grouped by letter)
        masked = np.where(self._one_hot.T[None, :, :] > 0, p[:, None, 2:], -1.0)
        turns = self._turns_of[np.argmax(masked, axis=2)]
        return shares.astype(np.float32), turns

    def predict(self, crops: list[np.ndarray], turned: bool = False) -> list[SquarePrediction]:
        """One :class:`SquarePrediction` per grey crop; ``turned``: from :meth:`probabilities_turned`."""
        return self._predictions(*(self._both_turned(crops) if turned else self._both(prepare(crops))))

    def predict_inputs(self, x: np.ndarray, crops: Sequence[np.ndarray] | None = None) -> list[SquarePrediction]:
        """One :class:`SquarePrediction` per network input made by :func:`prepare` (N x 1 x INPUT_PX x INPUT_PX
        float32): the same as :meth:`predict` of the crops they were made from. ``crops``: those crops (N), whose
        probabilities are then remembered (class docstring)."""
        p, own = self._both(x)
        if crops is not None:
            if len(crops) != len(p):
                raise ValueError(f"{len(crops)} crops for {len(p)} network inputs")
            self._remember(crops, p)
        return self._predictions(p, own)

    def _predictions(self, p: np.ndarray, own: np.ndarray | None = None) -> list[SquarePrediction]:
        per_letter = p[:, 2:] @ self._one_hot
        order = np.argsort(-per_letter, axis=1)
        best = order[:, 0]
        second = order[:, 1] if per_letter.shape[1] > 1 else best
        # the turns of the best letter: its class with the highest probability (one array operation for all rows)
        turns = self._turns_of[np.argmax(np.where(self._letter_of[None, :] == best[:, None], p[:, 2:], -1), axis=1)]
        p_best = per_letter[np.arange(len(p)), best]
        owns = self._predictions(own) if own is not None else [None] * len(p)
        return [SquarePrediction(float(p[i, 0]), float(p[i, 1]), self.letters[best[i]], float(p_best[i]),
                                 self.letters[second[i]], int(turns[i]), owns[i]) for i in range(len(p))]
