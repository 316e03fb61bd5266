"""``kiosk read-board``: output format, per-image errors, bad arguments."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.cli import main
from kiosk.rules.board import Board
from kiosk.vision.synth import render_board


@pytest.fixture(scope="module")
def board_png(tmp_path_factory):
    board = Board.from_rows(["..............."] * 7 + [".....HOUSE....."] + ["..............."] * 7)
    fr = render_board(board, seed=5, level="easy", size=(1014, 760))
    p = tmp_path_factory.mktemp("rb") / "board.png"
    cv2.imwrite(str(p), fr.image)
    return p, fr.truth


def test_reader_cli_prints_15_rows_and_a_timing_line_per_image(board_png, capsys, tmp_path):
    path, truth = board_png
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg at all")
    rc = main(["read-board", str(path), str(broken), str(path)])
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2 * 16
    for k in (0, 16):
        assert lines[k:k + 15] == truth
        assert lines[k + 15].startswith(f"# {path}: ") and " ms " in lines[k + 15]
        assert len(lines[k + 15].strip()) != 15
    assert rc == 1 and "broken.jpg" in err and "not a readable image" in err and "Traceback" not in err


def test_reader_cli_json_and_corners(board_png, capsys):
    import json
    path, truth = board_png
    rc = main(["read-board", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data[0]["grid"] == truth and "total" in data[0]["timings_ms"]


@pytest.mark.parametrize("args, message", [
    (["--corners", "1,2 3,4"], "expected 4 points"),
    (["--corners", "1,2 3,4 5,x 7,8"], "point 3"),
    (["--calibration", "/nonexistent/profile.json"], "cannot read"),
])
def test_reader_cli_bad_arguments(board_png, capsys, args, message):
    path, _ = board_png
    rc = main(["read-board", str(path), *args])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err


def test_reader_cli_missing_file(capsys, tmp_path):
    rc = main(["read-board", str(tmp_path / "missing.jpg")])
    err = capsys.readouterr().err
    assert rc == 1 and "missing.jpg" in err


def test_reader_cli_annotate_writes_png(board_png, capsys, tmp_path):
    path, truth = board_png
    rc = main(["read-board", str(path), "--annotate", str(tmp_path / "ann")])
    capsys.readouterr()
    png = tmp_path / "ann" / "board.read.png"
    img = cv2.imread(str(png))
    assert rc == 0 and img is not None and img.shape[1] == 2 * img.shape[0]


def test_reader_cli_frame_without_a_board_is_reported_and_fails(capsys, tmp_path):
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((10, 10, 3), 128, np.uint8))
    rc = main(["read-board", str(tiny)])
    out, err = capsys.readouterr()
    assert rc == 1 and "tiny.png: no board read: frame too small (10x10 px)" in err
    rows = out.splitlines()
    assert len(rows) == 16 and all(r == "#" * 15 for r in rows[:15]) and "()" not in rows[15]
