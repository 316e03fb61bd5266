"""A hand or arm over the board is found (the frame's verdict, the squares under it), and hand-free frames of
the same scenes raise no false alarm (a false "hand" verdict would block the kiosk)."""

from __future__ import annotations

import numpy as np
import pytest

from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision.reader import BoardReader
from kiosk.vision.synth.boards import random_board
from kiosk.vision.synth.levels import get_level
from kiosk.vision.synth.render import render_board
from shared_data import benchmark_frame, needs_shared

HAND = "hand over the board"
# (board seed, tiles, tile set, frame seed): typical frames whose hand covers many squares (light skin on a
# beige board with cream tiles; a hand over wooden tiles with a blue sleeve entering from the bottom)
CASES = [(1000, 20, ENGLISH, 7_000_000), (1003, 41, GERMAN, 7_000_003)]


@pytest.fixture(scope="module")
def readers() -> dict[str, BoardReader]:
    return {ts.name: BoardReader(ts) for ts in (ENGLISH, GERMAN)}


def _frame(case, hand_prob: float):
    board_seed, n_tiles, tile_set, seed = case
    board = random_board(board_seed, n_tiles=n_tiles, tile_set=tile_set)
    level = get_level("typical").with_(hand_prob=hand_prob)
    return render_board(board, seed=seed, level=level, tile_set=tile_set, size=(2028, 1520))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"board{c[0]}")
def test_hand_is_found(case, readers) -> None:
    fr = _frame(case, 1.0)
    assert fr.meta["hand"] and len(fr.occluded) > 30
    r = readers[case[2].name].read(fr.image)
    assert r.quality.hand and r.quality.verdict == HAND
    flagged = {sq for sq, why in r.doubts.items() if why == "hand over the square"}
    assert len(flagged) >= 0.25 * len(fr.occluded)
    assert len(flagged - fr.occluded) <= 1      # the squares flagged are those under the hand


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"board{c[0]}")
def test_no_hand_no_alarm(case, readers) -> None:
    fr = _frame(case, 0.0)
    assert not fr.meta["hand"]
    r = readers[case[2].name].read(fr.image)
    assert not r.quality.hand and r.quality.verdict != HAND


def test_flat_squares_shape() -> None:
    from kiosk.vision.cells import CANVAS_PX
    from kiosk.vision.quality import flat_squares, hand_squares

    canvas = np.full((CANVAS_PX, CANVAS_PX, 3), 128, np.uint8)
    flat, unlike = flat_squares(canvas)
    assert flat.shape == (225,) and unlike.shape == (225,) and not unlike.any()
    assert not hand_squares(canvas, np.zeros(225, bool)).any()   # a uniform canvas: no board, but no hand


def test_squares_under_the_hand_are_never_guessed(readers) -> None:
    """The hand's fingers reach past its palm: a covered square reads as its truth or unsure, not as empty or a
    wrong letter. Before the hand was grown over its fingers 30 of these 580 covered squares read wrong; now at
    most 3 (frame 19: two fingertips blurred over the green board, beyond the squares next to the hand found,
    read as blanks, and a letter under one read as another)."""
    level = get_level("typical").with_(hand_prob=1.0)
    wrong, covered = [], 0
    for k in (0, 3, 5, 7, 10, 13, 16, 18, 19, 22):
        tile_set = ENGLISH if k % 2 == 0 else GERMAN
        board = random_board(2000 + k, n_tiles=30 + (k * 7) % 60, tile_set=tile_set)
        fr = render_board(board, seed=7_100_000 + k, level=level, tile_set=tile_set, size=(2028, 1520))
        grid, truth = "".join(readers[tile_set.name].read(fr.image).grid()), "".join(fr.truth)
        covered += len(fr.occluded)
        wrong += [(k, sq, truth[sq], grid[sq]) for sq in fr.occluded if grid[sq] not in (truth[sq], "#")]
    assert covered > 300 and len(wrong) <= 3, wrong


def test_hidden_squares_set_no_class_colour() -> None:
    """Skin over half of the triple-letter squares must not become their empty colour: measured with the hand's
    squares left out, a visible (navy) triple-letter square looks like its class, not like a tile."""
    from kiosk.vision.cells import PREMIUM_CLASSES, CellStats
    from kiosk.vision.occupancy import features

    beige, navy, skin, wood = (170, 200, 215), (110, 50, 20), (130, 165, 230), (70, 140, 200)   # BGR
    colour = np.array([navy if c == "t" else beige for c in PREMIUM_CLASSES], np.float32)
    colour[[112, 113, 114, 115, 116, 117, 118, 127, 142]] = wood           # a word of wooden tiles
    tls = np.flatnonzero(PREMIUM_CLASSES == "t")
    hand = np.zeros(225, bool)
    hand[tls[:7]] = True
    hand[[90, 91, 92, 105, 106, 107]] = True
    colour[hand] = skin
    n = len(colour)
    stats = CellStats(colour, np.full(n, 4.0, np.float32), np.full(n, 0.02, np.float32), np.ones(n, np.float32))
    visible = tls[~hand[tls]]
    assert features(stats)[visible, 3].min() > 1.0           # the class's colour taken from the skin
    assert features(stats, hidden=hand)[visible, 3].max() < 0.05


def test_hidden_squares_set_no_light_field() -> None:
    """A sleeve little darker than the board over six columns passes the light fit's outlier test and bends the
    fitted light; left out of the fit, the plain squares beside it normalise to the board's own colour (0)."""
    from kiosk.vision.cells import PREMIUM_CLASSES, CellStats
    from kiosk.vision.occupancy import normalised_colour

    colour = np.array([(170, 200, 215) if c == "." else (110, 50, 20) for c in PREMIUM_CLASSES], np.float32)
    arm = np.zeros((15, 15), bool)
    arm[:, 9:] = True                                      # from the right edge over six columns
    arm = arm.reshape(-1)
    colour[arm] = (155, 188, 215)                          # a beige sleeve, a little darker than the board
    n = len(colour)
    stats = CellStats(colour, np.full(n, 4.0, np.float32), np.full(n, 0.02, np.float32), np.ones(n, np.float32))
    beside = np.flatnonzero((PREMIUM_CLASSES == ".") & ~arm)
    assert np.abs(normalised_colour(stats)[beside]).max() > 0.02
    assert np.abs(normalised_colour(stats, hidden=arm)[beside]).max() < 1e-6


def _read_benchmark_hand_frame(index: int, finger_doubts: tuple[int, ...] = ()) -> tuple[str, str]:
    """Read typical benchmark frame ``index`` (a hand drawn over the board): the verdict is "hand" and every
    square the hand does not cover reads right, but the squares ``finger_doubts`` may read ``#`` as a letter
    that a finger may have cut (next to the hand; letters read just at NEAR_HAND_LETTER_P, so the numeric stack
    and the network shipped decide which of them). Returns (read, truth), 225 characters each."""
    fr, tile_set = benchmark_frame("typical", index)
    assert fr.meta["hand"]
    r = BoardReader(tile_set).read(fr.image)
    assert r.quality.verdict == HAND
    grid, truth = "".join(r.grid()), "".join(fr.truth)
    wrong = [sq for sq in range(225) if sq not in fr.occluded and grid[sq] != truth[sq]]
    assert set(wrong) <= set(finger_doubts), wrong
    for sq in wrong:
        assert grid[sq] == "#" and "under a finger? (" in r.doubts[sq] and "next to the hand" in r.doubts[sq]
    return grid, truth


@needs_shared
def test_hand_over_a_premium_class_leaves_its_squares_empty() -> None:
    """Typical benchmark frame 439: a hand covers 6 of the 12 navy triple-letter squares of a green board. With
    the skin taken for their empty colour, the two visible ones (J2, F10) read unsure (a tile? F10's print an E
    or F?); measured without the hand they read empty, and nothing outside the hand is wrong. Two Hershey
    triplex letters beside the hand (K4's C, G11's I) may be doubts: the square network with the width
    augmentation gave them P(letter | tile) 0.998-0.999, at what a letter next to a hand needs
    (NEAR_HAND_LETTER_P; on the Pi's numpy and OpenCV G11's I read I); with the letter network both read."""
    grid, truth = _read_benchmark_hand_frame(439, finger_doubts=(55, 156))
    assert grid[1 * 15 + 9] == grid[9 * 15 + 5] == "."


@needs_shared
def test_fingers_read_as_blanks_reveal_a_hand_not_found() -> None:
    """Typical benchmark frame 190: a motion-blurred hand over the beige board shows the grid lines through it
    and is not found; its fingers read as 5 tiles without a letter, so with the real blank (D11, navy tournament
    tile) the frame had 6 and all were doubted. Four of them side by side are fingers: the frame says "hand"
    and the real blank reads as a blank. K7's S beside the hand reads S 0.999 with the letter network, at what
    a letter next to a hand needs: a doubt or the letter."""
    grid, truth = _read_benchmark_hand_frame(190, finger_doubts=(6 * 15 + 10,))
    assert truth[10 * 15 + 3] == grid[10 * 15 + 3] == "?"
