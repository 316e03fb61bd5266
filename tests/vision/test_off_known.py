"""A grid whole squares off the board's squares (:meth:`kiosk.vision.reader.BoardReader._off_known`): it lies on
printed lines all the same, so nothing in the frame alone refuses it; in a game the known tiles read shifted by
those squares, and the reading is not used. Seen in a `validation-2` hard game: a search with a hand over the lines
slipped three squares, every known tile and new tile read empty with verdict ok, and the slipped grid was kept
for the next moves. Here the slip is made by the corners' fit, on a rendered board (built-in faces). Tiles that
moved themselves match no shift: that reading stands, for the game to name each square."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from kiosk.rules.tiles import ENGLISH
from kiosk.vision import locate
from kiosk.vision.game import GameReader, prior_from_board
from kiosk.vision.geometry import WARP_CELL_PX, warp_grid_corners
from kiosk.vision.reader import OFF_KNOWN_MIN, BoardReader, known_shift
from kiosk.vision.synth import render_board
from kiosk.vision.synth.boards import random_board

SEED = 2**30 + 10   # a classic board, tournament tiles: its border takes a grid moved a square or two


def _frame(seed: int = SEED, tiles: int = 50):
    return render_board(random_board(seed, tiles, ENGLISH), seed=seed, level="typical", tile_set=ENGLISH)


def _off(corners: np.ndarray, cols: int, rows: int) -> np.ndarray:
    """The homography of the grid of ``corners`` (A1, O1, O15, A15 px) moved ``cols`` whole columns right and
    ``rows`` rows down."""
    h = locate.homography_from_grid_corners(corners)
    moved = warp_grid_corners().astype(np.float64) + np.array([cols, rows]) * WARP_CELL_PX
    return locate.homography_from_grid_corners(cv2.perspectiveTransform(moved.reshape(-1, 1, 2),
                                                                        np.linalg.inv(h)).reshape(4, 2))


SAID = re.compile(r"the camera reads the board off its squares: (\d+) of the (\d+) tiles the game holds read "
                  r"(.+) of where they were played; check the corners or the board")


@pytest.mark.parametrize(("cols", "rows", "away"), [(0, 1, "1 row up"), (0, -1, "1 row down"),
                                                    (1, 0, "1 column left"), (-1, 0, "1 column right")])
def test_a_grid_off_the_known_tiles_is_not_used_and_is_fitted_again(monkeypatch, cols, rows, away):
    """A row off: 28 of the 50 known tiles read empty; a column off: 22 empty and 26 as other letters (the
    letters of the column beside), which a reading without the game takes as they are."""
    fr = _frame()
    corners = fr.grid_corners_px.astype(np.float64)
    known = "".join(fr.truth)
    fit = locate.fit_corners
    monkeypatch.setattr(locate, "fit_corners", lambda image, c, refine=True: (_off(corners, cols, rows), True))
    reader = BoardReader(ENGLISH)
    off = reader.read(fr.image, corners, known=known)
    assert not off.quality.ok and off.quality.board_found     # given corners: the board is where they say
    said = SAID.fullmatch(off.quality.verdict)
    assert said, off.quality.verdict
    assert int(said[2]) == 50 and int(said[1]) >= max(OFF_KNOWN_MIN, 0.6 * 50) and said[3] == away
    # the grid is forgotten: the next frame is fitted from the corners again (a grid kept would be tracked where
    # it lay, off the squares again)
    monkeypatch.setattr(locate, "fit_corners", fit)
    again = reader.read(fr.image, corners, known=known)
    assert again.quality.ok and again.grid() == fr.truth


def test_corners_a_game_found_are_dropped_and_the_board_searched_again(monkeypatch):
    """Corners a game kept from an earlier frame (not given) that now give a grid off the squares are dropped:
    the next frame is searched afresh (here by the board's markers) and read right."""
    fr = _frame()
    reader = BoardReader(ENGLISH)
    known = "".join(fr.truth)
    game = GameReader(reader.read, ENGLISH, prior=lambda: prior_from_board(known, ENGLISH))
    assert game.read_game(fr.image).reading.quality.ok and game.corners is not None
    found = game.corners.copy()
    fit = locate.fit_corners
    monkeypatch.setattr(locate, "fit_corners", lambda image, c, refine=True: (_off(found, 0, 1), True))
    reader.forget_board_pose()   # the kept grid fitted again from the game's corners
    off = game.read_game(fr.image).reading
    assert not off.quality.ok and not off.quality.board_found and "check the board and the camera" in off.quality.verdict
    assert game.corners is None
    monkeypatch.setattr(locate, "fit_corners", fit)
    assert game.read_game(fr.image).reading.grid() == fr.truth


def test_tiles_that_moved_themselves_are_read_as_they_lie():
    """A board other than the one the game holds (tiles swept off and laid again elsewhere): most known tiles
    read empty or otherwise, but no shift of the reading finds them; the reading is used, as read (a letter the
    game's tiles of another letter look like is a doubt, none is wrong)."""
    fr = _frame()
    other = "".join(_frame(SEED + 1).truth)
    (_, _), shifted, here = known_shift(other, fr.truth)
    assert shifted < 0.3 * sum(ch != "." for ch in other)
    reading = BoardReader(ENGLISH).read(fr.image, fr.grid_corners_px.astype(np.float64), known=other)
    assert reading.quality.ok
    got, truth = "".join(reading.grid()), "".join(fr.truth)
    assert all(g in (t, "#") for g, t in zip(got, truth)) and sum(g == t != "." for g, t in zip(got, truth)) >= 35


def test_known_shift_finds_the_columns_and_rows():
    grid = ["." * 15] * 15
    grid[7] = "....CAT........"
    known = "." * (7 * 15 + 3) + "CAT" + "." * (225 - 7 * 15 - 6)
    assert known_shift(known, grid) == ((1, 0), 3, 0)       # read one column right of where it lies
    grid[7], grid[9] = "." * 15, "...CAT........."
    assert known_shift(known, grid) == ((0, 2), 3, 0)       # two rows down


def _judge(known_rows: dict[int, str], read_rows: dict[int, str]):
    """BoardReader._off_known on a reading made of ``read_rows`` (row -> 15 characters; other rows empty) for a
    game holding ``known_rows``, under given corners."""
    from kiosk.vision.reading import GIVEN_CORNERS, BoardReading

    known = "".join(known_rows.get(r, "." * 15) for r in range(15))
    reading = BoardReading.from_grid([read_rows.get(r, "." * 15) for r in range(15)])
    return BoardReader(ENGLISH)._off_known(reading, known, GIVEN_CORNERS)


@pytest.mark.parametrize(("word", "refused"), [("RETAINS", False), ("STRAINED", True)])
def test_a_whole_move_read_shifted_is_not_enough_eight_tiles_are(word, refused):
    """OFF_KNOWN_MIN: 7 known tiles read one column over (all of them, a rack's worth) leave the reading in use;
    8 do not."""
    row = "..." + word + "." * (12 - len(word))
    got = _judge({7: row}, {7: "." + row[:-1]})
    assert got.quality.ok is not refused
    if refused:
        assert "8 of the 8 tiles the game holds read 1 column right" in got.quality.verdict


@pytest.mark.parametrize(("shifted_rows", "refused"), [(1, False), (2, True)])
def test_half_the_known_tiles_must_read_otherwise(shifted_rows, refused):
    """OFF_KNOWN_SHARE: of 24 known tiles in three rows of 8, 8 read one column over (a third; the rest doubts,
    `#`) leave the reading in use; 16 (two thirds) do not."""
    rows = {3: "...STRAINED....", 7: "...RETAINER....", 11: "...LATRINES...."}
    read = {r: ("." + w[:-1] if i < shifted_rows else "#" * 15) for i, (r, w) in enumerate(rows.items())}
    assert _judge(rows, read).quality.ok is not refused


def test_tiles_read_otherwise_that_no_shift_finds_leave_the_reading_in_use():
    """OFF_KNOWN_SHIFTED: 16 known tiles read empty, the reading's tiles elsewhere unlike them: no shift finds
    them (the tiles moved themselves), the reading is used."""
    rows = {3: "...STRAINED....", 7: "...RETAINER...."}
    assert _judge(rows, {12: "...ZYZZYVAS...."}).quality.ok
