"""Letters in fonts never trained on (vision issue 22): a letter the square network reads that does not hold when
its square is read 6% larger or smaller is a doubt, not a guess (``reader._letters_not_held``); a clear letter
still reads. The frames are drawn in the **validation** faces (:mod:`kiosk.vision.synth.fonts`), the ones the
rule was chosen on; the held-out faces are measured by ``kiosk bench-vision --fonts held-out`` only."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from kiosk.rules.tiles import ENGLISH
from kiosk.vision import reader as reader_module
from kiosk.vision import tile_value
from kiosk.vision.reader import BoardReader, default_square_net
from kiosk.vision.squarenet import CROP_PX, scaled
from kiosk.vision.synth import fonts
from shared_data import SHARED, needs_shared

# validation frame 194 of `kiosk bench-vision --level typical --frames 500 --seed 12 --fonts validation`: an
# Averia Serif Bold G on square 22 (H2) that the network reads C (P(C | tile) 0.18 read 6% larger or smaller).
# (Until the network shipped with the width augmentation it was frame 44 of --frames 200 --seed 11, a Cardo Bold J
# read I; that network reads the J right.)
FRAMES, FRAME, SEED, SQUARE, TRUTH, GUESS, FONT = 500, 194, 12, 22, "G", "C", "averia-serif-bold"
FIRST_VALIDATION = ("tribun-extrabold", "averia-serif-bold", "cardo-bold", "accanthis-bold", "sora-extrabold",
                    "tiresias-infofont-bold", "beteckna-bold", "oxygen-sans-bold")


@cache
def _frame():
    from kiosk.rules.board import Board
    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    s = bench.corpus_samples(SHARED, FRAMES, seed=SEED)[FRAME]
    assert s.tile_set.name == "english"
    from kiosk.vision.synth.levels import get_level

    # the validation faces as the table held them when the example was found: the face a frame draws, and the
    # scene after it, depend on how many faces the role holds (16 since the third sitting)
    return render_board(Board(s.board.cells), seed=bench.frame_seed("typical", FRAME, SEED),
                        level=get_level("typical").with_(fonts=FIRST_VALIDATION), tile_set=ENGLISH, size=(2028, 1520))


def _read(frame):
    """The frame read by the square network alone (``letter_net=False``): the rule is tested on what that network
    makes of the face (the shipped letter network reads this example's letter surely); without the stroke-direction
    check (``shapes=False``), which doubts the same letter (tests/vision/test_letter_shapes.py)."""
    reading = BoardReader(ENGLISH, letter_net=False, shapes=False).read(frame.image)
    return "".join(reading.grid()), reading.doubts


@needs_shared
def test_a_letter_that_does_not_hold_scaled_is_a_doubt_and_clear_letters_still_read(monkeypatch):
    absent = [f for f in FIRST_VALIDATION if f not in fonts.present(fonts.VALIDATION)]
    if absent:
        pytest.skip(f"{', '.join(fonts.BY_NAME[f].package for f in absent)} not installed (scripts/system-packages.txt)")
    fr = _frame()
    assert fr.meta["font"] == FONT
    truth = "".join(fr.truth)
    assert truth[SQUARE] == TRUTH
    # the doubt is answered by the tile's printed value: of the letters the network gives, only the truth is
    # worth the value in its corner (kiosk.vision.tile_value.letters_by_value)
    assert _read(fr)[0][SQUARE] == TRUTH
    monkeypatch.setattr(tile_value, "PICK_P", 2.0)   # without that answer: the doubt
    got, doubts = _read(fr)
    assert got[SQUARE] == "#", got
    assert "does not hold read 6% larger or smaller" in doubts[SQUARE], doubts
    letters = [sq for sq in range(225) if truth[sq].isalpha()]
    assert len(letters) > 30
    assert all(got[sq] == truth[sq] for sq in letters if sq != SQUARE), (got, truth)   # clear letters still read
    # without the rule the same square is a wrong letter given without doubt but for the later checks: the
    # value printed on the tile (kiosk.vision.tile_value) and the tile counts (kiosk.vision.tile_counts)
    monkeypatch.setattr(reader_module, "HOLD_P", 0.0)
    got_before, doubts_before = _read(fr)
    assert got_before[SQUARE] == "#" and doubts_before[SQUARE] == (
        f"letter {GUESS}? its tile's printed value reads {ENGLISH.values[TRUTH]}, but {GUESS} is worth "
        f"{ENGLISH.values[GUESS]}")
    monkeypatch.setattr(reader_module, "over_set", lambda reading, *a: reading)
    monkeypatch.setattr(reader_module, "default_value_net", lambda: None)
    got_before, _ = _read(fr)
    assert got_before[SQUARE] == GUESS


def test_scaling_keeps_a_crop_and_its_size_and_letter_shares_name_the_given_letter():
    rng = np.random.default_rng(3)
    crop = rng.integers(0, 255, (CROP_PX, CROP_PX), dtype=np.uint8)
    assert np.array_equal(scaled(crop, 1.0), crop)
    big = scaled(crop, 1.06)
    assert big.shape == crop.shape and big.dtype == np.uint8 and not np.array_equal(big, crop)
    net = default_square_net("english")
    shares = net.letter_shares([crop, crop, crop], ["A", "E", "Ä"])
    assert shares.shape == (3,) and shares[2] == 0.0 and np.all((shares >= 0) & (shares <= 1))
    assert net.letter_shares([], []).shape == (0,)


def test_a_letter_that_does_not_hold_alone_asks_for_no_refit(monkeypatch):
    """A fresh grid fit costs a first reading; an unfamiliar font's letter stays doubtful on any grid (on game01
    the refit for it made the steady median 41-46 -> 52-65 ms), and so does a tile across two squares; other
    doubts may clear there."""
    import dataclasses

    from kiosk.vision.reading import BoardReading
    from kiosk.vision.slid import SLID_DOUBT

    held = f"letter E {reader_module.HOLD_DOUBT} (P 0.31; an unfamiliar font?)"
    reader = BoardReader(ENGLISH)
    reader._tracker.kept = True
    fresh_reads: list[bool] = []

    def refits(doubts: dict[int, str], lasting: set[int]) -> bool:
        def fake_read(frame, corners, fresh=False, known=None, source=None):  # noqa: ANN001, ANN202 - the reader's own _read, stubbed
            fresh_reads.append(fresh)
            reader._lasting_doubts = set() if fresh else set(lasting)
            return dataclasses.replace(BoardReading.from_grid(["." * 15] * 15), doubts=dict(doubts))

        monkeypatch.setattr(reader, "_read", fake_read)
        fresh_reads.clear()
        reader.read(np.zeros((8, 8, 3), np.uint8), np.zeros((4, 2), np.float32))
        return fresh_reads == [False, True]

    assert not refits({}, set())
    assert not refits({3: held, 4: held}, {3, 4})
    assert not refits({3: SLID_DOUBT, 4: SLID_DOUBT, 5: held}, {3, 4, 5})
    assert refits({3: held, 5: "letter T or I? (0.62)"}, {3})
