"""The tile's printed value: a second opinion on a letter the square network gives.

Every lettered tile carries its letter's value, printed small in its bottom-right corner (English E 1, G 2, M 3,
H 4, J 8; German values differ). On a face the square network never learnt, its wrong letters are as sure as its
right ones (kiosk/vision/models/README.md), and the face reads them consistently. The value digits are small,
plain figures that vary far less between tile sets than letters do, and a wrong letter often has another value
(G read E: 2 and 1; M read N: 3 and 1). A small network (:class:`ValueNet`, ``models/values.onnx``) reads the
value from the corner of the tile turned upright; a letter whose value it reads as another, surely, is a doubt
(:func:`value_doubts`): below DOUBT_BELOW_P for the letter's own value while at least SURE_OF_OTHER_P sure of
another. A letter of the same value as the truth (A read I) passes: this check only catches what it can.

The value also answers some letter doubts (:func:`letters_by_value`): where the square network hesitates between
letters ("J or I?") and exactly one of them is worth the value read surely in the corner, that letter is given,
but only for a value few letters share (most letters are worth 1, and the true letter may be one the network
does not give at all).

Conventions: crops are grey uint8 squares of the reading canvas (``CELL_PX`` = 48 px a square) grown by ``grow``
px on every side; the value corner is the square's pixels REGION_PX..REGION_PX + REGION_SIZE_PX on both axes (a
few px beyond the square's own edge, where a value printed near the edge may reach), resized to VALUE_PX.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

import cv2
import numpy as np

from kiosk.rules.tiles import TileSet
from kiosk.vision.cells import CELL_PX
from kiosk.vision.cvcompat import read_onnx
from kiosk.vision.mlp import ModelError
from kiosk.vision.reading import Doubt, DoubtKind
from kiosk.vision.squarenet import normalise, softmax_rows

VALUE_CLASSES = (1, 2, 3, 4, 5, 6, 8, 10)
"""The values the network tells apart (points; every English and German letter's value is one of them)."""
VALUE_PX = 24           # network input, px a side
REGION_PX = 20          # the value corner starts this far into the square (px of the CELL_PX square), both axes
REGION_SIZE_PX = 32     # ... and is this many px a side
DOUBT_BELOW_P = 0.03    # a letter whose value the network gives below this ...
SURE_OF_OTHER_P = 0.5   # ... while this sure of another value is a doubt

PICK_P = 0.9            # a letter doubt is given the one letter the network gives whose value the network reads
                        # this surely ...
PICK_MAX_SHARING = 5    # ... when at most this many letters of the tile set are worth that value (10 English and 9
                        # German letters are worth 1: the true letter may be one the network does not give) ...
PICK_OVERRIDE_SHARE = 0.1  # ... and the network gives it at least this share when it is not its most likely letter
                           # (a built-in O, read O 0.90 / D 0.09, whose 1 the value network read 2 at 0.96)

VALUE_DOUBT = "letter {letter}? its tile's printed value reads {seen}, but {letter} is worth {worth}"
"""A square's doubt under this check (the letter read, the value seen, the letter's value), of kind LETTER."""

NOTE_MIN = 2   # a frame with at least this many letters doubted by their printed value says so in its note
VALUE_NOTE = ("the values printed on {n} tiles do not match the letters read under the {set} tile set: the "
              "lettering may be unfamiliar to the reader, or the tiles not the event's set; calibrate the tile set "
              "(kiosk calibrate glyphs)")
"""The reading's note for a frame with NOTE_MIN or more such doubts (``n`` of them, ``set`` the tile set's name)."""


def value_region(crop: np.ndarray, grow: int, turns: int = 0) -> np.ndarray:
    """The value corner (REGION_SIZE_PX square, grey uint8) of a square's crop grown by ``grow`` px (at least
    REGION_PX + REGION_SIZE_PX - CELL_PX = 4), whose tile lies ``turns`` quarter turns counter-clockwise (the square
    network's :attr:`~kiosk.vision.squarenet.SquarePrediction.turns`): turned upright first.

    Raises ValueError for a crop too small for the corner."""
    if grow < REGION_PX + REGION_SIZE_PX - CELL_PX or min(crop.shape[:2]) < CELL_PX + 2 * grow:
        raise ValueError(f"a {crop.shape[1]}x{crop.shape[0]} crop grown by {grow} px has no value corner")
    upright = np.rot90(crop, -turns) if turns % 4 else crop
    a = grow + REGION_PX
    return upright[a:a + REGION_SIZE_PX, a:a + REGION_SIZE_PX]


def prepare_regions(regions: Sequence[np.ndarray]) -> np.ndarray:
    """Network input (N x 1 x VALUE_PX x VALUE_PX float32) from value corners (grey, any size): area resize and
    the square network's per-crop robust normalisation."""
    out = np.empty((len(regions), 1, VALUE_PX, VALUE_PX), np.float32)
    for i, r in enumerate(regions):
        out[i, 0] = cv2.resize(np.asarray(r, np.float32), (VALUE_PX, VALUE_PX), interpolation=cv2.INTER_AREA)
    return normalise(out)


class ValueNet:
    """The value network (ONNX, run by OpenCV's dnn). :meth:`probabilities` is not thread-safe (one per reader).

    Raises ModelError when the bytes are not a network OpenCV can load, or one that does not take a VALUE_PX
    square input and give one output per value of VALUE_CLASSES (tried on a blank input when loaded)."""

    def __init__(self, onnx: bytes, origin: str = "value model") -> None:
        try:
            self.net = read_onnx(onnx)
            self.net.setInput(np.zeros((1, 1, VALUE_PX, VALUE_PX), np.float32))
            outputs = int(np.prod(self.net.forward().shape[1:]))
        except cv2.error as exc:
            raise ModelError(f"{origin}: OpenCV cannot load or run it as a value network of {VALUE_PX} x {VALUE_PX} "
                             f"px inputs ({str(exc).strip().splitlines()[-1][:160]})") from None
        if outputs != len(VALUE_CLASSES):
            raise ModelError(f"{origin}: {outputs} outputs, a value network has {len(VALUE_CLASSES)} (one per value "
                             f"{', '.join(map(str, VALUE_CLASSES))})")

    def probabilities(self, regions: Sequence[np.ndarray]) -> np.ndarray:
        """P(value) per value corner (N x len(VALUE_CLASSES) float32, rows sum to 1; its outputs were checked
        when it was loaded)."""
        if not len(regions):
            return np.zeros((0, len(VALUE_CLASSES)), np.float32)
        self.net.setInput(prepare_regions(regions))
        return softmax_rows(self.net.forward().reshape(len(regions), -1).astype(np.float32))


@cache
def _shipped() -> bytes:
    try:
        return resources.files("kiosk.vision.models").joinpath("values.onnx").read_bytes()
    except OSError:
        raise ModelError("built-in model kiosk/vision/models/values.onnx is missing; run "
                         "`python -m kiosk.vision.train values` to build it") from None


def default_value_net() -> ValueNet:
    """A new instance of the shipped value network (``kiosk/vision/models/values.onnx``; one per reader: a network
    is not thread-safe). Raises ModelError when the file is missing or not a value network."""
    return ValueNet(_shipped(), "built-in model kiosk/vision/models/values.onnx")


def value_doubts(letters: Mapping[int, str], probs: np.ndarray, tile_set: TileSet) -> dict[int, Doubt]:
    """The letters to doubt, {square: why (:data:`VALUE_DOUBT`)}: of ``letters`` ({square: the letter read}, in
    the order of the rows of ``probs``, :meth:`ValueNet.probabilities` of their value corners), those whose value
    in ``tile_set`` the network gives below DOUBT_BELOW_P while it is SURE_OF_OTHER_P sure of another value. A
    letter the tile set does not value (or of a value the network does not know) is not judged. Source: the
    tile values of the event's tile set (``../shared/seeds/``, each sheet's equipment rule)."""
    out: dict[int, Doubt] = {}
    for (sq, letter), p in zip(letters.items(), probs):
        worth = tile_set.values.get(letter)
        if worth not in VALUE_CLASSES:
            continue
        best = int(np.argmax(p))
        if p[VALUE_CLASSES.index(worth)] < DOUBT_BELOW_P and p[best] >= SURE_OF_OTHER_P:
            out[sq] = Doubt(DoubtKind.LETTER, VALUE_DOUBT.format(letter=letter, seen=VALUE_CLASSES[best], worth=worth))
    return out


def letters_by_value(candidates: Mapping[int, Mapping[str, float]], probs: np.ndarray,
                     tile_set: TileSet) -> dict[int, str]:
    """The letter the printed value gives each doubtful tile, {square: letter}, where it gives one: of
    ``candidates`` ({square: {letter: the square network's P(letter | tile)}}, the letters it gives at least
    :data:`kiosk.vision.exemplars.CANDIDATE_SHARE`; in the order of the rows of ``probs``,
    :meth:`ValueNet.probabilities` of their value corners), the one candidate worth the value the network reads at least PICK_P surely, when no
    other candidate is worth it, at most PICK_MAX_SHARING letters of ``tile_set`` are ("J or I?" with an 8 in the
    corner is a J; "E or S?" with a 1 is no answer: most letters are worth 1), and the square network gives it
    PICK_OVERRIDE_SHARE or more where it is not its most likely letter. Source: the tile values of the event's tile
    set (``../shared/seeds/``, each sheet's equipment rule)."""
    sharing = Counter(tile_set.values.values())
    out: dict[int, str] = {}
    for (sq, shares), p in zip(candidates.items(), probs):
        best = int(np.argmax(p))
        seen = VALUE_CLASSES[best]
        worth = [lt for lt in shares if tile_set.values.get(lt) == seen]
        sure = float(p[best])   # (numpy 1 compares a float32 with a Python float in float64, numpy 2 in float32)
        if sure < PICK_P or sharing[seen] > PICK_MAX_SHARING or len(worth) != 1:
            continue
        if worth[0] == max(shares, key=lambda lt: shares[lt]) or shares[worth[0]] >= PICK_OVERRIDE_SHARE:
            out[sq] = worth[0]
    return out


def letters_ruled_out(probs: np.ndarray, tile_set: TileSet) -> list[frozenset[str]]:
    """Per row of ``probs`` (:meth:`ValueNet.probabilities` of value corners), the letters of ``tile_set`` whose
    value the printed value rules out: where the network reads one value at least PICK_P surely, every letter
    worth a value it gives below DOUBT_BELOW_P (the same "surely not" as :func:`value_doubts`); else none. Source:
    the tile values of the event's tile set (``../shared/seeds/``, each sheet's equipment rule)."""
    out: list[frozenset[str]] = []
    for p in probs:
        if float(p[int(np.argmax(p))]) < PICK_P:
            out.append(frozenset())
            continue
        out.append(frozenset(lt for lt, worth in tile_set.values.items()
                             if worth in VALUE_CLASSES and float(p[VALUE_CLASSES.index(worth)]) < DOUBT_BELOW_P))
    return out
