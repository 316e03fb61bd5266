"""The frame's doubt rules: where a reading's squares are not to be trusted, judged from the frame as a whole or
from the squares around them (the game's geometry, the set's blanks, the frame's colours), never from what a
network makes of one square alone. Each rule turns squares UNSURE in place and gives the reason as a
:class:`~kiosk.vision.reading.Doubt`; :class:`kiosk.vision.reader.BoardReader` applies them in its pipeline
(its module doc gives the order). Thresholds are data here, beside the rules that use them; why each has its
value: ``kiosk/vision/models/README.md`` and ``kiosk/vision/README.md``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import cv2
import numpy as np

from kiosk.rules.board import CENTRE, DLS, DWS, SIZE, TLS, TWS, neighbours, square_name
from kiosk.rules.tiles import TileSet
from kiosk.vision.cells import PREMIUM_CLASSES, CellStats
from kiosk.vision.occupancy import tile_colour_known
from kiosk.vision.reading import N_SQUARES, Doubt, DoubtKind, SquareReading, SquareState, kind_of
from kiosk.vision.squarenet import SquarePrediction

LETTER_P = 0.7        # a letter's P below which it counts as doubtful for a degraded frame (see frame_degraded)
DEGRADED_SHARE = 0.1  # share of doubtful letters above which a frame is degraded
DEGRADED_MIN_TILES = 6
LETTERING_SURE_SHARE = 0.2  # a frame whose squares read as no empty square are fewer than this share sure letters
LETTERING_MIN_TILES = 8     # ... (at least this many of them) gives no reading: its letters are not read
LETTERING_KINDS = frozenset({DoubtKind.LETTER, DoubtKind.BLANK_OR_LETTER, DoubtKind.NOT_IN_SET, DoubtKind.OVER_SET,
                             DoubtKind.HAND, DoubtKind.FINGER})
# (the doubts about a tile's letter that count towards letters_not_read; with no skin seen, a "hand" or "finger" is
# tiles read without a letter, side by side or beside them)
FINGER_REACH = 1.5     # squares (centre to centre) from the hand found within which a finger may hide a tile
FINGER_GROUP = 3       # BLANKs touching (8-connected) at least this many, beyond the set's blanks: fingers
TURNED_SHARE = 0.6    # lettered tiles read turned by the same quarter turns beyond this share (of at least
TURNED_MIN_TILES = 8  # ... this many): the whole board is turned in the reading (corners in the wrong order)
KNOWN_MIN = 3         # known tiles needed to measure the colour references again without them
OFF_TILE_COLOUR = 0.5  # a blank farther than this (log colour) from the frame's tiles may be a finger ...
OFF_TILE_SPREAD = 2.0  # ... when also beyond this many times the lettered tiles' own 90th percentile distance
WASHED_OUT = 240.0    # a square whose darkest colour channel (median) is at or above this shows no colour
COLLAPSE_NET_P = 0.95  # the network's P(tile) from which a square read empty counts against the frame's colours ...
COLLAPSE_MIN = 5       # ... and in a frame with at least this many such squares ...
COLLAPSE_SHARE = 0.12  # ... that are at least this share of the squares it is that sure of, the colours have
COLLAPSE_DOUBT_P = 0.8  # failed: every square read empty where its P(tile) is at least this is a doubt
# (COLLAPSE_SHARE was 0.15 until the fifteenth session; why: kiosk/vision/README.md, "Whole words read empty")
PREMIUM_WORDS = {TWS: "triple-word", DWS: "double-word", TLS: "triple-letter",
                 DLS: "double-letter"}   # a premium square (its layout character) in the words of a doubt shown to people
LONE_DOUBT = "no tile beside it"  # a premium square's tile without a plain tile beside it: the doubt's reason names
                                  # this (a lasting doubt: no refit for it alone, no grid makes the print another thing)
BLANKS_ALONE = "no letter read beside it"  # blanks no letter read joins: the doubt's reason names
                                           # this (a lasting doubt, like LONE_DOUBT)


def frame_degraded(confidences: Sequence[float]) -> bool:
    """True when so many of a frame's letters are doubtful (blur, shadow) that its clear-looking ones are
    suspect too: more than DEGRADED_SHARE of at least DEGRADED_MIN_TILES letters below LETTER_P.
    ``confidences``: P(letter) of each lettered tile read in the frame."""
    if len(confidences) < DEGRADED_MIN_TILES:
        return False
    doubtful = sum(c < LETTER_P for c in confidences)
    return doubtful > DEGRADED_SHARE * len(confidences)


def letters_not_read(squares: Sequence[SquareReading], doubts: Mapping[int, Doubt]) -> str | None:
    """Why a frame's letters as a whole are not read, else None: of at least LETTERING_MIN_TILES tiles read (sure
    letters, blanks, and doubts about a tile's letter: kinds in LETTERING_KINDS, from ``doubts``), fewer than
    LETTERING_SURE_SHARE read as sure letters.

    Such a frame is a tile set whose lettering the reader does not know (hairline, outline, inline faces: their
    tiles read as blanks, as empty or as doubts, and the few letters given are as likely wrong), or one too dark
    or blurred to read: its sure-looking letters and empties are no safer than its doubts, so none is given
    (``kiosk/vision/models/README.md``, "A frame whose letters are not read"). Doubts whether a tile lies there
    at all (a print, a shadow, glare, the edge of the view) say nothing of the lettering and do not count: an
    empty board in poor light is no unknown tile set."""
    held = [rd for sq, rd in enumerate(squares) if rd.state in (SquareState.TILE, SquareState.BLANK)
            or rd.state is SquareState.UNSURE and sq in doubts and kind_of(doubts[sq]) in LETTERING_KINDS]
    sure = sum(rd.state is SquareState.TILE for rd in held)
    if len(held) < LETTERING_MIN_TILES or sure >= LETTERING_SURE_SHARE * len(held):
        return None
    return (f"letters not read: of {len(held)} tiles read, "
            f"{f'only {sure}' if sure else 'none'} read as a sure letter (tiles lettered in a way this reader does "
            "not know, or too little light; for a new tile set run kiosk calibrate glyphs)")


def doubt_weak_empties(squares: list[SquareReading], doubts: dict[int, Doubt], weak_empty: np.ndarray,
                       spare: Collection[int] = ()) -> None:
    """In a degraded frame: turn the weakly empty squares (``weak_empty``, 225 bool) still read EMPTY into
    UNSURE (in place, reason in ``doubts``), except the squares in ``spare`` (known surely empty)."""
    for sq in np.flatnonzero(weak_empty):
        if squares[sq].state is SquareState.EMPTY and int(sq) not in spare:
            doubts[int(sq)] = Doubt(DoubtKind.DEGRADED, "empty or a shadowed tile? (many doubtful letters in this frame)")
            squares[sq] = SquareReading(SquareState.UNSURE, None, 0.5)


def blank_squares(squares: list[SquareReading]) -> list[int]:
    """The squares read BLANK (a tile without a letter)."""
    return [sq for sq in range(N_SQUARES) if squares[sq].state is SquareState.BLANK]


def doubt_blanks(squares: list[SquareReading], doubts: dict[int, Doubt], set_blanks: int, degraded: bool) -> None:
    """Turn every BLANK of ``squares`` UNSURE (in place, reason in ``doubts``) when there are more of them than
    the set has blanks (letters lost to blur or shadow: which are the real blanks cannot be told) or the
    frame is ``degraded`` (in a frame of doubtful letters no blank is sure either)."""
    blanks = blank_squares(squares)
    if blanks and (len(blanks) > set_blanks or degraded):
        why = (Doubt(DoubtKind.OVER_SET, f"{len(blanks)} tiles without a letter, the set has {set_blanks} blanks")
               if len(blanks) > set_blanks else Doubt(DoubtKind.DEGRADED, "no letter found in a frame of doubtful letters"))
        for sq in blanks:
            doubts[sq] = why
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)


def find_finger_blanks(squares: list[SquareReading], doubts: dict[int, Doubt], hand: np.ndarray,
                       set_blanks: int = 2) -> np.ndarray:
    """The hand the hand detection missed, found from its fingers (a motion-blurred, see-through hand shows the
    grid lines through it): when a frame reads more BLANKs than the set has blanks (``set_blanks``), each group
    of at least FINGER_GROUP of them touching (8-connected) is skin, not blanks (a set's blanks cannot make one).
    Those squares turn UNSURE (in place, reason in ``doubts``). Returns the hand (225 bool): ``hand`` with them.
    (What it finds and misses: ``kiosk/vision/models/README.md``, "A hand over the board".)"""
    blanks = blank_squares(squares)
    if len(blanks) <= set_blanks:
        return hand
    grid = np.zeros((SIZE, SIZE), np.uint8)
    grid.reshape(-1)[blanks] = 1
    n, labels, sizes, _ = cv2.connectedComponentsWithStats(grid, connectivity=8)
    fingers = np.zeros(N_SQUARES, bool)
    for i in range(1, n):
        if sizes[i, cv2.CC_STAT_AREA] >= FINGER_GROUP:
            group = np.flatnonzero(labels.reshape(-1) == i)
            fingers[group] = True
            for sq in group:
                doubts[int(sq)] = Doubt(DoubtKind.HAND, f"hand over the square ({len(group)} tiles without a letter "
                                                        "side by side: fingers)")
                squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
    return hand | fingers


def doubt_fingers(squares: list[SquareReading], doubts: dict[int, Doubt], hand: np.ndarray, set_blanks: int = 2
                   ) -> None:
    """Turn BLANKs a finger may be UNSURE (in place, reason in ``doubts``): a finger reaching past the detected
    hand (``hand``, 225 bool) looks like a tile without a letter. Every BLANK next to the hand; then, while the
    frame still has more BLANKs than the set has blanks (``set_blanks``), the one nearest the hand."""
    if not hand.any():
        return
    dist = distance_to_mask(hand)
    blanks = sorted((float(dist[sq]), sq) for sq in blank_squares(squares))
    for i, (d, sq) in enumerate(blanks):
        if d < FINGER_REACH:
            doubts[sq] = Doubt(DoubtKind.FINGER, "blank tile or a finger? (next to the hand)")
        elif len(blanks) - i > set_blanks:
            doubts[sq] = Doubt(DoubtKind.FINGER, f"blank tile or a finger? ({len(blanks)} tiles without a letter, "
                               f"the set has {set_blanks} blanks; this one is nearest the hand)")
        else:
            break
        squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)


def board_turns(turns: Sequence[int]) -> int:
    """Quarter turns (1..3, counter-clockwise) by which the whole board stands turned in a reading, else 0.

    ``turns``: the quarter turns of each lettered tile read (the square network's best letter). A tile laid
    turned happens; most of at least TURNED_MIN_TILES tiles turned alike (more than TURNED_SHARE) is the board:
    its A1 is not where the reading put it."""
    if len(turns) < TURNED_MIN_TILES:
        return 0
    counts = np.bincount(np.asarray(turns, np.intp) % 4, minlength=4)
    k = int(np.argmax(counts[1:])) + 1
    return k if counts[k] > TURNED_SHARE * len(turns) else 0


OUTSIDE_VIEW_DOUBT = Doubt(DoubtKind.OUTSIDE_VIEW, "outside the camera view")


HAND_DOUBT = Doubt(DoubtKind.HAND, "hand over the square")


GLARE_DOUBT = Doubt(DoubtKind.GLARE, "glare")


def not_in_set_doubt(letter: str, tile_set: TileSet) -> Doubt:
    """The doubt of a square read as ``letter``, a letter ``tile_set`` does not have."""
    return Doubt(DoubtKind.NOT_IN_SET, f"'{letter}' is not a letter of the {tile_set.name} set")


def blank_or_letter_doubt(letter: str, p_blank: float) -> Doubt:
    """The doubt of a tile read as a blank with P ``p_blank`` (given a tile), else as ``letter`` (faint ink)."""
    return Doubt(DoubtKind.BLANK_OR_LETTER, f"blank or letter {letter}? (blank {p_blank:.2f})")


def letter_or_doubt(letter: str, runner_up: str, p: float, degraded: bool) -> Doubt:
    """The doubt of a tile read as ``letter`` below the sure level (``p``), ``runner_up`` the next letter; in a
    ``degraded`` frame (many doubtful letters: blur, shadow) of kind DEGRADED, else LETTER."""
    if degraded:
        return Doubt(DoubtKind.DEGRADED, f"letter {letter} or {runner_up}? ({p:.2f}, many doubtful letters in this frame)")
    return Doubt(DoubtKind.LETTER, f"letter {letter} or {runner_up}? ({p:.2f})")


def distance_to_mask(mask: np.ndarray) -> np.ndarray:
    """225 floats: each square's distance (in squares, centre to centre) to the nearest square of ``mask`` (225
    bool; 0 inside it)."""
    grid = mask.reshape(SIZE, SIZE)
    return cv2.distanceTransform((~grid).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE).reshape(-1)


def near_mask(mask: np.ndarray, reach: float = FINGER_REACH) -> np.ndarray:
    """Boolean 225: squares not in ``mask`` (225 bool) whose centre lies within ``reach`` squares of one in it."""
    dist = distance_to_mask(mask)
    return (dist > 0) & (dist < reach)


def colour_blind(stats: CellStats, feats: np.ndarray, vote: np.ndarray) -> np.ndarray:
    """225 bool: the squares whose colours cannot tell a tile from the board. All of them when the frame has
    tiles (their colour is known, ``feats``: :func:`features`) but its colour vote is silent everywhere
    (``vote``, 225 int, :func:`nearest_colour_says_tile`: tiles coloured like the board; not the empty board,
    whose print the network may take for tiles); else those washed out (every channel's median at or above WASHED_OUT:
    overexposed, an auto-exposure ramp's bright end). There the occupancy model's "empty" is no evidence
    against a tile the network sees (a blank of the board's colour read empty with verdict ok, a still blank
    vanishing under an exposure ramp: issue 22)."""
    if tile_colour_known(feats) and not np.any(vote != 0):
        return np.ones(N_SQUARES, bool)
    return np.asarray(stats.colour, np.float32).min(axis=1) >= WASHED_OUT


def doubt_off_colour_blanks(squares: list[SquareReading], doubts: dict[int, Doubt], feats: np.ndarray) -> None:
    """Turn a BLANK not coloured like this frame's tiles UNSURE (in place, reason in ``doubts``): a blank is one of
    the set's tiles and shares their face, a finger (a see-through, motion-blurred hand the hand detection
    missed) does not. Far means a colour distance to the frame's tiles (``feats[:, 14]``, the occupancy
    features measured with the sure letters known) above OFF_TILE_COLOUR and above OFF_TILE_SPREAD times the
    90th percentile of the lettered tiles' own (shadow and light vary it); needs KNOWN_MIN lettered tiles."""
    lettered = [sq for sq, r in enumerate(squares) if r.state is SquareState.TILE]
    if len(lettered) < KNOWN_MIN or not tile_colour_known(feats):
        return
    far = max(OFF_TILE_COLOUR, OFF_TILE_SPREAD * float(np.percentile(feats[lettered, 14], 90)))
    for sq in blank_squares(squares):
        if feats[sq, 14] > far:
            doubts[sq] = Doubt(DoubtKind.FINGER, f"blank tile or a finger? (not coloured like this frame's tiles: "
                               f"{feats[sq, 14]:.2f} > {far:.2f})")
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)


def doubt_colour_collapse(squares: list[SquareReading], doubts: dict[int, Doubt],
                          preds: dict[int, SquarePrediction]) -> list[int]:
    """Turn the squares read EMPTY where the square network rather sees a tile (P(tile) at least
    COLLAPSE_DOUBT_P) UNSURE (in place, reason in ``doubts``) in a frame whose colours have failed: at least
    COLLAPSE_MIN squares read EMPTY where it is sure of a tile (P(tile) at least COLLAPSE_NET_P), and at least
    COLLAPSE_SHARE of the squares it is that sure of. A few such squares are the frame's usual
    share (the network sees tiles on some bright or shadowed empty squares, and the colours are right there);
    many mean the colours themselves have failed: tiles in a face the network barely knows leave no sure letter
    to learn the tile colour from, so the premium rule calls every premium square print, or blurred tiles coloured
    like the board are emptied by the settle model, and whole words read empty with verdict ok (issue 22).
    Returns the squares turned."""
    against = [sq for sq, q in preds.items() if q.p_tile >= COLLAPSE_NET_P and squares[sq].state is SquareState.EMPTY]
    sure = sum(q.p_tile >= COLLAPSE_NET_P for q in preds.values())
    if len(against) < COLLAPSE_MIN or len(against) < COLLAPSE_SHARE * sure:
        return []
    turned = [sq for sq, q in preds.items() if q.p_tile >= COLLAPSE_DOUBT_P and squares[sq].state is SquareState.EMPTY]
    for sq in turned:
        doubts[sq] = Doubt(DoubtKind.TILE_OR_EMPTY, f"tile or empty? (the network sees a tile, {preds[sq].p_tile:.2f}; "
                           f"in this frame the colours see none on {len(against)} squares it is sure of)")
        squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
    return turned


# for each of the 225 squares, its orthogonal neighbours that are plain squares (no premium print)
PLAIN_NEIGHBOURS = tuple(tuple(n for n in neighbours(sq) if PREMIUM_CLASSES[n] == ".") for sq in range(N_SQUARES))


def doubt_lone_premium_tiles(squares: list[SquareReading], doubts: dict[int, Doubt], tiled: np.ndarray,
                             hidden: np.ndarray) -> list[int]:
    """Turn a tile read on a premium square (a letter or a blank) UNSURE (in place, reason in ``doubts``, naming
    LONE_DOUBT) when no plain square beside it (orthogonally) is taken for a tile (``tiled``, 225 bool: read as a
    tile, its letter sure or not) and none beside it is hidden (``hidden``, 225 bool: under the hand, outside the
    view). Returns the squares doubted.

    Every tile of a position lies in a word of two tiles or more, so it has a tile beside it, and no premium
    square of the layout borders another: a real tile on a premium square has a tile on a plain square beside it
    (the first move covers H8 and a plain square beside it). A premium square's print (the centre star, the
    labels, a premium colour the frame's colours cannot place) is the one thing on the board made to stand out
    from plain squares, and any reader of letters may take it for a letter or a blank: the empty board's star
    read "X" (green board) or "Y" (classic) with verdict "ok" (the premium rule left the square network alone to
    judge it, or the colour vote took a crease or a shadow for this frame's tiles). Such a reading alone is a
    doubt, not a letter: the rule rests on the game's geometry and the reading of the plain squares beside it,
    not on what any network makes of the print. A tile laid alone on a premium square (a move being laid) is a
    doubt until its word is down."""
    out = []
    for sq in range(N_SQUARES):
        rd = squares[sq]
        if PREMIUM_CLASSES[sq] == "." or rd.state not in (SquareState.TILE, SquareState.BLANK):
            continue
        if any(tiled[n] or hidden[n] for n in PLAIN_NEIGHBOURS[sq]):
            continue
        lettered = rd.state is SquareState.TILE
        what = f"letter {rd.letter}" if lettered else "a tile without a letter (a blank)"
        place = "the centre star" if sq == CENTRE else f"a {PREMIUM_WORDS[str(PREMIUM_CLASSES[sq])]} square"
        doubts[sq] = Doubt(DoubtKind.PRINT_OR_LETTER if lettered else DoubtKind.PRINT_OR_BLANK,
                           f"{what} read on {square_name(sq)}, {place}, with {LONE_DOUBT}: the square's print may have "
                           f"been taken for a tile")
        squares[sq] = SquareReading(SquareState.UNSURE, None, rd.confidence)
        out.append(sq)
    return out


def doubt_blanks_alone(squares: list[SquareReading], doubts: dict[int, Doubt], tiled: np.ndarray,
                       hidden: np.ndarray) -> list[int]:
    """Turn BLANKs that no letter read joins UNSURE (in place, reason in ``doubts``, naming BLANKS_ALONE): the
    BLANKs of each group of squares taken for tiles (``tiled``, 225 bool: read as a tile, its letter sure or
    not; and the BLANKs), orthogonally connected, in which no square reads a letter (TILE) and none lies within
    FINGER_REACH of a hidden square (``hidden``, 225 bool: under the hand, outside the view; beside it or
    diagonally: its word's letter may lie there unseen). Returns the squares doubted.

    Every tile of a position lies in a word of two tiles or more and a set has two blanks: a blank belongs to a
    word with a letter on it, but for a two-blank opening. A tile without a letter alone, or beside squares
    read as nothing surer (another blank, a doubtful letter, glare), is far likelier a shadow's edge, a finger
    the hand detection missed, a crease or a print: the hard level's empty boards read such blanks with verdict
    "ok", with and without a hand in the frame (issue 22); the network's own P(tile) there is often low, the
    colours carried it. The rule rests on the game's geometry and the reading of the squares beside it, not on
    what a network makes of skin or shade. Cost: a blank laid alone (a move being laid), a two-blank opening
    word, and a blank whose word's letters are all doubtful are doubts until a letter read joins them."""
    blank = np.array([rd.state is SquareState.BLANK for rd in squares])
    if not blank.any():
        return []
    lettered = np.array([rd.state is SquareState.TILE for rd in squares])
    members = (tiled | blank | lettered).reshape(SIZE, SIZE).astype(np.uint8)
    _, labels = cv2.connectedComponents(members, connectivity=4)
    labels = labels.reshape(-1)
    near_hidden = distance_to_mask(hidden) < FINGER_REACH if hidden.any() else np.zeros(N_SQUARES, bool)
    out: list[int] = []
    for i in set(labels[blank].tolist()):
        group = np.flatnonzero(labels == i)
        if lettered[group].any() or near_hidden[group].any():
            continue
        for sq in group[blank[group]].tolist():
            doubts[sq] = Doubt(DoubtKind.BLANK_ALONE, f"a tile without a letter with {BLANKS_ALONE} (a finger, a "
                               "shadow's edge or a print may read as one)")
            squares[sq] = SquareReading(SquareState.UNSURE, None, squares[sq].confidence)
            out.append(sq)
    return sorted(out)


def washed_out(stats: CellStats) -> bool:
    """Whether the board itself is washed out (overexposed): the median plain square's darkest channel at or
    above WASHED_OUT. Tiles and board then look alike (white) to every opinion, and a frame read so is not
    used (on a 20-frame exposure ramp such frames lost still blanks and made tiles of empty squares)."""
    plain = PREMIUM_CLASSES == "."
    return float(np.median(np.asarray(stats.colour, np.float32)[plain].min(axis=1))) >= WASHED_OUT
