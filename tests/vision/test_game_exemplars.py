"""The game's own tiles as templates (:mod:`kiosk.vision.game_exemplars`): what the known tiles say of a new tile
(a letter, a doubt, or nothing), the likeness measure, and the rule at work on a real Pi-camera game and in a
synthetic game (``kiosk bench-vision --games``)."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from kiosk.rules.tiles import GERMAN
from kiosk.vision import game_exemplars as ge
from kiosk.vision.game_exemplars import FeatureCache, known_letter, likeness
from kiosk.vision.reading import SquareReading, SquareState
from kiosk.vision.squarenet import SquarePrediction
from shared_data import SHARED, needs_shared


def test_a_letter_is_given_only_when_every_letter_the_network_gives_has_known_tiles():
    # the network unsure between C and G; the game's G's are far more alike than its C's
    assert known_letter({"C": 0.6, "G": 0.4}, {"C": 0.80, "G": 0.95, "O": 0.85}) == "G"
    # ... but no C is known yet: the tile may be the game's first C
    assert known_letter({"C": 0.6, "G": 0.4}, {"G": 0.95, "O": 0.85}) is None
    # a letter the network does not give at all is never given, however alike
    assert known_letter({"R": 0.99}, {"R": 0.85, "A": 0.90}, None) is None


def test_the_lead_over_the_next_letter_must_be_clear_and_wider_against_the_network():
    assert known_letter({"E": 0.9, "F": 0.1}, {"E": 0.90, "F": 0.88}) is None          # lead 0.02 < MARGIN
    assert known_letter({"E": 0.9, "F": 0.1}, {"E": 0.92, "F": 0.88}) == "E"          # confirms the network
    assert known_letter({"E": 0.9, "F": 0.1}, {"E": 0.88, "F": 0.92}) is None         # lead 0.04 < OVERRIDE_MARGIN
    assert known_letter({"E": 0.9, "F": 0.1}, {"E": 0.86, "F": 0.92}) == "F"
    assert known_letter({"E": 0.9, "F": 0.1}, {"E": 0.70, "F": 0.80}) is None         # nothing alike enough


def test_a_sure_letter_that_looks_like_the_games_tiles_of_another_letter_becomes_a_doubt():
    # a face whose A's the network reads as a sure R: the known A's are far more alike
    assert known_letter({"R": 1.0}, {"A": 0.97, "R": 0.88}, read="R") == "#"
    # not when the likeness or its lead is short of the doubt's, nor for a square already in doubt
    assert known_letter({"R": 1.0}, {"A": 0.95, "R": 0.80}, read="R") is None
    assert known_letter({"R": 1.0}, {"A": 0.97, "R": 0.94}, read="R") is None
    assert known_letter({"R": 1.0}, {"A": 0.97, "R": 0.88}, read=None) is None


def _tile(letter: str, dx: int = 0, dy: int = 0, value: str = "1", font: int = cv2.FONT_HERSHEY_DUPLEX,
          light: float = 1.0) -> np.ndarray:
    """A 58 px grey crop of a light tile with a dark letter and value digit, moved by (dx, dy) px."""
    img = np.full((58, 58), 60, np.uint8)
    cv2.rectangle(img, (6 + dx, 6 + dy), (51 + dx, 51 + dy), 215, -1)
    cv2.putText(img, letter, (15 + dx, 42 + dy), font, 1.2, 30, 3, cv2.LINE_AA)
    cv2.putText(img, value, (41 + dx, 48 + dy), font, 0.35, 30, 1, cv2.LINE_AA)
    return np.clip(img.astype(np.float32) * light, 0, 255).astype(np.uint8)


def test_likeness_ignores_a_small_shift_and_the_light_but_not_the_letter():
    a = _tile("A").astype(np.float32)
    assert likeness(a, _tile("A", dx=3, dy=-2, light=0.7).astype(np.float32)) > 0.95
    assert likeness(a, _tile("R").astype(np.float32)) < 0.9
    assert likeness(a, _tile("A", font=cv2.FONT_HERSHEY_SCRIPT_SIMPLEX).astype(np.float32)) < 0.9


def test_one_tile_is_compared_with_many_known_tiles_at_once_as_template_matching_would():
    """:func:`likeness_to` (one matrix product for all the known tiles) gives each known tile the highest
    normalised correlation of its middle over the new tile's shifts, as ``cv2.matchTemplate`` (TM_CCOEFF_NORMED)
    does one pair at a time; a flat known tile or window is alike to nothing."""
    rng = np.random.default_rng(5)
    known = [_tile(lt, dx=int(rng.integers(-3, 4)), dy=int(rng.integers(-3, 4)), light=float(rng.uniform(0.6, 1.1)),
                   font=f).astype(np.float32) for lt in "AREHMW" for f in (cv2.FONT_HERSHEY_DUPLEX,
                                                                         cv2.FONT_HERSHEY_PLAIN)]
    known = [np.clip(k + rng.normal(0, 4, k.shape), 0, 255).astype(np.float32) for k in known]
    inners = np.stack([ge.inner_vector(k) for k in known])
    for tile in known[:4] + [_tile("E", dx=2).astype(np.float32)]:
        want = [cv2.matchTemplate(tile, k[ge.INNER_PX:-ge.INNER_PX, ge.INNER_PX:-ge.INNER_PX],
                                  cv2.TM_CCOEFF_NORMED).max() for k in known]
        assert np.allclose(ge.likeness_to(tile, inners), want, atol=5e-4)
        assert likeness(tile, known[3]) == pytest.approx(want[3], abs=5e-4)
    flat = np.full((58, 58), 128, np.float32)
    assert not ge.inner_vector(flat).any()
    assert ge.likeness_to(known[0], ge.inner_vector(flat)[None]).tolist() == [0.0]
    assert ge.likeness_to(flat, inners).tolist() == [0.0] * len(known)
    assert ge.likeness_to(flat, inners[:0]).shape == (0,)
    with pytest.raises(ValueError, match="a square grey crop of the known tiles' size"):
        ge.likeness_to(known[0][:, :50], inners)
    with pytest.raises(ValueError, match="a square grey crop of the known tiles' size"):
        ge.likeness_to(known[0][2:-2, 2:-2], inners)


def test_the_cache_describes_a_crop_once_and_again_when_it_changes():
    crops = {5: _tile("E")}
    cache = FeatureCache()
    first = cache.get(crops, 5, 0)
    assert cache.get(crops, 5, 0) is first
    crops[5] = _tile("E", dx=1)
    assert cache.get(crops, 5, 0) is not first
    assert cache.get(crops, 5, 1).shape == (58, 58)   # turned upright by its quarter turns


class _Shares:
    """A square network stand-in for the letter table: the same P(letter | tile) for every crop, upright."""

    letters = ["A", "H", "R"]

    def __init__(self, shares: list[float]) -> None:
        self.shares = shares

    def letter_table(self, crops):  # noqa: ANN001, ANN201
        return np.array([self.shares] * len(crops), np.float32), np.zeros((len(crops), 3), int)


def test_a_letter_the_printed_value_rules_out_needs_no_known_tiles():
    """Almendra's A's read "H or A?": the game knows its A's, never an H, so the template rule gives nothing (the
    tile could be the game's first H); a 1 printed in the corner rules the H (4) out, and the known A's answer."""
    crops = {0: _tile("A"), 1: _tile("A", dx=2), 2: _tile("A", dx=-1), 50: _tile("A", dx=1, dy=1)}
    known = "AAA" + "." * 222
    preds = {sq: SquarePrediction(0.0, 0.0, "A" if sq < 3 else "H", 0.95, "A", 0) for sq in crops}
    squares = [SquareReading(SquareState.EMPTY, None, 1.0)] * 225
    squares[:3] = [SquareReading(SquareState.TILE, "A", 0.99)] * 3
    squares[50] = SquareReading(SquareState.UNSURE, None, 0.6)
    net = _Shares([0.4, 0.6, 0.0])
    ex = ge._known_tiles(net, crops, squares, preds, known)
    plain = ge.match_new_tiles(net, crops, squares, preds, [50], ex, FeatureCache())
    assert plain[50].letter is None and plain[50].alike["A"] > 0.95
    ruled = ge.match_new_tiles(net, crops, squares, preds, [50], ex, FeatureCache(), lambda sqs: {50: frozenset("H")})
    assert ruled[50].letter == "A"
    # a corner misread (a value cut off, an empty corner read 1) must not hand the tile to a letter the network
    # barely gives (a review's reproduction): H 0.95 ruled out leaves A at 0.05, under RULED_OUT_PICK_SHARE
    net = _Shares([0.05, 0.95, 0.0])
    barely = ge.match_new_tiles(net, crops, squares, preds, [50], ex, FeatureCache(), lambda sqs: {50: frozenset("H")})
    assert barely[50].letter is None


def _read_sequence(game: str, last: int, enabled: bool) -> tuple[str, dict]:
    """The grid and doubts of image-``last`` of a scrabscrap game read as ``kiosk read-board --sequence`` reads
    it (each reading the prior of the next), with the known tiles' rule on or off, by the square network alone
    (``letter_net=False``: the shipped letter network reads this example's letter surely; the rule is tested on the
    doubts the square network leaves)."""
    from kiosk.vision.game import GameReader
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.scrabscrap import read_warp_coord

    folder = SHARED / "photos" / "scrabscrap" / game
    reader = BoardReader(GERMAN, letter_net=False)
    seq = GameReader(reader.read, GERMAN, corners=read_warp_coord(folder / "game.ini"), new_letter_p=0.98)
    was = ge.ENABLED
    ge.ENABLED = enabled
    try:
        for n in range(1, last + 1):
            res = seq.read_game(cv2.imread(str(folder / f"image-{n}.jpg")))
            seq.accept(res.reading)
    finally:
        ge.ENABLED = was
    return "".join(res.reading.grid()), dict(res.reading.doubts)


@needs_shared
def test_a_real_games_doubted_letter_is_read_from_its_known_tiles():
    # game03, image-13: the M on I10 (square 143) reads "M or W? (0.73)"; the game's M's laid before settle it
    truth = "".join((SHARED / "photos/scrabscrap/game03/truth/image-13.txt").read_text().split())
    grid_on, _ = _read_sequence("game03", 13, True)
    grid_off, doubts_off = _read_sequence("game03", 13, False)
    assert truth[143] == "M"
    assert grid_off[143] == "#" and re.search(r"letter M or W\? \(0\.\d\d\)", doubts_off[143])
    assert grid_on[143] == "M"
    assert [sq for sq in range(225) if grid_on[sq] not in ("#", truth[sq])] == []   # and nothing read wrong


def test_a_known_tile_that_really_changed_to_a_letter_not_shown_elsewhere_stays_disputed():
    # a review's reproduction: U, A, O known where the board now holds the set's only Ü, Ä, Ö (each very like its
    # plain letter); with no other Ü, Ä or Ö in view the known tiles cannot vouch for the old letter
    from kiosk.rules.board import Board
    from kiosk.vision.game import GameReader, prior_from_board
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.synth.render import render_board

    cells = [""] * 225
    for r, word in {3: "UAOEUAOENR", 5: "AUEOAUEORN", 7: "ÜÄÖSTUAOEN", 9: "OEAUNRSTUA"}.items():
        for i, ch in enumerate(word):
            cells[r * 15 + 2 + i] = ch
    plain = {"Ü": "U", "Ä": "A", "Ö": "O"}
    known = [plain.get(c, c) for c in cells]
    frame = render_board(Board(cells), seed=(1 << 30) + 5, level="typical", tile_set=GERMAN)
    game = GameReader(BoardReader(GERMAN).read, GERMAN, prior=lambda: prior_from_board(known, GERMAN))
    res = game.read_game(frame.image)
    grid = "".join(res.reading.grid())
    assert [grid[sq] for sq in range(225) if cells[sq] in plain] == ["Ü", "Ä", "Ö"]
    assert len(res.anomalies) == 3 and all("the known tile" in a for a in res.anomalies)


@needs_shared
def test_a_synthetic_game_in_a_face_never_trained_on_reads_more_letters_with_its_known_tiles(monkeypatch):
    import functools

    from kiosk.vision import reader as reader_module
    from kiosk.vision.synth import fonts
    from kiosk.vision.train import game_bench

    # read by the square network alone (letter_net=False): the rule is tested on the doubts it leaves
    monkeypatch.setattr(reader_module, "BoardReader", functools.partial(reader_module.BoardReader, letter_net=False))

    # seed 14: a game drawn in Yanone Kaffeesatz Bold (condensed), whose letters the network doubts often
    if "yanone-kaffeesatz-bold" not in fonts.present(fonts.VALIDATION):
        pytest.skip("fonts-yanone-kaffeesatz not installed (scripts/system-packages.txt)")
    games = game_bench.corpus_games(SHARED, 1, seed=14, tile_sets=("english",), max_moves=12)
    task = game_bench.game_tasks(games, "typical", (2028, 1520), 14, "validation")[0]

    def tally(enabled: bool) -> game_bench.GameTally:
        was, ge.ENABLED = ge.ENABLED, enabled
        try:
            t = game_bench.GameTally()
            for mv in game_bench.read_game(task):
                t.add(mv)
            return t
        finally:
            ge.ENABLED = was

    on, off = tally(True), tally(False)
    assert list(on.by_face) == ["yanone-kaffeesatz-bold"]
    assert on.moves == off.moves == 12 and on.letters == off.letters > 40
    assert on.letters_right >= off.letters_right + 2     # measured: 27 of 43 against 24
    assert on.silent <= off.silent and on.false_anomalies <= off.false_anomalies
