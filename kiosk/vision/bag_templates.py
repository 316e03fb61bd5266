"""The bag's own tiles as templates: a tile's letter read by comparison with the calibration's photos of the bag.

A calibration from photos of the bag laid out (``kiosk calibrate glyphs``) shows how this tile set draws every
letter, under this camera. Beside the glyph model it trains, the profile keeps a few of those tiles' grey crops
per letter (:class:`BagTemplates`, the profile's ``letter_templates``). The reader compares the square network's
letters and letter doubts with them as it compares a game's new tiles with its known ones
(:mod:`kiosk.vision.game_exemplars`: :func:`~kiosk.vision.game_exemplars.likeness`, nearest by letter, and
:func:`~kiosk.vision.game_exemplars.known_letter` to decide), with one difference: the templates never change a
letter the network read. Where they point to another letter, that letter is a doubt naming both
(:func:`bag_letter`). Every letter of the set has templates, so the rule's condition that each letter the network
gives can be compared always holds. The measurements: models/README.md, "The bag's tiles as templates".

Conventions: crops are grey uint8 squares of ``CROP_PX`` (:data:`kiosk.vision.squarenet.CROP_PX`: a square of the
reading canvas grown by ``GROW_PX`` on each side, as the network reads it; the calibration's crops, grown by the
glyph model's margin, are cut to that about their centre), upright (the bag is laid out upright; a tile on the board is
turned upright by the network's quarter turns first).
"""

from __future__ import annotations

import base64
import binascii
import io
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kiosk.vision.game_exemplars import inner_vector, known_letter, likeness_to
from kiosk.vision.mlp import ModelError, data_problem
from kiosk.vision.squarenet import CROP_PX, GROW_PX

PER_LETTER = 4   # templates kept per letter (spread over the photos): enough for the light between them, a small file


@dataclass(frozen=True, eq=False)
class BagTemplates:
    """Labelled upright grey crops of the bag's tiles: ``crops`` N x CROP_PX x CROP_PX uint8, ``letters`` N
    upper-case letters (one per crop). Raises ValueError when they do not match."""

    crops: np.ndarray
    letters: tuple[str, ...]
    _rows: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        crops = np.asarray(self.crops)
        if crops.ndim != 3 or crops.shape[1:] != (CROP_PX, CROP_PX) or crops.dtype != np.uint8:
            raise ValueError(f"letter templates: expected N x {CROP_PX} x {CROP_PX} uint8 crops, got "
                             f"{crops.shape} {crops.dtype}")
        if len(self.letters) != len(crops) or not all(isinstance(lt, str) and lt for lt in self.letters):
            raise ValueError(f"letter templates: {len(crops)} crops but {len(self.letters)} letters")
        rows = np.stack([inner_vector(c.astype(np.float32)) for c in crops]) if len(crops) else np.zeros((0, 0))
        object.__setattr__(self, "_rows", rows.astype(np.float32))

    @classmethod
    def from_samples(cls, samples: Sequence[tuple[np.ndarray, str]], per_letter: int = PER_LETTER) -> BagTemplates:
        """Templates from a calibration's labelled tile crops (colour BGR or grey; labels ``.`` and ``?`` left
        out): up to ``per_letter`` of each letter, taken evenly over the samples' order (the photos in turn).
        A crop is a square of the reading canvas grown on each side; one grown more than the network's crops
        (``GROW_PX``) is cut to their ``CROP_PX`` about its centre. Raises ValueError for a crop that is not
        such a square (not square, smaller than ``CROP_PX``, or off its centre by half a pixel)."""
        import cv2

        by: dict[str, list[np.ndarray]] = {}
        for k, (crop, label) in enumerate(samples):
            if label in (".", "?"):
                continue
            h, w = np.shape(crop)[:2]
            if h != w or h < CROP_PX or (h - CROP_PX) % 2:
                raise ValueError(f"letter templates: tile {k + 1} ({label}) is a {w} x {h} px crop, not a square "
                                 f"of the reading canvas grown by {GROW_PX} px or more on each side "
                                 f"({CROP_PX} px, {CROP_PX + 2} px, ...)")
            g = (h - CROP_PX) // 2
            crop = crop[g:g + CROP_PX, g:g + CROP_PX]
            grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
            by.setdefault(label, []).append(np.asarray(grey, np.uint8))
        crops: list[np.ndarray] = []
        letters: list[str] = []
        for label, got in by.items():
            picks = np.linspace(0, len(got) - 1, min(per_letter, len(got))).round().astype(int)
            for k in dict.fromkeys(picks.tolist()):
                crops.append(got[k])
                letters.append(label)
        stack = np.stack(crops) if crops else np.zeros((0, CROP_PX, CROP_PX), np.uint8)
        return cls(stack, tuple(letters))

    def alike(self, tile: np.ndarray) -> dict[str, float]:
        """By letter, the :func:`~kiosk.vision.game_exemplars.likeness` of the upright grey crop ``tile``
        (CROP_PX square) to its nearest template of that letter (-1..1)."""
        out: dict[str, float] = {}
        if not self.letters:
            return out
        for lt, v in zip(self.letters, likeness_to(np.asarray(tile, np.float32), self._rows).tolist()):
            out[lt] = max(out.get(lt, -1.0), v)
        return out

    def to_text(self) -> str:
        """Base64 of an .npz holding ``crops`` and ``letters`` (the profile's ``letter_templates.data``)."""
        buf = io.BytesIO()
        np.savez_compressed(buf, crops=self.crops, letters=np.array(self.letters))
        return base64.b64encode(buf.getvalue()).decode("ascii")

    @classmethod
    def from_text(cls, text: str, origin: str = "letter templates") -> BagTemplates:
        """The inverse of :meth:`to_text`. Raises ModelError naming ``origin`` for data that is no such .npz."""
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ModelError(f"{origin}: not letter templates ({data_problem(exc)})") from None
        return cls.from_bytes(data, origin)

    @classmethod
    def from_bytes(cls, data: bytes, origin: str = "letter templates") -> BagTemplates:
        """Templates from the bytes of an .npz as :meth:`to_text` encodes (a profile's ``letter_templates.path``
        file). Raises ModelError naming ``origin`` for bytes that are no such .npz."""
        try:
            z = np.load(io.BytesIO(data), allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            with z:
                letters = np.asarray(z["letters"])
                if letters.ndim != 1 or letters.dtype.kind != "U" or not all(
                        len(lt) == 1 and lt.isupper() for lt in letters.tolist()):
                    raise ValueError("letters: expected one upper-case letter per crop")
                return cls(np.asarray(z["crops"]), tuple(letters.tolist()))
        except (ValueError, KeyError, OSError, TypeError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise ModelError(f"{origin}: not letter templates ({data_problem(exc)})") from None


def bag_letter(shares: dict[str, float], alike: dict[str, float], read: str | None,
               ruled_out: frozenset[str] = frozenset()) -> str | None:
    """What the bag's templates say of a tile: :func:`~kiosk.vision.game_exemplars.known_letter` of the network's
    ``shares`` (P(letter | tile) of the letters it gives at least CANDIDATE_SHARE) and the templates' ``alike``,
    but a letter the network read (``read``) is never changed: where the templates point to another, the answer is
    ``#`` (a doubt). ``ruled_out``: letters the tile's printed value rules out (never given). None: nothing
    clear (the reading stands)."""
    got = known_letter(shares, alike, read, ruled_out)
    if read is not None and got is not None and got != read:
        return "#"
    return got
