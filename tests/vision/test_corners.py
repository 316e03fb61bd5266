"""One check of grid corners given by a person or a file (:mod:`kiosk.vision.corners`), used by every place that
takes them: ``read-board --corners``, ``calibrate pose --corners`` / ``--tap``, a recording's ``game.ini``
``warp-coord``, a profile's ``board.grid_corners_px`` / ``board.homography`` and the scripts' ``.corners.txt``.

Before, read-board's parser checked the text and FAR_PX, game.ini's parser finite numbers and FAR_PX, the
calibration CLI only the count, a profile nothing; the frame check (locate.corners_problem) took repeated points,
points on a line and crossed sides for one "not clockwise round a convex quad", and nothing checked a grid of
squares too small to read when no frame was at hand. Each kind is now refused with a sentence naming what is
wrong and where."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from kiosk.cli import main
from kiosk.vision.corners import CornersError, check_corners, corners_problem, parse_corners, read_corners_file
from kiosk.vision.profile import CalibrationProfile, ProfileError, load_profile
from kiosk.vision.scrabscrap import WarpCoordError, read_warp_coord

ROOT = Path(__file__).resolve().parents[2]
GRID = [[100.0, 90.0], [900.0, 110.0], [880.0, 700.0], [120.0, 690.0]]   # A1, O1, O15, A15: a board's grid
FRAME = (768, 1024, 3)

KINDS = [   # (corners, what the sentence says)
    ([[100, 90], [100, 90], [880, 700], [120, 690]], "point 1 (A1, at 100,90) and point 2 (O1, at 100,90) are the "
                                                     "same point"),
    ([[100, 100], [500, 500], [900, 900], [100, 900]], "point 1 (A1, at 100,100), point 2 (O1, at 500,500) and "
                                                       "point 3 (O15, at 900,900) lie on one line"),
    ([[100, 90], [880, 700], [900, 110], [120, 690]], "the sides A1-O1 and O15-A15 cross"),
    ([[100, 90], [900, 110], [400, 300], [120, 690]], "the quad is not convex at point 3 (O15, at 400,300)"),
    ([[120, 690], [880, 700], [900, 110], [100, 90]], "the corners go anticlockwise as seen in the image"),
    ([[10, 10], [40, 10], [40, 40], [10, 40]], "the corners make the grid's squares only 2.0 px across (at least 4 px"),
    ([[1e7, 90], [900, 110], [880, 700], [120, 690]], "point 1 (A1, at 1e+07,90) lies far outside any image"),
    ([[np.nan, 90], [900, 110], [880, 700], [120, 690]], "point 1 (A1) is not a finite number"),
    ([[1, 2], [3, 4]], "expected 4 points x,y (A1, O1, O15, A15), got an array of shape (2, 2)"),
]
IN_FRAME = [   # (corners, what the sentence says in a 1024x768 frame)
    ([[5000, 90], [9000, 110], [8800, 700], [5200, 690]], "the corners put 100 % of the grid outside the 1024x768 frame"),
    ([[10, 10], [110, 10], [110, 110], [10, 110]], "the grid covers only 1.3 % of the 1024x768 frame"),
]


def _text(corners) -> str:
    return " ".join(f"{x:g},{y:g}" for x, y in corners)


def test_a_board_s_grid_passes_in_any_order_of_checks():
    assert corners_problem(GRID) is None and corners_problem(GRID, FRAME) is None
    assert check_corners(GRID, "--corners", FRAME).dtype == np.float32
    assert parse_corners(_text(GRID), "--corners").tolist() == GRID


@pytest.mark.parametrize("corners, says, shape", [(*k, None) for k in KINDS] + [(*k, FRAME) for k in IN_FRAME],
                         ids=lambda v: str(v)[:30])
def test_each_kind_is_refused_with_a_sentence_naming_where(corners, says, shape):
    assert says in (corners_problem(corners, shape) or "")
    with pytest.raises(CornersError) as err:
        check_corners(corners, "game.ini: [default] warp-coord", shape)
    assert str(err.value).startswith("game.ini: [default] warp-coord: ") and says in str(err.value)
    assert err.value.where == "game.ini: [default] warp-coord" and says in err.value.problem


@pytest.mark.parametrize("corners, says", KINDS[:7], ids=lambda v: str(v)[:30])
def test_read_board_and_calibrate_refuse_each_kind_naming_the_option(corners, says, tmp_path, capsys):
    import cv2

    image = tmp_path / "board.png"
    cv2.imwrite(str(image), np.full(FRAME, 120, np.uint8))
    assert main(["read-board", str(image), "--corners", _text(corners)]) == 2
    err = capsys.readouterr().err
    assert f"kiosk read-board: --corners: {says}" in err, err
    with pytest.raises(SystemExit):
        main(["calibrate", "pose", "--image", str(image), "--corners", _text(corners)])
    err = capsys.readouterr().err
    assert "argument --corners: " in err and says in err, err


@pytest.mark.parametrize("corners, says", IN_FRAME, ids=lambda v: str(v)[:30])
def test_calibrate_pose_refuses_corners_its_frame_cannot_hold_naming_the_option(corners, says):
    from calibration import CalibrationError
    from calibration.pose import pose_from_corners

    with pytest.raises(CalibrationError, match=re.escape(f"--corners: {says}")):
        pose_from_corners(np.full(FRAME, 120, np.uint8), np.array(corners, np.float32), where="--corners")


@pytest.mark.parametrize("corners, says", KINDS[:7], ids=lambda v: str(v)[:30])
def test_game_ini_refuses_each_kind_naming_the_file_and_key(corners, says, tmp_path):
    ini = tmp_path / "game.ini"
    ini.write_text(f"[default]\nwarp-coord = {[[float(v) for v in p] for p in corners]}\n", encoding="utf-8")
    with pytest.raises(WarpCoordError) as err:
        read_warp_coord(ini)
    assert str(err.value).startswith(f"{ini}: [default] warp-coord: {says}"), str(err.value)


@pytest.mark.parametrize("corners, says", KINDS[:6], ids=lambda v: str(v)[:30])
def test_a_profile_s_grid_is_refused_naming_the_file_and_key(corners, says, tmp_path):
    import cv2

    path = tmp_path / "profile.json"
    CalibrationProfile(board_mode="fixed", grid_corners_px=np.array(corners, np.float32)).save(path)
    with pytest.raises(ProfileError, match=re.escape(f"{path}: board.grid_corners_px: {says}")):
        load_profile(path)
    if says.startswith("point 1 (A1, at 100,90) and"):
        return   # the same point twice: no homography to write
    from kiosk.vision.geometry import warp_grid_corners
    h = cv2.getPerspectiveTransform(np.array(corners, np.float32), warp_grid_corners())
    CalibrationProfile(board_mode="fixed", homography=h).save(path)
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    assert str(err.value).startswith(f"{path}: board.homography (the grid corners it puts in the image): "), err.value


def test_a_corners_file_is_read_and_checked_naming_the_file_and_line(tmp_path):
    path = tmp_path / "b.corners.txt"
    path.write_text("# TL TR BR BL\n" + "\n".join(f"{x} {y}" for x, y in GRID) + "\n", encoding="utf-8")
    assert read_corners_file(path).tolist() == GRID
    path.write_text("\n".join(f"{x} {y}" for x, y in KINDS[2][0]) + "\n", encoding="utf-8")
    with pytest.raises(CornersError, match=re.escape(f"{path}: {KINDS[2][1]}")):
        read_corners_file(path)
    path.write_text("100 90\n900,110\n", encoding="utf-8")
    with pytest.raises(CornersError, match=re.escape(f"{path}:2: expected 'x y' (a corner in px), got '900,110'")):
        read_corners_file(path)


def test_no_other_module_checks_corners_on_its_own():
    """One validator: FAR_PX and corners_problem live in kiosk.vision.corners only, and no script builds corners
    from a file's lines itself."""
    own = {ROOT / "kiosk" / "vision" / "corners.py"}
    found = [f"{p.relative_to(ROOT)}:{n}" for d in ("kiosk", "calibration", "scripts", "firmware_bridge")
             for p in sorted((ROOT / d).rglob("*.py")) if p not in own
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"FAR_PX|def corners_problem|def parse_corners|corners\.txt\"\)\.read_text|"
                          r"\.corners\.txt\"\)\]\)", line)]
    assert found == []
