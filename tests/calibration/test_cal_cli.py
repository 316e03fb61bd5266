"""`kiosk calibrate ...` end to end through the real command line."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import main


def test_markers_pdf_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.pdf")]) == 0
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF")
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.png"), "--dpi", "100", "--paper", "letter"]) == 0
    img = cv2.imread(str(tmp_path / "m.png"), cv2.IMREAD_GRAYSCALE)
    assert img.shape == (round(279.4 / 25.4 * 100), round(215.9 / 25.4 * 100))
    assert "print at 100 %" in capsys.readouterr().out
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.gif")]) == 2


def test_intrinsics_from_a_folder_with_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from calibration.synthetic import random_views

    K = np.array([[430.0, 0, 200], [0, 430, 150], [0, 0, 1]])
    for i, v in enumerate(random_views(K, np.array([-0.1, 0.02, 0, 0, 0]), (400, 300), 6, seed=2)):
        cv2.imwrite(str(tmp_path / f"cb{i}.png"), v)
    (tmp_path / "notes.txt").write_text("not a photo")
    code = main(["calibrate", "intrinsics", str(tmp_path), "--report", str(tmp_path / "out" / "report.png")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "RMS reprojection error" in out.out and "fx 4" in out.out
    assert cv2.imread(str(tmp_path / "out" / "report.png")) is not None
    assert main(["calibrate", "intrinsics", str(tmp_path), "--max-rms", "0.0001"]) == 1
    assert "refused" in capsys.readouterr().err
    assert main(["calibrate", "intrinsics", str(tmp_path / "nope")]) == 2


def test_pose_and_exposure_from_a_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kiosk.rules.board import Board
    from kiosk.vision.synth import render_board

    f = render_board(Board(), seed=4, level="easy", size=(1024, 768))
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), f.image)
    assert main(["calibrate", "pose", "--image", str(photo), "--report", str(tmp_path / "pose.png")]) == 0
    out = capsys.readouterr().out
    assert "board pose from markers" in out
    x, y = (float(v) for v in out.split(" at ")[1].split()[0].split(","))
    assert abs(x - f.grid_corners_px[0, 0]) < 1.5 and abs(y - f.grid_corners_px[0, 1]) < 1.5
    corners = " ".join(f"{x:.0f},{y:.0f}" for x, y in f.grid_corners_px)
    assert main(["calibrate", "pose", "--image", str(photo), "--corners", corners]) == 0
    assert "from corners" in capsys.readouterr().out
    assert main(["calibrate", "exposure", "--image", str(photo)]) == 0
    assert "paper white" in capsys.readouterr().out
    dark = tmp_path / "dark.png"
    cv2.imwrite(str(dark), (f.image * 0.3).astype(np.uint8))
    assert main(["calibrate", "exposure", "--image", str(dark)]) == 1
    assert "too dark" in capsys.readouterr().err


def test_bad_inputs_give_messages_not_tracebacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate"]) == 2
    bogus = tmp_path / "bogus.png"
    bogus.write_bytes(b"junk")
    assert main(["calibrate", "pose", "--image", str(bogus)]) == 2
    assert "not a readable image" in capsys.readouterr().err
    assert main(["calibrate", "pose", "--image", str(tmp_path / "none.png")]) == 2
    with pytest.raises(SystemExit):
        main(["calibrate", "pose", "--image", str(bogus), "--corners", "1,2 3,4"])
    assert "expected 4 points" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["calibrate", "intrinsics", "x", "--pattern", "nine"])


def test_glyphs_step_trains_and_saves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kiosk.rules.board import Board
    from kiosk.vision.profile import load_profile
    from kiosk.vision.synth import render_board

    layout = ["QQQQQZZZZZ.....", "XXXXX.........."] + ["." * 15] * 13
    (tmp_path / "layout.txt").write_text("# three letters\n" + "\n".join(layout) + "\n")
    for s in (1, 2):
        f = render_board(Board.from_rows(layout), seed=s, scene_seed=8, level="easy", size=(1024, 768))
        cv2.imwrite(str(tmp_path / f"tiles{s}.png"), f.image)
    prof = tmp_path / "profile.json"
    code = main(["calibrate", "glyphs", "--images", str(tmp_path / "tiles1.png"), str(tmp_path / "tiles2.png"),
                 "--layout", str(tmp_path / "layout.txt"), "--folds", "2", "--report", str(tmp_path / "sheet.png"),
                 "--profile", str(prof)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "30 tile samples of 3 labels from 2 photos; cross-validated accuracy" in out.out
    assert load_profile(prof).glyph_model.data
    assert cv2.imread(str(tmp_path / "sheet.png")) is not None
    assert main(["calibrate", "glyphs", "--layout", str(tmp_path / "layout.txt")]) == 2   # no photos, no camera
    assert "--images" in capsys.readouterr().err
