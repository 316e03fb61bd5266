"""A board knocked between two moves under a still camera (issue 22, a review): scrabscrap game01 read frame after
frame, then frame 9 on turned or shifted about the board's centre (the board stays moved). The tracked grid was
lost or kept whole squares off: a board turned 4 degrees read "ok" with known tiles gone and others misread
(read through the corners where it lay), turned 8 degrees "no board", shifted by a square "hand over the board"
with every letter one column off; turned 2 degrees under given corners its grid stayed 0.2 squares off. Now the
board is found again where it went and reads as before, or the verdict says it moved."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.commands.read_board import NET_NEW_LETTER_P
from kiosk.rules.tiles import GERMAN
from kiosk.vision import locate, presence, still
from kiosk.vision.game import GameReader, grid_corners
from kiosk.vision.images import read_image
from kiosk.vision.reader import BoardReader
from shared_data import SHARED, game_corners, needs_shared

GAME = SHARED / "photos" / "scrabscrap" / "game01"
BEFORE = (6, 7, 8)       # frames read where the board lay (the first holds more than a move: read alone)
MOVED = (9, 10)          # then read with the board moved


def _truth(n: int) -> list[str]:
    return (GAME / "truth" / f"image-{n}.txt").read_text(encoding="utf-8").split()


def _transform(kind: str, amount: float) -> np.ndarray:
    """2x3: the board turned ``amount`` degrees about its centre (cv2's sense) or shifted ``amount`` px right."""
    if kind == "turned":
        c = game_corners(GAME).mean(axis=0)
        return cv2.getRotationMatrix2D((float(c[0]), float(c[1])), amount, 1.0)
    return np.array([[1, 0, amount], [0, 1, 0]], np.float64)


def _moved(image: np.ndarray, m: np.ndarray) -> np.ndarray:
    return cv2.warpAffine(image, m, (image.shape[1], image.shape[0]), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def _game(given: bool) -> GameReader:
    reader = BoardReader(GERMAN)
    return GameReader(reader.read, reader.tile_set, corners=game_corners(GAME) if given else None,
                      new_letter_p=NET_NEW_LETTER_P)


def _read_before(game: GameReader) -> np.ndarray:
    """Read BEFORE in ``game``; the grid's corners in the last of them (4x2 px)."""
    for n in BEFORE:
        reading = game.read_game(read_image(GAME / f"image-{n}.jpg")).reading
        game.accept(reading)
        assert reading.quality.ok and reading.homography is not None, n
    return grid_corners(reading.homography).astype(np.float64)


@needs_shared
@pytest.mark.parametrize("given", [True, False], ids=["given corners", "found corners"])
@pytest.mark.parametrize("kind, amount, verdict", [
    ("turned", 2, "ok"), ("turned", 4, "ok"), ("turned", -4, "ok"), ("turned", 8, "ok"),
    ("shifted", 60, "ok"),                                   # a whole square: its lines lie where the old ones lay
    ("shifted", 300, "board partly outside the frame"),      # five squares, a quarter of it out of view
])
def test_a_knocked_board_is_found_again_where_it_went_and_reads_as_before(given, kind, amount, verdict):
    game = _game(given)
    before = _read_before(game)
    m = _transform(kind, amount)
    want = cv2.transform(before.reshape(-1, 1, 2), m).reshape(4, 2)
    square = float(np.linalg.norm(before[1] - before[0])) / 15
    for n in MOVED:
        reading = game.read_game(_moved(read_image(GAME / f"image-{n}.jpg"), m)).reading
        game.accept(reading)
        assert reading.quality.verdict == verdict, (n, reading.quality.verdict)
        assert reading.homography is not None
        off = float(np.linalg.norm(grid_corners(reading.homography) - want, axis=1).max()) / square
        assert off < 0.05, (n, off)          # squares, at the worst corner
        truth, grid = _truth(n), reading.grid()
        wrong = [(r, c, grid[r][c], truth[r][c]) for r in range(15) for c in range(15)
                 if grid[r][c] not in (truth[r][c], "#")]
        assert wrong == [], n
        assert sum(row.count("#") for row in grid) <= 3 or verdict != "ok", n   # the doubts of the board unmoved


@needs_shared
@pytest.mark.parametrize("degrees, said", [
    (4, "the board moved: its lines run about 4 degrees turned from where the frame before had them, and it was "
        "not found again; check the corners or the board"),
    (8, "the board moved: no board at the given corners (no grid lines along them: what lies there runs about "),
])
def test_a_knocked_board_not_found_again_is_said_to_have_moved(monkeypatch, degrees, said):
    """Where the board is not found again (found_again failing, as on a board too far out of view), it is not
    read through the corners where it lay ("ok" with known tiles gone, turned 4 degrees): the verdict says the
    board moved, in a sentence naming the corners' check."""
    game = _game(True)
    _read_before(game)
    monkeypatch.setattr(still, "found_again", lambda frame, last: (None, presence.turn(frame, last)))
    reading = game.read_game(_moved(read_image(GAME / "image-9.jpg"), _transform("turned", degrees))).reading
    assert not reading.quality.ok and not reading.quality.board_found
    assert reading.quality.verdict.startswith(said), reading.quality.verdict
    assert "hand" not in reading.quality.verdict


@needs_shared
def test_turn_measures_how_far_the_board_turned():
    """The turn is measured from the board as the recorded corners put it: the board itself lies about 0.3 degrees
    off them (the turn of the frame as recorded), so the turned frames are judged against that reading. (Judged
    against 0, 12 degrees read 11.39 with the OpenCV 5.0.0.93 wheel, just outside the 0.6 it once met.)"""
    frame = read_image(GAME / "image-9.jpg")
    h = locate.from_corners(frame, game_corners(GAME))
    as_recorded = presence.turn(frame, h)
    assert abs(as_recorded) < 0.5
    for degrees in (-12, -8, -4, -1, 2, 4, 8, 12):
        turned = presence.turn(_moved(frame, _transform("turned", degrees)), h)
        assert abs(turned - as_recorded - degrees) < 0.45, (degrees, turned, as_recorded)


@needs_shared
def test_a_fresh_fit_for_a_doubt_finds_the_knocked_board_where_it_went():
    """A reading with doubts on a kept grid is read again on a grid fitted afresh from the corners
    (GridTracker.refit): under a fixed camera those are where the board lay before it was knocked; the fresh fit
    looks for it again from the grid it keeps, and does not go back to where it lay."""
    corners = game_corners(GAME)
    tracker = still.GridTracker()
    frame = read_image(GAME / "image-8.jpg")
    for _ in range(still.SETTLE_REFITS + 1):
        before = locate.grid_corners_in_image(tracker.grid(frame, corners)).astype(np.float64)
    m = _transform("turned", 4)
    moved = _moved(read_image(GAME / "image-9.jpg"), m)
    want = cv2.transform(before.reshape(-1, 1, 2), m).reshape(4, 2)
    square = float(np.linalg.norm(before[1] - before[0])) / 15
    for h in (tracker.grid(moved, corners), tracker.refit(moved)):
        assert h is not None
        assert float(np.linalg.norm(locate.grid_corners_in_image(h) - want, axis=1).max()) / square < 0.05
    assert tracker.keep_before_refit() and tracker.current is not None   # found again there: the same grid
    assert float(np.linalg.norm(locate.grid_corners_in_image(tracker.current) - want, axis=1).max()) / square < 0.05


@needs_shared
def test_a_fresh_fit_of_a_moved_board_is_kept_over_the_grid_before_it():
    """A reading's doubts on a kept grid ask for a fresh fit (GridTracker.refit); the grid kept before it is
    taken back only when the fresh fit lies where it was (keep_before_refit), never for a board moved since."""
    corners = game_corners(GAME)
    tracker = still.GridTracker()
    frame = read_image(GAME / "image-8.jpg")
    for _ in range(still.SETTLE_REFITS + 1):
        before = tracker.grid(frame, corners)
    fresh = tracker.refit(_moved(read_image(GAME / "image-9.jpg"), _transform("turned", 4)))
    assert fresh is not None and locate.grid_shift_squares(before, fresh) >= locate.TRACK_STILL_SQUARES
    assert not tracker.keep_before_refit() and tracker.current is fresh
    assert not tracker.keep_before_refit()     # one refit, taken back at most once


@needs_shared
def test_a_few_known_tiles_read_empty_leave_the_reading_in_use():
    """Fewer known tiles read empty than OFF_KNOWN_MIN (a move taken back off the board, tiles knocked off): the
    reading is used, those squares read empty for the game to name them gone."""
    reader = BoardReader(GERMAN)
    game = GameReader(reader.read, GERMAN, corners=game_corners(GAME), new_letter_p=NET_NEW_LETTER_P)
    _read_before(game)
    known = list(game.prior.board)
    frame = read_image(GAME / "image-9.jpg")
    truth = "".join(_truth(9))
    empty = [sq for sq in range(225) if truth[sq] == "."][:7]   # 7 tiles the game holds that lie there no more
    for sq in empty:
        known[sq] = "E"
    reading = reader.read(frame, game_corners(GAME), known="".join(known))
    assert reading.quality.ok
    assert sum(reading.squares[sq].char() == "." for sq in empty) >= 5
