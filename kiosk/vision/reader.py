"""The board reader: one camera frame in, one :class:`kiosk.vision.reading.BoardReading` out.

Pipeline (timings in ``BoardReading.timings_ms`` under these names):

1. ``check``: the frame must be a uint8 array (grey is converted, but flagged), big enough;
2. ``undistort``: lens undistortion with the profile's camera matrix (cached remap);
3. ``locate``: given corners (refined on the grid lines; kept from frame to frame while the board is still,
   :class:`kiosk.vision.still.GridTracker`) > profile's fixed homography > ArUco markers > marker-less grid
   search (:mod:`kiosk.vision.locate`); corners the printed lines do not confirm, with no board there
   (:mod:`kiosk.vision.presence`: noise, a covered camera, a board turned under them), give no reading (verdict
   "no board at the given corners (...)", or at the corners of the board found in an earlier frame: the corners
   that were used, :class:`kiosk.vision.reading.GridSource`; board not found); so does a fixed homography that
   reads no tile at all over something that is no board ("no board where the camera's calibration puts it
   (...)", checked after reading: :meth:`BoardReader._board_gone`). The fixed homography belongs to frames of
   the size it was measured at (``board.image_size``): it is scaled to frames of another size with the same
   aspect ratio, and frames of another aspect ratio give no reading ("the camera's frames are 1280x720 px but
   its calibration was measured at 2028x1520 px: calibrate the camera again"; board not found). A profile that
   records no frame size cannot be checked: its grid is refused only where it cannot lie in the frame
   (:meth:`kiosk.vision.profile.CalibrationProfile.fixed_homography`);
4. ``warp``: the reading canvas (:mod:`kiosk.vision.cells`);
5. ``occupancy``: P(tile) per square (:mod:`kiosk.vision.occupancy`);
6. ``quality``: sharpness, glare, hand (:mod:`kiosk.vision.quality`); with a hand found, occupancy is measured
   again with the squares under it left out of the empty-square colour references;
7. ``letters``: the square network (:mod:`kiosk.vision.squarenet`, ONNX run by OpenCV's dnn module) on every
   square the occupancy model does not call surely empty: letters, blanks, and its empty/tile opinion. The
   letters it is sure of are then left out of the frame's empty-square colour references and occupancy is
   measured again; a tile whose letter it doubts is read again in its four quarter turns (the surer reading
   stands); a letter it is not all but certain of is read again scaled 6% larger and smaller and doubted when
   it does not hold there (an unfamiliar font: :func:`_letters_not_held`); a letter doubt the frame's own sure
   tiles (and, in a game, its known tiles) settle clearly gets their letter (:mod:`kiosk.vision.exemplars`); where
   the summed opinions leave a square open, the settle model (:mod:`kiosk.vision.settle`) decides if it is sure;
   a frame where the network sees tiles on many squares the colours call empty gives those squares as doubts
   (:func:`doubt_colour_collapse`: the colours have failed, not the network).
   With a calibration profile that embeds a glyph model (:mod:`kiosk.vision.glyph_model`), that model reads the
   network's tiles a second time: its sure letters settle the network's letter doubts and dispute the network's
   less sure letters (:meth:`BoardReader._profile_glyphs`). Then a tile lying across two squares makes both a doubt
   (:mod:`kiosk.vision.slid`, timed as ``slid``). A tile read on a premium square with no tile on a plain square
   beside it is a doubt, never a letter: its print (the centre star, the labels) may read as one
   (:func:`doubt_lone_premium_tiles`). A letter of the square network whose tile's printed value reads surely
   as another is a doubt (:mod:`kiosk.vision.tile_value`), and a letter doubt between letters of which only one
   is worth the value printed (of a value few letters share) gets that letter (:meth:`BoardReader._letters_by_value`);
   every tile of a kind read more often than the tile set holds is a doubt (:mod:`kiosk.vision.tile_counts`,
   after the reading).

Doubt is never hidden: a square whose occupancy or letter is not clear, or that lies under glare or a hand
(or next to it, where a finger may reach; fingers that read as blanks, more than the set has and side by side,
are a hand too), is ``UNSURE`` with the reason in ``BoardReading.doubts`` (a :class:`~kiosk.vision.reading.Doubt`:
the sentence for the judge with its :class:`~kiosk.vision.reading.DoubtKind`; rules look at the kind, never at the
sentence); a grid
found without markers that reads mostly doubts is not read at all (verdict "grid uncertain"), nor is a board
whose letters read turned alike (verdict "board turned": corners given from the wrong
corner, markers placed turned; the premium layout looks the same turned, the coordinates would not), nor a frame
whose squares not read empty are mostly no sure letter (verdict "letters not read": lettering the reader does not
know, or too little light; :func:`~kiosk.vision.doubt_rules.letters_not_read`).
"""

from __future__ import annotations

import base64
import math
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import NamedTuple

import cv2
import numpy as np

from kiosk.rules.board import CENTRE, SIZE
from kiosk.rules.counts import counted
from kiosk.rules.tiles import ENGLISH, TileSet, load_tile_set
from kiosk.vision import locate
from kiosk.vision.bag_templates import BagTemplates, bag_letter
from kiosk.vision.cells import PREMIUM_CLASSES, CellStats, cell_crop, cell_stats, same_square, warp_canvas
from kiosk.vision.doubt_rules import (
    GLARE_DOUBT,
    HAND_DOUBT,
    KNOWN_MIN,
    OUTSIDE_VIEW_DOUBT,
    blank_or_letter_doubt,
    blank_squares,
    board_turns,
    colour_blind,
    doubt_blanks,
    doubt_blanks_alone,
    doubt_colour_collapse,
    doubt_fingers,
    doubt_lone_premium_tiles,
    doubt_off_colour_blanks,
    doubt_weak_empties,
    find_finger_blanks,
    frame_degraded,
    letter_or_doubt,
    letters_not_read,
    near_mask,
    not_in_set_doubt,
    washed_out,
)
from kiosk.vision.exemplars import CANDIDATE_SHARE, GlyphCache, confirm_by_exemplars, resolve_by_exemplars
from kiosk.vision.familiarity import Familiarity, hold_unfamiliar
from kiosk.vision.game_exemplars import GAME_KINDS, FeatureCache, RuledOut, settle_by_known
from kiosk.vision.glyph_model import GlyphClassifier, normalise_glyph
from kiosk.vision.letter_shapes import CHECK_BELOW_P as SHAPE_CHECK_BELOW_P
from kiosk.vision.letter_shapes import MODEL_FILE as SHAPES_FILE
from kiosk.vision.letter_shapes import SHARP_MIN as SHAPES_SHARP_MIN
from kiosk.vision.letter_shapes import ShapeReader, letters_unlike
from kiosk.vision.mlp import Classifier, ModelError, data_problem
from kiosk.vision.occupancy import (
    OccupancyModel,
    features,
    nearest_colour_says_tile,
    normalised_colour,
    tile_colour_known,
)
from kiosk.vision.presence import NoBoardError, no_board
from kiosk.vision.profile import CalibrationProfile, FrameSizeError, ProfileError
from kiosk.vision.quality import GLARE_SQUARE_FRACTION, SHARPNESS_MIN, glare_squares, hand_squares, sharpness
from kiosk.vision.reading import (
    EMPTY_CHAR,
    EMPTY_SQUARE,
    FIXED_CAMERA,
    FOUND_CORNERS,
    GIVEN_CORNERS,
    N_SQUARES,
    SEARCHED,
    UNSURE_CHAR,
    BoardReading,
    Doubt,
    DoubtKind,
    FrameQuality,
    GridSource,
    SquareReading,
    SquareState,
    kind_of,
)
from kiosk.vision.settle import SettleModel, settle_features
from kiosk.vision.slid import doubt_slid_tiles
from kiosk.vision.squarenet import GROW_PX as SQUARE_NET_GROW_PX
from kiosk.vision.squarenet import SquareNet, SquarePrediction, prepare, same_input, scaled
from kiosk.vision.still import GridTracker
from kiosk.vision.tile_counts import over_set
from kiosk.vision.tile_value import NOTE_MIN as VALUE_NOTE_MIN
from kiosk.vision.tile_value import (
    VALUE_CLASSES,
    VALUE_NOTE,
    ValueNet,
    default_value_net,
    letters_by_value,
    letters_ruled_out,
    value_doubts,
    value_region,
)

ValueCorners = Callable[[list[int]], np.ndarray]
""":meth:`BoardReader._value_corners`: squares -> the value network's P(value) of each one's corner."""

MIN_FRAME_PX = 160
TILE_P = 0.7          # P(tile) at or above: a tile
EMPTY_P = 0.3         # P(tile) at or below: empty; between: unsure
EMPTY_P_SURE = 0.1    # ... in a degraded frame, without the colour vote's support: at or below this
GLYPH_SURE_P = 0.99   # a calibration profile's glyph model, the second reader: its letter at or above this settles
                      # the network's letter doubt, or makes a letter of the network it reads otherwise a doubt ...
NET_ALONE_LETTER_P = 0.999  # ... unless the network reads its own letter at or above this (that letter stands)
PROFILE_SETTLES = frozenset({DoubtKind.LETTER, DoubtKind.DEGRADED, DoubtKind.BLANK_OR_LETTER})  # the doubts a
# calibration profile's glyph model may settle
NET_LETTER_P = 0.8    # the square network's P(letter | tile) below which its letter is reported unsure: 4 to 1
                      # over all else (on real tiles its wrong letters came at 0.70-0.94: an A for an Ä, a Y for a V)
LETTER_P_DEGRADED = 0.95  # ... in a frame where many letters are doubtful (see frame_degraded)
SEEN_MIN = 0.7        # fraction of a square inside the frame needed to read it
NEAR_HAND_LETTER_P = 0.999  # next to a hand a letter needs this P(letter | tile) (a finger may hide a stroke)
SETTLED_P = 0.99      # the network's P(empty), or P(tile) x P(its letter or blank | tile), at or above which a
                      # square that looks the same in a later frame keeps the reading (below, it is read again)
TURN_BELOW_P = 0.95   # a tile's best class (a letter or blank) below this share of P(tile): read in 4 turns
HOLD_CHECK_BELOW_P = 0.9  # a letter read with P(letter | tile) below this is read again scaled (_letters_not_held)
HOLD_SCALES = (1.06, 0.94)  # ... by these factors about the crop's centre ...
HOLD_P = 0.7          # ... and doubted when its P(letter | tile) falls below this in either (chosen on the
                      # validation fonts for the shipped network, never on the held-out ones: models/README.md)
VANISHED_CHECK = 3    # known tiles read empty from which the reader checks that a board lies there at all
OFF_KNOWN_MIN = 8     # known tiles read empty or as other tiles, on a board that is there, from which the grid may
OFF_KNOWN_SHARE = 0.5  # be off them, when they are at least this share of the known tiles (BoardReader._off_known) ...
OFF_KNOWN_REACH = 3   # ... and the reading shifted by whole squares (at most this many, either axis) ...
OFF_KNOWN_SHIFTED = 0.3  # ... matches at least this share of the known tiles letter for letter, twice as many as
                         # unshifted: the grid lies off the board's squares (else the tiles themselves moved)
HOLD_DOUBT = "does not hold read 6% larger or smaller"  # ... the doubt's reason (no refit on doubt for it alone)
GRID_DOUBT_SHARE = 0.3  # a grid found without markers whose non-empty squares are more than this share unsure
GRID_CHECK_MIN = 10    # ... (with at least this many non-empty squares) is not trusted at all
HAND_UNLIKE = 0.3     # colour change (log units) from an empty square beyond which skin may be a hand
GLYPH_GROW_PX = 5     # tile crops are the square grown by this much on each side (the calibration's too: its
                      # letter templates are cut from them to the network's, so never less than SQUARE_GROW_PX)
SQUARE_GROW_PX = SQUARE_NET_GROW_PX  # ... for the square network
NET_SKIP_P = 0.001    # P(tile) at or below which the square network is not asked (the square is empty)
NET_SURE = 0.98       # the network's P(empty) at or above: it is sure (weak empties of a degraded frame stay)
NET_WEIGHT = 1.0      # weight of the network's log-odds of a tile against the occupancy model's
NET_EMPTY_LOGIT_MAX = 4.0  # ... of an empty square at most (it knows letters; plain skin or shadow fools it)
VOTE_LOGIT = 2.0      # log-odds the colour vote adds (+1 tile-coloured) or takes (-1 coloured like the board)
EVIDENCE_SURE = 3.0   # summed log-odds of a tile beyond which a square is a tile (or, below minus it, empty)
PRINT_LETTER_P = 0.95  # the network's P(letter) at or above which a premium square's "print" is a tile
BLANK_P = 0.9         # the network's P(blank | tile) at or above: a tile without a letter (a blank, or a finger)
BLANK_SURE_P = 0.98   # ... read as a blank only at or above this (true blanks read at 0.99+ on rendered frames;
                      # real P tiles of faint grey ink at 0.90-0.95)
KNOWN_LETTER_P = 0.98  # the network's P(letter) at or above which a square is a known tile for the colour references
GLARE_LETTER_P = 0.995  # P(letter | tile) at or above which a letter under glare is kept (else the square is unsure)
BLIND_NET_TILE_P = 0.5  # where the colours cannot see (see colour_blind), the network's P(tile) from which a
                        # square is not emptied (a doubt at worst; unless the settle model is sure it is empty)
SETTLE_TILE = 0.9     # the settle model's P(tile) at or above: a tile (see kiosk.vision.settle)
SETTLE_EMPTY = 0.1    # ... at or below: empty; between: unsure


@cache
def _packaged(name: str) -> bytes:
    try:
        return (resources.files("kiosk.vision.models") / name).read_bytes()
    except (FileNotFoundError, OSError):
        raise ModelError(f"built-in model kiosk/vision/models/{name} is missing; run "
                         f"`python -m kiosk.vision.train` to build it") from None


def default_square_net(tile_set_name: str, letter_net: bool = True) -> SquareNet:
    """The shipped square network for a tile set (``"english"``, ``"german"``) with its letter network
    (``letters_<set>.onnx``, :class:`SquareNet` ``letters``; ``letter_net=False``: without it); raises
    ModelError."""
    name, lname = f"squares_{tile_set_name}", f"letters_{tile_set_name}"
    letters = (_packaged(f"{lname}.onnx"), _packaged(f"{lname}.json"), f"{lname}.onnx") if letter_net else None
    return SquareNet.from_files(_packaged(f"{name}.onnx"), _packaged(f"{name}.json"), f"{name}.onnx", letters)


def default_occupancy_model() -> OccupancyModel:
    """The shipped occupancy model; raises ModelError."""
    return OccupancyModel(Classifier.from_bytes(_packaged("occupancy.npz"), "occupancy.npz"))


def default_shape_reader() -> ShapeReader:
    """The shipped stroke-direction letter reader (:mod:`kiosk.vision.letter_shapes`); raises ModelError."""
    return ShapeReader.from_bytes(_packaged(SHAPES_FILE), SHAPES_FILE)


def default_settle_model() -> SettleModel:
    """The shipped tile-or-empty model of the square-network path (:mod:`kiosk.vision.settle`); raises
    ModelError."""
    return SettleModel(Classifier.from_bytes(_packaged("settle.npz"), "settle.npz"))


class _Memo(NamedTuple):
    """The square network's reading of one square in the last frame it was read in (:meth:`BoardReader._squares_net`)."""

    crop: np.ndarray          # the square's grey crop then (CROP_PX square, uint8)
    input: np.ndarray         # the network's input made from it (:func:`kiosk.vision.squarenet.prepare`)
    pred: SquarePrediction    # the reading: the network's, or the surer of it and the one in four quarter turns
    turned: bool              # whether it was read in four quarter turns too
    held: float | None = None  # the letter's least P(letter | tile) read scaled (_letters_not_held), None: not read


class Occupancy(NamedTuple):
    """One measurement of which squares hold tiles (:meth:`BoardReader._occupancy`); arrays of 225 rows."""

    feats: np.ndarray       # the occupancy features (225 x 16, :func:`kiosk.vision.occupancy.features`)
    norm: np.ndarray        # light-corrected log colour (225 x 3, :func:`normalised_colour`)
    p_tile: np.ndarray      # P(tile) after the colour vote and the premium rule
    p_model: np.ndarray     # the model's own P(tile) (0 where the premium rule says the square shows its print)
    vote: np.ndarray        # the colour vote (-1 / 0 / +1, :func:`nearest_colour_says_tile`)
    weak_empty: np.ndarray  # squares only weakly empty (bool): doubts in a degraded frame
























def _tile_sureness(q: SquarePrediction) -> float:
    """How sure the network is which tile a square holds: its best class (a letter or blank) given a tile."""
    return max(q.blank_if_tile, q.letter_if_tile)


def _settled(q: SquarePrediction) -> bool:
    """Whether the network's reading of a square is sure enough to be kept while the square looks the same."""
    return q.p_empty >= SETTLED_P or q.p_tile * _tile_sureness(q) >= SETTLED_P


def _letters_not_held(net: SquareNet, grey: np.ndarray, preds: dict[int, SquarePrediction],
                      memo: dict[int, _Memo]) -> dict[int, float]:
    """The letters the network reads that do not hold when their square is read again scaled: {square: the
    letter's least P(letter | tile) over HOLD_SCALES, below HOLD_P}. On a font it never learnt the network can
    read a letter surely that a glyph a few percent larger or smaller turns into another (a wide serif E read B);
    a letter it knows holds. Only lettered tiles read with P(letter | tile) from NET_LETTER_P up to
    HOLD_CHECK_BELOW_P are read again (most letters are surer; one network call for the frame); the result is
    kept in ``memo`` (updated in place: :attr:`_Memo.held`), so a square that looks the same is not read again.
    ``grey``: the reading canvas (grey uint8)."""
    check = [sq for sq, q in preds.items() if q.p_tile >= 0.5 and q.p_blank < q.p_tile / 2
             and NET_LETTER_P <= q.letter_if_tile < HOLD_CHECK_BELOW_P]
    todo = [sq for sq in check if memo[sq].held is None]
    if todo:
        crops = [scaled(cell_crop(grey, sq, SQUARE_GROW_PX), f) for sq in todo for f in HOLD_SCALES]
        shares = net.letter_shares(crops, [preds[sq].letter for sq in todo for _ in HOLD_SCALES])
        least = shares.reshape(len(todo), len(HOLD_SCALES)).min(axis=1)
        memo.update((sq, memo[sq]._replace(held=float(v))) for sq, v in zip(todo, least))
    return {sq: held for sq in check if (held := memo[sq].held) is not None and held < HOLD_P}


def _letters_unlike_shapes(shapes: ShapeReader | None, squares: list[SquareReading],
                           preds: dict[int, SquarePrediction], memo: dict[int, _Memo], known: str | None
                           ) -> dict[int, tuple[float, str]]:
    """The letters read (squares read as a tile with a letter) that the network gives below
    :data:`kiosk.vision.letter_shapes.CHECK_BELOW_P` of the lettered classes and the stroke-direction reader
    (``shapes``; None: none) gives less than :data:`kiosk.vision.letter_shapes.UNLIKE_P`: {square: (that
    reader's P of the letter, its own letter)}. A tile the game knows (``known``) read as its letter is not
    checked."""
    if shapes is None:
        return {}
    check = [sq for sq, r in enumerate(squares) if r.state is SquareState.TILE and r.letter and sq in preds
             and sq in memo and preds[sq].letter_given_tile < SHAPE_CHECK_BELOW_P
             and not (known is not None and known[sq] == r.letter)]
    return letters_unlike(shapes, {sq: memo[sq].input for sq in check},
                          {sq: str(squares[sq].letter) for sq in check}, {sq: preds[sq].turns for sq in check})


def _doubt_unlike_shapes(squares: list[SquareReading], doubts: dict[int, Doubt], unlike: dict[int, tuple[float, str]]
                         ) -> list[int]:
    """Make the letters of :func:`_letters_unlike_shapes` (``unlike``) doubts, in place, as
    :func:`_doubt_not_held` does; returns the squares doubted."""
    out = []
    for sq, (p, best) in unlike.items():
        letter = squares[sq].letter
        doubts[sq] = Doubt(DoubtKind.LETTER, f"letter {letter}? its strokes look more like {best} than {letter} "
                           f"(P {p:.2f} by their directions; an unfamiliar font?)")
        squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
        out.append(sq)
    return out


def _doubt_not_held(squares: list[SquareReading], doubts: dict[int, Doubt], preds: dict[int, SquarePrediction],
                    not_held: dict[int, float]) -> list[int]:
    """Make the letters of :func:`_letters_not_held` (``not_held``) doubts, in place (after the frame's other
    rules: a doubt here does not make the frame degraded, nor change its blanks or fingers); returns the
    squares doubted."""
    out = []
    for sq, held in not_held.items():
        if squares[sq].state is SquareState.TILE:
            doubts[sq] = Doubt(DoubtKind.LETTER, f"letter {preds[sq].letter} {HOLD_DOUBT} (P {held:.2f}; an unfamiliar "
                               "font?)")
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
            out.append(sq)
    return out












def known_shift(known: str, grid: Sequence[str]) -> tuple[tuple[int, int], int, int]:
    """The whole-square shift under which a reading's ``grid`` (15 strings, :meth:`BoardReading.grid`) best
    matches the game's ``known`` tiles (225 characters as :attr:`kiosk.vision.game.GamePrior.board`), letter for
    letter: ((columns, rows) the reading shows them moved, each within OFF_KNOWN_REACH, (0, 0) excepted; the known
    tiles read at that shift; those read where they lie). A grid fitted one column too far left reads each tile one
    column right of its square: (1, 0)."""
    cells = "".join(grid)
    held = [(sq // SIZE, sq % SIZE, ch) for sq, ch in enumerate(known) if ch not in (EMPTY_CHAR, UNSURE_CHAR)]

    def matched(dc: int, dr: int) -> int:
        return sum(0 <= r + dr < SIZE and 0 <= c + dc < SIZE and cells[(r + dr) * SIZE + c + dc] == ch
                   for r, c, ch in held)
    reach = range(-OFF_KNOWN_REACH, OFF_KNOWN_REACH + 1)
    best = max(((dc, dr) for dc in reach for dr in reach if (dc, dr) != (0, 0)), key=lambda d: matched(*d))
    return best, matched(*best), matched(0, 0)








def _settled_empty(settled: dict[int, float] | None, sq: int) -> bool:
    """Whether the settle model (when asked about ``sq``) is sure the square is empty (at most SETTLE_EMPTY)."""
    return settled is not None and sq in settled and settled[sq] <= SETTLE_EMPTY




def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def combine_net(p_tile: np.ndarray, p_model: np.ndarray, vote: np.ndarray, seen: np.ndarray, hand: np.ndarray, glare: np.ndarray,
                weak_empty: np.ndarray, preds: dict[int, SquarePrediction], letters: set[str], tile_set: TileSet,
                settled: dict[int, float] | None = None, blind: np.ndarray | None = None
                ) -> tuple[list[SquareReading], dict[int, Doubt], np.ndarray, list[int]]:
    """The readings of the 225 squares from the occupancy model's ``p_tile`` (after the colour vote, 225 floats),
    its own ``p_model`` (before),
    the colour vote (225 int, see :func:`nearest_colour_says_tile`) and the square network's predictions
    ``preds`` (by square; a square without one is empty); see :meth:`BoardReader._squares_net`. ``letters``:
    the tile set's letters. ``settled``: the settle model's P(tile) by square (:mod:`kiosk.vision.settle`); where
    the summed log-odds leave a square open, it decides when it is sure (at most SETTLE_EMPTY or at least
    SETTLE_TILE). Within FINGER_REACH of the hand (``hand``) a square the network or the occupancy model calls
    a tile is not emptied, the settle model is not asked and a letter needs NEAR_HAND_LETTER_P; fingers found
    among the blanks (:func:`find_finger_blanks`) join the hand and the squares are read again. ``blind`` (225
    bool, :func:`colour_blind`): squares the colours cannot judge; one the network gives P(tile) >=
    BLIND_NET_TILE_P is not emptied by the colours there (a doubt at worst) unless the settle model is sure it
    is empty (the network alone sees tiles on bright empty squares too). Last, a tile on a premium square with
    no tile on a plain square beside it is a doubt (:func:`doubt_lone_premium_tiles`; its reason names
    LONE_DOUBT), and so are blanks no letter read joins (:func:`doubt_blanks_alone`). Returns (readings, doubts
    by square, the hand: ``hand`` and those fingers, 225 bool, the squares those two geometry rules doubted:
    lasting doubts, which a fresh grid does not clear; a finger found keeps its own reason, and is not one)."""
    if blind is None:
        blind = np.zeros(N_SQUARES, bool)
    squares: list[SquareReading] = [EMPTY_SQUARE] * N_SQUARES
    doubts: dict[int, Doubt] = {}
    tiles: list[int] = []
    near_hand = near_mask(hand)
    for sq in range(N_SQUARES):
        p = float(p_tile[sq])
        q = preds.get(sq)
        if not seen[sq]:
            doubts[sq] = OUTSIDE_VIEW_DOUBT
        elif hand[sq]:
            doubts[sq] = HAND_DOUBT
        elif q is None:
            squares[sq] = SquareReading(SquareState.EMPTY, None, round(1 - p, 3))
            continue
        else:
            # evidence for a tile, in log-odds: the occupancy model (its own P(tile), or lower where the premium
            # rule lowered it), the frame's colour vote, and the network (whose weak spot is a plain blank
            # against an empty square: the occupancy features see the frame's colours, it does not)
            p_occ = float(p_model[sq]) if vote[sq] < 0 else min(float(p_model[sq]), p)
            if p_model[sq] <= 0:
                # the premium rule says the square shows its print (no tile colour known in this frame): only a
                # letter the network is sure of is a tile there (print labels are not letters to it)
                # (the square network's own letter: a letter network never saw a print)
                if q.square.p_letter >= PRINT_LETTER_P and q.square.letter in letters and not glare[sq]:
                    tiles.append(sq)
                elif blind[sq] and q.p_tile >= BLIND_NET_TILE_P and not glare[sq] and not _settled_empty(settled, sq):
                    doubts[sq] = Doubt(DoubtKind.TILE_OR_PRINT,
                                       f"tile or print? (the colours cannot tell here; network {q.p_tile:.2f})")
                    squares[sq] = SquareReading(SquareState.UNSURE, None, round(min(p, 1 - p), 3))
                else:
                    squares[sq] = SquareReading(SquareState.EMPTY, None, round(1 - p, 3))
                continue
            # the network alone may not empty a square: what it calls empty may be a hand, skin or a shadow
            net = max(_logit(q.p_tile), -NET_EMPTY_LOGIT_MAX)
            evidence = _logit(p_occ) + VOTE_LOGIT * float(vote[sq]) + NET_WEIGHT * net
            if -EVIDENCE_SURE < evidence < EVIDENCE_SURE and settled is not None and sq in settled and \
                    not near_hand[sq]:
                # the summed opinions leave it open: the settle model, which has learnt when to trust which
                # opinion (and knows the colour of this frame's surely read tiles), decides where it is sure
                ps = settled[sq]
                if ps <= SETTLE_EMPTY:
                    evidence = -EVIDENCE_SURE
                elif ps >= SETTLE_TILE:
                    evidence = EVIDENCE_SURE
            if evidence <= -EVIDENCE_SURE and near_hand[sq] and max(q.p_tile, p_occ) >= 0.5:
                # a finger over a tile hides its letter: the network or the colours see a tile, the sum says board
                doubts[sq] = Doubt(DoubtKind.FINGER, f"tile under a finger? (next to the hand; P(tile) {p_occ:.2f}, "
                                   f"network {q.p_tile:.2f})")
            elif evidence <= -EVIDENCE_SURE and blind[sq] and q.p_tile >= BLIND_NET_TILE_P and \
                    not _settled_empty(settled, sq):
                # the colours cannot see here (washed out, tiles coloured like the board): their "empty" does not
                # outweigh a tile the network sees
                doubts[sq] = Doubt(DoubtKind.TILE_OR_EMPTY, f"tile or empty? (the colours cannot tell here; P(tile) "
                                   f"{p_occ:.2f}, network {q.p_tile:.2f})")
            elif evidence <= -EVIDENCE_SURE:
                squares[sq] = SquareReading(SquareState.EMPTY, None, round(1 - _sigmoid(evidence), 3))
                continue
            if evidence < EVIDENCE_SURE:
                doubts[sq] = Doubt(DoubtKind.TILE_OR_EMPTY, f"tile or empty? (P(tile) {p_occ:.2f}, network "
                                   f"{q.p_tile:.2f}" + (f", both {settled[sq]:.2f})" if settled is not None
                                                        and sq in settled else ")"))
            else:
                tiles.append(sq)    # under glare too: only a letter read surely is kept (below)
                continue
        squares[sq] = SquareReading(SquareState.UNSURE, None, round(min(p, 1 - p), 3))
    lettered = [sq for sq in tiles if preds[sq].p_blank < preds[sq].p_tile / 2 and not glare[sq]]
    # (the letters as read, the letter network's: judged by the square network's own letters instead, on
    # validation-2 the frame's state turned more tiles into doubts but also gave more wrong letters: not so)
    degraded = frame_degraded([preds[sq].letter_given_tile for sq in lettered])
    letter_p = LETTER_P_DEGRADED if degraded else NET_LETTER_P
    for sq in tiles:
        q = preds[sq]
        p_blank, p_letter = q.blank_if_tile, q.letter_if_tile
        conf = round(q.p_tile * max(p_blank, p_letter), 3)
        if glare[sq] and not (p_letter >= GLARE_LETTER_P and q.letter in letters):
            # glare washes ink out: a tile there may look blank or like another letter (E as F)
            doubts[sq] = GLARE_DOUBT
            squares[sq] = SquareReading(SquareState.UNSURE, None, conf)
        elif p_blank >= BLANK_P:
            squares[sq] = SquareReading(SquareState.BLANK, None, conf)
        elif near_hand[sq] and p_letter < NEAR_HAND_LETTER_P and q.letter in letters:
            # a finger over part of a letter can leave another letter (O as U, F as R)
            doubts[sq] = Doubt(DoubtKind.FINGER, f"letter {q.letter}, or part of one under a finger? ({p_letter:.3f}, "
                               "next to the hand)")
            squares[sq] = SquareReading(SquareState.UNSURE, None, conf)
        elif p_letter >= letter_p and q.letter in letters:
            squares[sq] = SquareReading(SquareState.TILE, q.letter, conf)
        else:
            if q.letter not in letters:
                doubts[sq] = not_in_set_doubt(q.letter, tile_set)
            elif p_blank > p_letter:
                doubts[sq] = blank_or_letter_doubt(q.letter, p_blank)
            else:
                doubts[sq] = letter_or_doubt(q.letter, q.runner_up, p_letter, degraded)
            squares[sq] = SquareReading(SquareState.UNSURE, None, conf)
    if degraded:  # the network's sure empties stay empty
        doubt_weak_empties(squares, doubts, weak_empty, {sq for sq, q in preds.items() if q.p_empty >= NET_SURE})
    found = find_finger_blanks(squares, doubts, hand, tile_set.blanks)
    fingers = np.flatnonzero(found & ~hand).tolist()
    if fingers:
        # fingers found among the blanks: read again with them as hand, so the squares beside them get the
        # near-hand rules (a tile there is not emptied, its letter needs NEAR_HAND_LETTER_P); they keep their reason
        again, doubts_again, hand_again, lasting = combine_net(p_tile, p_model, vote, seen, found, glare, weak_empty,
                                                               preds, letters, tile_set, settled, blind)
        doubts_again.update((sq, doubts[sq]) for sq in fingers)
        return again, doubts_again, hand_again, [sq for sq in lasting if sq not in fingers]
    doubt_fingers(squares, doubts, hand, tile_set.blanks)
    doubt_blanks(squares, doubts, tile_set.blanks, degraded)
    for sq in blank_squares(squares):
        q = preds[sq]
        p_blank = q.blank_if_tile
        if p_blank < BLANK_SURE_P:
            # a blank counts towards fingers from BLANK_P, but is read only when surer: faint ink passes for none
            doubts[sq] = blank_or_letter_doubt(q.letter, p_blank)
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
    tiled = np.zeros(N_SQUARES, bool)
    tiled[tiles] = True
    lasting = doubt_lone_premium_tiles(squares, doubts, tiled, hand | ~seen)
    lasting += doubt_blanks_alone(squares, doubts, tiled, hand | ~seen)
    return squares, doubts, hand, lasting


class BoardReader:
    """Reads boards from frames. Construct once per camera; :meth:`read` is not thread-safe.

    ``tile_set``: the set to read (None: the profile's, else English). Raises ModelError / ProfileError at
    construction when the models cannot be loaded or ``profile`` was made for another tile set. ``settle=False``:
    the square-network path sums the three opinions' log-odds instead of asking the settle model (for training
    that model: set ``record_settle_rows`` to keep each read's input rows in ``last_settle_rows``).
    ``exemplars=False``: a letter the square network doubts stays a doubt even where the frame's own sure tiles
    (or, in a game, its known tiles) settle it (:mod:`kiosk.vision.exemplars`,
    :mod:`kiosk.vision.game_exemplars`); the tile's printed value still answers the doubts it can
    (:meth:`_letters_by_value`: that is the value network's, on whenever the reader has one).
    ``shapes=False``: a letter the network is not quite sure of is not checked by the stroke-direction reader
    (:mod:`kiosk.vision.letter_shapes`; it is not asked either where a calibration profile gives glyphs or bag
    templates).
    ``letter_net=False``: the square network reads the letters alone, without the shipped letter network
    (:class:`kiosk.vision.squarenet.SquareNet` ``letters``; for measuring what that network adds, and for tests of
    rules on the doubts the square network alone leaves). "The square network" in the rules below means the
    square network with its letter network, but for the settle model and the print rule, which weigh its own
    reading (:attr:`kiosk.vision.squarenet.SquarePrediction.square`).
    """

    def __init__(self, tile_set: TileSet | None = None, profile: CalibrationProfile | None = None, *,
                 settle: bool = True, exemplars: bool = True, letter_net: bool = True, shapes: bool = True) -> None:
        self.profile = profile
        self.exemplars = exemplars
        made_for = profile.tile_set if profile is not None and profile.tile_set else None
        if tile_set is None:
            tile_set = load_tile_set(made_for) if made_for else ENGLISH
        elif made_for and profile is not None and tile_set.name != made_for:
            # its glyph model knows only its own set's letters (an English profile reads a German Ö as O)
            raise ProfileError(f"{profile.source or 'calibration profile'}: made for {made_for} tiles, but the "
                               f"reader is asked for {tile_set.name} tiles (calibrate for {tile_set.name}, or "
                               f"read with the profile's set)")
        self.tile_set = tile_set
        self.letters = set(self.tile_set.letters)
        # a calibration profile's own glyph model: a second reader of the squares the square network reads
        # (:meth:`_profile_glyphs`); without one, the square network alone
        self.glyphs: GlyphClassifier | None = self._load_glyphs()
        # ... and its photos of the bag, letter templates (:meth:`_profile_templates`)
        self.bag: BagTemplates | None = self._load_templates()
        self.squarenet = default_square_net(self._set_name(), letter_net)
        self.settle: SettleModel | None = default_settle_model() if settle else None
        # a second reader of the letters, of another kind (kiosk.vision.letter_shapes), for lettering not
        # calibrated: a calibrated tile set is read against its own glyphs and templates, which know it better than
        # a reader trained on rendered faces (its doubts on the real Pi frames were all right letters); None: not asked
        self.shapes: ShapeReader | None = \
            default_shape_reader() if shapes and self.glyphs is None and self.bag is None else None
        # the square network's letters are checked against the value printed on their tile
        self.value_net: ValueNet | None = default_value_net()
        # the settle model's input rows of the last read (squares, N x F), for training it (kiosk.vision.train)
        self.record_settle_rows = False
        self.last_settle_rows: tuple[list[int], np.ndarray] | None = None
        self.occupancy = self._load_occupancy()
        # with an installation's own occupancy model (calibration profile), the shipped one still votes: the
        # installation's model knows its board only under the light of its calibration frames, the shipped one
        # has seen every kind of light but not this board; a square is a tile only as far as both say so
        # (the lower P(tile)), so a lighting fault the calibration frames never showed cannot make a tile alone
        own = profile is not None and bool(profile.occupancy_model.path or profile.occupancy_model.data)
        self.occupancy_general: OccupancyModel | None = default_occupancy_model() if own else None
        self._undistort_maps: tuple[tuple[int, int], np.ndarray, np.ndarray] | None = None
        self._last_markers: np.ndarray | None = None   # steady camera: look for the markers where they were
        # given corners: the grid fitted from them, kept while the board is still, refitted when it moves
        self._tracker = GridTracker()
        # the square network's reading of each square it read, with that square's crop and input: a square that
        # looks the same again (same_square, same_input) keeps a sure reading (a known tile is checked, not read again)
        self._net_memo: dict[int, _Memo] = {}
        # the squares of the last frame read whose doubt a grid fitted afresh cannot clear: a letter that does not
        # hold read scaled (an unfamiliar font), a tile across two squares (see read)
        self._lasting_doubts: set[int] = set()
        # the squares of the last frame read whose letter doubt the frame itself settled (its sure tiles, the value)
        self._settled_in_frame: list[int] = []
        self._confirmed: frozenset[int] = frozenset()   # ... and the new letters they confirmed (in a game)
        # the doubts a grid fitted afresh for them did not clear, and the kept grid they were read on (see read)
        self._refit_left: tuple[np.ndarray | None, frozenset[int]] = (None, frozenset())
        self._glyph_cache = GlyphCache()   # the exemplars' descriptors, kept while a square's crop is kept
        self._known_cache = FeatureCache()   # a game's tiles turned upright, for kiosk.vision.game_exemplars
        # the last frame's judgement of its face (kiosk.vision.familiarity)
        self.familiarity = Familiarity()
        self._value_note = ""   # the last frame's note when its printed values contradicted letters (tile_value)

    def forget_board_pose(self) -> None:
        """Forget where the markers were seen: the next read searches the whole frame (a new scene or camera;
        the benchmark's frames are each their own scene, and a pose kept from another made readings depend on
        the order the frames were read in)."""
        self._last_markers = None
        self._tracker.forget()
        self._net_memo = {}
        self._refit_left = (None, frozenset())

    def _set_name(self) -> str:
        """The shipped models' tile set for this reader's (``"english"`` for a set without its own)."""
        return self.tile_set.name if self.tile_set.name in ("english", "german") else "english"

    def _profile_model(self, name: str) -> tuple[str | bytes, str] | None:
        """The calibration profile's model ``name`` (a :class:`~kiosk.vision.profile.ModelRef` field: ``glyph_model``
        ...): (its base64 text, or the bytes of its file; its origin for messages), or None when it gives none."""
        if self.profile is None:
            return None
        ref = self.profile.resolve(getattr(self.profile, name))
        return None if ref is None else (ref[1], f"{self.profile.source or 'calibration profile'}: {name}")

    def _load_glyphs(self) -> GlyphClassifier | None:
        got = self._profile_model("glyph_model")
        if got is None:
            return None
        blob, origin = got
        if isinstance(blob, str):       # ("data", base64 text); else ("file", bytes)
            return GlyphClassifier.from_text(blob, origin, self.tile_set.name)
        return GlyphClassifier(Classifier.from_bytes(blob, f"{origin} file"), self.tile_set.name)

    def _load_templates(self) -> BagTemplates | None:
        got = self._profile_model("letter_templates")
        if got is None:
            return None
        blob, origin = got
        return BagTemplates.from_text(blob, origin) if isinstance(blob, str) else BagTemplates.from_bytes(blob, origin)

    def _load_occupancy(self) -> OccupancyModel:
        got = self._profile_model("occupancy_model")
        if got is None:
            return default_occupancy_model()
        blob, origin = got
        if isinstance(blob, str):       # ("data", base64 text); else ("file", bytes)
            import binascii
            try:
                blob = base64.b64decode(blob)
            except (binascii.Error, ValueError) as exc:
                raise ModelError(f"{origin}: not base64 model data ({data_problem(exc)})") from None
        return OccupancyModel(Classifier.from_bytes(blob, origin))

    # ------------------------------------------------------------------ stages

    def _undistort(self, frame: np.ndarray) -> np.ndarray:
        p = self.profile
        if p is None or p.camera_matrix is None or p.distortion is None:
            return frame
        h, w = frame.shape[:2]
        k = p.camera_matrix.copy()
        if p.image_size and tuple(p.image_size) != (w, h):  # matrix measured at another resolution: scale it
            sx, sy = w / p.image_size[0], h / p.image_size[1]
            k[0] *= sx
            k[1] *= sy
        if self._undistort_maps is None or self._undistort_maps[0] != (w, h):
            m1, m2 = cv2.initUndistortRectifyMap(k, p.distortion, None, k, (w, h), cv2.CV_16SC2)
            self._undistort_maps = ((w, h), m1, m2)
        _, m1, m2 = self._undistort_maps
        return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR)

    def _grid_source(self, corners: np.ndarray | None, corners_from: GridSource) -> GridSource:
        """Where the grid of a frame read with ``corners`` (from ``corners_from``) comes from: corners kept from
        the board found in an earlier frame are, under a fixed camera, those of its calibration (every frame
        without corners is read through it)."""
        fixed = self.profile is not None and self.profile.board_mode == "fixed"
        if corners is None:
            return FIXED_CAMERA if fixed else SEARCHED
        return FIXED_CAMERA if fixed and corners_from is FOUND_CORNERS else corners_from

    def _locate(self, frame: np.ndarray, corners: np.ndarray | None, fresh: bool = False,
                source: GridSource = GIVEN_CORNERS) -> tuple[np.ndarray | None, str]:
        if corners is not None:
            # corners: the grid fitted from them in the first frame, then kept while the board is still
            # and refitted locally when it moves (still.GridTracker); ``fresh``: fitted again in this frame
            h = self._tracker.refit(frame, source) if fresh else None
            return (h if h is not None else self._tracker.grid(frame, corners, source)), "corners"
        p = self.profile
        if p is not None and p.board_mode == "fixed":
            # the grid of the frames it was measured on, scaled to this frame's size; FrameSizeError when it
            # cannot be (another aspect ratio; a profile without sizes whose grid cannot lie in this frame)
            return p.fixed_homography(frame.shape[1], frame.shape[0]), "fixed"
        if p is None or p.board_mode == "markers":
            h = locate.find_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), previous=self._last_markers)
            self._last_markers = h
            if h is not None:
                return h, "markers"
        return locate.find_grid(frame), "grid"

    def _squares_net(self, grey: np.ndarray, stats: CellStats, occ: Occupancy, seen: np.ndarray, hand: np.ndarray,
                     glare_share: np.ndarray, sharp_v: float, keep_empty: bool = True, known: str | None = None
                     ) -> tuple[list[SquareReading], dict[int, Doubt], np.ndarray, int]:
        """Squares of the grey reading canvas ``grey`` read with the square network
        (:mod:`kiosk.vision.squarenet`): the network reads every square in view (no hand) the occupancy model
        does not call surely empty; occupancy is measured again without the letters it is sure of (``occ``:
        :meth:`_occupancy` of ``stats``, without the hand found); then :func:`combine_net`. ``glare_share``: 225
        floats; ``sharp_v``: the frame's sharpness. A square that looks as when the network last read it keeps
        that reading when it was sure (:func:`_settled`) or, with ``keep_empty`` (a grid kept from earlier
        frames, not one fitted afresh for a doubt), when it read empty (P(tile) < 0.5): on a real game a third
        of the squares asked each frame were such empties beside the tiles, read again to the same end; or when
        it read the letter the game knows there (``known``, see :meth:`read`). Returns (225 readings, doubts,
        the hand with the fingers found among the blanks, the quarter turns of the whole board in the reading:
        :func:`board_turns` of the tiles read)."""
        net = self.squarenet
        preds: dict[int, SquarePrediction] = {}

        memo = self._net_memo
        fresh: dict[int, _Memo] = {}

        def _reads_known(q: SquarePrediction, sq: int) -> bool:
            # a tile the game knows, read as its letter (its best class a letter, not a blank)
            return known is not None and known[sq] == q.letter and q.p_tile >= 0.5 and \
                q.letter_if_tile > q.blank_if_tile

        def ask_net(want: np.ndarray) -> None:
            ask = [sq for sq in np.flatnonzero(want & seen & ~hand).tolist() if sq not in preds]
            crops = {sq: cell_crop(grey, sq, SQUARE_GROW_PX) for sq in ask}
            # a square that looks as in the last frame keeps the network's reading of it when it was sure, or
            # (on a kept grid) when it read empty: the same crop, or (the network's inputs made only for the
            # others) the same input. A doubtful tile is read again (its letter may be read surely in this frame)
            kept = {sq: old for sq in ask if (old := memo.get(sq)) is not None
                    and (_settled(old.pred) or (keep_empty and old.pred.p_tile < 0.5) or _reads_known(old.pred, sq))}
            for sq, old in kept.items():
                if same_square(old.crop, crops[sq]):
                    preds[sq] = old.pred
                    fresh[sq] = old
            ask = [sq for sq in ask if sq not in preds]
            inputs = dict(zip(ask, prepare([crops[sq] for sq in ask])))
            for sq in ask:
                if sq in kept and same_input(kept[sq].input, inputs[sq]):
                    preds[sq] = kept[sq].pred
                    fresh[sq] = kept[sq]
            ask = [sq for sq in ask if sq not in preds]
            kept_crops = [crops[sq].copy() for sq in ask]   # the memo's: the network remembers their readings
            got = net.predict_inputs(np.stack([inputs[sq] for sq in ask]), kept_crops) if ask else []
            preds.update(zip(ask, got))
            fresh.update((sq, _Memo(c, inputs[sq], q, False)) for sq, c, q in zip(ask, kept_crops, got))

        # first the squares the occupancy model calls tiles; the letters the network is sure of are tiles:
        # measured again without them, the frame's empty-square colours are the board's own (a crowded board's
        # tiles otherwise pass for board colour where they cover most plain squares, and a plain blank there
        # looks empty)
        p_first = np.maximum(occ.p_tile, occ.p_model)
        ask_net(p_first > NET_SKIP_P)
        sure_letters = np.zeros(N_SQUARES, bool)
        sure_letters[[sq for sq, q in preds.items() if q.p_letter >= KNOWN_LETTER_P]] = True
        if sure_letters.sum() >= KNOWN_MIN:
            occ = self._occupancy(stats, sure_letters, hand)
        # then every square the occupancy model does not call surely empty (in either measurement), and the
        # premium squares the premium rule calls print (p_model 0) but the centre star (its print can look like
        # a letter)
        print_only = occ.p_model <= 0
        print_only[CENTRE] = False
        # and every square the colours cannot judge (colour_blind: a tile there may look like the board)
        blind = colour_blind(stats, occ.feats, occ.vote)
        ask_net((np.maximum(p_first, np.maximum(occ.p_tile, occ.p_model)) > NET_SKIP_P) | print_only | blind)
        # a tile whose letter (or blank) the network doubts is read again in its four quarter turns; the surer
        # reading stands (turned, some fonts' M and W, or V and A, look alike and the average doubts them)
        # (a square kept from the last frame keeps the surer reading found then)
        # (a known letter read upright is checked: not read in four turns)
        unsure = [sq for sq, q in preds.items() if q.p_tile >= 0.5 and _tile_sureness(q) < TURN_BELOW_P
                  and not fresh[sq].turned and not _reads_known(q, sq)]
        if unsure:
            turned = self.squarenet.predict([cell_crop(grey, sq, SQUARE_GROW_PX) for sq in unsure], turned=True)
            preds.update((sq, q) for sq, q in zip(unsure, turned) if _tile_sureness(q) > _tile_sureness(preds[sq]))
            fresh.update((sq, fresh[sq]._replace(pred=preds[sq], turned=True)) for sq in unsure)
        # a letter that does not hold when read scaled is doubted (an unfamiliar font; its reading stays in the memo)
        not_held = _letters_not_held(net, grey, preds, fresh)
        # squares not asked this frame (called surely empty, under the hand) keep their last reading for later
        self._net_memo = {**memo, **fresh}
        feats, norm, p_tile, p_model, vote, weak_empty = occ
        settled = None
        if self.settle is not None or self.record_settle_rows:
            rows = [sq for sq in preds if p_model[sq] > 0]
            x = settle_features(feats, norm, p_model, p_tile, vote, glare_share, preds, rows, sharp_v)
            self.last_settle_rows = (rows, x)
            if self.settle is not None:
                settled = dict(zip(rows, (float(v) for v in self.settle.predict_proba(x))))
        squares, doubts, hand, lasting = combine_net(p_tile, p_model, vote, seen, hand,
                                                     glare_share >= GLARE_SQUARE_FRACTION, weak_empty, preds,
                                                     self.letters, self.tile_set, settled, blind)
        doubt_off_colour_blanks(squares, doubts, feats)
        doubt_colour_collapse(squares, doubts, preds)
        self._lasting_doubts.update(_doubt_not_held(squares, doubts, preds, not_held))
        # a letter the network is not quite sure of whose strokes a reader of another kind does not see as that
        # letter is doubted (kiosk.vision.letter_shapes: an unfamiliar face)
        unlike = _letters_unlike_shapes(self.shapes, squares, preds, fresh, known) \
            if sharp_v >= SHAPES_SHARP_MIN else {}
        self._lasting_doubts.update(_doubt_unlike_shapes(squares, doubts, unlike))
        crops = {sq: m.crop for sq, m in fresh.items()}   # the grey crops the network read
        if self.exemplars:  # letter doubts the frame's own sure tiles settle (kiosk.vision.exemplars)
            cache = self._glyph_cache
            self._settled_in_frame = resolve_by_exemplars(net, crops, squares, doubts, preds, known, cache)
            if known is not None:   # in a game: new letters below the sure level the board's tiles confirm
                self._confirmed = confirm_by_exemplars(net, crops, squares, doubts, preds, known, cache)
        self._lasting_doubts.update(lasting)     # the geometry rules' doubts
        # a frame whose face the network barely knows holds its middling letters back (kiosk.vision.familiarity)
        self.familiarity = hold_unfamiliar(squares, doubts, preds, known, sharp_v)
        self._lasting_doubts.update(self.familiarity.doubted)   # no grid reads an unfamiliar face surely
        self._confirmed = self._confirmed - set(self.familiarity.doubted)
        corners = self._value_corners(grey, preds)   # the value network's reading of a tile's corner, once a frame
        by_value = self._doubt_by_value(corners, squares, doubts, preds, known)
        self._lasting_doubts.update(by_value)   # the print stays what it is on any grid
        self._confirmed = self._confirmed - set(by_value)
        self._value_note = VALUE_NOTE.format(n=len(by_value), set=self.tile_set.name) \
            if len(by_value) >= VALUE_NOTE_MIN else ""
        given = self._letters_by_value(net, corners, crops, squares, doubts, preds, known)
        self._settled_in_frame = self._settled_in_frame + given   # settled by the frame itself: the refit is still asked
        if known is not None:   # in a game: a new letter its printed value gives is taken as a sure one
            self._confirmed |= set(given)
        ruled_out = self._ruled_out(corners)
        if self.exemplars and known is not None:   # in a game: tiles read from the tiles it accepted
            self._confirmed |= settle_by_known(net, crops, squares, doubts, preds, known, self._known_cache,
                                               ruled_out)
        keep = set(by_value)   # (not the tiles whose printed value disputes their letter: the print stays what it is)
        if self.glyphs is not None:   # a calibration profile's glyph model reads them too
            filled, agreed, disputed = self._profile_glyphs(grey, squares, doubts, preds, known, ruled_out, keep)
            self._settled_in_frame = self._settled_in_frame + filled
            if known is not None:   # in a game: a new letter both readers give is taken as a sure one
                self._confirmed |= set(filled) | set(agreed)
            keep |= set(disputed)   # the two readers' dispute is not the templates' to settle
        if self.bag is not None:   # and its photos' tiles as templates
            given = self._profile_templates(net, crops, squares, doubts, preds, known, ruled_out, keep)
            self._settled_in_frame = self._settled_in_frame + given
            if known is not None:
                self._confirmed |= set(given)
        return squares, doubts, hand, board_turns([preds[sq].turns for sq in range(N_SQUARES)
                                                   if squares[sq].state is SquareState.TILE])

    def _profile_glyphs(self, grey: np.ndarray, squares: list[SquareReading], doubts: dict[int, Doubt],
                        preds: dict[int, SquarePrediction], known: str | None, ruled_out: RuledOut | None = None,
                        keep: Collection[int] = ()) -> tuple[list[int], list[int], list[int]]:
        """The calibration profile's glyph model (:attr:`glyphs`) as a second reader of the square network's
        tiles, in place, in one call: each lettered tile it read, and each tile whose letter it doubts
        (:data:`PROFILE_SETTLES`), is read by the glyph model too (:func:`normalise_glyph` of its crop from the grey
        canvas ``grey``; a tile without ink is not). Only its upright letters count (turned as the network reads
        the tile). A tile the game knows (``known``) is the game's, not judged again; squares of ``keep`` are left
        as they are (the printed value's doubts), and a letter the tile's printed value rules out
        (``ruled_out``, :data:`~kiosk.vision.game_exemplars.RuledOut`) is never given.

        * where the network reads another letter at least NET_ALONE_LETTER_P, its letter stands (a letter doubt
          stays one): on the validation faces every network letter the glyph model contradicted surely and
          rightly came below 0.92;
        * else a letter doubt the glyph model reads at least GLYPH_SURE_P is read as its letter;
        * and a letter of the network the glyph model reads as another at least GLYPH_SURE_P is a doubt naming
          both.

        Returns (the squares given a letter, the network's letters the glyph model reads alike at least
        GLYPH_SURE_P, the network's letters it made doubts). Why the network reads first and the glyph model second (a glyph model
        trained on two photos of a face gives sure wrong letters on faces the network knows): models/README.md,
        "The network first, the profile's glyphs second"."""
        assert self.glyphs is not None
        todo: list[int] = []
        for sq, rd in enumerate(squares):
            q = preds.get(sq)
            if q is None or sq in keep or (known is not None and known[sq] not in (EMPTY_CHAR, UNSURE_CHAR)):
                continue
            if (rd.state is SquareState.TILE and rd.letter) or (
                    rd.state is SquareState.UNSURE and sq in doubts and kind_of(doubts[sq]) in PROFILE_SETTLES and q.p_tile >= 0.5):
                todo.append(sq)
        inked = {sq: g for sq in todo if (g := normalise_glyph(cell_crop(grey, sq, GLYPH_GROW_PX))) is not None}
        filled: list[int] = []
        agreed: list[int] = []
        disputed: list[int] = []
        read = list(zip(inked, self.glyphs.predict(list(inked.values())) if inked else []))
        unsure = [sq for sq, _ in read if squares[sq].state is SquareState.UNSURE]
        out_of = ruled_out(unsure) if ruled_out is not None and unsure else {}
        for sq, pr in read:
            q, rd = preds[sq], squares[sq]
            if pr.turns != q.turns or pr.confidence < GLYPH_SURE_P or pr.letter not in self.letters:
                continue
            if rd.state is SquareState.TILE and pr.letter == rd.letter:
                agreed.append(sq)
            elif q.letter_if_tile >= NET_ALONE_LETTER_P and q.letter != pr.letter:
                continue    # the network's own letter, beyond its wrong letters' range, stands (a doubt stays one)
            elif rd.state is SquareState.TILE:
                self._dispute(squares, doubts, sq, f"letter {rd.letter} or {pr.letter}? (the network reads "
                              f"{rd.letter}, the profile's glyphs {pr.letter} {pr.confidence:.3f})")
                disputed.append(sq)
            elif pr.letter not in out_of.get(sq, frozenset()):
                self._settle(squares, doubts, sq, pr.letter, q.p_tile * pr.confidence)
                filled.append(sq)
        return filled, agreed, disputed

    def _profile_templates(self, net: SquareNet, crops: dict[int, np.ndarray], squares: list[SquareReading],
                           doubts: dict[int, Doubt], preds: dict[int, SquarePrediction], known: str | None,
                           ruled_out: RuledOut | None = None, keep: Collection[int] = ()) -> list[int]:
        """The calibration profile's letter templates (:attr:`bag`, :mod:`kiosk.vision.bag_templates`) compared
        with the network's lettered tiles and the doubts of their letter alone (:data:`~kiosk.vision.game_exemplars.
        GAME_KINDS`, as the game's own tiles settle; not a degraded frame's), in place, but for tiles the
        game knows (``known``) and letters the network reads at least NET_ALONE_LETTER_P (they stand): a doubt they settle (:func:`~kiosk.vision.bag_templates.bag_letter`) gets their
        letter where it is the network's own first letter (where they show its second, or another, the doubt
        stays); a letter they point away from is a doubt naming the letter they show. ``crops``: the network's grey
        crops by square; ``keep``: squares left as they are (the printed value's doubts, the glyph model's
        disputes); ``ruled_out``: the letters each tile's printed value rules out (never given). Returns the squares
        given a letter."""
        assert self.bag is not None
        todo = [sq for sq in crops if sq in preds and preds[sq].p_tile >= 0.5 and sq not in keep
                and (known is None or known[sq] in (EMPTY_CHAR, UNSURE_CHAR))
                and ((squares[sq].state is SquareState.TILE and squares[sq].letter
                      and preds[sq].letter_if_tile < NET_ALONE_LETTER_P) or (
                    squares[sq].state is SquareState.UNSURE and sq in doubts
                    and kind_of(doubts[sq]) in GAME_KINDS))]
        if not todo:
            return []
        shares, _ = net.letter_table([crops[sq] for sq in todo])
        out_of = ruled_out(todo) if ruled_out is not None else {}
        given: list[int] = []
        for i, sq in enumerate(todo):
            rd = squares[sq]
            alike = self.bag.alike(np.rot90(crops[sq], -preds[sq].turns))
            cand = {net.letters[j]: float(shares[i, j]) for j in np.flatnonzero(shares[i] >= CANDIDATE_SHARE)}
            got = bag_letter(cand, alike, rd.letter if rd.state is SquareState.TILE else None,
                             out_of.get(sq, frozenset()))
            if got is None or got == rd.letter:
                continue
            if got != UNSURE_CHAR and got != preds[sq].letter:
                continue    # the network's second letter, or another: the doubt stays (models/README.md, "The bag's
                #             templates side with the network's first letter")
            if got == UNSURE_CHAR:
                like = max(alike, key=lambda lt: alike[lt])
                self._dispute(squares, doubts, sq, f"letter {rd.letter}? it looks more like the bag's {like} tiles "
                              "(calibration photos)")
            else:
                self._settle(squares, doubts, sq, got, preds[sq].p_tile * cand.get(got, 0.0))
                given.append(sq)
        return given

    def _settle(self, squares: list[SquareReading], doubts: dict[int, Doubt], sq: int, letter: str,
                confidence: float) -> None:
        """A calibration's second reader gives doubted square ``sq`` its ``letter`` (``confidence`` 0..1), in place:
        a TILE, its doubt gone, and no lasting doubt left for the refit to skip."""
        squares[sq] = SquareReading(SquareState.TILE, letter, round(confidence, 3))
        del doubts[sq]
        self._lasting_doubts.discard(sq)

    def _dispute(self, squares: list[SquareReading], doubts: dict[int, Doubt], sq: int, why: str) -> None:
        """A calibration's second reader disputes the network's letter on ``sq``, in place: a LETTER doubt saying
        ``why``, no longer confirmed for the game."""
        doubts[sq] = Doubt(DoubtKind.LETTER, why)
        squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
        self._confirmed = self._confirmed - {sq}

    def _value_corners(self, grey: np.ndarray, preds: dict[int, SquarePrediction]) -> ValueCorners | None:
        """The value network's P(value) of the squares asked (N x len(VALUE_CLASSES), in their order): each
        square's value corner from the reading canvas ``grey``, turned upright by the network's turns (``preds``),
        read once however often the frame's checks ask (the value doubts, the value's letters, the letters it
        rules out for the game's templates). None without a value network."""
        value_net = self.value_net
        if value_net is None:
            return None
        seen: dict[int, np.ndarray] = {}

        def probabilities(sqs: list[int]) -> np.ndarray:
            todo = [sq for sq in dict.fromkeys(sqs) if sq not in seen]
            if todo:
                regions = [value_region(cell_crop(grey, sq, SQUARE_GROW_PX), SQUARE_GROW_PX, preds[sq].turns)
                           for sq in todo]
                seen.update(zip(todo, value_net.probabilities(regions)))
            return np.array([seen[sq] for sq in sqs], np.float32).reshape(len(sqs), len(VALUE_CLASSES))
        return probabilities

    def _ruled_out(self, corners: ValueCorners | None) -> RuledOut | None:
        """Squares -> the letters each one's printed value rules out (:func:`kiosk.vision.tile_value.
        letters_ruled_out` of ``corners``, :meth:`_value_corners`); None without a value network."""
        if corners is None:
            return None
        return lambda sqs: dict(zip(sqs, letters_ruled_out(corners(sqs), self.tile_set)))

    def _doubt_by_value(self, corners: ValueCorners | None, squares: list[SquareReading],
                        doubts: dict[int, Doubt], preds: dict[int, SquarePrediction], known: str | None) -> list[int]:
        """Make the letters the value printed on their tile contradicts doubts, in place
        (:func:`kiosk.vision.tile_value.value_doubts`; ``corners``: :meth:`_value_corners`); a letter the game
        knows there (``known``) is not judged. Returns the squares doubted."""
        if corners is None:
            return []
        letters = {sq: rd.letter for sq, rd in enumerate(squares) if rd.state is SquareState.TILE and rd.letter
                   and sq in preds and (known is None or known[sq] != rd.letter)}
        if not letters:
            return []
        found = value_doubts(letters, corners(list(letters)), self.tile_set)
        for sq, why in found.items():
            doubts[sq] = why
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
        return list(found)

    def _letters_by_value(self, net: SquareNet, corners: ValueCorners | None, crops: dict[int, np.ndarray],
                          squares: list[SquareReading], doubts: dict[int, Doubt],
                          preds: dict[int, SquarePrediction], known: str | None) -> list[int]:
        """Give the letter doubts the one letter the network gives that their printed value allows, in place
        (:func:`kiosk.vision.tile_value.letters_by_value`; ``corners``: :meth:`_value_corners`, ``crops``: the
        grey crops the network read): the square becomes a TILE of that letter, its confidence the network's
        P(letter | tile) of that letter, and its doubt is removed. A tile the game knows there (``known``) is left
        as it is: the game keeps it whatever its doubt, and a letter given it could only dispute it. Returns those
        squares."""
        todo = [sq for sq, why in doubts.items() if squares[sq].state is SquareState.UNSURE and sq in crops
                and sq in preds and preds[sq].p_tile >= 0.5 and getattr(why, "kind", None) is DoubtKind.LETTER
                and (known is None or known[sq] in (EMPTY_CHAR, UNSURE_CHAR))]
        if corners is None or not todo:
            return []
        # (the letters from the crop as it lies, as the exemplars take them; the corner turned by the turns the
        # reader read the square in, which a doubted letter's reading in four turns may have chosen)
        shares, _ = net.letter_table([crops[sq] for sq in todo])
        candidates = {sq: {net.letters[j]: float(shares[i, j]) for j in np.flatnonzero(shares[i] >= CANDIDATE_SHARE)}
                      for i, sq in enumerate(todo)}
        given = letters_by_value(candidates, corners(todo), self.tile_set)
        for sq, letter in given.items():
            squares[sq] = SquareReading(SquareState.TILE, letter, candidates[sq][letter])
            del doubts[sq]
        return list(given)

    def _occupancy(self, stats: CellStats, known_tiles: np.ndarray | None = None,
                   hidden: np.ndarray | None = None) -> Occupancy:
        """P(tile) per square from the occupancy model, the colour vote and the premium rule. ``known_tiles``
        (225 bool): squares known to hold tiles (letters the square network is sure of); ``hidden`` (225 bool):
        squares under the hand found; both are left out of the frame's empty-square colour references."""
        norm = normalised_colour(stats, known_tiles, hidden)
        feats = features(stats, norm, known_tiles, hidden)
        p_tile = self.occupancy.predict_proba(feats)
        if self.occupancy_general is not None:
            p_tile = np.minimum(p_tile, self.occupancy_general.predict_proba(feats))
        p_model = p_tile.copy()
        vote = nearest_colour_says_tile(feats)
        unsure = (p_tile > EMPTY_P) & (p_tile < TILE_P)
        # settle the model's doubts with this frame's own colours where they are clear (a square clearly
        # coloured like an empty square, not like this frame's tiles, is no tile: shadows, dark objects).
        # Kept for later: the empties that are only weakly so (a tile by the model but empty by colour, or a
        # P(tile) above EMPTY_P_SURE without a colour vote): in a degraded frame (see frame_degraded) they are doubts
        weak_empty = ((vote < 0) & (p_tile >= TILE_P) & (p_tile < 0.99)) | \
            ((vote >= 0) & (p_tile > EMPTY_P_SURE) & (p_tile <= EMPTY_P))
        p_tile = np.where((vote < 0) & (p_tile < 0.99), np.minimum(p_tile, EMPTY_P - 0.01),
                          np.where(unsure & (vote > 0), TILE_P + 0.01, p_tile))
        if not tile_colour_known(feats):
            # no tile on any plain square: every move covers one (the first through H8 too), so a premium
            # square that differs from its class is its print (the star, labels), not a tile
            # (even a confident one: the model may call the star a tile) unless some plain square reads as a tile
            premium = PREMIUM_CLASSES != "."
            sure = 0.99 if (p_tile[~premium] >= TILE_P).any() else 1.01
            print_only = premium & (p_tile < sure)
            p_tile = np.where(print_only, np.minimum(p_tile, EMPTY_P - 0.01), p_tile)
            p_model = np.where(print_only, 0.0, p_model)   # the square network must be sure of a letter there
        return Occupancy(feats, norm, p_tile, p_model, vote, weak_empty)

    # ------------------------------------------------------------------ public

    def read(self, frame: np.ndarray, corners: np.ndarray | None = None, known: str | None = None, *,
             corners_from: GridSource = GIVEN_CORNERS) -> BoardReading:
        """Read one frame (BGR H x W x 3 uint8). Never raises for a bad frame: the reading's quality says why.

        ``corners``: optional 4x2 px, outer corners of the grid in the order A1, O1, O15, A15 (may be rough:
        they are refined on the grid lines); ``corners_from``: where they came from (given by a person, the
        default, or kept from the board found in an earlier frame: ``FOUND_CORNERS``), as a reading refused
        there names them (:class:`kiosk.vision.reading.GridSource`). A reading with doubts on a grid kept from earlier frames
        (still.GridTracker) is read once more on a grid fitted afresh in this frame, and that reading is given:
        keeping the grid saves time on a still board, never a tile (a grid a fraction of a pixel off left a
        calibrated glyph unsure that a fresh fit read surely). A fresh fit that cleared none of the doubts is no
        better grid: the kept grid and its reading stay (:meth:`still.GridTracker.keep_before_refit`; settling the
        fresh fit again cost three local refits in the next frames), and the same doubts on that grid ask for no
        refit again. Tiles of a kind read more often than the tile set holds are doubts
        (:func:`kiosk.vision.tile_counts.over_set`). Frames not usable (a hand, blur) are not read again,
        nor frames whose doubts no grid can clear (an unfamiliar font's letter, a tile across two squares: the
        refit would cost a first reading for nothing), nor doubts on the game's known tiles.

        ``known``: the tiles the game knows (225 characters, index ``row * 15 + col``, as
        :attr:`kiosk.vision.game.GamePrior.board`: a letter, ``?`` a blank, ``.`` empty, ``#`` not known), or
        None. A known letter is checked, not read afresh: the square network's reading of it is kept while the
        square looks the same and reads that letter, and it is not read again in four quarter turns when it
        reads that letter upright (:meth:`_squares_net`). A doubt on a known tile asks for no refit: the game
        takes the known tile for it (:func:`kiosk.vision.game.apply_prior`). When VANISHED_CHECK or more known
        tiles read empty, or a fixed camera's grid reads no tile at all, the reader checks that a board lies there
        at all (:meth:`_board_gone`). Raises ValueError for a ``known`` that is not a string of 225 of those
        characters (a caller's fault, not a frame's).
        """
        if known is not None and not isinstance(known, str):
            raise ValueError(f"known: a {type(known).__name__}, expected a string of {N_SQUARES} characters")
        if known is not None and len(known) != N_SQUARES:
            raise ValueError(f"known: {len(known)} characters, expected {N_SQUARES} (15 rows of 15)")
        odd = "".join(sorted({c for c in known or "" if c not in ".?#" and not (c.isalpha() and c.isupper())}))
        if odd:   # a lower-case designated blank is '?' in a GamePrior's board; anything else is no tile at all
            raise ValueError(f"known: {odd!r} are none of an upper-case letter, '?', '.' or '#'")
        source = self._grid_source(corners, corners_from)
        reading = self._read(frame, corners, known=known, source=source)
        # (a doubt the frame's own tiles settled asks for the refit as before: a fresh grid may read it surely, and
        # the grid fitted then is the one the next frames keep)
        may_clear = {sq for sq in (set(reading.doubts) | set(self._settled_in_frame)) - self._lasting_doubts
                     if known is None or known[sq] in (EMPTY_CHAR, UNSURE_CHAR)}
        left_by, left = self._refit_left
        if left_by is not None and left_by is self._tracker.current:
            # a fresh fit of this grid left them doubtful already; a square whose doubt cleared since may ask again
            left = left & (set(reading.doubts) | set(self._settled_in_frame))
            self._refit_left = (left_by, frozenset(left))
            may_clear -= left
        if corners is not None and may_clear and reading.quality.ok and self._tracker.kept:
            kept = (reading, self._net_memo, self._lasting_doubts, self._settled_in_frame, self._confirmed,
                    self.familiarity)
            fresh = self._read(frame, corners, fresh=True, known=known, source=source)
            # the fresh fit cleared none of them: the kept grid stays (settled), with its reading
            cleared_none = fresh.quality.ok and may_clear <= set(fresh.doubts) | set(self._settled_in_frame) \
                and self._tracker.keep_before_refit()
            if cleared_none or not fresh.quality.ok:
                # (no usable reading from the fresh fit, its lines not confirmed: the grid is forgotten and the next
                # frame fitted from the corners, but the usable reading of the still board's kept grid stands)
                (reading, self._net_memo, self._lasting_doubts, self._settled_in_frame, self._confirmed,
                 self.familiarity) = kept
                if cleared_none:
                    self._refit_left = (self._tracker.current, frozenset(may_clear))
            else:
                reading = fresh
        fixed = corners is None and source is FIXED_CAMERA   # the calibration's homography, unconfirmed on the lines
        reading = self._board_gone(frame, reading, known, source, fixed)
        reading = self._off_known(reading, known, source)
        return over_set(reading, self.tile_set, known) if reading.quality.ok else reading

    def _off_known(self, reading: BoardReading, known: str | None, source: GridSource) -> BoardReading:
        """``reading``, or an unusable one when its grid lies whole squares off the board's squares: at least
        OFF_KNOWN_MIN of the game's ``known`` tiles, and OFF_KNOWN_SHARE of them, read empty or as another tile
        (a doubt is neither) on a board that is there (:meth:`_board_gone` found one), and the reading shifted by
        whole squares (:func:`known_shift`) matches at least OFF_KNOWN_SHIFTED of them letter for letter and
        twice as many as unshifted. A grid searched with a hand over the board's lines can slip by whole squares
        and still lie on printed lines (hard games: three squares, 41-61 of 42-63 known tiles read empty or
        otherwise in `validation-2`'s, 68 of 73 in the built-in faces', every new tile with them, and the slipped
        grid kept for the next moves; one square off, a rendered board's letters all read one column over); on a
        grid that is right at most a third of them did, among the frames with 8 known tiles or more. Tiles that
        moved themselves (swept off, laid again elsewhere) match no shift: the reading stands, and the game names
        each square that differs. The grid is forgotten (the next frame is fitted from its corners again); where
        those corners were found in an earlier frame (``source``), the board is not "found" in this one, so a game
        looks for it afresh rather than from them."""
        if known is None or not reading.quality.ok:
            return reading
        held = [sq for sq, ch in enumerate(known) if ch not in (EMPTY_CHAR, UNSURE_CHAR)]
        chars = [reading.squares[sq].char() for sq in held]
        gone = sum(ch == EMPTY_CHAR for ch in chars)
        other = sum(ch not in (EMPTY_CHAR, UNSURE_CHAR, known[sq]) for sq, ch in zip(held, chars))
        if gone + other < OFF_KNOWN_MIN or gone + other < OFF_KNOWN_SHARE * len(held):
            return reading
        (cols, rows), shifted, here = known_shift(known, reading.grid())
        if shifted < OFF_KNOWN_SHIFTED * len(held) or shifted < 2 * here:
            return reading
        self._tracker.forget()
        away = " and ".join(f"{counted(abs(n), word)} {way[n > 0]}" for n, word, way in
                            ((rows, "row", ("up", "down")), (cols, "column", ("left", "right"))) if n)
        return BoardReading.unreadable(
            f"the camera reads the board off its squares: {shifted} of the {len(held)} tiles the game holds read "
            f"{away} of where they were played; {source.check}",
            board_found=source not in (FOUND_CORNERS, SEARCHED), homography=reading.homography,
            timings_ms=reading.timings_ms, sharp=reading.quality.sharp, glare=reading.quality.glare,
            hand=reading.quality.hand)

    def _board_gone(self, frame: np.ndarray, reading: BoardReading, known: str | None,
                    source: GridSource = GIVEN_CORNERS, fixed: bool = False) -> BoardReading:
        """``reading``, or an unusable one when no board lies where the grid was found
        (:func:`kiosk.vision.presence.no_board`; ``source``: where that grid came from, what the sentence tells
        to check), checked only for an "ok" reading where a board may be missing:

        * VANISHED_CHECK or more of the game's ``known`` tiles read empty (a fixed camera's grid, markers or lines
          that confirmed a grid over noise): "no board where the board's known tiles should be (...)". Without
          this, a covered or knocked camera under a fixed grid made every known tile "gone";
        * else, ``fixed`` (the grid is the calibration's fixed homography, never confirmed on the lines) and no
          tile read at all (before the first move; a game under way reads its tiles and never pays): "no board
          where the camera's calibration puts it (...)". Without this, noise, a bare table or a knocked camera
          read an empty board with verdict "ok" when the game knew no tiles yet (issue 22)."""
        if not reading.quality.ok or reading.homography is None:
            return reading
        gone = 0 if known is None else sum(ch not in (EMPTY_CHAR, UNSURE_CHAR) and rd.state is SquareState.EMPTY
                                           for ch, rd in zip(known, reading.squares))
        if gone >= VANISHED_CHECK:
            said = replace(source, where="where the board's known tiles should be")
        elif fixed and not any(rd.state in (SquareState.TILE, SquareState.BLANK) for rd in reading.squares):
            said = source
        else:
            return reading
        t0 = time.perf_counter()
        why = no_board(self._undistort(frame), reading.homography, said)
        ms = (time.perf_counter() - t0) * 1000
        timings = reading.timings_ms    # this read's own dict: the check's time is added to it (stage "presence")
        timings["presence"] = round(ms, 2)
        timings["total"] = round(timings.get("total", 0.0) + ms, 2)
        if why is None:
            return reading
        return BoardReading.unreadable(why, timings_ms=timings, sharp=reading.quality.sharp)

    def _read(self, frame: np.ndarray, corners: np.ndarray | None, fresh: bool = False,
              known: str | None = None, source: GridSource = GIVEN_CORNERS) -> BoardReading:
        t0 = time.perf_counter()
        self._lasting_doubts = set()
        self._settled_in_frame = []
        self._confirmed = frozenset()
        self.familiarity = Familiarity()
        self._value_note = ""
        timings: dict[str, float] = {}

        def lap(name: str, since: float) -> float:
            now = time.perf_counter()
            timings[name] = round((now - since) * 1000, 2)
            return now

        grey_input = False
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
            what = type(frame).__name__ if not isinstance(frame, np.ndarray) else f"dtype {frame.dtype}"
            return BoardReading.unreadable(f"bad frame: expected a uint8 image array, got {what}")
        if frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 1):
            frame = cv2.cvtColor(frame.reshape(frame.shape[:2]), cv2.COLOR_GRAY2BGR)
            grey_input = True
        elif frame.ndim == 3 and frame.shape[2] == 4:
            frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
        if frame.ndim != 3 or frame.shape[2] != 3:
            return BoardReading.unreadable(f"bad frame: shape {frame.shape}, expected H x W x 3")
        if min(frame.shape[:2]) < MIN_FRAME_PX:
            return BoardReading.unreadable(f"frame too small ({frame.shape[1]}x{frame.shape[0]} px)")
        low, high, _, _ = cv2.minMaxLoc(frame.reshape(frame.shape[0], -1))   # one pass over all channels
        if high - low < 20:
            return BoardReading.unreadable("blank frame (no contrast: camera covered, off or overexposed)")
        t = lap("check", t0)
        frame = self._undistort(frame)
        t = lap("undistort", t)
        try:
            h, how = self._locate(frame, corners, fresh, source)
        except (NoBoardError, FrameSizeError) as exc:
            # the lines did not confirm the corners, and no board lies there; or the frame is not of the size
            # the fixed camera's grid was measured at, nor of its aspect ratio
            timings["total"] = round((time.perf_counter() - t0) * 1000, 2)
            return BoardReading.unreadable(str(exc), timings_ms=timings)
        except ValueError as exc:
            return BoardReading.unreadable(f"bad corners: {exc}")
        t = lap("locate", t)
        if h is None or not np.all(np.isfinite(h)):
            timings["total"] = round((time.perf_counter() - t0) * 1000, 2)
            return BoardReading.unreadable("no board found", timings_ms=timings)
        canvas, inside = warp_canvas(frame, h)
        grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
        stats = cell_stats(canvas, inside, grey)
        t = lap("warp", t)
        occ = self._occupancy(stats)
        feats, p_tile = occ.feats, occ.p_tile
        t = lap("occupancy", t)
        sharp_v = sharpness(canvas, grey)
        glare_share = glare_squares(canvas)
        glare = glare_share >= GLARE_SQUARE_FRACTION
        not_board = (p_tile > EMPTY_P) & (p_tile < TILE_P)
        hand = hand_squares(canvas, not_board, p_tile <= EMPTY_P, p_tile >= TILE_P, feats[:, 3] > HAND_UNLIKE)
        if hand.any():
            # measured again without the hand: skin over half of a premium class would set that class's colour
            # (a navy triple-letter square then looks like a tile beside the hand)
            occ = self._occupancy(stats, hidden=hand)
        seen = stats.seen >= SEEN_MIN
        t = lap("quality", t)

        skin, hand_seen = hand, bool(hand.any())    # before fingers among the blanks (an off grid reads rows of blanks)
        squares, doubts, hand, turns = self._squares_net(grey, stats, occ, seen, hand, glare_share, sharp_v,
                                                         keep_empty=not fresh, known=known)
        t = lap("letters", t)
        self._lasting_doubts.update(doubt_slid_tiles(canvas, squares, doubts, skip=(glare_share > 0) | hand))
        lap("slid", t)

        is_sharp = sharp_v >= SHARPNESS_MIN
        has_glare = bool(glare.any())
        has_hand = bool(hand.any())
        if turns:
            # the letters stand turned: the reading is the board turned (corners given from the wrong corner,
            # markers placed turned); its squares would be the wrong ones, so none is given
            timings["total"] = round((time.perf_counter() - t0) * 1000, 2)
            return BoardReading.unreadable(
                f"board turned: most letters read {90 * turns} degrees turned (counter-clockwise); {source.turned}",
                board_found=True, homography=h,
                timings_ms=timings, sharp=is_sharp, glare=has_glare)
        if how == "grid":
            # a grid found without markers may lie a few squares off or at the wrong scale; read through it, the
            # squares straddle tile edges and most are doubtful: then no square of it is trusted. A hand's own
            # doubts (under the skin seen, a finger's reach beside it) do not count: a shifted grid can put the
            # board's wooden frame where skin is looked for, and a hand must not hide that the grid is off
            by_hand = near_mask(skin)   # (not fingers found among the blanks: an off grid reads rows of blanks)
            held = sum(rd.state is not SquareState.EMPTY for sq, rd in enumerate(squares) if not by_hand[sq])
            doubtful = sum(rd.state is SquareState.UNSURE for sq, rd in enumerate(squares) if not by_hand[sq])
            if held >= GRID_CHECK_MIN and doubtful > GRID_DOUBT_SHARE * held:
                timings["total"] = round((time.perf_counter() - t0) * 1000, 2)
                return BoardReading.unreadable(
                    f"grid uncertain: {doubtful} of the {held} squares not read empty are unsure (board "
                    "found without markers; give the corners or calibrate the camera)", board_found=True,
                    homography=h, timings_ms=timings, sharp=is_sharp, glare=has_glare)
        unread = None if hand_seen else letters_not_read(squares, doubts)
        if unread is not None:  # its few sure letters are no safer than its doubts (a hand seen keeps its verdict)
            timings["total"] = round((time.perf_counter() - t0) * 1000, 2)
            return replace(BoardReading.unreadable(unread, board_found=True, homography=h, timings_ms=timings,
                                                   sharp=is_sharp, glare=has_glare),
                           note=self.familiarity.note or self._value_note)
        if grey_input:
            verdict = "grey-scale frame: a colour camera is needed"
        elif has_hand:
            verdict = "hand over the board"
        elif not is_sharp:
            verdict = f"blurred (sharpness {sharp_v:.0f} < {SHARPNESS_MIN:.0f})"
        elif not seen.all():
            verdict = "board partly outside the frame"
        elif washed_out(stats):
            verdict = "overexposed: the board's own squares are washed out (lower the exposure or the light)"
        else:
            verdict = "ok"
        timings["total"] = round((time.perf_counter() - t0) * 1000, 2)
        timings["locate_" + how] = timings["locate"]
        quality = FrameQuality(board_found=True, sharp=is_sharp, glare=has_glare, hand=has_hand, verdict=verdict)
        return BoardReading(tuple(squares), h, quality, timings, doubts, self._confirmed,
                            self.familiarity.note or self._value_note)
