"""``kiosk read-board`` on images without a board read (1x1, 20x20, blank): stderr says why ("no board read:
frame too small (1x1 px)"), exit 1; stdout keeps one block per image in the order given, 15 rows of '#' (nothing
read) for such an image, so that a tool pairing boards with images by order (``../shared/checks/measure.py``)
stays aligned; with --json its entry has "grid": null and "error". An image not read at all (a file that cannot
be decoded, one too large to decode, refused before any decoding; with --corners one of another size) gets its
block of '#' too, with a line saying why, and makes the exit status 2."""

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


def test_a_bomb_is_refused_before_decoding_and_prints_nothing_read(tmp_path, capsys):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_claiming(30000, 30000))
    assert main(["read-board", str(bomb)]) == 2
    out, err = capsys.readouterr()
    assert "30000x30000 px" in err
    assert out.splitlines()[:15] == ["#" * 15] * 15 and out.splitlines()[15].startswith(f"# {bomb}: 0.0 ms; not read: ")


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


def _truncated(folder, board_png):
    made = folder / "trunc.png"
    data = board_png.read_bytes()
    made.write_bytes(data[:len(data) // 2])      # a file cut at half its bytes: not decodable
    return made


def _parse_boards(out):
    """The blocks as ``../shared/checks/measure.py``'s ``parse_boards`` takes them (its own, when ../shared is there)."""
    from shared_data import SHARED
    if (SHARED / "checks" / "measure.py").is_file():
        import importlib.util
        spec = importlib.util.spec_from_file_location("measure", SHARED / "checks" / "measure.py")
        assert spec is not None and spec.loader is not None
        measure = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(measure)
        return measure.parse_boards(out)
    rows = [line.strip() for line in out.splitlines() if len(line.strip()) == 15]
    return [rows[i:i + 15] for i in range(0, len(rows) - 14, 15)]


@pytest.mark.parametrize("sequence", [[], ["--sequence"]])
def test_an_image_that_cannot_be_decoded_gets_its_block_in_order(board, tmp_path, capsys, sequence):
    """Found by a tester: a JPEG cut at half its bytes got only its line on stderr and no block, so every later
    board was paired with the wrong image (measure.py compared game01's frames with the truth of the frame before).
    Now every image gets its block in the order given: one that cannot be decoded, 15 rows of '#' (nothing read)
    and a line saying why; the error is still on stderr and the exit status 2."""
    path, truth = board
    made = _no_boards(tmp_path)
    cut = _truncated(tmp_path, path)
    rc = main(["read-board", *sequence, str(made["blank.png"]), str(cut), str(path)])
    out, err = capsys.readouterr()
    assert rc == 2 and f"kiosk read-board: {cut}: not a readable image" in err
    assert _parse_boards(out) == [["#" * 15] * 15, ["#" * 15] * 15, truth]
    lines = out.splitlines()
    assert len(lines) == 48 and lines[31].startswith(f"# {cut}: ") and "not a readable image" in lines[31]
    assert lines[47].startswith(f"# {path}: ")


def test_an_image_the_corners_do_not_fit_and_a_bomb_get_their_blocks(board, tmp_path, capsys):
    """The other images not read at all (a decompression bomb refused before decoding; with --corners, a frame of
    another size than the first) keep their place too: a block of '#' and a line saying why."""
    path, truth = board
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_claiming(30000, 30000))
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((380, 507, 3), 128, np.uint8))
    rc = main(["read-board", str(path), str(bomb), str(small), str(path), "--corners", "100,100 900,100 900,700 100,700"])
    out, err = capsys.readouterr()
    assert rc == 2 and "30000x30000 px" in err and f"{small}: 507x380 px, but --corners were given" in err
    boards = _parse_boards(out)
    assert len(boards) == 4 and boards[1] == boards[2] == ["#" * 15] * 15
    lines = out.splitlines()
    assert lines[31].startswith(f"# {bomb}: ") and lines[47].startswith(f"# {small}: ")
