"""The game's own tiles as templates: a new tile's letter read by comparison with the tiles the game accepted.

A tile set has one face, and a game lays dozens of its tiles. Every tile the referee accepted (a letter the camera
read surely, or one the judge named for a ``#``) shows how this face draws that letter, whatever the square network
made of it: in a face the network never trained on, the tiles it doubts are the ones worth keeping (the judge's
first ``A`` of a face whose A's the network reads ``H`` shows the kiosk that face's A for the rest of the game).
The anchor system reads by templates of its own tile set; this is the same idea with templates the game itself
collects, for a tile set nobody calibrated.

:func:`match_new_tiles` compares each new tile (a square the prior does not hold) that the reader read as a letter
or doubted for its letter alone (:data:`GAME_KINDS`) with the known tiles in view: the :func:`likeness` of its crop
to each known tile's (normalised correlation, brightness and small shifts not counting), the nearest by letter.
:func:`known_letter` then says what the known tiles show:

* a letter, when the nearest known tile is at least ``SIMILAR`` alike and leads every other letter's by ``MARGIN``
  (``OVERRIDE_MARGIN`` against the network's most likely letter), the network gives that letter at least
  ``CANDIDATE_SHARE`` of P(letter | tile), and every letter it gives that share has a known tile in view (the
  true letter may be one the game has not shown yet: the first J of a game is never read from its I's, and a
  face's D can look more like its O's than anything else when no D is known), but for the letters the tile's
  printed value surely rules out (``ruled_out``: Almendra's A's, read "H or A?" with a 1 in the corner, are no
  H's; a letter other than the network's first is then given only with ``RULED_OUT_PICK_SHARE`` or more);
* a doubt (``#``), when a letter was read but the tile is at least ``DOUBT_SIMILAR`` alike to the known tiles of a
  letter the network does not give at all, leading by ``DOUBT_MARGIN`` (the network reads a face's A's as a sure R:
  a silent wrong letter becomes a question for the judge);
* nothing, otherwise: the reader's reading stands.

:func:`known_kept` uses the same likeness for known tiles the network reads as another letter: one that still looks
like the game's other tiles of its letter, while every letter the network gives it has known tiles in view, is read
as that letter (otherwise every press of such a face stops with "the known tile A reads R"); a tile changed to a
letter not shown elsewhere stays disputed.

Only in a game (the reader is given the known tiles) and only on the square network's path; a blank is never given
(it has no glyph); a hand, glare or a square that may be empty stays a doubt. The reader marks the squares given
a letter (``BoardReading.confirmed``): the game takes them as it takes a sure letter
(:func:`kiosk.vision.game.apply_prior`). The thresholds were chosen on the games of the validation faces
(``kiosk bench-vision --games``; models/README.md, "The game's own tiles as templates").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kiosk.vision.exemplars import CANDIDATE_SHARE
from kiosk.vision.reading import UNSURE_CHAR, Doubt, DoubtKind, SquareReading, SquareState
from kiosk.vision.squarenet import SquareNet, SquarePrediction

SIMILAR = 0.85          # a letter is given when its nearest known tile is at least this alike (likeness) ...
MARGIN = 0.03           # ... and this much more alike than the nearest known tile of any other letter
OVERRIDE_MARGIN = 0.05  # ... or this much when it is not the network's most likely letter
DOUBT_SIMILAR = 0.96    # a letter read is doubted when a known tile of a letter the network does not give is this
DOUBT_MARGIN = 0.05     # alike, and this much more alike than any known tile of another letter
KNOWN_PER_LETTER = 6    # known tiles of a letter compared with (bounds the time on a full board)
RULED_OUT_PICK_SHARE = 0.1  # where the printed value rules out a letter the network gives, a letter not its first
                            # needs this share of P(letter | tile) (tile_value.PICK_OVERRIDE_SHARE's reason)
ENABLED = True          # False: nothing is compared or changed (the benchmark's figures without the rule)
GAME_KINDS = frozenset({DoubtKind.LETTER})
"""The doubts the known tiles may settle: which letter a tile is (the network unsure, a letter that does not hold
read scaled, a face the network barely knows, a printed value that reads as another letter's)."""


@dataclass(frozen=True)
class GameMatch:
    """A new tile compared with the game's known tiles: what they say (:func:`known_letter`: a letter, ``#`` or
    None) and the :func:`likeness` of the nearest known tile by letter."""

    letter: str | None
    alike: dict[str, float]


def _best(alike: dict[str, float]) -> tuple[str, float]:
    """The letter of the nearest known tile (``alike``: by letter, not empty) and its lead over the next letter's
    (its likeness + 1 when there is no other letter)."""
    ranked = sorted(alike, key=lambda lt: -alike[lt])
    return ranked[0], alike[ranked[0]] - (alike[ranked[1]] if len(ranked) > 1 else -1.0)


def known_letter(shares: dict[str, float], alike: dict[str, float], read: str | None = None,
                 ruled_out: frozenset[str] = frozenset()) -> str | None:
    """What the known tiles say of a new tile (module docstring): a letter, ``#`` (a doubt about the letter the
    reader gave it), or None (nothing clear). ``shares``: the network's P(letter | tile) of the letters it gives
    at least ``CANDIDATE_SHARE``; ``alike``: by letter with a known tile in view, the :func:`likeness` of its
    nearest known tile of that letter; ``read``: the letter the reader gave the tile (None for a doubt);
    ``ruled_out``: letters the tile's printed value surely rules out: never given, and they need no known tiles
    in view; where one of the network's letters is ruled out, a letter other than its first is given only when
    it has RULED_OUT_PICK_SHARE or more (a value misread, a corner cut off, must not hand the tile to a letter the
    network barely gives)."""
    if not alike or not shares:
        return None
    top = max(shares, key=lambda lt: shares[lt])
    best, lead = _best(alike)
    need = [lt for lt in shares if lt not in ruled_out]
    plausible = best == top or len(need) == len(shares) or shares.get(best, 0.0) >= RULED_OUT_PICK_SHARE
    if best in need and all(lt in alike for lt in need) and alike[best] >= SIMILAR and plausible \
            and lead >= (MARGIN if best == top else OVERRIDE_MARGIN):
        return best
    if read is not None and best not in shares and alike[best] >= DOUBT_SIMILAR and lead >= DOUBT_MARGIN:
        return "#"
    return None


def _asked(squares: Sequence[SquareReading], doubts: dict[int, Doubt], preds: dict[int, SquarePrediction],
           known: str) -> list[int]:
    """New tiles (``known`` holds ``.`` or ``#`` there) the network calls tiles, read as a letter or doubted for
    their letter alone (:data:`GAME_KINDS`)."""
    out = []
    for sq, q in preds.items():
        if known[sq] not in ".#" or q.p_tile < 0.5:
            continue
        r = squares[sq]
        if (r.state is SquareState.TILE and r.letter is not None) or \
                (r.state is SquareState.UNSURE and getattr(doubts.get(sq), "kind", None) in GAME_KINDS):
            out.append(sq)
    return out


def _known_tiles(net: SquareNet, crops: dict[int, np.ndarray], squares: Sequence[SquareReading],
                 preds: dict[int, SquarePrediction], known: str
                 ) -> tuple[dict[str, list[tuple[int, int]]], dict[int, int]]:
    """The known lettered tiles in view (read as a tile or unsure, with a crop): by known letter, (square, quarter
    turns of that letter as the network reads the crop), the network's surest first, at most KNOWN_PER_LETTER;
    and the turns of every one of them by square."""
    mine = [sq for sq in crops if sq in preds and known[sq] not in ".#?" and known[sq] in net.letters
            and squares[sq].state in (SquareState.TILE, SquareState.UNSURE)]
    other = [sq for sq in mine if preds[sq].letter != known[sq]]
    turns = {sq: preds[sq].turns for sq in mine}
    if other:
        _, table = net.letter_table([crops[sq] for sq in other])
        turns.update((sq, int(table[i, net.letters.index(known[sq])])) for i, sq in enumerate(other))
    out: dict[str, list[tuple[int, int]]] = {}
    for sq in sorted(mine, key=lambda s: -(preds[s].letter == known[s]) * preds[s].letter_if_tile):
        got = out.setdefault(known[sq], [])
        if len(got) < KNOWN_PER_LETTER:
            got.append((sq, turns[sq]))
    return out, turns


INNER_PX = 8            # a known tile is compared by its crop less this band (the tiles beside, the gaps), slid
                        # over the new tile's crop up to this far in each direction
FLAT = 1e-3             # a window or known tile whose grey levels vary less than this (sum of squares about the
                        # mean, per pixel) is flat: alike to nothing (0)


def inner_vector(known: np.ndarray) -> np.ndarray:
    """A known tile's upright grey square crop as :func:`likeness_to` compares it: its middle (``INNER_PX`` cut
    off each side) as one row, less its mean, of unit length (float32; zeros for a flat middle)."""
    inner = np.asarray(known, np.float32)[INNER_PX:-INNER_PX, INNER_PX:-INNER_PX].ravel()
    centred = inner - inner.mean(dtype=np.float64)
    norm = float(np.sqrt(np.dot(centred.astype(np.float64), centred)))
    return (centred / norm).astype(np.float32) if norm * norm > FLAT * inner.size else np.zeros_like(inner)


def likeness_to(tile: np.ndarray, inners: np.ndarray) -> np.ndarray:
    """The :func:`likeness` of the upright grey square crop ``tile`` (S x S) to each known tile of ``inners`` (N x
    (S - 2 INNER_PX)^2 float32 rows of :func:`inner_vector`): N floats -1..1. All of them in one matrix product:
    each row against every window of the tile its size, the windows' sums from the tile's integral image. Raises
    ValueError for a tile that is not square or whose size does not match the rows'."""
    side = tile.shape[0] - 2 * INNER_PX
    if tile.ndim != 2 or tile.shape[0] != tile.shape[1] or side < 1 or \
            (len(inners) and np.shape(inners)[1] != side * side):
        raise ValueError(f"likeness: a square grey crop of the known tiles' size is needed, got {tile.shape} for rows "
                         f"of {np.shape(inners)[1] if len(inners) else '?'} px")
    if not len(inners):
        return np.zeros(0, np.float32)
    tile = np.ascontiguousarray(tile, np.float32)
    tile = tile - np.float32(tile.mean())     # (fewer digits lost in the sums; a window's correlation is the same)
    windows = np.lib.stride_tricks.sliding_window_view(tile, (side, side)).reshape(-1, side * side)
    # the known rows have mean 0: a window's mean does not change its product with them; only its spread divides
    s1, s2 = _integrals(tile)
    k = 2 * INNER_PX + 1
    total = (s1[side:, side:] - s1[:k, side:] - s1[side:, :k] + s1[:k, :k]).ravel()
    total2 = (s2[side:, side:] - s2[:k, side:] - s2[side:, :k] + s2[:k, :k]).ravel()
    spread2 = np.maximum(total2 - total * total / (side * side), 0.0)
    flat = spread2 <= FLAT * side * side
    scores = (windows @ inners.T) / np.where(flat, 1.0, np.sqrt(spread2))[:, None].astype(np.float32)
    scores[flat] = 0.0
    return scores.max(axis=0)


def _integrals(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The integral image of a grey crop and of its squares ((S + 1) x (S + 1) float64 each)."""
    import cv2

    s1, s2 = cv2.integral2(tile, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
    return s1, s2


def likeness(tile: np.ndarray, known: np.ndarray) -> float:
    """How alike two upright grey square crops of the same size are: the highest normalised correlation (-1..1,
    as ``cv2.TM_CCOEFF_NORMED``) of the known tile's middle (``INNER_PX`` cut off each side) anywhere within
    ``INNER_PX`` of its place on the new tile. Brightness and contrast do not count; the letter, its value digit and
    where they lie on the tile do. A flat middle or window is alike to nothing (0; OpenCV gives a flat template
    1). (:func:`likeness_to` compares one tile with many.) Raises ValueError for crops of different sizes."""
    return float(likeness_to(tile, inner_vector(known)[None, :])[0])


class FeatureCache:
    """Upright square crops (float32, for :func:`likeness`) and their :func:`inner_vector`, kept from frame to
    frame while the square's crop is the same array (the reader keeps a square's crop while the square looks the
    same)."""

    def __init__(self) -> None:
        self._by: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._inner: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def get(self, crops: dict[int, np.ndarray], sq: int, turns: int) -> np.ndarray:
        """``crops[sq]`` turned upright by ``turns`` quarter turns, float32."""
        hit = self._by.get((sq, turns))
        if hit is not None and hit[0] is crops[sq]:
            return hit[1]
        up = np.ascontiguousarray(np.rot90(crops[sq], -turns), np.float32)
        self._by[(sq, turns)] = (crops[sq], up)
        return up

    def inner(self, crops: dict[int, np.ndarray], sq: int, turns: int) -> np.ndarray:
        """:func:`inner_vector` of ``crops[sq]`` turned upright by ``turns`` quarter turns."""
        hit = self._inner.get((sq, turns))
        if hit is not None and hit[0] is crops[sq]:
            return hit[1]
        row = inner_vector(self.get(crops, sq, turns))
        self._inner[(sq, turns)] = (crops[sq], row)
        return row


RuledOut = Callable[[list[int]], dict[int, frozenset[str]]]
"""Squares -> the letters each one's printed value rules out (the reader's value network, :func:`kiosk.vision.
tile_value.letters_ruled_out`)."""
KnownTiles = tuple[dict[str, list[tuple[int, int]]], dict[int, int]]
""":func:`_known_tiles`: by known letter, (square, quarter turns) of up to KNOWN_PER_LETTER tiles; turns by square."""


def _nearest(crops: dict[int, np.ndarray], cache: FeatureCache, tiles: list[np.ndarray],
             by_letter: dict[str, list[tuple[int, int]]], skip: Sequence[int] | None = None) -> list[dict[str, float]]:
    """For each of ``tiles`` (upright, float32), by letter, the :func:`likeness` of the tile to its nearest known
    tile of that letter (``skip[i]``: a square left out for tile i; a letter with no other tile is absent)."""
    keys = [(lt, s) for lt, known in by_letter.items() for s, _ in known]
    if not keys or not tiles:
        return [{} for _ in tiles]
    inners = np.stack([cache.inner(crops, s, t) for known in by_letter.values() for s, t in known])
    out = []
    for i, tile in enumerate(tiles):
        alike: dict[str, float] = {}
        for (lt, s), v in zip(keys, likeness_to(tile, inners).tolist()):
            if skip is None or s != skip[i]:
                alike[lt] = max(alike.get(lt, -1.0), v)
        out.append(alike)
    return out


def match_new_tiles(net: SquareNet, crops: dict[int, np.ndarray], squares: Sequence[SquareReading],
                    preds: dict[int, SquarePrediction], todo: list[int], ex: KnownTiles,
                    cache: FeatureCache, ruled_out: RuledOut | None = None) -> dict[int, GameMatch]:
    """The new tiles ``todo`` (:func:`_asked`, with a crop) compared with the known tiles in view ``ex``
    (:func:`_known_tiles`): square -> :class:`GameMatch`. ``crops``: the grey square crops (the network's,
    ``CROP_PX`` square) of at least those tiles and the known ones; ``preds``: the network's readings; ``cache``:
    upright crops kept from earlier frames. A new tile is turned upright by the turns of the network's most likely
    letter, a known tile by those of its known letter. ``ruled_out``: the letters each new tile's printed value
    rules out (:func:`kiosk.vision.tile_value.letters_ruled_out`), left out of the letters the network gives it."""
    if not todo or not ex[0]:
        return {}
    shares, _ = net.letter_table([crops[sq] for sq in todo])
    out_of = ruled_out(todo) if ruled_out is not None else {}
    out = {}
    nearest = _nearest(crops, cache, [cache.get(crops, sq, preds[sq].turns) for sq in todo], ex[0])
    for i, (sq, alike) in enumerate(zip(todo, nearest)):
        cand = {net.letters[j]: float(shares[i, j]) for j in np.flatnonzero(shares[i] >= CANDIDATE_SHARE)}
        r = squares[sq]
        out[sq] = GameMatch(known_letter(cand, alike, r.letter if r.state is SquareState.TILE else None,
                                         out_of.get(sq, frozenset())), alike)
    return out


def _disputed(net: SquareNet, crops: dict[int, np.ndarray], squares: Sequence[SquareReading],
              preds: dict[int, SquarePrediction], known: str) -> list[int]:
    """Known lettered tiles the reader read as another letter."""
    return [sq for sq in crops if sq in preds and known[sq] in net.letters
            and squares[sq].state is SquareState.TILE and squares[sq].letter != known[sq]]


def known_kept(net: SquareNet, crops: dict[int, np.ndarray], squares: list[SquareReading], known: str,
               disputed: list[int], ex: KnownTiles, cache: FeatureCache) -> list[int]:
    """The ``disputed`` known tiles (:func:`_disputed`) that still look like the game's other tiles of their known
    letter read as that letter, in place: the nearest known tiles (the square's own left out) are of its known
    letter, at least SIMILAR alike and MARGIN ahead of any other letter's, and every letter the network gives the
    crop (CANDIDATE_SHARE) has known tiles in view to be compared with (a face whose A's the network reads as a
    sure R would otherwise stop every press with "the known tile A reads R"). A tile that really changed to a
    letter the game has not shown elsewhere in view (a U replaced by the set's only Ü, an E by an F) stays disputed:
    that letter has no known tiles to look like. ``ex``: the known tiles in view (:func:`_known_tiles`). Returns
    those squares."""
    if not disputed:
        return []
    by_letter, turns = ex
    shares, _ = net.letter_table([crops[sq] for sq in disputed])
    kept = []
    nearest = _nearest(crops, cache, [cache.get(crops, sq, turns[sq]) for sq in disputed], by_letter, disputed)
    for i, (sq, alike) in enumerate(zip(disputed, nearest)):
        if not alike or any(net.letters[j] not in alike for j in np.flatnonzero(shares[i] >= CANDIDATE_SHARE)):
            continue
        best, lead = _best(alike)
        if best == known[sq] and alike[best] >= SIMILAR and lead >= MARGIN:
            squares[sq] = SquareReading(SquareState.TILE, known[sq], squares[sq].confidence)
            kept.append(sq)
    return kept


def settle_by_known(net: SquareNet, crops: dict[int, np.ndarray], squares: list[SquareReading],
                    doubts: dict[int, Doubt], preds: dict[int, SquarePrediction], known: str,
                    cache: FeatureCache | None = None, ruled_out: RuledOut | None = None) -> frozenset[int]:
    """Give the new tiles what their known tiles say (:func:`match_new_tiles`), in place: a letter makes the square
    a TILE of that letter (its confidence kept) and removes its doubt; ``#`` makes a letter read a doubt whose
    sentence names the letter the known tiles show. Then the known tiles the network reads as another letter that
    still look like theirs keep it (:func:`known_kept`). The known tiles in view are gathered once for both.
    ``ruled_out``: the letters a new tile's printed value rules out (:data:`RuledOut`): they are not among the
    letters it may be (Almendra's A's, read "H or A?", are no H's when a 1 is printed in the corner, and the
    game's A's can answer). Returns the new tiles given a letter (to add to ``BoardReading.confirmed``). Changes
    nothing when not ``ENABLED``."""
    if not ENABLED:
        return frozenset()
    todo = [sq for sq in _asked(squares, doubts, preds, known) if sq in crops]
    disputed = _disputed(net, crops, squares, preds, known)
    if not (todo or disputed):
        return frozenset()
    ex, cache = _known_tiles(net, crops, squares, preds, known), cache or FeatureCache()
    done = set()
    for sq, m in match_new_tiles(net, crops, squares, preds, todo, ex, cache, ruled_out).items():
        if m.letter is None:
            continue
        if m.letter == UNSURE_CHAR:
            like, _ = _best(m.alike)
            doubts[sq] = Doubt(DoubtKind.LETTER,
                               f"letter {squares[sq].letter}? it looks more like this game's {like} tiles")
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
            continue
        squares[sq] = SquareReading(SquareState.TILE, m.letter, squares[sq].confidence)
        doubts.pop(sq, None)
        done.add(sq)
    known_kept(net, crops, squares, known, disputed, ex, cache)
    return frozenset(done)
