"""``kiosk read-board`` on images without a board read (1x1, 20x20, blank): stderr says why ("no board read:
frame too small (1x1 px)"), exit 1; stdout keeps one block per image in the order given, 15 rows of '#' (nothing
read) for such an image, so that a tool pairing boards with images by order (``../shared/checks/measure.py``)
stays aligned; with --json its entry has "grid": null and "error". A file too large to decode is refused (exit 2)
before any reading, nothing on stdout."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from image_files import png_claiming
from kiosk.cli import main
from kiosk.rules.board import Board
from kiosk.vision.synth import render_board


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    frame = render_board(Board.from_rows(["." * 15] * 7 + [".....HOUSE....."] + ["." * 15] * 7), seed=5, level="easy",
                         size=(1014, 760))
    path = tmp_path_factory.mktemp("rb") / "board.png"
    cv2.imwrite(str(path), frame.image)
    return path, frame.truth


def _no_boards(folder):
    made = {}
    for name, image in (("one.png", np.full((1, 1, 3), 128, np.uint8)), ("twenty.png", np.full((20, 20, 3), 128, np.uint8)),
                        ("blank.png", np.full((760, 1014, 3), 128, np.uint8))):
        made[name] = folder / name
        cv2.imwrite(str(made[name]), image)
    return made


@pytest.mark.parametrize("name, why", [("one.png", "frame too small (1x1 px)"), ("twenty.png", "frame too small (20x20 px)"),
                                       ("blank.png", "blank frame")])
def test_a_frame_without_a_board_read_prints_nothing_read(tmp_path, capsys, name, why):
    path = _no_boards(tmp_path)[name]
    assert main(["read-board", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[:15] == ["#" * 15] * 15 and f"kiosk read-board: {path}: no board read: {why}" in err


def test_a_bomb_prints_nothing_on_stdout(tmp_path, capsys):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_claiming(30000, 30000))
    assert main(["read-board", str(bomb)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "30000x30000 px" in err


def test_the_boards_keep_their_order_and_json_says_null(board, tmp_path, capsys):
    path, truth = board
    made = _no_boards(tmp_path)
    assert main(["read-board", str(made["one.png"]), str(path), str(made["blank.png"])]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()      # one block of 16 lines per image, in the order given
    assert len(lines) == 48 and lines[:15] == ["#" * 15] * 15 and lines[16:31] == truth
    assert lines[31].startswith(f"# {path}: ") and lines[32:47] == ["#" * 15] * 15
    assert err.count("no board read") == 2
    assert main(["read-board", str(made["twenty.png"]), str(path), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data[0]["grid"] is None and data[0]["error"] == "no board read: frame too small (20x20 px)"
    assert data[1]["grid"] == truth and "error" not in data[1]
