"""Keeping what the last frame showed: the grid refitted locally (locate.track_grid) and the square network's
reading of a square that looks the same (reader.same_square). Real frames from ../shared (game04's camera drifts
a pixel or two between frames)."""

from __future__ import annotations

import configparser
import json

import cv2
import numpy as np

from kiosk.vision import locate
from kiosk.vision.images import read_image
from kiosk.vision.reader import same_square
from shared_data import SHARED, needs_shared

GAME = SHARED / "photos" / "scrabscrap" / "game04"


def _corners() -> np.ndarray:
    ini = configparser.ConfigParser()
    ini.read(GAME / "game.ini")
    return np.array(json.loads(ini["default"]["warp-coord"]), np.float32)


@needs_shared
def test_track_grid_follows_the_next_frame_as_a_full_fit_does():
    first, second = read_image(GAME / "image-6.jpg"), read_image(GAME / "image-7.jpg")
    h_prev = locate.from_corners(first, _corners())
    tracked = locate.track_grid(second, h_prev)
    assert tracked is not None
    full = locate.from_corners(second, _corners())
    gap = np.abs(locate.grid_corners_in_image(tracked) - locate.grid_corners_in_image(full)).max()
    assert gap < 1.5    # px on a 992 x 976 frame (a square is about 50 px)


@needs_shared
def test_track_grid_refuses_a_grid_moved_by_a_square():
    frame = read_image(GAME / "image-7.jpg")
    h = locate.from_corners(frame, _corners())
    shifted = np.array([[1, 0, -locate.WARP_CELL_PX * 0.6], [0, 1, 0], [0, 0, 1]], np.float64) @ h
    assert locate.track_grid(frame, shifted) is None


def test_same_square_tells_noise_from_a_changed_square():
    rng = np.random.default_rng(1)
    tile = np.full((60, 60), 200, np.uint8)
    a = tile.copy()
    cv2.putText(a, "R", (15, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.4, 30, 4)
    noisy = np.clip(a.astype(np.int16) + rng.integers(-6, 7, a.shape), 0, 255).astype(np.uint8)
    b = tile.copy()
    cv2.putText(b, "P", (15, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.4, 30, 4)
    assert same_square(a, noisy)
    assert not same_square(a, b)              # another letter
    assert not same_square(a, tile)           # the tile's letter gone (an empty-looking square)
    assert not same_square(a, a[:50, :50])    # another crop size
