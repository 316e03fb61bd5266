"""Calibration results written into the reader's profile (kiosk.vision.profile), and the profile then used:
a glyph model trained by `capture_glyphs` makes the real BoardReader read a board."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import CalibrationError
from calibration.exposure import ExposureLock
from calibration.glyphs import capture_glyphs
from calibration.intrinsics import IntrinsicsResult
from calibration.pose import pose_from_corners
from calibration.profile_io import glyph_trainer, load_or_new, save_result, undistort
from kiosk.cli import main
from kiosk.rules.board import Board
from kiosk.vision.profile import load_profile


def synth(rows: list[str], seed: int, size: tuple[int, int] = (1024, 768)):
    from kiosk.vision.synth import render_board

    return render_board(Board.from_rows(rows), seed=seed, scene_seed=5, level="easy", size=size)


EMPTY = ["." * 15] * 15


def test_results_merge_into_one_profile(tmp_path: Path) -> None:
    path = tmp_path / "site" / "profile.json"
    K = np.array([[900.0, 0, 512], [0, 900, 384], [0, 0, 1]])
    save_result(path, "intrinsics", IntrinsicsResult(K, np.array([-0.1, 0.01, 0, 0, 0]), (1024, 768), 0.21))
    f = synth(EMPTY, 1)
    save_result(path, "pose", pose_from_corners(f.image, f.grid_corners_px))
    save_result(path, "exposure", ExposureLock(8000, 1.25, (1.9, 1.6)))
    p = load_profile(path)
    assert np.allclose(p.camera_matrix, K) and p.image_size == (1024, 768)
    assert p.board_mode == "fixed" and np.abs(p.grid_corners_px - f.grid_corners_px).max() < 1.5
    assert p.camera_settings == {"exposure_us": 8000, "analogue_gain": 1.25, "awb_gains": [1.9, 1.6],
                                 "auto_exposure": False}
    assert len(p.notes.splitlines()) == 3 and "0.210 px" in p.notes
    assert not (tmp_path / "site" / "profile.json.tmp").exists()
    # readable by the kiosk's service user, as every other output (a tester found it written owner-only, 0600)
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_profile_path_that_is_not_a_regular_file_is_named_not_read(tmp_path: Path) -> None:
    """A FIFO given as the profile made read-board, the recording demo and calibrate pose wait for ever."""
    import os

    from kiosk.vision.profile import ProfileError

    fifo, folder = tmp_path / "f.json", tmp_path / "d.json"
    os.mkfifo(fifo)
    folder.mkdir()
    with pytest.raises(ProfileError, match="f.json: not a regular file"):
        load_profile(fifo)
    with pytest.raises(ProfileError, match="d.json: is a folder, not a calibration profile"):
        load_profile(folder)
    prof = tmp_path / "p.json"     # a model file the profile names, a FIFO too
    prof.write_text(json.dumps({"format": "kiosk-vision-profile", "version": 1,
                                "glyph_model": {"path": "f.json", "data": None}}))
    with pytest.raises(ProfileError, match="f.json: not a regular file"):
        load_profile(prof).resolve(load_profile(prof).glyph_model)


def test_a_pose_records_the_frame_size_its_grid_was_measured_at(tmp_path: Path) -> None:
    """The fixed grid belongs to frames of one size: the profile says which (board.image_size)."""
    path = tmp_path / "profile.json"
    f = synth(EMPTY, 2, size=(800, 600))
    save_result(path, "pose", pose_from_corners(f.image, f.grid_corners_px))
    assert json.loads(path.read_text())["board"]["image_size"] == [800, 600]
    assert load_profile(path).board_image_size == (800, 600)


def test_corrupt_or_foreign_profile_is_refused_and_left_alone(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON.*left as it is"):
        save_result(bad, "exposure", ExposureLock(1, 1.0, (1.0, 1.0)))
    assert bad.read_text() == "{not json"
    bad.write_text(json.dumps({"format": "kiosk-vision-profile", "version": 99}))
    with pytest.raises(CalibrationError, match="version 99"):
        load_or_new(bad)
    with pytest.raises(CalibrationError, match="nothing to lock"):
        save_result(tmp_path / "new.json", "exposure", ExposureLock(None, None, None))


def test_undistort_matches_the_profile_scaled_to_the_frame() -> None:
    from kiosk.vision.profile import CalibrationProfile

    img = np.zeros((300, 400, 3), np.uint8)
    cv2.line(img, (0, 150), (399, 150), (255, 255, 255), 1)
    p = CalibrationProfile(camera_matrix=np.array([[800.0, 0, 400], [0, 800, 300], [0, 0, 1]]),
                           distortion=np.array([-0.3, 0.1, 0, 0, 0]), image_size=(800, 600))
    out = undistort(img, p)
    assert out.shape == img.shape and not np.array_equal(out, img)
    assert undistort(img, CalibrationProfile()) is img


def test_trained_glyph_model_reads_the_board(tmp_path: Path) -> None:
    layout = ["AAAAAQQQQQXXXXX", "OOOOOZZZZZ....."] + ["." * 15] * 13
    photos = [synth(layout, s).image for s in (1, 2)]
    result = capture_glyphs(photos, layout, train=glyph_trainer("english", folds=3))
    assert result.cv_accuracy is not None and result.cv_accuracy > 0.9
    path = tmp_path / "profile.json"
    save_result(path, "glyphs", result)
    profile = load_profile(path)
    assert profile.glyph_model.data and profile.tile_set == "english"
    from kiosk.vision.bag_templates import BagTemplates  # the photos' tiles kept as letter templates, a few a letter
    templates = BagTemplates.from_text(profile.letter_templates.data)
    assert sorted(set(templates.letters)) == sorted(set("AQXOZ")) and len(templates.letters) <= 4 * 5
    assert "cross-validated accuracy" in profile.notes

    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.reader import BoardReader

    board = ["." * 15] * 7 + ["....QZAXO......"] + ["." * 15] * 7
    reading = BoardReader(ENGLISH, profile).read(synth(board, 7).image)
    assert reading.grid()[7] == "....QZAXO......"


def test_cli_builds_a_profile_step_by_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from calibration.synthetic import random_views

    K = np.array([[430.0, 0, 200], [0, 430, 150], [0, 0, 1]])
    shots = tmp_path / "chessboard"
    shots.mkdir()
    for i, v in enumerate(random_views(K, np.zeros(5), (400, 300), 6, seed=5)):
        cv2.imwrite(str(shots / f"{i}.png"), v)
    prof = tmp_path / "profile.json"
    assert main(["calibrate", "intrinsics", str(shots), "--profile", str(prof)]) == 0
    f = synth(EMPTY, 2, (800, 600))
    cv2.imwrite(str(tmp_path / "board.png"), f.image)
    assert main(["calibrate", "pose", "--image", str(tmp_path / "board.png"), "--profile", str(prof)]) == 0
    out = capsys.readouterr()
    assert "undistorted with the profile's intrinsics" in out.err and "saved pose" in out.out
    p = load_profile(prof)
    assert p.camera_matrix is not None and p.board_mode == "markers" and p.homography is not None
    prof.write_text("garbage")
    # a corrupt profile is bad input (exit 2, as read-board --calibration), not a refused result (1)
    assert main(["calibrate", "pose", "--image", str(tmp_path / "board.png"), "--profile", str(prof)]) == 2
    assert "corrupt" in capsys.readouterr().err and prof.read_text() == "garbage"


def test_the_network_overrules_or_doubts_a_glyph_model_taught_the_wrong_letters(tmp_path: Path) -> None:
    """A bag laid out in another order than the layout says teaches the glyph model E for F and F for E, surely
    (its own cross-validation cannot tell). The shipped network reads first and its sure letters stand; where it is
    less sure, the two readers' disagreement is a doubt: no E is given as F, nor F as E, without a doubt."""
    from calibration.glyphs import default_layout
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.reader import BoardReader

    rows = default_layout()
    told = ["".join({"E": "F", "F": "E"}.get(ch, ch) for ch in row) for row in rows]
    photos = [synth([r.replace("?", "a") for r in rows], s).image for s in (1, 2)]
    result = capture_glyphs(photos, told, train=glyph_trainer("english", folds=0))
    path = tmp_path / "profile.json"
    save_result(path, "glyphs", result)
    board = ["." * 15] * 7 + ["...FEEDER......", "...E...........", "...F..........."] + ["." * 15] * 5
    reading = BoardReader(ENGLISH, load_profile(path)).read(synth(board, 7).image)
    got = "".join(reading.grid())
    truth = "".join(board)
    lettered = [sq for sq, ch in enumerate(truth) if ch in "EF"]
    assert all(got[sq] in (truth[sq], "#") for sq in lettered), reading.grid()[7:10]
    assert sum(got[sq] == truth[sq] for sq in lettered) >= len(lettered) - 2


def test_a_profile_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """An editor that writes a UTF-8 BOM made the profile 'not valid JSON (... decode using utf-8-sig)'."""
    path = tmp_path / "profile.json"
    f = synth(EMPTY, 2, size=(800, 600))
    save_result(path, "pose", pose_from_corners(f.image, f.grid_corners_px))
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_profile(bom).board_image_size == (800, 600)
