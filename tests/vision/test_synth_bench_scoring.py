"""The benchmark's scoring (kiosk.vision.train.bench): figures, confusion PNG, annotated error PNG."""

from __future__ import annotations

import math

import cv2
import numpy as np

from kiosk.rules.board import Board
from kiosk.vision.synth import render_board
from kiosk.vision.train.bench import FrameResult, Tally, annotated_png, confusion_png

EMPTY = ["." * 15] * 15


def _grid(**cells: str) -> list[str]:
    rows = [list(r) for r in EMPTY]
    for name, ch in cells.items():
        col, row = "ABCDEFGHIJKLMNO".index(name[0]), int(name[1:]) - 1
        rows[row][col] = ch
    return ["".join(r) for r in rows]


def test_synth_bench_perfect_reading_scores_100():
    truth = _grid(H8="C", I8="A", J8="?")
    t = Tally()
    t.add(FrameResult(0, truth, list(truth), set(), {}))
    f = t.figures()
    assert f["occupancy"] == f["occupancy_sure"] == f["letters"] == f["blanks"] == f["exact_boards"] == 100.0
    assert math.isnan(f["unsure_share_of_errors"])


def test_synth_bench_counts_wrong_unsure_and_covered_squares():
    truth = _grid(H8="C", I8="A", J8="?", K8="T")
    read = _grid(H8="G", I8="#", J8="?", K8="T", A1="#")   # C misread, A unsure, an empty square unsure
    t = Tally()
    t.add(FrameResult(0, truth, read, set(), {"tile_style": "wooden"}))
    f = t.figures()
    assert t.letters == 3 and t.letters_right == 1
    assert t.tile_errors == 2 and t.tile_errors_unsure == 1
    assert f["unsure_share_of_errors"] == 50.0
    assert t.empty_read_unsure == 1
    assert f["occupancy"] == 100.0 * 224 / 225  # the empty square read "#"; the tile read "#" is not empty
    assert f["occupancy_sure"] == 100.0 * 223 / 225  # strict: both squares read "#" are occupancy misses
    assert f["exact_boards"] == 0.0
    assert t.confusion[("C", "G")] == 1 and t.confusion[("A", "#")] == 1
    # a square under a hand read '#' is neither counted nor an exact-board failure
    t2 = Tally()
    t2.add(FrameResult(1, truth, _grid(H8="#", I8="A", J8="?", K8="T"), {7 * 15 + 7}, {}))
    assert t2.figures()["exact_boards"] == 100.0 and t2.letters == 2 and t2.letters_right == 2  # H8 left out


def test_synth_bench_pngs_are_written(tmp_path):
    truth = _grid(H8="C", I8="A")
    read = _grid(H8="G", I8="#")
    t = Tally()
    fr = FrameResult(0, truth, read, set(), {})
    t.add(fr)
    confusion_png(t, tmp_path / "c.png", "test")
    img = cv2.imread(str(tmp_path / "c.png"))
    assert img is not None and img.shape[0] > 50
    frame = render_board(Board.from_rows(truth), seed=1, level="easy", size=(1014, 760))
    annotated_png(frame.image, frame.grid_corners_px, fr, tmp_path / "a.png")
    a = cv2.imread(str(tmp_path / "a.png"))
    assert a is not None
    red = (a[:, :, 2] > 200) & (a[:, :, 1] < 60) & (a[:, :, 0] < 60)
    assert red.sum() > 100 and np.any(a != 0)  # the misread square is boxed in red


def test_synth_bench_counts_letters_and_silent_errors_per_face(capsys):
    """bench-vision's per-face lines (with system faces): letters right and tiles read wrong without doubt, per
    frame's ``meta["font"]``; a '#' is an error but not a silent one, a covered square is not counted."""
    from kiosk.commands.bench_vision import _per_face

    truth = _grid(H8="C", I8="A", J8="?", K8="T")
    t = Tally()
    t.add(FrameResult(0, truth, _grid(H8="G", I8="#", J8=".", K8="T"), set(), {"font": "face-a"}))
    t.add(FrameResult(1, truth, list(truth), {10 * 15 + 7}, {"font": "face-b"}))
    t.add(FrameResult(2, truth, _grid(H8="C", I8="A", J8="?", K8="#"), {7 * 15 + 7}, {"font": "face-b"}))
    a, b = t.by_face["face-a"], t.by_face["face-b"]
    assert (a.frames, a.letters, a.letters_right, a.tiles, a.silent) == (1, 3, 1, 4, 2)   # C read G, blank read empty
    assert (b.frames, b.letters, b.letters_right, b.tiles, b.silent) == (2, 5, 4, 7, 0)   # H8 covered in frame 2
    _per_face(t)
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "    face-a: 1 frames, letters 1/3 (33.33%), read wrong silently 2 of 4 tiles (50.00%)", out
    assert out[2] == "    face-b: 2 frames, letters 4/5 (80.00%), read wrong silently 0 of 7 tiles (0.00%)", out
