"""A fixed camera's calibration belongs to frames of the size it was measured at (``board.image_size``): frames
of another size with the same view read through the grid scaled to them, frames of another aspect ratio are
refused with a sentence. Before, the grid was used in px whatever the frame's size: a frame 1.5x the size read
"ok" with letters on the wrong squares, a half-size one "hand over the board"."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from kiosk.rules.board import Board
from kiosk.rules.tiles import ENGLISH
from kiosk.vision import locate
from kiosk.vision.profile import CalibrationProfile, FrameSizeError, load_profile
from kiosk.vision.reader import BoardReader
from kiosk.vision.reading import SquareState
from kiosk.vision.synth import render_board

MEASURED_AT = (1352, 1014)     # (width, height) px of the frames the calibration was measured on


@pytest.fixture(scope="module")
def frame():
    rows = ["." * 15] * 6 + [".......J.......", "....QUARTZ.....", "........O......"] + ["." * 15] * 6
    return render_board(Board.from_rows(rows), seed=3, level="easy", size=MEASURED_AT)


def _resized(image: np.ndarray, scale: float) -> np.ndarray:
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)


def _saved_fixed_profile(frame, tmp_path, **sizes) -> CalibrationProfile:
    """The fixed camera's calibration of ``frame`` (its known grid corners) written and loaded again."""
    path = tmp_path / "profile.json"
    CalibrationProfile(board_mode="fixed", grid_corners_px=frame.grid_corners_px, **sizes).save(path)
    return load_profile(path)


@pytest.mark.parametrize("scale", [1.5, 0.5])
def test_a_fixed_camera_reads_frames_of_another_size_with_the_same_view(frame, tmp_path, scale):
    """2028x1520 calibrated, 4056x3040 or 1014x760 read: the grid scaled to the frame reads the same letters."""
    profile = _saved_fixed_profile(frame, tmp_path, board_image_size=MEASURED_AT)
    assert json.loads((tmp_path / "profile.json").read_text())["board"]["image_size"] == list(MEASURED_AT)
    reader = BoardReader(ENGLISH, profile)
    same = reader.read(frame.image)
    assert same.quality.verdict == "ok" and same.grid() == frame.truth
    r = reader.read(_resized(frame.image, scale))
    assert r.quality.verdict == "ok", r.quality.verdict
    assert r.grid() == frame.truth
    corners = locate.grid_corners_in_image(r.homography)
    assert np.abs(corners - ((frame.grid_corners_px + 0.5) * scale - 0.5)).max() < 0.01


def test_frames_of_another_aspect_ratio_are_refused_naming_both_sizes(frame, tmp_path):
    reader = BoardReader(ENGLISH, _saved_fixed_profile(frame, tmp_path, board_image_size=MEASURED_AT))
    r = reader.read(cv2.resize(frame.image, (1280, 720)))
    said = "the camera's frames are 1280x720 px but its calibration was measured at 1352x1014 px: calibrate the " \
           "camera again"
    assert r.quality.verdict == said and not r.quality.board_found and r.homography is None
    assert all(sq.state is SquareState.UNSURE for sq in r.squares) and set(r.doubts.values()) == {said}
    # within 1 % of the aspect ratio is the same view (a sensor mode cropped by a few px)
    assert reader.read(cv2.resize(frame.image, (1350, 1004))).grid() == frame.truth


def test_an_older_profile_takes_the_lens_calibration_s_frame_size(frame, tmp_path):
    """Without board.image_size, camera.image_size (the frames of the lens calibration) says the size."""
    reader = BoardReader(ENGLISH, _saved_fixed_profile(frame, tmp_path, image_size=MEASURED_AT))
    r = reader.read(_resized(frame.image, 0.5))
    assert r.quality.verdict == "ok" and r.grid() == frame.truth


def test_an_older_profile_without_a_frame_size_refuses_a_grid_that_cannot_lie_in_the_frame(frame, tmp_path):
    """A profile recording no frame size whose grid cannot be the grid in its first frame (half-size frames put
    most of it outside) is refused with a sentence, and takes no size from that frame."""
    profile = _saved_fixed_profile(frame, tmp_path)
    assert profile.board_image_size is None and profile.image_size is None
    r = BoardReader(ENGLISH, profile).read(_resized(frame.image, 0.5))
    assert not r.quality.board_found and profile.taken_size is None
    assert r.quality.verdict == "the camera's calibration cannot be the grid in its 676x507 px frames (the corners " \
                                "put 76 % of the grid outside the 676x507 frame; the calibration does not record " \
                                "the frame size it was measured at): calibrate the camera again"


@pytest.mark.parametrize("size", [(2028, 1521), (676, 507), (1280, 720)], ids=["1.5x", "half", "16:9"])
def test_an_older_profile_without_a_frame_size_takes_the_first_frame_s_and_refuses_other_sizes(frame, tmp_path,
                                                                                               caplog, size):
    """Before, a profile recording no frame size laid its grid in px on frames of any size: the wrong squares read.
    Now it takes its first frame's size (logged, once) and refuses a later frame of another size with the sentence
    a profile recording that size gives a frame it cannot be scaled to; frames of its size still read."""
    profile = _saved_fixed_profile(frame, tmp_path)
    reader = BoardReader(ENGLISH, profile)
    with caplog.at_level("WARNING", logger="kiosk.vision.profile"):
        assert reader.read(frame.image).grid() == frame.truth
        other = reader.read(cv2.resize(frame.image, size))
        assert reader.read(frame.image).grid() == frame.truth
    said = [r.getMessage() for r in caplog.records if r.name == "kiosk.vision.profile"]
    assert said == ["the calibration records no frame size; taking 1352x1014 px from the first frame: calibrate the "
                    "pose again to record it"]
    assert profile.taken_size == MEASURED_AT and profile.to_dict()["board"]["image_size"] is None  # never saved
    refusal = f"the camera's frames are {size[0]}x{size[1]} px but its calibration was measured at 1352x1014 px: " \
              "calibrate the camera again"
    assert other.quality.verdict == refusal and not other.quality.board_found
    assert all(sq.state is SquareState.UNSURE for sq in other.squares)
    keyed = CalibrationProfile(board_mode="fixed", grid_corners_px=frame.grid_corners_px, board_image_size=MEASURED_AT)
    with pytest.raises(FrameSizeError) as keyed_refusal:   # the same sentence, where the key's size cannot scale
        keyed.fixed_homography(1280, 720)
    assert str(keyed_refusal.value) == "the camera's frames are 1280x720 px but its calibration was measured at " \
                                       "1352x1014 px: calibrate the camera again"
