"""The game-aware reader: one frame's reading judged against what the game already knows.

At the table almost everything is known before a frame is read: the last accepted board, that a move adds 1 to
``rack_size`` tiles in one line touching the tiles already there (through H8 on the first move), and which tiles
are still unseen. :func:`apply_prior` takes a :class:`BoardReading` and that :class:`GamePrior` and returns the
reading the game allows:

* a known tile read as itself, or read unsure (``#``: a doubt about its letter, a shadow), is that tile;
  a known tile read empty or as another letter stays as read (the diff makes it a ``vanished`` / ``changed``
  anomaly for the judge, never a silent change) and is listed in :attr:`GameReading.anomalies`;
* a new letter the pool has none of left unseen (a third blank, a second Y) is a doubt (``#``), never a letter;
* more new tiles than a rack holds are all doubts;
* a square read empty between a move's new tiles (two or more in one line, a run of at most ``GAP_MAX``) is a
  doubt: a move leaves no gap, so a tile there was missed (a blurred frame reads a tile empty);
* given a lexicon (``word_ok``; ``kiosk run`` gives none: the doubt would reveal a phony before a challenge), a
  new letter that spells a word the lexicon lacks, where one other letter would make every word of the move one
  it holds, is a doubt naming the words (:mod:`kiosk.vision.move_words`);
* an unsure square that cannot hold a new tile (not beside a known tile nor in line with the new ones; off
  row 8 and column H on an empty board, anywhere while H8 reads empty there) is empty: no tile of a legal
  move can lie there; a tile read where no move can lay it is a doubt;
* a move whose new tiles read one letter improbably often (a face read as I on every tile) gives those letters
  as doubts (:mod:`kiosk.vision.game_lettering`);
* a frame the reader did not judge usable (a hand, motion blur, no board) is left as it is: it is not used;
* a frame in which ``COVERED_GONE`` or more known tiles close together read empty is not used either: tiles
  laid do not leave the board, so something lies over them (a hand the frame check missed: the tiles of the
  move under its fingers read empty too); its verdict names the squares and asks for tiles knocked off to be
  put back. Only with a referee's board as the prior (the table, the recording demo): on its own prior
  (``kiosk read-board --sequence``) :class:`GameReader` cannot tell them from a move taken back after a challenge,
  and they stay anomalies, as one tile gone is; so do tiles read empty in ``COVERED_FRAMES`` frames running (a
  tile knocked off, a blank the camera keeps missing: a hand moves on).

:class:`GameReader` keeps the prior from reading to reading (``kiosk read-board --sequence``, the recording
demo, the kiosk's vision worker) and keeps a board found without given corners found from frame to frame.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from kiosk.rules.board import neighbours, square_name
from kiosk.rules.tiles import TileSet
from kiosk.vision.game_lettering import doubt_squares, improbable_letters
from kiosk.vision.move_words import WordCheck, word_doubts
from kiosk.vision.reading import (
    BLANK_CHAR,
    EMPTY_CHAR,
    FOUND_CORNERS,
    GIVEN_CORNERS,
    N_SQUARES,
    SIZE,
    UNSURE_CHAR,
    UNSURE_SQUARE,
    BoardReading,
    Doubt,
    DoubtKind,
    GridSource,
    SquareReading,
    SquareState,
)

CENTRE = 7 * SIZE + 7  # H8
COVERED_GONE = 2
"""Known tiles read empty close together (:data:`COVERED_REACH`) in one frame from which the frame is taken as
covered and not used (module docstring). One gone is a blurred or glared tile's misreading, an anomaly the judge
settles; so are tiles gone far apart (a face whose tiles on the red corner squares read empty in every frame
would otherwise never give a usable frame). (Chosen on the validation faces' games, ``kiosk bench-vision
--games``: README.md, "A hand the frame check missed".)"""
COVERED_REACH = 2
"""Known tiles read empty at most this many squares apart across and down (both) are close together: a hand's
width."""
COVERED_FRAMES = 3
"""A known tile read empty in this many frames running (the reader's frames under one :class:`GameReader`) is no
longer taken as covered: a hand moves on within a second; a tile knocked off, or a blank the camera keeps missing,
does not. It is an anomaly for the judge again, as one tile gone is (else the table would refuse every frame
for the rest of the game)."""


@dataclass(frozen=True)
class GamePrior:
    """What the game knows before a frame is read.

    Attributes:
        board: 225 characters, index ``row * 15 + col``: ``.`` empty, a letter, ``?`` a blank tile (a
            lower-case letter, a designated blank, counts as ``?``), ``#`` not known (neither a known tile nor
            surely empty: such a square may hold a tile of the move).
        unseen: tile (upper-case letter or ``?``) -> how many are neither on the board nor known elsewhere
            (in the bag or on the racks).
        rack_size: the most tiles a move may add (7).
    """

    board: str
    unseen: Counter[str]
    rack_size: int = 7

    def __post_init__(self) -> None:
        if len(self.board) != N_SQUARES:
            raise ValueError(f"GamePrior.board needs {N_SQUARES} squares, got {len(self.board)}")


def _normal(ch: str) -> str:
    """A board cell as a grid character: ``""`` -> ``.``, a designated blank (lower case) -> ``?``."""
    if not ch:
        return EMPTY_CHAR
    return BLANK_CHAR if ch.islower() else ch


def prior_from_board(cells: Iterable[str], tile_set: TileSet) -> GamePrior:
    """The prior of a board (225 cells: ``""``/``.`` empty, a letter, ``?`` or a lower-case designated blank,
    ``#`` not known) under ``tile_set``: unseen = the full bag minus the tiles on the board (never below 0).

    Raises:
        ValueError: not 225 cells.
    """
    board = "".join(_normal(c) for c in cells)
    bag = Counter(tile_set.full_bag())
    for ch in board:
        if ch not in (EMPTY_CHAR, UNSURE_CHAR) and bag[ch] > 0:
            bag[ch] -= 1
    return GamePrior(board, bag, tile_set.rack_size)


@dataclass(frozen=True)
class GameReading:
    """Result of :func:`apply_prior`: the reading the game allows and what the judge must look at.

    Attributes:
        reading: the adjusted :class:`BoardReading` (doubts say why a square became ``#``).
        new: squares read as new tiles (index -> grid character), in square order.
        anomalies: sentences about known tiles read empty or changed, and readings the pool forbids.
        used: False when the frame was not used (not usable: a hand, blur, no board): ``reading`` is the raw one.
        disputed: known tiles read empty or as another letter (their squares).
    """

    reading: BoardReading
    new: dict[int, str] = field(default_factory=dict)
    anomalies: tuple[str, ...] = ()
    used: bool = True
    disputed: tuple[int, ...] = ()


def _lines_of(squares: Iterable[int]) -> tuple[set[int], set[int]]:
    rows, cols = set(), set()
    for sq in squares:
        rows.add(sq // SIZE)
        cols.add(sq % SIZE)
    return rows, cols


def may_hold_new(prior: GamePrior, new: Iterable[int]) -> np.ndarray:
    """Which squares may hold a tile of the move, given the squares already read as new tiles: 225 bools.

    A move lies in one line: with new tiles read in one row (column), that row (column); with one new tile, its
    row and column; with none, the squares beside a known tile, and on an empty board row 8 and column H. New
    tiles in no common line: every square not known (the frame is odd; nothing is ruled out). A square not
    known (``#`` in the prior) may always hold a tile (an older one the reader never settled).
    """
    known = np.array([c not in (EMPTY_CHAR, UNSURE_CHAR) for c in prior.board])
    unknown = np.array([c == UNSURE_CHAR for c in prior.board])
    free = ~known
    new = list(new)
    rows, cols = _lines_of(new)
    allowed = np.zeros(N_SQUARES, bool)
    if new and len(rows) > 1 and len(cols) > 1:
        return free
    if new:
        for r in rows if len(rows) == 1 else ():
            allowed[r * SIZE:(r + 1) * SIZE] = True
        for c in cols if len(cols) == 1 else ():
            allowed[c::SIZE] = True
        return (allowed | unknown) & free
    if not known.any():
        allowed[7 * SIZE:8 * SIZE] = True
        allowed[7::SIZE] = True
    for sq in np.flatnonzero(known):
        for n in neighbours(int(sq)):
            allowed[n] = True
    return (allowed | unknown) & free


def apply_prior(reading: BoardReading, prior: GamePrior, new_letter_p: float = 0.0,
                word_ok: WordCheck | None = None, covered: bool = True,
                lasting: frozenset[int] = frozenset()) -> GameReading:
    """The reading judged against the prior (see the module docstring). ``new_letter_p``: the confidence a
    letter on a square not known before needs (below it the square is a doubt; 0: the reader's own rule), unless
    the board's own tiles confirm it (``reading.confirmed``: :func:`kiosk.vision.exemplars.confirm_by_exemplars`).
    ``word_ok``: a lexicon (upper-case word -> held), or None (no word check): then a new letter that spells a word
    the lexicon lacks, where one other letter would spell words it holds, is a doubt (:func:`kiosk.vision.
    move_words.word_doubts`). ``covered``: whether known tiles read empty close together make the frame covered
    (module docstring; False: they are anomalies, as one tile gone is); ``lasting``: known tiles read empty in
    :data:`COVERED_FRAMES` frames running, never taken as covered. Never raises for a bad frame."""
    if not reading.quality.ok:
        return GameReading(reading, used=False)
    squares = list(reading.squares)
    doubts = dict(reading.doubts)
    anomalies: list[str] = []
    new: dict[int, str] = {}
    disputed: list[int] = []
    for sq, (b, rd) in enumerate(zip(prior.board, squares)):
        a = rd.char()
        if b in (EMPTY_CHAR, UNSURE_CHAR):
            if rd.state is SquareState.TILE and rd.confidence < new_letter_p and sq not in reading.confirmed:
                squares[sq] = UNSURE_SQUARE
                doubts[sq] = Doubt(DoubtKind.LETTER,
                                   f"letter {a}? ({rd.confidence:.2f}, a new tile's letter needs {new_letter_p:.2f})")
            elif a not in (EMPTY_CHAR, UNSURE_CHAR):
                new[sq] = a
            continue
        if a == b:
            continue
        if a == UNSURE_CHAR:
            squares[sq] = _known_square(b)
            doubts.pop(sq, None)
            continue
        what = "is gone" if a == EMPTY_CHAR else f"reads {a}"
        anomalies.append(f"{square_name(sq)}: the known tile {b} {what}")
        disputed.append(sq)
    group = covered_group([sq for sq in disputed if squares[sq].state is SquareState.EMPTY and sq not in lasting]) \
        if covered else []
    if group:
        return GameReading(replace(reading, quality=replace(reading.quality, verdict=covered_verdict(group))),
                           used=False)
    settled = _pool_doubts(new, prior, squares, doubts, anomalies)
    settled |= _shape_doubts(new, prior, squares, doubts, anomalies)
    settled |= _gap_doubts(new, prior, squares, doubts)
    worded = _word_doubts(new, prior, squares, doubts, word_ok)
    settled |= worded
    allowed = may_hold_new(prior, [*new, *worded])   # a tile doubted for its word still lies in the move's line
    if _no_known_tile(prior) and squares[CENTRE].state is SquareState.EMPTY:
        allowed[:] = False   # no move has been played: no tile of one lies anywhere
    if not new and _before_first_move(prior) and _alone(CENTRE, squares):
        allowed[CENTRE] = False   # the first move lays a word of two tiles or more: H8 alone is none
    _reach_through_unsure(allowed, squares, prior)
    for sq, rd in enumerate(squares):
        if rd.state is SquareState.UNSURE and prior.board[sq] in (EMPTY_CHAR, UNSURE_CHAR) and not allowed[sq] and sq not in settled:
            squares[sq] = SquareReading(SquareState.EMPTY, None, 1.0)
            doubts.pop(sq, None)
    out = replace(reading, squares=tuple(squares), doubts=doubts)
    return GameReading(out, new, tuple(anomalies), True, tuple(disputed))


def _word_doubts(new: dict[int, str], prior: GamePrior, squares: list[SquareReading], doubts: dict[int, Doubt],
                 word_ok: WordCheck | None) -> set[int]:
    """New letters another letter would make the move's words good with, where as read a word is not in the
    lexicon (``word_ok``; None: nothing is checked), become letter doubts naming the words
    (:func:`kiosk.vision.move_words.word_doubts`; the board as read, known tiles from the prior). Returns the
    squares doubted (removed from ``new``). Source: every sheet's challenge rule (a word not in the lexicon is
    the players' to challenge, so the camera asks only where one other letter makes the words good)."""
    if word_ok is None or not new:
        return set()
    cells = [b if b not in (EMPTY_CHAR, UNSURE_CHAR) else squares[sq].char() for sq, b in enumerate(prior.board)]
    letters = sorted(t for t in prior.unseen if t != BLANK_CHAR)
    out = word_doubts(cells, new, word_ok, letters, prior.unseen)
    for sq, why in out.items():
        squares[sq], doubts[sq] = UNSURE_SQUARE, Doubt(DoubtKind.LETTER, why)
        del new[sq]
    return set(out)


def _reach_through_unsure(allowed: np.ndarray, squares: list[SquareReading], prior: GamePrior) -> None:
    """Grow ``allowed`` (in place) through the reading's unsure squares not known in the prior: a square next to
    an unsure square that may hold a tile may hold one too (a move of two unsure tiles, one beside a known tile
    and the other beyond it: game04's Z on N1 above the U on N2, both unsure, the U beside the known H on O2)."""
    unsure = {sq for sq, rd in enumerate(squares)
              if rd.state is SquareState.UNSURE and prior.board[sq] in (EMPTY_CHAR, UNSURE_CHAR)}
    frontier = [sq for sq in unsure if allowed[sq]]
    while frontier:
        for n in neighbours(frontier.pop()):
            if n in unsure and not allowed[n]:
                allowed[n] = True
                frontier.append(n)


def _shape_doubts(new: dict[int, str], prior: GamePrior, squares: list[SquareReading], doubts: dict[int, Doubt],
                  anomalies: list[str]) -> set[int]:
    """New tiles no move can have laid become doubts: more on surely empty squares than a rack holds (squares
    not known in the prior may hold older tiles and do not count), or, on an empty board, tiles off row 8 and
    column H (the first move covers H8). Returns the squares doubted (removed from ``new``)."""
    fresh = [sq for sq in new if prior.board[sq] == EMPTY_CHAR]
    bad: list[int] = []
    if len(fresh) > prior.rack_size:
        why = f"{len(fresh)} new tiles read, more than a rack holds ({prior.rack_size})"
        bad = list(new)
    elif _no_known_tile(prior) and squares[CENTRE].state is SquareState.EMPTY:
        why = "a tile read before the first move, with H8 empty (the first move covers H8)"
        bad = list(new)
    elif _before_first_move(prior):
        why = "a tile off row 8 and column H before the first move (which covers H8)"
        bad = [sq for sq in new if sq // SIZE != 7 and sq % SIZE != 7]
    if bad:
        anomalies.append(why)
    for sq in bad:
        squares[sq], doubts[sq] = UNSURE_SQUARE, Doubt(DoubtKind.MOVE, why)
        del new[sq]
    return set(bad)


GAP_MAX = 2   # squares read empty in a row between tiles of the move's line, at most this many, are doubts
GAP_WHY = ("this square reads empty between tiles of the move in {line}: a tile may be missing here, unless the "
           "tiles on either side are not one move")
"""A square's doubt under :func:`_gap_doubts` (``line``: "row 8", "column H"), of kind MOVE."""


def _gap_doubts(new: dict[int, str], prior: GamePrior, squares: list[SquareReading],
                doubts: dict[int, Doubt]) -> set[int]:
    """Squares read empty inside a move: with two or more new tiles read in one row (column) on squares known
    empty, a run of at most GAP_MAX squares read empty, known empty, between two tiles of that line (new, known or
    unsure) and between the move's first and last new tile, becomes a doubt (:data:`GAP_WHY`): a move's tiles
    leave no gap, so a tile there was missed (a blurred frame reads a tile empty) or one beside it is not there at
    all. The move's unsure squares (known empty, where a tile of the move may lie: :func:`may_hold_new`) count as
    its tiles when they and the new tiles lie in one line (a hand over two tiles of a move, its fingers read empty
    and unsure by turns; a tile between two doubted ones read empty). A longer run is left as read (a tile read
    far off in the same line is more likely not one of the move's).
    A frame showing two moves in one line (a frame lost between them) may have the space between them doubted:
    the judge confirms it empty. Returns the squares doubted. Source: every sheet's play rule (a move's tiles
    form one unbroken line with the tiles they join, ``../shared/seeds/``)."""
    fresh = [sq for sq in new if prior.board[sq] == EMPTY_CHAR]   # (a square not known may hold an older tile)
    # the move's unsure squares too, where they lie in the line of its letters: a tile of the move under a doubt
    unsure = [sq for sq, rd in enumerate(squares) if rd.state is SquareState.UNSURE
              and prior.board[sq] == EMPTY_CHAR and sq not in new]
    if unsure:
        allowed = may_hold_new(prior, new)
        rows, cols = _lines_of(with_unsure := fresh + [sq for sq in unsure if allowed[sq]])
        if len(rows) == 1 or len(cols) == 1:
            fresh = with_unsure
    rows, cols = _lines_of(fresh)
    if len(fresh) < 2 or (len(rows) > 1 and len(cols) > 1):
        return set()
    if len(rows) == 1:
        step, line = 1, f"row {next(iter(rows)) + 1}"
    else:
        step, line = SIZE, f"column {chr(ord('A') + next(iter(cols)))}"
    gaps: list[list[int]] = []
    run: list[int] = []
    for sq in range(min(fresh), max(fresh) + 1, step):
        if squares[sq].state is SquareState.EMPTY and prior.board[sq] == EMPTY_CHAR:
            run.append(sq)
            continue
        if 0 < len(run) <= GAP_MAX:
            gaps.append(run)
        run = []
    out = {sq for run in gaps for sq in run}
    for sq in out:
        squares[sq], doubts[sq] = UNSURE_SQUARE, Doubt(DoubtKind.MOVE, GAP_WHY.format(line=line))
    return out


def _alone(sq: int, squares: list[SquareReading]) -> bool:
    """Every square beside ``sq`` is read surely empty (no tile, no doubt)."""
    return all(squares[n].state is SquareState.EMPTY for n in neighbours(sq))


def _before_first_move(prior: GamePrior) -> bool:
    """The board is known to be empty."""
    return all(c == EMPTY_CHAR for c in prior.board)


def _no_known_tile(prior: GamePrior) -> bool:
    """No tile is known (an empty board, or nothing known yet): with H8 empty no move has been played."""
    return all(c in (EMPTY_CHAR, UNSURE_CHAR) for c in prior.board)


def covered_group(gone: list[int]) -> list[int]:
    """The largest group of the squares ``gone`` (known tiles read empty) each within :data:`COVERED_REACH` of
    another of the group, when it has :data:`COVERED_GONE` or more squares (in square order); else []."""
    left = set(gone)
    best: list[int] = []
    while left:
        group, todo = [], [left.pop()]
        while todo:
            sq = todo.pop()
            group.append(sq)
            near = {o for o in left if max(abs(o // SIZE - sq // SIZE), abs(o % SIZE - sq % SIZE)) <= COVERED_REACH}
            left -= near
            todo.extend(near)
        if len(group) > len(best):
            best = group
    return sorted(best) if len(best) >= COVERED_GONE else []


def covered_verdict(gone: list[int]) -> str:
    """The verdict of a frame whose known tiles on the squares ``gone`` (``COVERED_GONE`` or more) read empty: a
    sentence naming up to five of them (``H8``) for the players and the judge."""
    names = ", ".join(square_name(sq) for sq in gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    return f"the tiles already laid on {names} are hidden; take your hand off the board, or put back a tile knocked off"


def _known_square(ch: str) -> SquareReading:
    if ch == BLANK_CHAR:
        return SquareReading(SquareState.BLANK, None, 1.0)
    return SquareReading(SquareState.TILE, ch, 1.0)


def _pool_doubts(new: dict[int, str], prior: GamePrior, squares: list[SquareReading], doubts: dict[int, Doubt],
                 anomalies: list[str]) -> set[int]:
    """New tiles of a kind read more often than the pool has left unseen become doubts (all of that kind: which
    of them is wrong the camera cannot tell). Returns those squares (their doubt stays)."""
    doubted: set[int] = set()
    counts = Counter(new.values())
    for tile, n in counts.items():
        left = prior.unseen.get(tile, 0)
        if n <= left:
            continue
        name = "blank" if tile == BLANK_CHAR else tile
        why = f"no {name} left unseen" if left == 0 else f"only {left} {name} left unseen, {n} read"
        anomalies.append(why)
        for sq in [s for s, t in new.items() if t == tile]:
            squares[sq], doubts[sq] = UNSURE_SQUARE, Doubt(DoubtKind.POOL, why)
            del new[sq]
            doubted.add(sq)
    return doubted


class FrameRead(Protocol):
    """The board reader's :meth:`~kiosk.vision.reader.BoardReader.read`, as :class:`GameReader` calls it."""

    def __call__(self, frame: np.ndarray, corners: np.ndarray | None, known: str, *,
                 corners_from: GridSource) -> BoardReading: ...


class GameReader:
    """A frame reader with the game's prior: ``read(frame) -> BoardReading`` as the kiosk's reader, adjusted by
    :func:`apply_prior`.

    Args:
        read: frame (BGR uint8), corners (4x2 px or None), the known tiles (the prior's
            :attr:`GamePrior.board`) and where the corners came from (``corners_from``: GIVEN_CORNERS, or
            FOUND_CORNERS for the grid kept from an earlier frame) -> :class:`BoardReading` (the board reader's
            :meth:`~kiosk.vision.reader.BoardReader.read`).
        tile_set: the game's tiles (the pool). corners: the grid's corners when given (fixed camera), else the
            last usable reading's grid is kept as the corners of the next frames of its size (a frame of another
            size, or one without a board, is looked for anew; an unusable frame keeps the corners it was read with).
        prior: a callable giving the current :class:`GamePrior` (the kiosk's accepted board), or None: then
            each usable reading becomes the prior of the next (:meth:`accept`), as ``read-board --sequence``;
            the first frame's prior is the empty board, unless it holds more tiles than a move lays (the
            sequence starts mid-game): then it is read alone.
        new_letter_p: the confidence a new tile's letter needs (see :func:`apply_prior`).
        word_ok: a lexicon (upper-case word -> held) checking the move's words, or None (see :func:`apply_prior`).
    """

    def __init__(self, read: FrameRead, tile_set: TileSet, *,
                 corners: np.ndarray | None = None, prior: Callable[[], GamePrior] | None = None,
                 new_letter_p: float = 0.0, word_ok: WordCheck | None = None) -> None:
        self.new_letter_p = new_letter_p
        self.word_ok = word_ok
        self._read = read
        self.tile_set = tile_set
        self.corners = corners
        self._given = corners is not None
        self._shape: tuple[int, ...] | None = None   # frame size (h, w px) the kept corners were found in
        self._prior_fn = prior
        self._own: GamePrior | None = None   # nothing accepted yet (see read_game)
        self.last: GameReading | None = None
        self._unseen: dict[int, int] = {}   # known square -> frames running it read empty (COVERED_FRAMES)

    @property
    def prior(self) -> GamePrior:
        """The prior of the next frame: ``prior()`` when given, else the last accepted reading (before any: the
        empty board)."""
        if self._prior_fn is not None:
            return self._prior_fn()
        return self._own if self._own is not None else prior_from_board(EMPTY_CHAR * N_SQUARES, self.tile_set)

    def accept(self, reading: BoardReading) -> None:
        """Make ``reading`` (when usable) the prior of the next frame: its tiles known, its ``#`` not known, nor
        a known tile the last reading disputed (read as another letter: which one is right is not known)."""
        if reading.quality.ok:
            cells = list("".join(reading.grid()))
            for sq in self.last.disputed if self.last is not None else ():
                if cells[sq] != EMPTY_CHAR:
                    cells[sq] = UNSURE_CHAR
            self._own = prior_from_board(cells, self.tile_set)

    def read_game(self, frame: np.ndarray) -> GameReading:
        """Read ``frame`` under the current prior (see the module docstring)."""
        if not self._given and self._shape != np.shape(frame)[:2]:
            self.corners = None   # a frame of another size (another camera or resolution): its board is found anew
        # corners kept from an earlier frame's board are not "given": a refused reading names them as they are
        reading = self._read(frame, self.corners, self.prior.board,
                             corners_from=GIVEN_CORNERS if self._given else FOUND_CORNERS)
        if not self._given and reading.quality.ok and reading.homography is not None:
            self.corners, self._shape = grid_corners(reading.homography), np.shape(frame)[:2]
        elif not self._given and not reading.quality.board_found:
            self.corners = None   # lost: look for the board again in the next frame
        # a board found in an unusable frame (turned, a hand, a grid the reader doubts) keeps the corners of the
        # last usable one, or none: a grid found where nothing could be read is not carried to the next frames
        tiles = sum(sq.state in (SquareState.TILE, SquareState.BLANK) for sq in reading.squares)
        if self._prior_fn is None and self._own is None and tiles > self.prior.rack_size:
            res = GameReading(reading)   # the first frame holds more than a move: the sequence starts mid-game
        else:
            # on its own prior (no referee: read-board --sequence) tiles gone may be a move taken back after a
            # challenge, which only the frames tell: anomalies, not a covered frame. A referee's board has lost
            # such tiles when the judge ruled
            prior = self.prior
            if reading.quality.ok:   # (a frame not judged usable says nothing of the known tiles)
                empty = [sq for sq, (b, rd) in enumerate(zip(prior.board, reading.squares))
                         if b not in (EMPTY_CHAR, UNSURE_CHAR) and rd.state is SquareState.EMPTY]
                self._unseen = {sq: self._unseen.get(sq, 0) + 1 for sq in empty}
            lasting = frozenset(sq for sq, n in self._unseen.items() if n >= COVERED_FRAMES)
            res = apply_prior(reading, prior, self.new_letter_p, self.word_ok, covered=self._prior_fn is not None,
                              lasting=lasting)
            odd = improbable_letters(res.new, prior.unseen) if res.used else {}
            if odd:   # a move read as one letter improbably often (kiosk.vision.game_lettering)
                res = replace(res, reading=doubt_squares(res.reading, odd),
                              new={sq: ch for sq, ch in res.new.items() if sq not in odd})
        self.last = res
        return res

    def __call__(self, frame: np.ndarray) -> BoardReading:
        return self.read_game(frame).reading


def grid_corners(homography: np.ndarray) -> np.ndarray:
    """The grid's corners A1, O1, O15, A15 in the frame (4x2 float32 px) of a reading's homography."""
    import cv2

    from kiosk.vision.geometry import warp_grid_corners

    inv = np.linalg.inv(np.asarray(homography, np.float64))
    pts = cv2.perspectiveTransform(warp_grid_corners().reshape(-1, 1, 2).astype(np.float64), inv)
    return pts.reshape(4, 2).astype(np.float32)
