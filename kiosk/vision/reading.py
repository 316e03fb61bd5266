"""What the board reader returns: one reading of the 225 squares of one camera frame.

These are plain value types shared by the reader (:mod:`kiosk.vision.reader`), the temporal gate
(:mod:`kiosk.vision.gating`), the diff (:mod:`kiosk.vision.diff`) and the synthetic camera's tests.
Squares are indexed ``row * 15 + col`` with row 1 / column A first (as :mod:`kiosk.rules.board`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

SIZE = 15
N_SQUARES = SIZE * SIZE

EMPTY_CHAR = "."
BLANK_CHAR = "?"
UNSURE_CHAR = "#"


def seen_as(cell: str) -> str:
    """The character a right reading shows for a board cell (``""`` empty, ``"A"`` tile, ``"a"`` designated or
    ``"?"`` undesignated blank): ``.`` empty, the letter, ``?`` any blank (the camera cannot see its letter)."""
    if not cell:
        return EMPTY_CHAR
    return BLANK_CHAR if cell == BLANK_CHAR or cell.islower() else cell


def board_rows(cells: Sequence[str]) -> list[str]:
    """A right reading of a board: its 225 cells (row by row, as :func:`seen_as` takes them) as 15 grid strings
    (``.``, letter, ``?``), the shape of :meth:`BoardReading.grid`."""
    chars = "".join(seen_as(c) for c in cells)
    return [chars[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)]


class SquareState(enum.Enum):
    """What one square holds as read by the camera."""

    EMPTY = "empty"
    TILE = "tile"      # a lettered tile; ``SquareReading.letter`` holds its upper-case letter
    BLANK = "blank"    # a blank tile (no glyph)
    UNSURE = "unsure"  # occluded (hand, glare) or doubtful: the judge must look


class DoubtKind(enum.Enum):
    """What a doubt is about: the question the judge must settle on the square, in a closed set.

    The reader's rules classify doubts by kind (:func:`kind_of`), never by their sentence: a sentence may be
    reworded freely. Each rule that makes a doubt gives it its kind (:class:`Doubt`).
    """

    LETTER = "letter"                    # which letter a lettered tile is, and nothing else ("letter E or F?", a
                                         # letter that does not hold read scaled, read turned, unfamiliar lettering,
                                         # a printed value of another letter, a new tile's letter in a game)
    BLANK_OR_LETTER = "blank or letter"  # a blank tile or a lettered one (faint ink)
    DEGRADED = "degraded"                # in a frame of many doubtful letters (blur, shadow): a letter, a blank or
                                         # an empty square read there is not sure
    FINGER = "finger"                    # next to the hand or not coloured as a tile: a finger may be what was read
                                         # (a blank, a tile, part of a letter)
    HAND = "hand"                        # the square is under the hand (seen, or found from its fingers)
    GLARE = "glare"                      # glare over a tile: its ink may be washed out
    OUTSIDE_VIEW = "outside view"        # the square lies outside the camera's view
    TILE_OR_EMPTY = "tile or empty"      # whether a tile lies there at all
    TILE_OR_PRINT = "tile or print"      # a tile, or a premium square's print (the colours cannot tell there)
    PRINT_OR_LETTER = "print or letter"  # a letter read on a premium square with no tile beside it: its print?
    PRINT_OR_BLANK = "print or blank"    # a blank read on a premium square with no tile beside it: its print?
    BLANK_ALONE = "blank alone"          # a tile without a letter that no letter read joins (a finger, a shadow?)
    SLID = "slid"                        # a tile lying across two squares
    NOT_IN_SET = "not in set"            # a letter the tile set does not have
    OVER_SET = "over set"                # more tiles of a kind (or blanks) than the tile set holds: which are wrong
                                         # the camera cannot tell
    POOL = "pool"                        # in a game: more new tiles of a kind than the pool has left unseen
    MOVE = "move"                        # in a game: new tiles no move can have laid
    FRAME = "frame"                      # the whole frame cannot be read (its verdict: no board, blurred ...)
    OTHER = "other"                      # a plain ``str`` doubt, made outside the package or before kinds


class Doubt(str):
    """A square's doubt: the sentence for the judge (this ``str`` itself, unchanged for every consumer: screen,
    stream, JSON, log, tests comparing strings) with its :class:`DoubtKind` in ``kind``.

    Made as ``Doubt(DoubtKind.LETTER, "letter E or F? (0.62)")``. Equal to (and hashed as) its sentence; ``str``
    methods give plain ``str``. Code decides by kind (:func:`kind_of`), never by the sentence. Pickles and copies
    with its kind (the reader's readings cross process boundaries in the benchmark). Raises TypeError for a
    ``kind`` that is not a DoubtKind or a ``text`` that is not a str.
    """

    kind: DoubtKind

    def __new__(cls, kind: DoubtKind, text: str) -> Doubt:
        if not isinstance(kind, DoubtKind) or not isinstance(text, str):   # (the arguments swapped, a bare str)
            raise TypeError(f"Doubt(kind, text): a DoubtKind and a str, not {type(kind).__name__} and "
                            f"{type(text).__name__}")
        self = super().__new__(cls, text)
        self.kind = kind
        return self

    def __reduce__(self) -> tuple[type[Doubt], tuple[DoubtKind, str]]:
        return Doubt, (self.kind, str(self))


def kind_of(why: str) -> DoubtKind:
    """The kind of a doubt: a :class:`Doubt`'s own, :attr:`DoubtKind.OTHER` for a plain ``str`` (made outside the
    package's rules: its kind is not known, and it is never taken for any particular kind)."""
    return why.kind if isinstance(why, Doubt) else DoubtKind.OTHER


@dataclass(frozen=True)
class SquareReading:
    """One square: its state, the letter (upper-case, only for ``TILE``) and a confidence in [0, 1]."""

    state: SquareState
    letter: str | None = None
    confidence: float = 1.0

    def char(self) -> str:
        """The square as one character of :meth:`BoardReading.grid`: ``.``, the letter, ``?`` or ``#``."""
        if self.state is SquareState.EMPTY:
            return EMPTY_CHAR
        if self.state is SquareState.BLANK:
            return BLANK_CHAR
        if self.state is SquareState.TILE and self.letter:
            return self.letter
        return UNSURE_CHAR


EMPTY_SQUARE = SquareReading(SquareState.EMPTY, None, 1.0)
UNSURE_SQUARE = SquareReading(SquareState.UNSURE, None, 0.0)


@dataclass(frozen=True)
class GridSource:
    """Where the grid a frame is read through came from, as the sentences for people name it: a reading refused
    because no board lies there (:func:`kiosk.vision.presence.no_board`) or because its letters stand turned.

    ``where`` completes "no board ..." (its grid lines run "along them": the corners); ``check`` says what to
    check when no board lies there; ``turned`` what to do when the letters read turned. The grid is never named
    for what it is not: corners kept from the board found in an earlier frame are not "given corners".
    """

    where: str
    check: str
    turned: str


GIVEN_CORNERS = GridSource("at the given corners", "check the corners or the board",
                           "give the corners in the order A1, O1, O15, A15")
FOUND_CORNERS = GridSource("at the corners of the board found in an earlier frame", "check the board and the camera",
                           "turn the board back as it lay in the earlier frames, or give its corners in the order "
                           "A1, O1, O15, A15")
FIXED_CAMERA = GridSource("where the camera's calibration puts it",
                          "check the camera and the board, or calibrate the camera again",
                          "turn the board back as it lay when the camera was calibrated, or calibrate it again")
SEARCHED = GridSource("at the corners of the board found in this frame", "check the camera and the board",
                      "give the corners in the order A1, O1, O15, A15 or place the markers as printed")


@dataclass(frozen=True)
class FrameQuality:
    """Per-frame verdict. ``verdict`` is ``"ok"`` or a short reason (``"no board found"``, ``"blurred"``...)."""

    board_found: bool
    sharp: bool
    glare: bool
    hand: bool
    verdict: str = "ok"

    @property
    def ok(self) -> bool:
        """True when the frame may be used for a reading (board found, sharp, no hand over the board)."""
        return self.verdict == "ok"


@dataclass(frozen=True)
class BoardReading:
    """A reading of one frame.

    Attributes:
        squares: 225 :class:`SquareReading`, index ``row * 15 + col``.
        homography: 3x3 float64, image px -> canonical warp px (see :mod:`kiosk.vision.geometry`), or None
            when no board was found.
        quality: the frame's :class:`FrameQuality`.
        timings_ms: stage name -> milliseconds (``"total"`` always present).
        doubts: square index -> why it is unsure, a :class:`Doubt`: the sentence for the judge (``"glare"``,
            ``"letter E or F? (0.62)"`` ...) with its :class:`DoubtKind`.
        confirmed: squares whose letter, read below the sure level, the board's own tiles confirm (read in a
            game: :func:`kiosk.vision.exemplars.confirm_by_exemplars`).
        note: a sentence about the whole reading for the screen and the log, or ``""``: the tiles' lettering is
            unfamiliar to the reader (:mod:`kiosk.vision.familiarity`), so a director knows to calibrate.
    """

    squares: tuple[SquareReading, ...]
    homography: np.ndarray | None
    quality: FrameQuality
    timings_ms: dict[str, float] = field(default_factory=dict)
    doubts: dict[int, Doubt] = field(default_factory=dict)
    confirmed: frozenset[int] = frozenset()
    note: str = ""

    def __post_init__(self) -> None:
        if len(self.squares) != N_SQUARES:
            raise ValueError(f"BoardReading needs {N_SQUARES} squares, got {len(self.squares)}")

    def grid(self) -> list[str]:
        """15 strings of 15 characters, row 1 first: ``.`` empty, letter, ``?`` blank tile, ``#`` unsure."""
        chars = [s.char() for s in self.squares]
        return ["".join(chars[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]

    @classmethod
    def unreadable(cls, verdict: str, *, board_found: bool = False, homography: np.ndarray | None = None,
                   timings_ms: dict[str, float] | None = None, sharp: bool = False, glare: bool = False,
                   hand: bool = False) -> BoardReading:
        """A reading whose every square is unsure, with ``verdict`` saying why (bad frame, no board...): the
        verdict is each square's doubt too."""
        return cls(
            squares=(UNSURE_SQUARE,) * N_SQUARES,
            homography=homography,
            quality=FrameQuality(board_found=board_found, sharp=sharp, glare=glare, hand=hand, verdict=verdict),
            timings_ms=dict(timings_ms or {"total": 0.0}),
            doubts=dict.fromkeys(range(N_SQUARES), Doubt(DoubtKind.FRAME, verdict)),
        )

    @classmethod
    def from_grid(cls, rows: list[str], confidence: float = 1.0) -> BoardReading:
        """A reading built from 15 grid strings (tests, replays): ``.``, letter, ``?``, ``#``."""
        if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
            raise ValueError("from_grid needs 15 strings of 15 characters")
        squares = []
        for ch in "".join(rows):
            if ch == EMPTY_CHAR:
                squares.append(SquareReading(SquareState.EMPTY, None, confidence))
            elif ch == BLANK_CHAR:
                squares.append(SquareReading(SquareState.BLANK, None, confidence))
            elif ch == UNSURE_CHAR:
                squares.append(UNSURE_SQUARE)
            else:
                squares.append(SquareReading(SquareState.TILE, ch.upper(), confidence))
        return cls(tuple(squares), None, FrameQuality(True, True, False, False, "ok"), {"total": 0.0})
