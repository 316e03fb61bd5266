"""Frame-level familiarity: does this frame's tile face look familiar to the square network at all?

The per-square rules (the sure-letter threshold ``NET_LETTER_P``, the letter-holds check, the same-board exemplars)
judge squares one by one. On a face the network never trained on it still gives most letters surely, and gives
some wrong ones surely too. But a frame of a familiar face reads nearly every lettered tile with
P(letter | tile) >= ``FAMILIAR_P`` (0.99), and a frame of an unfamiliar face has many middling letters. A tile set
has one face, so the frame's share of middling letters judges the face: where at least ``MIN_TILES`` lettered
tiles (read letters and letter doubts) are in view and more than ``UNFAMILIAR_SHARE`` of them read below
``FAMILIAR_P``, the frame is unfamiliar and each letter it gives below ``STRICT_P`` becomes a doubt whose reason
says why and what to do (:data:`UNFAMILIAR_WHY`). Only in a sharp frame (the grid's variance of the Laplacian,
:func:`kiosk.vision.quality.sharpness`, at least ``SHARP_MIN``): motion blur and defocus make middling letters
of every face, familiar or not (on the built-in benchmark's hard level a fifth of the frames of its own trained
fonts have more than 0.3 of their letters below 0.99), and there the share says nothing about the face. So the
rule acts on crisp frames only: it does not help a blurred frame of an unfamiliar face. The reading carries a
note for the screen and the log (:data:`UNFAMILIAR_NOTE`). In a game, the known tiles in view count towards the share (more tiles, less noise)
and a known tile read as its known letter is never doubted by this rule (the game keeps it anyway).

Cheap: no extra network call; it uses the network's readings the reader already has. Chosen on the validation
faces and the training faces and the built-in benchmark (models/README.md, "Unfamiliar lettering: a frame-level
judgement"); the measurements are made by ``scripts/familiarity_capture.py``. Since the twelfth sitting the
letters it judges are the letter network's (:class:`kiosk.vision.squarenet.SquareNet` ``letters``), surer on
faces it never drew; its thresholds were not chosen again, and its test reads its example with the square
network alone (``BoardReader(letter_net=False)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kiosk.vision.exemplars import letter_doubt
from kiosk.vision.reading import Doubt, DoubtKind, SquareReading, SquareState
from kiosk.vision.squarenet import SquarePrediction

FAMILIAR_P = 0.99       # a lettered tile read with P(letter | tile) at or above this reads as a familiar face
MIN_TILES = 12          # lettered tiles in view needed to judge the face (a share of 5 tiles is noise)
UNFAMILIAR_SHARE = 0.3  # more than this share of them below FAMILIAR_P: the face is unfamiliar
STRICT_P = 0.99         # ... then a letter below this P(letter | tile) is a doubt
SHARP_MIN = 4500.0      # ... judged only in a frame at least this sharp (variance of the Laplacian, grey levels^2)
ENABLED = True          # False: the rule measures (Familiarity) but changes nothing (for the capture script)

UNFAMILIAR_NOTE = ("the tiles' lettering is unfamiliar to the reader: letters it is not sure of are left '#'; "
                   "calibrate the tile set (kiosk calibrate glyphs)")
"""The reading's note for a frame judged unfamiliar (:attr:`kiosk.vision.reading.BoardReading.note`)."""

UNFAMILIAR_WHY = "letter {letter}? ({p:.3f}) the tiles' lettering is unfamiliar to the reader: calibrate the " \
                 "tile set (kiosk calibrate glyphs)"
"""A square's doubt for a letter this rule holds back (``letter``, its P(letter | tile) ``p``), of kind LETTER."""


@dataclass(frozen=True)
class Familiarity:
    """One frame's judgement.

    Attributes:
        letter_p: the lettered tiles judged (read letters and letter doubts with a network reading), by square:
            the network's P(letter | tile) of each.
        share_below: the share of them below FAMILIAR_P (0 when there are none).
        unfamiliar: whether the frame was judged unfamiliar (sharp enough, at least MIN_TILES of them, share
            above UNFAMILIAR_SHARE).
        doubted: the squares this rule made doubts (empty when ``unfamiliar`` is False or ENABLED is off).
        sharp: the frame's sharpness the judgement was made at (variance of the Laplacian, grey levels^2).
        held: whether the frame's letters were held to STRICT_P (unfamiliar, and ENABLED).
    """

    letter_p: dict[int, float] = field(default_factory=dict)
    share_below: float = 0.0
    unfamiliar: bool = False
    doubted: tuple[int, ...] = ()
    sharp: float = 0.0
    held: bool = False

    @property
    def note(self) -> str:
        """:data:`UNFAMILIAR_NOTE` for a frame whose letters were held back, else ``""``."""
        return UNFAMILIAR_NOTE if self.held else ""


def _lettered(squares: Sequence[SquareReading], doubts: dict[int, Doubt], preds: dict[int, SquarePrediction]
              ) -> dict[int, float]:
    """P(letter | tile) of the squares read as a letter or doubted for their letter alone, by square."""
    return {sq: q.letter_if_tile for sq, q in preds.items()
            if (squares[sq].state is SquareState.TILE and squares[sq].letter is not None)
            or (squares[sq].state is SquareState.UNSURE and letter_doubt(doubts.get(sq, "")))}


def judge(squares: Sequence[SquareReading], doubts: dict[int, Doubt], preds: dict[int, SquarePrediction],
          sharp: float = SHARP_MIN) -> Familiarity:
    """Judge a frame's face from the network's readings ``preds`` (by square) of the reader's ``squares`` (225)
    and ``doubts`` (by square, the reasons); ``sharp``: the frame's sharpness (variance of the Laplacian of the
    reading canvas' grid, :func:`kiosk.vision.quality.sharpness`). Changes nothing."""
    ps = _lettered(squares, doubts, preds)
    below = sum(p < FAMILIAR_P for p in ps.values())
    share = below / len(ps) if ps else 0.0
    return Familiarity(ps, share, sharp >= SHARP_MIN and len(ps) >= MIN_TILES and share > UNFAMILIAR_SHARE,
                       sharp=sharp)


def hold_unfamiliar(squares: list[SquareReading], doubts: dict[int, Doubt], preds: dict[int, SquarePrediction],
                    known: str | None = None, sharp: float = SHARP_MIN) -> Familiarity:
    """:func:`judge` the frame (``sharp``: its sharpness) and, when it is unfamiliar (and ENABLED), make each
    letter read below STRICT_P a doubt (:data:`UNFAMILIAR_WHY`), in place; a square ``known`` (225 characters,
    as :meth:`kiosk.vision.reader.BoardReader.read`) holds with the letter read stays. Returns the judgement,
    with the squares doubted."""
    fam = judge(squares, doubts, preds, sharp)
    if not fam.unfamiliar or not ENABLED:
        return fam
    doubted = []
    for sq, p in fam.letter_p.items():
        r = squares[sq]
        if r.state is not SquareState.TILE or p >= STRICT_P or (known is not None and known[sq] == r.letter):
            continue
        doubts[sq] = Doubt(DoubtKind.LETTER, UNFAMILIAR_WHY.format(letter=r.letter, p=p))
        squares[sq] = SquareReading(SquareState.UNSURE, None, r.confidence)
        doubted.append(sq)
    return Familiarity(fam.letter_p, fam.share_below, True, tuple(doubted), sharp, held=True)
