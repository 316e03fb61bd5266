"""Doubt kinds: every doubt the reader makes carries its kind (:class:`kiosk.vision.reading.Doubt`), and the rules
that classify doubts do so by kind, giving the same answers as the rules on the sentences they replaced."""

from __future__ import annotations

import copy
import json
import pickle

import cv2
import pytest
from common_fixtures import TEMPLATES_PROFILE

from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision import tile_value
from kiosk.vision.exemplars import letter_doubt
from kiosk.vision.game import GameReader, apply_prior, prior_from_board
from kiosk.vision.profile import load_profile
from kiosk.vision.reader import BoardReader
from kiosk.vision.reading import BoardReading, Doubt, DoubtKind, SquareReading, SquareState, kind_of
from shared_data import SHARED, game_corners, needs_shared


def _old_letter_rule(why: str) -> bool:
    """The rule on the sentence that :func:`letter_doubt` replaced (kept here to check it gives the same answers)."""
    return why.startswith("letter ") and "finger" not in why and "hand" not in why and "many doubtful" not in why


def test_a_doubt_is_its_sentence_with_a_kind():
    why = Doubt(DoubtKind.LETTER, "letter E or F? (0.62)")
    assert isinstance(why, str) and why == "letter E or F? (0.62)" and hash(why) == hash("letter E or F? (0.62)")
    assert why.kind is DoubtKind.LETTER and kind_of(why) is DoubtKind.LETTER
    assert {3: why} == {3: "letter E or F? (0.62)"} and json.dumps({"A1": why}) == '{"A1": "letter E or F? (0.62)"}'
    for again in (pickle.loads(pickle.dumps(why)), copy.copy(why), copy.deepcopy(why)):
        assert again == why and isinstance(again, Doubt) and again.kind is DoubtKind.LETTER
    assert kind_of("letter E or F? (0.62)") is DoubtKind.OTHER   # a plain str: its kind is not known
    for bad in (("letter E or F?", DoubtKind.LETTER), ("letter", "letter E or F?"), (DoubtKind.LETTER, None)):
        with pytest.raises(TypeError, match="a DoubtKind and a str"):
            Doubt(*bad)


def test_an_unreadable_frame_and_the_game_give_kinds():
    assert {kind_of(why) for why in BoardReading.unreadable("no board found").doubts.values()} == {DoubtKind.FRAME}
    rows = ["." * 15] * 15
    prior = prior_from_board("".join(rows), ENGLISH)
    rows[2] = "..CAT.........."     # before the first move, off row 8 and column H
    got = apply_prior(BoardReading.from_grid(rows), prior).reading.doubts
    assert got and {kind_of(why) for why in got.values()} == {DoubtKind.MOVE}
    rows = ["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7
    prior = prior_from_board("".join(rows), ENGLISH)
    rows[8] = ".......Y......."
    squares = list(BoardReading.from_grid(rows).squares)
    squares[8 * 15 + 7] = SquareReading(SquareState.TILE, "Y", 0.9)
    plain = BoardReading(tuple(squares), None, BoardReading.from_grid(rows).quality)
    got = apply_prior(plain, prior, new_letter_p=0.98).reading.doubts
    assert kind_of(got[8 * 15 + 7]) is DoubtKind.LETTER and _old_letter_rule(got[8 * 15 + 7])


def _check(doubts: dict[int, str], seen: dict[DoubtKind, str]) -> None:
    for sq, why in doubts.items():
        assert isinstance(why, Doubt) and why.kind is not DoubtKind.OTHER, (sq, why)
        # the same as the rule on the sentence, but for a premium square's lone letter: no letter doubt now
        assert letter_doubt(why) == (_old_letter_rule(why) and why.kind is not DoubtKind.PRINT_OR_LETTER), why
        assert (why.kind is DoubtKind.GLARE) == (why == "glare"), (why.kind, why)
        seen.setdefault(why.kind, why)


@needs_shared
def test_every_doubt_of_synthetic_frames_has_its_kind():
    """Frames 6, 8 and 16 of ``kiosk bench-vision --level hard --frames 120``: glare, a hand and its fingers, a
    degraded frame, a slid tile, a premium square's letter alone."""
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    seen: dict[DoubtKind, str] = {}
    samples = bench.corpus_samples(SHARED, 120, 0, ("english", "german"))
    for index in (6, 8, 16):
        s = samples[index]
        frame = render_board(s.board, seed=bench.frame_seed("hard", index, 0), level="hard", tile_set=s.tile_set,
                             size=(2028, 1520))
        _check(BoardReader(s.tile_set).read(frame.image).doubts, seen)
    assert {DoubtKind.BLANK_OR_LETTER, DoubtKind.DEGRADED, DoubtKind.GLARE, DoubtKind.SLID, DoubtKind.TILE_OR_EMPTY,
            DoubtKind.FINGER, DoubtKind.HAND, DoubtKind.PRINT_OR_LETTER} <= set(seen), seen


@needs_shared
def test_every_doubt_of_the_real_games_has_its_kind(monkeypatch):
    """scrabscrap game02 read as ``read-board --sequence`` reads it, and game03 frames read alone, uncalibrated
    and through the letter-template profile: every doubt is typed, and the letter doubts (a letter
    that does not hold read scaled, "letter M or W?", a new tile's letter in a game; all of them on the project's
    stack and the Pi's today) are LETTER as the old rule on the sentence said. The printed value answers most of
    these frames' letter doubts (:func:`kiosk.vision.tile_value.letters_by_value`): it is off here, and the square
    network reads the letters alone (the letter network doubts 3 of them), so that the doubts whose kinds are
    checked are there to check."""
    monkeypatch.setattr(tile_value, "PICK_P", 2.0)
    seen: dict[DoubtKind, str] = {}
    checked = [0]
    folder = SHARED / "photos" / "scrabscrap" / "game02"
    reader = BoardReader(GERMAN, letter_net=False)
    game = GameReader(reader.read, GERMAN, corners=game_corners("game02"), new_letter_p=0.98)
    for k in range(1, 26):
        gr = game.read_game(cv2.imread(str(folder / f"image-{k}.jpg")))
        game.accept(gr.reading)
        _check(gr.reading.doubts, seen)
        checked[0] += len(gr.reading.doubts)
    calibrated = BoardReader(GERMAN, load_profile(TEMPLATES_PROFILE))
    for k in (14, 20):
        img = cv2.imread(str(SHARED / "photos" / "scrabscrap" / "game03" / f"image-{k}.jpg"))
        _check(calibrated.read(img, game_corners("game03")).doubts, seen)
        reader.forget_board_pose()
        alone = reader.read(img, game_corners("game03")).doubts
        _check(alone, seen)
        checked[0] += len(alone)
    # (40-odd doubts on the project's stack, 28 on the Raspberry Pi's: apt's numpy 1.24 and OpenCV 4.11)
    assert DoubtKind.LETTER in seen and checked[0] >= 20, (checked, seen)
