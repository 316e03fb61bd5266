"""The bag's tiles as templates (kiosk.vision.bag_templates): kept in the profile, read back, and the reader's rule:
a letter doubt the templates settle gets their letter; a letter they point away from is a doubt, never changed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.vision.bag_templates import BagTemplates, bag_letter
from kiosk.vision.mlp import ModelError
from kiosk.vision.reading import Doubt, DoubtKind, SquareReading, SquareState, kind_of
from kiosk.vision.squarenet import CROP_PX, SquarePrediction


def tile(letter: str, dx: int = 0, colour: bool = False) -> np.ndarray:
    """A light tile's crop with a dark letter on it (shifted ``dx`` px)."""
    img = np.full((CROP_PX, CROP_PX), 210, np.uint8)
    cv2.putText(img, letter, (14 + dx, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.4, 30, 4, cv2.LINE_AA)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if colour else img


def test_templates_keep_a_few_tiles_per_letter_and_read_back() -> None:
    samples = [(tile("A", k % 3, colour=True), "A") for k in range(9)] + [(tile("B", colour=True), "B")] + [
        (tile("C"), "."), (tile("C"), "?")]   # an empty square and a blank: no letter to keep
    t = BagTemplates.from_samples(samples, per_letter=4)
    assert t.letters == ("A", "A", "A", "A", "B") and t.crops.shape == (5, CROP_PX, CROP_PX)
    back = BagTemplates.from_text(t.to_text())
    assert back.letters == t.letters and np.array_equal(back.crops, t.crops)
    alike = back.alike(tile("A", 1))
    assert set(alike) == {"A", "B"} and alike["A"] > 0.95 > alike["B"]
    with pytest.raises(ModelError, match="profile.json: letter_templates: not letter templates"):
        BagTemplates.from_text("@@@", "profile.json: letter_templates")
    with pytest.raises(ValueError, match="2 crops but 1 letters"):
        BagTemplates(np.zeros((2, CROP_PX, CROP_PX), np.uint8), ("A",))


@pytest.mark.parametrize("data, why", [
    (b"PK\x03\x04 broken", "the data is not a NumPy .npz archive of arrays"),
    (b"\x93NUMPY", "the data is not a NumPy .npz archive of arrays"),
    ("pickled", "the data is not a NumPy .npz archive of arrays"),
    ("npy", "not an .npz archive"),
    ("0-d letters", "letters: expected one upper-case letter per crop"),
    ("lower-case", "letters: expected one upper-case letter per crop"),
])
def test_corrupt_templates_are_refused_naming_the_field(data, why) -> None:
    """A review found corrupt data ending in a BadZipFile or TypeError traceback, or lower-case letters loaded as
    they came: every one is a ModelError naming where the data came from."""
    import base64
    import io

    crops = np.zeros((1, CROP_PX, CROP_PX), np.uint8)
    buf = io.BytesIO()
    if data == "npy":
        np.save(buf, crops)
    elif data == "pickled":   # numpy's own message advises loading it with allow_pickle: never shown
        np.save(buf, np.array([{"crops": 1}], dtype=object))
    elif data == "0-d letters":
        np.savez(buf, crops=crops, letters=np.array("A"))
    elif data == "lower-case":
        np.savez(buf, crops=crops, letters=np.array(["a"]))
    else:
        buf.write(data)
    with pytest.raises(ModelError, match="p.json: letter_templates: not letter templates") as exc:
        BagTemplates.from_text(base64.b64encode(buf.getvalue()).decode("ascii"), "p.json: letter_templates")
    assert why in str(exc.value) and "pickle" not in str(exc.value)


def test_bag_letter_settles_a_doubt_and_never_changes_a_letter_read() -> None:
    alike = {"A": 0.97, "B": 0.60, "R": 0.55}
    assert bag_letter({"A": 0.6, "R": 0.35}, alike, None) == "A"          # a doubt the templates settle
    assert bag_letter({"R": 0.7, "A": 0.25}, alike, "R") == "#"           # they point away from the letter read
    assert bag_letter({"A": 0.9}, alike, "A") == "A"                      # they agree: nothing changes
    assert bag_letter({"A": 0.6, "R": 0.35}, {"A": 0.70, "R": 0.69, "B": 0.1}, None) is None   # nothing clear
    assert bag_letter({"A": 0.6, "R": 0.35}, alike, None, frozenset("A")) != "A"   # the printed value rules A out


def test_the_reader_fills_a_doubt_and_doubts_a_letter_the_templates_contradict() -> None:
    from kiosk.vision.reader import BoardReader

    doubted, read_r, sure_r, hand, second = 20, 21, 22, 23, 24
    crops = {sq: tile("A", 1) for sq in (doubted, read_r, sure_r, hand, second)}
    shares = {doubted: [0.55, 0.05, 0.40], second: [0.40, 0.05, 0.55]}   # by letter A, B, R; else R 0.70

    class Net:
        letters = ["A", "B", "R"]

        def letter_table(self, asked):
            rows = [next(shares.get(sq, [0.25, 0.05, 0.70]) for sq, c in crops.items() if c is crop) for crop in asked]
            return np.array(rows, np.float32), np.zeros((len(asked), 3), int)

    reader = BoardReader()
    reader.bag = BagTemplates.from_samples([(tile(lt, k), lt) for lt in "ABR" for k in range(2)])
    preds = {sq: SquarePrediction(0.01, 0.0, first, p, other, 0)
             for sq, first, other, p in ((doubted, "A", "R", 0.5), (read_r, "R", "A", 0.9), (sure_r, "R", "A", 0.995),
                                         (hand, "R", "A", 0.5), (second, "R", "A", 0.5))}
    squares = [SquareReading(SquareState.EMPTY, None, 1.0)] * 225
    squares[doubted] = squares[hand] = squares[second] = SquareReading(SquareState.UNSURE, None, 0.5)
    squares[read_r] = squares[sure_r] = SquareReading(SquareState.TILE, "R", 0.9)
    doubts = {doubted: Doubt(DoubtKind.LETTER, "letter A or R? (0.55)"),
              second: Doubt(DoubtKind.LETTER, "letter R or A? (0.55)"),
              hand: Doubt(DoubtKind.HAND, "hand over the square")}
    before = (list(squares), dict(doubts))
    assert reader._profile_templates(Net(), crops, squares, doubts, preds, None, keep=set(crops)) == []
    assert (squares, doubts) == before      # squares kept (the value's doubts, the glyph model's disputes)
    given = reader._profile_templates(Net(), crops, squares, doubts, preds, None)
    assert given == [doubted] and squares[doubted].letter == "A" and doubted not in doubts
    # the templates show A where the network's first letter is R: its second; the doubt stays (in hard light they
    # chose the network's second letter wrongly in 10 of 18 such fills)
    assert squares[second].state is SquareState.UNSURE and doubts[second] == "letter R or A? (0.55)"
    assert squares[read_r].state is SquareState.UNSURE and kind_of(doubts[read_r]) is DoubtKind.LETTER
    assert doubts[read_r] == "letter R? it looks more like the bag's A tiles (calibration photos)"
    assert squares[sure_r].letter == "R" and sure_r not in doubts        # the network's letter at 0.999+ stands
    assert squares[hand].state is SquareState.UNSURE and kind_of(doubts[hand]) is DoubtKind.HAND


def test_crops_grown_more_than_the_network_s_are_cut_about_their_centre_and_smaller_ones_named() -> None:
    wide = cv2.copyMakeBorder(tile("A"), 3, 3, 3, 3, cv2.BORDER_CONSTANT, value=0)   # grown 3 px more a side
    t = BagTemplates.from_samples([(wide, "A")])
    assert t.crops.shape == (1, CROP_PX, CROP_PX) and np.array_equal(t.crops[0], tile("A"))
    for bad, size in [(np.zeros((40, 40), np.uint8), "40 x 40"), (np.zeros((CROP_PX + 1,) * 2, np.uint8), ""),
                      (np.zeros((CROP_PX, CROP_PX + 2), np.uint8), "")]:
        with pytest.raises(ValueError, match=f"tile 2 \\(C\\) is a {size}"):
            BagTemplates.from_samples([(tile("A"), "A"), (bad, "C")])
