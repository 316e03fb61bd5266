"""Same-board exemplars: a letter the square network doubts, read by comparison with the frame's own sure tiles.

A tile set has one font, and a frame holds tens of tiles, most read surely. Those tiles are exemplars of this
very font. A square whose *letter* the network doubts (its best letter below the sure-letter threshold, or a
letter that does not hold read scaled) is compared with the frame's sure tiles of the letters the network gives
it: each glyph is turned upright by the quarter turns read for it, normalised and described as the calibrated
path's glyph model does (:func:`kiosk.vision.glyph_model.normalise_glyph`, :func:`glyph_features`), and compared by
the cosine of the descriptors. The square gets a letter only when the evidence is clear (:func:`exemplar_letter`):

* every letter the network gives at least ``CANDIDATE_SHARE`` of P(letter | tile) has an exemplar in
  the frame (otherwise the true letter may be one without exemplars, as F beside a frame's sure E's);
* the nearest exemplar of one of them is at least ``SIMILAR`` alike, and more alike by ``MARGIN`` than the nearest
  exemplar of any other letter (candidate or not); by ``OVERRIDE_MARGIN`` when it is not the network's first choice;
* the network gives that letter at least ``PICK_SHARE``;
* the frame is not one of doubtful letters: at most ``MAX_DOUBT_SHARE`` of its tiles doubtful. In a face the
  network barely knows (a condensed face read half '#') its "sure" tiles are not sure either, and an exemplar
  read wrong gives more wrong letters.

Every other doubt (a hand, a finger, glare, blanks, a premium square's print, a degraded frame) stays a doubt:
only the reasons of :func:`letter_doubt` are candidates. Chosen on the validation faces only (models/README.md,
"Same-board exemplars"); the measurements are made by ``scripts/exemplar_capture.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiosk.vision.glyph_model import glyph_features, normalise_glyph
from kiosk.vision.reading import Doubt, DoubtKind, SquareReading, SquareState, kind_of
from kiosk.vision.squarenet import SquareNet, SquarePrediction

EXEMPLAR_P = 0.98       # a letter read (no doubt) with P(letter | tile) at or above this is an exemplar
CANDIDATE_SHARE = 0.02  # each letter the network gives a doubtful square this share or more needs an exemplar
PICK_SHARE = 0.2        # the letter given has at least this share of the network's P(letter | tile)
SIMILAR = 0.8           # cosine of the glyph descriptors with its nearest exemplar at least this ...
MARGIN = 0.05           # ... and this much above the nearest exemplar of any other letter
OVERRIDE_MARGIN = 0.2   # ... or this much when it is not the network's most likely letter (a Hershey O, read O 0.70 /
                        # D 0.27, was 0.11 nearer a D of its frame than its O's)
EXEMPLARS_PER_LETTER = 6  # the surest exemplars of a letter compared with (bounds the time on a full board)
MAX_DOUBT_SHARE = 0.3   # a frame with more of its tiles doubtful than this share lends no exemplars
CONFIRM_BELOW_P = 0.98  # in a game, a new tile's letter below this confidence is checked against the exemplars
                        # (read-board --sequence asks a new letter for 0.98 otherwise: NET_NEW_LETTER_P)


LETTER_KINDS = frozenset({DoubtKind.LETTER})
"""The kinds of doubt :func:`letter_doubt` takes for a letter-identity doubt. Not PRINT_OR_LETTER (a letter read on
a premium square with no tile beside it): whether a tile lies there at all is no question the frame's letters can
answer (the rule on the doubt's sentence that kinds replaced took it for one, as it began "letter ")."""


def letter_doubt(why: str) -> bool:
    """Whether a doubt is about which letter a tile is (its kind, :func:`kiosk.vision.reading.kind_of`, is one of
    :data:`LETTER_KINDS`): "letter X or Y? (0.62)", "letter X does not hold read 6% larger or smaller"; not a finger,
    a hand, a frame of many doubtful letters (blur, shadow), a blank, glare or occupancy doubt. A plain ``str``
    (kind unknown) is none."""
    return kind_of(why) in LETTER_KINDS


def upright_features(crop: np.ndarray, turns: int) -> np.ndarray | None:
    """Unit-length glyph descriptor (:func:`glyph_features` of :func:`normalise_glyph`) of a grey square crop turned
    upright (``turns``: the letter's quarter turns counter-clockwise as read); None when the crop shows no ink."""
    g = normalise_glyph(np.ascontiguousarray(np.rot90(crop, -turns)))
    if g is None:
        return None
    v = glyph_features(g)
    return v / (float(np.linalg.norm(v)) + 1e-6)


def exemplar_letter(shares: dict[str, float], alike: dict[str, float], other: float) -> str | None:
    """The letter the exemplars give a doubtful square, or None when the evidence is not clear.

    ``shares``: the network's P(letter | tile) by letter (at least the letters from CANDIDATE_SHARE);
    ``alike``: by letter, the cosine of the square's upright descriptor (turned by that letter's read turns) with
    its nearest exemplar of that letter (letters without an exemplar absent); ``other``: the same with the nearest
    exemplar of any letter not among ``shares``' candidates (-1 for none)."""
    cands = [lt for lt, s in shares.items() if s >= CANDIDATE_SHARE]
    if not cands or any(lt not in alike for lt in cands):
        return None
    best = max(cands, key=lambda lt: alike[lt])
    rival = max([alike[lt] for lt in cands if lt != best] + [other])
    # against the network's own first choice, the exemplars need a wider margin
    margin = MARGIN if best == max(cands, key=lambda lt: shares[lt]) else OVERRIDE_MARGIN
    if shares[best] >= PICK_SHARE and alike[best] >= SIMILAR and alike[best] - rival >= margin:
        return best
    return None


def _exemplars(squares: Sequence[SquareReading], doubts: dict[int, Doubt], preds: dict[int, SquarePrediction],
               known: str | None = None) -> dict[str, list[int]]:
    """The frame's sure lettered squares by letter (at most EXEMPLARS_PER_LETTER each, the surest), and the tiles
    the game knows (``known``, as :meth:`kiosk.vision.reader.BoardReader.read`) that read as themselves now."""
    out: dict[str, list[int]] = {}
    for sq, q in preds.items():
        r = squares[sq]
        if r.state is SquareState.TILE and r.letter == q.letter and sq not in doubts and \
                (q.letter_if_tile >= EXEMPLAR_P or (known is not None and known[sq] == q.letter)):
            out.setdefault(q.letter, []).append(sq)
    return {lt: sorted(sqs, key=lambda s: -preds[s].letter_if_tile)[:EXEMPLARS_PER_LETTER] for lt, sqs in out.items()}


def _doubt_share(squares: Sequence[SquareReading], preds: dict[int, SquarePrediction]) -> float:
    """The share of the frame's tiles (read letters, and doubts the network calls tiles) that are doubts."""
    tiles = sum(r.state is SquareState.TILE for r in squares)
    unsure = sum(squares[sq].state is SquareState.UNSURE and q.p_tile >= 0.5 for sq, q in preds.items())
    return unsure / max(tiles + unsure, 1)


class GlyphCache:
    """The upright descriptors (:func:`upright_features`) of squares, kept from frame to frame while the square's
    crop is the same array (the reader keeps a square's crop while the square looks the same): a game's tiles
    lend their descriptors to every later frame without being described again."""

    def __init__(self) -> None:
        self._by: dict[tuple[int, int], tuple[np.ndarray, np.ndarray | None]] = {}

    def get(self, sq: int, crop: np.ndarray, turns: int) -> np.ndarray | None:
        """:func:`upright_features` of ``crop`` (square ``sq``) turned by ``turns``, described once per crop."""
        hit = self._by.get((sq, turns))
        if hit is not None and hit[0] is crop:
            return hit[1]
        v = upright_features(crop, turns)
        self._by[(sq, turns)] = (crop, v)
        return v


def _exemplar_letters(net: SquareNet, crops: dict[int, np.ndarray], todo: list[int], ex: dict[str, list[int]],
                      preds: dict[int, SquarePrediction], cache: GlyphCache) -> dict[int, str]:
    """The letter the exemplars ``ex`` (by letter, squares) give each square of ``todo``, where they give one
    (:func:`exemplar_letter`)."""
    shares, turns = net.letter_table([crops[sq] for sq in todo])

    def nearest(letter_sqs: list[int], v: np.ndarray) -> float:
        got = [float(f @ v) for s in letter_sqs if (f := cache.get(s, crops[s], preds[s].turns)) is not None]
        return max(got) if got else -1.0

    out = {}
    for i, sq in enumerate(todo):
        cand = {net.letters[j]: float(shares[i, j]) for j in np.flatnonzero(shares[i] >= CANDIDATE_SHARE)}
        if not cand or any(lt not in ex for lt in cand):
            continue
        alike: dict[str, float] = {}
        for lt in cand:
            v = cache.get(sq, crops[sq], int(turns[i, net.letters.index(lt)]))
            if v is not None and (a := nearest(ex[lt], v)) > -1.0:
                alike[lt] = a
        if exemplar_letter(cand, alike, -1.0) is None:
            continue
        # the other letters' exemplars only now (most of the cost; a frame's doubts mostly end above)
        top = max(cand, key=lambda lt: cand[lt])
        v_top = cache.get(sq, crops[sq], int(turns[i, net.letters.index(top)]))
        other = max((nearest(s, v_top) for lt, s in ex.items() if lt not in cand), default=-1.0) \
            if v_top is not None else 1.0
        if (letter := exemplar_letter(cand, alike, other)) is not None:
            out[sq] = letter
    return out


def resolve_by_exemplars(net: SquareNet, crops: dict[int, np.ndarray], squares: list[SquareReading],
                         doubts: dict[int, Doubt], preds: dict[int, SquarePrediction], known: str | None = None,
                         cache: GlyphCache | None = None) -> list[int]:
    """Give the letter-identity doubts of a frame (:func:`letter_doubt`) the letter the frame's own sure tiles give
    them (:func:`exemplar_letter`), in place: the square becomes a TILE of that letter (its confidence kept) and
    its doubt is removed. ``crops``: the grey square crops (the network's, ``CROP_PX`` square) of at least the
    doubtful squares and the frame's sure letters; ``preds``: the network's readings; ``known``: the game's known
    tiles (225 characters, or None), exemplars too where they read as themselves; ``cache``: descriptors kept from
    earlier frames (:class:`GlyphCache`). Returns the squares given a letter. Does nothing (and computes nothing)
    in a frame without such doubts."""
    todo = [sq for sq, why in doubts.items() if letter_doubt(why) and sq in preds and sq in crops]
    if not todo or _doubt_share(squares, preds) > MAX_DOUBT_SHARE:
        return []
    ex = _exemplars(squares, doubts, preds, known)
    if not ex:
        return []
    done = _exemplar_letters(net, crops, todo, ex, preds, cache or GlyphCache())
    for sq, letter in done.items():
        squares[sq] = SquareReading(SquareState.TILE, letter, squares[sq].confidence)
        del doubts[sq]
    return list(done)


def confirm_by_exemplars(net: SquareNet, crops: dict[int, np.ndarray], squares: Sequence[SquareReading],
                         doubts: dict[int, Doubt], preds: dict[int, SquarePrediction], known: str,
                         cache: GlyphCache | None = None) -> frozenset[int]:
    """In a game: the new tiles (squares ``known`` does not hold: ``.`` or ``#``) read as a letter with a confidence
    below CONFIRM_BELOW_P that the exemplars (the frame's sure tiles and the game's known tiles read as themselves)
    give that same letter (:func:`exemplar_letter`). Arguments as :func:`resolve_by_exemplars`. The game takes
    such a letter as it takes a sure one (:func:`kiosk.vision.game.apply_prior`)."""
    todo = [sq for sq, q in preds.items() if squares[sq].state is SquareState.TILE and sq in crops
            and known[sq] in ".#" and squares[sq].confidence < CONFIRM_BELOW_P]
    if not todo or _doubt_share(squares, preds) > MAX_DOUBT_SHARE:
        return frozenset()
    asked = set(todo)   # a square is never its own exemplar
    ex = {lt: kept for lt, sqs in _exemplars(squares, doubts, preds, known).items()
          if (kept := [s for s in sqs if s not in asked])}
    got = _exemplar_letters(net, crops, todo, ex, preds, cache or GlyphCache()) if ex else {}
    return frozenset(sq for sq, letter in got.items() if letter == squares[sq].letter)
