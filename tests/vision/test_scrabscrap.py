"""The one parser of a ScrabScrap recording's ``game.ini`` corners (``[default] warp-coord``): its errors name the
file and the key, and every reader of such a folder (recording demo, calibration, vision scripts) uses it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from kiosk.vision.scrabscrap import WarpCoordError, read_warp_coord
from shared_data import SHARED, needs_shared

ROOT = Path(__file__).resolve().parents[2]
CORNERS = "[[5.0, 44.0], [908.0, 37.0], [910.0, 934.0], [21.0, 940.0]]"


def _ini(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "game.ini"
    p.write_text(text, encoding="utf-8")
    return p


def test_the_corners_are_4_points_float32_in_the_order_given(tmp_path):
    c = read_warp_coord(_ini(tmp_path, f"[default]\nname1 = A\nwarp-coord = {CORNERS}\n"))
    assert c.dtype == np.float32 and c.shape == (4, 2)
    assert c.tolist() == [[5, 44], [908, 37], [910, 934], [21, 940]]


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(WarpCoordError, match=re.escape(f"{tmp_path / 'game.ini'}: missing")):
        read_warp_coord(tmp_path / "game.ini")
    with pytest.raises(WarpCoordError, match="missing"):   # also when the caller could do without the corners
        read_warp_coord(tmp_path / "game.ini", required=False)


@pytest.mark.parametrize("text", ["[default]\nname1 = A\n", "[other]\nwarp-coord = [[1, 2]]\n", "[default]\nwarp-coord =\n"])
def test_a_missing_key_is_an_error_only_where_the_corners_are_needed(tmp_path, text):
    p = _ini(tmp_path, text)
    with pytest.raises(WarpCoordError, match=re.escape(f"{p}: no [default] warp-coord (the grid's 4 corners")):
        read_warp_coord(p)
    assert read_warp_coord(p, required=False) is None


@pytest.mark.parametrize("value, why", [
    ("[[1, 2]]", "needs 4 points [x, y]"),
    ("[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]", "needs 4 points [x, y]"),
    ("[[1, 2, 3], [3, 4], [5, 6], [7, 8]]", "needs 4 points [x, y]"),
    ("[1, 2, 3, 4]", "needs 4 points [x, y]"),
    ("[[1, 2], [3, 4]", "not a list of 4 points [x, y]"),
    ('[["a", 2], [3, 4], [5, 6], [7, 8]]', "must be numbers"),
    ("[[true, 2], [3, 4], [5, 6], [7, 8]]", "must be numbers"),
    ("[[null, 2], [3, 4], [5, 6], [7, 8]]", "must be numbers"),
    ("[[NaN, 2], [3, 4], [5, 6], [7, 8]]", "point 1 (A1) is not a finite number"),
    ("[[Infinity, 2], [3, 4], [5, 6], [7, 8]]", "point 1 (A1) is not a finite number"),
    ("[[1e300, 2], [3, 4], [5, 6], [7, 8]]", "point 1 (A1, at 1e+300,2) lies far outside any image"),
])
def test_a_malformed_value_names_the_file_the_key_and_why(tmp_path, value, why):
    p = _ini(tmp_path, f"[default]\nwarp-coord = {value}\n")
    for required in (True, False):
        with pytest.raises(WarpCoordError) as err:
            read_warp_coord(p, required=required)
        assert str(err.value).startswith(f"{p}: [default] warp-coord") and why in str(err.value), str(err.value)


def test_an_unreadable_file_is_named(tmp_path):
    p = tmp_path / "game.ini"
    p.write_bytes(b"[default]\nwarp-coord = \xff\xfe\n")
    with pytest.raises(WarpCoordError, match=re.escape(f"{p}:2: not UTF-8 text (byte 0xff): save it as UTF-8")):
        read_warp_coord(p)
    p.write_text("[default]\nwarp-coord\n", encoding="utf-8")   # configparser's error, with its line and section
    with pytest.raises(WarpCoordError, match=re.escape(f"{p}: line 2 'warp-coord' in [default]: not NAME = VALUE")):
        read_warp_coord(p)


@pytest.mark.parametrize("value", ["[[5.0, 44.0], [908.0, 37.0], [910.0, 934.0], [21.0, 940%]]",
                                   "[[5, 44], [908, 37], [910, 934], [21, %(y)s]]"])
def test_a_percent_sign_in_the_corners_is_named_not_a_traceback(tmp_path, value):
    """configparser's interpolation raised InterpolationSyntaxError (or InterpolationMissingOptionError) from
    inside the parser on a '%' in warp-coord: the recording demo ended in a traceback instead of naming the file.
    game.ini is now read as written (no interpolation): the value, '%' and all, is no list of points."""
    p = _ini(tmp_path, f"[default]\nname1 = A\nname2 = B\nwarp-coord = {value}\n")
    for required in (True, False):
        with pytest.raises(WarpCoordError) as err:
            read_warp_coord(p, required=required)
        assert str(err.value).startswith(f"{p}: [default] warp-coord: not a list of 4 points [x, y]"), str(err.value)
        assert repr(value) in str(err.value)


def test_no_other_module_parses_warp_coord():
    """One parser: the project's code names the key only in kiosk.vision.scrabscrap (and in prose)."""
    own = ROOT / "kiosk" / "vision" / "scrabscrap.py"
    parsing = [f"{p.relative_to(ROOT)}:{n}" for d in ("kiosk", "scripts", "calibration", "tests")
               for p in sorted((ROOT / d).rglob("*.py")) if p != own and p.name != Path(__file__).name
               for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"""\[\s*["']warp-coord["']\s*\]|get\([^)]*["']warp-coord["']""", line)]
    assert parsing == []


def test_the_recording_demo_keeps_a_folder_without_corners_and_names_bad_ones(tmp_path):
    from kiosk.app.recording import RecordingError, read_recording

    (tmp_path / "game.csv").write_text("Move, Button, State, Coord, Word, Points, Score1, Score2\n"
                                       '1, "green", "S1", "H4", "AB", 5, 5, 0\n', encoding="utf-8")
    _ini(tmp_path, "[default]\nname1 = Ann\nname2 = Bob\n")
    assert read_recording(tmp_path).corners is None       # the reader finds the board
    p = _ini(tmp_path, "[default]\nname1 = Ann\nname2 = Bob\nwarp-coord = [[NaN, 2], [3, 4], [5, 6], [7, 8]]\n")
    with pytest.raises(RecordingError, match=re.escape(f"{p}: [default] warp-coord: point 1 (A1) is not a finite number")):
        read_recording(tmp_path)
    _ini(tmp_path, f"[default]\nname1 = Ann\nname2 = Bob\nwarp-coord = {CORNERS}\n")
    assert read_recording(tmp_path).corners.tolist()[2] == [910, 934]


@needs_shared
@pytest.mark.parametrize("value, why, in_frame", [
    ("[[5.0, 44.0], [5.0, 44.0], [5.0, 44.0], [5.0, 44.0]]", "point 1 (A1, at 5,44) and point 2 (O1, at 5,44) are "
                                                             "the same point", False),
    ("[[908.0, 37.0], [5.0, 44.0], [21.0, 940.0], [910.0, 934.0]]", "clockwise (as seen in the image)", False),
    ("[[-5000.0, 44.0], [908.0, 37.0], [910.0, 934.0], [21.0, 940.0]]", "of the grid outside the 992x976 frame", True),
    ("[[5.0, 44.0], [50.0, 44.0], [50.0, 90.0], [5.0, 90.0]]", "the grid's squares only 3.0 px across", False),
    ("[[5.0, 44.0], [105.0, 44.0], [105.0, 144.0], [5.0, 144.0]]", "the grid covers only 1.0 %", True),
])
def test_the_recording_demo_refuses_corners_that_cannot_be_the_grid_in_its_frames(tmp_path, value, why, in_frame):
    """Corners that parse but cannot be a grid in the recording's frames (one point four times, mirrored, mostly
    outside the frame, tiny) were taken: every frame then read "bad corners" and the demo ran the whole game to
    "not finished: Stefan 0, Hanns 0" (39 judge interventions) without naming game.ini. They are refused up front,
    as read-board refuses such --corners: what no frame can make a grid when game.ini is read, the rest on its
    first frame (named)."""
    import shutil

    from kiosk.app.recording import RecordingError, read_recording

    game = SHARED / "photos" / "scrabscrap" / "game01"
    shutil.copy(game / "game.csv", tmp_path / "game.csv")
    shutil.copy(game / "image-1.jpg", tmp_path / "image-1.jpg")
    p = _ini(tmp_path, f"[default]\nname1 = Ann\nname2 = Bob\nwarp-coord = {value}\n")
    with pytest.raises(RecordingError) as err:
        read_recording(tmp_path)
    msg = str(err.value)
    assert msg.startswith(f"{p}: [default] warp-coord: ") and why in msg and ("image-1.jpg" in msg) == in_frame, msg
    _ini(tmp_path, f"[default]\nname1 = Ann\nname2 = Bob\nwarp-coord = {CORNERS}\n")   # the recorded corners stand
    assert read_recording(tmp_path).corners.tolist()[0] == [5, 44]
