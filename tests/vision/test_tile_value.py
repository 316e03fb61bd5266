"""The tile's printed value as a second opinion on the square network's letter (kiosk.vision.tile_value): on
faces the network never learnt it gave G for E, M for N, J for I without doubt; most such pairs differ in
value."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision import reader as reader_module
from kiosk.vision import tile_value
from kiosk.vision.images import read_image
from kiosk.vision.reader import SQUARE_GROW_PX, BoardReader
from kiosk.vision.reading import SquareState
from kiosk.vision.synth import render_board
from kiosk.vision.synth.boards import random_board
from kiosk.vision.tile_value import (
    DOUBT_BELOW_P,
    PICK_P,
    SURE_OF_OTHER_P,
    VALUE_CLASSES,
    ValueNet,
    default_value_net,
    letters_by_value,
    letters_ruled_out,
    value_doubts,
    value_region,
)
from shared_data import SHARED, game_corners, needs_shared


def _probs(value: int, p: float = 0.97) -> np.ndarray:
    row = np.full(len(VALUE_CLASSES), (1 - p) / (len(VALUE_CLASSES) - 1), np.float32)
    row[VALUE_CLASSES.index(value)] = p
    return row


def test_a_letter_whose_printed_value_reads_surely_as_another_is_doubted():
    letters = {10: "G", 11: "E", 12: "A", 13: "M", 14: "H"}
    unsure = np.full(len(VALUE_CLASSES), 0.05, np.float32)       # M (3): the value read 1, but not surely
    unsure[VALUE_CLASSES.index(1)], unsure[VALUE_CLASSES.index(3)] = 0.45, 0.02
    own = _probs(1, p=0.9)
    own[VALUE_CLASSES.index(4)] = DOUBT_BELOW_P + 0.01             # H (4): its own value not unlikely enough
    probs = np.stack([_probs(1), _probs(1), _probs(1), unsure, own])
    assert unsure.max() < SURE_OF_OTHER_P
    doubts = value_doubts(letters, probs, ENGLISH)
    assert doubts == {10: "letter G? its tile's printed value reads 1, but G is worth 2"}   # E and A are 1: pass
    # German values are the German set's
    assert value_doubts({1: "K"}, _probs(4)[None], GERMAN) == {}
    assert value_doubts({1: "K"}, _probs(4)[None], ENGLISH) == {1: "letter K? its tile's printed value reads 4, but K is worth 5"}


def test_a_letter_doubt_takes_the_one_candidate_its_printed_value_allows():
    """The value picks among the letters the network gives, when it is sure and few letters share that value."""
    j_or_i = {"J": 0.55, "I": 0.45}
    assert letters_by_value({7: j_or_i}, _probs(8, PICK_P + 0.01)[None], ENGLISH) == {7: "J"}   # J 8, I 1
    assert letters_by_value({7: j_or_i}, _probs(8, PICK_P - 0.02)[None], ENGLISH) == {}   # not sure of the 8
    assert letters_by_value({7: j_or_i}, _probs(1)[None], ENGLISH) == {}   # 1: ten English letters are worth it
    assert letters_by_value({7: {"V": 0.5, "Y": 0.5}}, _probs(4)[None], ENGLISH) == {}   # both worth 4
    assert letters_by_value({7: {"U": 0.9, "E": 0.1}}, _probs(4)[None], ENGLISH) == {}   # neither: no answer
    # a letter the network barely gives needs PICK_OVERRIDE_SHARE against its first choice
    assert letters_by_value({7: {"O": 0.91, "D": 0.09}}, _probs(2)[None], ENGLISH) == {}
    assert letters_by_value({7: {"M": 0.82, "W": 0.18}}, _probs(4)[None], ENGLISH) == {7: "W"}
    # the tile set's own values: a German J is worth 6, an English one 8
    assert letters_by_value({7: j_or_i, 8: {"M": 0.6, "N": 0.4}}, np.stack([_probs(6), _probs(3)]), GERMAN) \
        == {7: "J", 8: "M"}
    assert letters_by_value({7: j_or_i}, _probs(6)[None], ENGLISH) == {}


def test_a_sure_printed_value_rules_out_the_letters_worth_another():
    one = _probs(1, 0.97)            # the other values 0.03 / 7 each: all "surely not"
    ruled = letters_ruled_out(np.stack([one, _probs(1, PICK_P - 0.02)]), ENGLISH)
    assert ruled[0] == frozenset(lt for lt, v in ENGLISH.values.items() if v != 1)   # H (4), not A (1)
    assert "H" in ruled[0] and "A" not in ruled[0]
    assert ruled[1] == frozenset()   # not sure of the 1: nothing ruled out
    maybe_four = one.copy()
    maybe_four[VALUE_CLASSES.index(4)] = DOUBT_BELOW_P + 0.005   # a 4 not unlikely enough: 4-letters stay possible
    assert "H" not in letters_ruled_out(maybe_four[None], ENGLISH)[0]


def test_the_value_corner_of_a_turned_tile_is_taken_upright():
    rng = np.random.default_rng(1)
    grow = SQUARE_GROW_PX
    crop = rng.integers(0, 255, (48 + 2 * grow,) * 2, dtype=np.uint8)
    upright = value_region(crop, grow)
    assert upright.shape == (32, 32)
    for k in range(1, 4):
        assert np.array_equal(value_region(np.rot90(crop, k), grow, k), upright)
    with pytest.raises(ValueError, match="no value corner"):
        value_region(crop[:50, :50], grow)
    with pytest.raises(ValueError, match="no value corner"):
        value_region(crop, 2)


def test_a_broken_or_wrong_value_model_is_named_when_loaded(tmp_path):
    from kiosk.vision.reader import _packaged

    with pytest.raises(reader_module.ModelError, match="my values: OpenCV cannot load or run it as a value network"):
        ValueNet(b"not an onnx file", "my values")
    # a loadable network of another shape (the square network: 32 px inputs) is refused when loaded, not mid-game
    with pytest.raises(reader_module.ModelError, match="my values: OpenCV cannot load or run it|my values: .* outputs"):
        ValueNet(_packaged("squares_english.onnx"), "my values")


def test_each_reader_has_its_own_value_network():
    """A network is not thread-safe: two readers (the kiosk's vision worker and a calibration) must not share one."""
    assert BoardReader(ENGLISH).value_net is not BoardReader(GERMAN).value_net


def _value_accuracy(frame_image: np.ndarray, truth: str, reader: BoardReader, corners=None) -> tuple[int, int]:  # noqa: ANN001
    """(values read right, lettered tiles read right by the reader) on one frame."""
    import cv2

    from kiosk.vision.cells import cell_crop, warp_canvas

    reading = reader.read(frame_image, corners)
    assert reading.homography is not None
    canvas, _ = warp_canvas(frame_image, reading.homography)
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    squares = [sq for sq, rd in enumerate(reading.squares) if rd.state is SquareState.TILE and rd.letter == truth[sq]]
    regions = [value_region(cell_crop(grey, sq, SQUARE_GROW_PX), SQUARE_GROW_PX) for sq in squares]
    p = default_value_net().probabilities(regions)
    worth = [VALUE_CLASSES.index(reader.tile_set.values[truth[sq]]) for sq in squares]
    return int((p.argmax(axis=1) == np.array(worth)).sum()), len(squares)


def test_the_shipped_value_network_reads_a_synthetic_board_s_values():
    board = random_board(2**30 + 21, 70, ENGLISH)
    frame = render_board(board, seed=2**30 + 21, level="typical", tile_set=ENGLISH)
    right, n = _value_accuracy(frame.image, "".join(frame.truth), BoardReader(ENGLISH))
    assert n >= 50 and right >= 0.97 * n, (right, n)


@needs_shared
def test_the_value_check_doubts_no_right_letter_of_a_real_game():
    """scrabscrap game02, uncalibrated (the square network and the value check): no right letter is doubted for
    its value, and the value network reads the real tiles' printed values."""
    game = SHARED / "photos" / "scrabscrap" / "game02"
    reader = BoardReader(GERMAN)
    last = max((p for p in game.glob("image-*.jpg")), key=lambda p: int(re.sub(r"\D", "", p.stem)))
    truth = "".join((game / "truth" / f"{last.stem}.txt").read_text(encoding="utf-8").split())
    image = read_image(last)
    reading = reader.read(image, game_corners(game))
    assert not [why for why in reading.doubts.values() if "printed value" in why]
    right, n = _value_accuracy(image, truth, reader, game_corners(game))
    assert n >= 60 and right >= 0.9 * n, (right, n)


class _TenFirst:
    """A value network that reads the value 10 on the first ``k`` value corners it is shown and has no opinion
    (every value alike) on the rest."""

    def __init__(self, k: int) -> None:
        self.left = k

    def probabilities(self, regions):  # noqa: ANN001, ANN201
        rows = []
        for _ in regions:
            rows.append(_probs(10, 0.99) if self.left > 0 else np.full(len(VALUE_CLASSES), 1 / len(VALUE_CLASSES),
                                                                         np.float32))
            self.left -= 1
        return np.stack(rows) if rows else np.zeros((0, len(VALUE_CLASSES)), np.float32)


def test_the_reader_doubts_letters_the_printed_value_contradicts(monkeypatch):
    """Wired into the reader: a value network that reads the value 10 on some tiles makes those letters worth
    another doubts (a Q or Z, worth 10, stays), the rest of the frame read as before, and says so in the note."""
    board = random_board(2**30 + 22, 50, ENGLISH)
    frame = render_board(board, seed=2**30 + 22, level="typical", tile_set=ENGLISH)
    reader = BoardReader(ENGLISH)
    plain = reader.read(frame.image)
    monkeypatch.setattr(reader, "value_net", _TenFirst(12))
    checked = reader.read(frame.image)
    letters = {sq: rd.letter for sq, rd in enumerate(plain.squares) if rd.state is SquareState.TILE}
    assert len(letters) > 30 and plain.note == "" and checked.quality.ok
    lost = [sq for sq in letters if checked.squares[sq].state is not SquareState.TILE]
    assert 1 <= len(lost) <= 12 and not any(ENGLISH.values[letters[sq]] == 10 for sq in lost)
    for sq in lost:
        letter = letters[sq]
        assert checked.doubts[sq] == f"letter {letter}? its tile's printed value reads 10, but {letter} is worth " \
                                     f"{ENGLISH.values[letter]}"
    assert checked.note == (
        f"the values printed on {len(lost)} tiles do not match the letters read under the english tile set: the "
        "lettering may be unfamiliar to the reader, or the tiles not the event's set; calibrate the tile set (kiosk "
        "calibrate glyphs)")
    assert [sq for sq in letters if sq not in lost and checked.squares[sq].letter != letters[sq]] == []


def test_a_frame_whose_every_printed_value_contradicts_its_letters_is_not_read(monkeypatch):
    """Every value corner read as 10: nearly every letter is a doubt, so the frame gives no reading at all (its
    few letters worth 10 are no safer), says why, and keeps the note on the values."""
    board = random_board(2**30 + 22, 50, ENGLISH)
    frame = render_board(board, seed=2**30 + 22, level="typical", tile_set=ENGLISH)
    reader = BoardReader(ENGLISH)
    monkeypatch.setattr(reader, "value_net", _TenFirst(10_000))
    checked = reader.read(frame.image)
    assert not checked.quality.ok and checked.quality.verdict.startswith("letters not read: of ")
    assert all(rd.state is SquareState.UNSURE for rd in checked.squares)
    assert checked.note.startswith("the values printed on ") and checked.note.endswith("(kiosk calibrate glyphs)")


def test_the_reader_gives_a_hesitant_letter_the_one_its_printed_value_allows(monkeypatch):
    """A built-in hard frame: the network reads the W on square 189 (M8) as M 0.82 / W 0.18, an M that does not
    hold read scaled; its corner reads 4 (W 4, M 3): the reader gives W. Without the pick the square stays '#'.
    Read by the square network alone (``letter_net=False``; the shipped letter network reads this W surely)."""
    seed = 2**30 + 98
    frame = render_board(random_board(seed, 60, ENGLISH), seed=seed, level="hard", tile_set=ENGLISH)
    assert frame.truth[189 // 15][189 % 15] == "W"
    reading = BoardReader(ENGLISH, letter_net=False).read(frame.image)
    assert reading.squares[189].state is SquareState.TILE and reading.squares[189].letter == "W"
    assert 189 not in reading.doubts
    monkeypatch.setattr(tile_value, "PICK_P", 2.0)   # the value never sure enough: no pick
    plain = BoardReader(ENGLISH, letter_net=False).read(frame.image)
    assert plain.squares[189].state is SquareState.UNSURE and "letter M" in plain.doubts[189]


def test_the_printed_value_never_gives_a_letter_where_the_game_knows_a_tile():
    """The same W on M8, known to the game (as W, or wrongly as M): the square stays the doubt it was, which the
    game resolves to its known tile; a letter given there could only dispute it (a review's check). By the square
    network alone, as above."""
    seed = 2**30 + 98
    frame = render_board(random_board(seed, 60, ENGLISH), seed=seed, level="hard", tile_set=ENGLISH)
    for letter in "WM":
        known = "#" * 189 + letter + "#" * 35
        reading = BoardReader(ENGLISH, letter_net=False).read(frame.image, known=known)
        assert reading.squares[189].state is SquareState.UNSURE, (letter, reading.squares[189])
        assert 189 not in reading.confirmed


def test_the_training_commands_write_into_the_shipped_models_folder_by_default():
    from kiosk.vision.train import MODELS_DIR

    assert (MODELS_DIR / "squares_german.onnx").is_file() and (MODELS_DIR / "values.onnx").is_file()


def test_training_the_value_network_names_a_bad_cache_and_a_missing_extra(tmp_path, capsys):
    import importlib.util

    from kiosk.vision.train import main

    assert main(["values", str(tmp_path / "none.npz"), "--out", str(tmp_path / "v.onnx")]) == 2
    assert f"{tmp_path / 'none.npz'}: not a square cache written by `train squares`" in capsys.readouterr().err
    assert main(["values", str(tmp_path / "none.npz"), "--epochs", "0"]) == 2
    assert "--epochs 0: at least 1" in capsys.readouterr().err
    assert main(["values", str(tmp_path / "none.npz"), "--marks", "1.5"]) == 2
    assert "--marks 1.5: a share of the corners" in capsys.readouterr().err
    assert main(["values", str(tmp_path / "none.npz"), "--out", str(tmp_path)]) == 2
    assert "a folder; give the network's file" in capsys.readouterr().err

    def cache(n: int) -> str:
        path = tmp_path / f"c{n}.npz"
        np.savez(path, crops=np.zeros((n, 64, 64), np.uint8), labels=np.array(["E"] * n),
                 turned=np.zeros(n, np.int16), occluded=np.zeros(n, bool), tiles=np.array(["english"] * n))
        return str(path)

    assert main(["values", cache(5), "--out", str(tmp_path / "v.onnx")]) == 2
    assert "5 lettered tiles, at least 1000 are needed" in capsys.readouterr().err
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed: the missing `train` extra cannot be shown")
    assert main(["values", cache(1000), "--out", str(tmp_path / "v.onnx")]) == 2
    assert "`values` needs the `train` extra" in capsys.readouterr().err
    assert not (tmp_path / "v.onnx").exists()


def test_training_the_letter_network_names_a_bad_cache_and_a_missing_extra(tmp_path, capsys):
    import importlib.util

    from kiosk.vision.train import MODELS_DIR, main

    assert (MODELS_DIR / "letters_german.onnx").is_file() and (MODELS_DIR / "letters_english.json").is_file()
    assert main(["letters", str(tmp_path / "none.npz"), "--out", str(tmp_path / "m")]) == 2
    assert f"{tmp_path / 'none.npz'}: not a square cache written by `train squares`" in capsys.readouterr().err
    assert main(["letters", str(tmp_path / "none.npz"), "--epochs", "0"]) == 2
    assert "--epochs 0: at least 1" in capsys.readouterr().err
    assert main(["letters", str(tmp_path / "none.npz"), "--widen", "1.5"]) == 2
    assert "--widen 1.5: from 0 to below 1" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["letters", str(tmp_path / "none.npz"), "--out", str(tmp_path / "file")]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err

    def cache(n: int) -> str:
        path = tmp_path / f"c{n}.npz"
        np.savez(path, crops=np.zeros((n, 64, 64), np.uint8), labels=np.array(["E", "."] * (n // 2)),
                 turned=np.zeros(n, np.int16), occluded=np.zeros(n, bool), tiles=np.array(["english"] * n))
        return str(path)

    assert main(["letters", cache(300), "--out", str(tmp_path / "m")]) == 2
    assert "lettered training tiles, too few for one batch of 256" in capsys.readouterr().err
    assert main(["letters", cache(1200), "--out", str(tmp_path / "m")]) == 2   # E's alone: the reader would refuse it
    assert "no tile of A, B, C, D, F," in capsys.readouterr().err
    every = tmp_path / "every.npz"
    letters = list("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ") * 20
    np.savez(every, crops=np.zeros((len(letters), 64, 64), np.uint8), labels=np.array(letters),
             turned=np.zeros(len(letters), np.int16), occluded=np.zeros(len(letters), bool),
             tiles=np.array(["german"] * len(letters)))
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed: the missing `train` extra cannot be shown")
    assert main(["letters", str(every), "--out", str(tmp_path / "m")]) == 2
    assert "`letters` needs the `train` extra" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_the_value_trainer_refuses_an_output_that_is_no_file_before_training(tmp_path):
    # a FIFO (or a device) at --out is left as it is, and named before any cache is read or torch imported
    import os

    from kiosk.vision.value_train import train
    fifo = tmp_path / "values.onnx"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"--out .*values.onnx: is a FIFO \(named pipe\), not a file"):
        train([tmp_path / "no-such-cache.npz"], fifo)
    assert fifo.is_fifo()
