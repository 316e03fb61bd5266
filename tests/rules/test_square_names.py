"""One name for a square: :func:`kiosk.rules.board.square_name` (column letter then row number, "H8"; GCG's
coordinates add the direction: ``8D`` across, ``D8`` down). The vision diff, the recording judge, the synthetic
camera's errors, read-board's JSON and scripts/read_errors.py each wrote their own copy
(``kiosk.vision.diff.square_label`` was one)."""

from __future__ import annotations

import re
from pathlib import Path

from kiosk.control.words import square_label
from kiosk.rules.board import CENTRE, SIZE, parse_coordinate, square_name, team_label
from kiosk.vision import diff

ROOT = Path(__file__).resolve().parents[2]
COPY = re.compile(r"""['"]ABCDEFGHIJKLMNO['"]""")   # the column letters spelt out again


def test_the_column_letters_are_spelt_once_in_the_project_s_code():
    copies = [f"{p.relative_to(ROOT)}:{n}" for d in ("kiosk", "calibration", "firmware_bridge", "scripts")
              for p in sorted((ROOT / d).rglob("*.py"))
              for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if COPY.search(line)]
    assert copies == ["kiosk/rules/board.py:23"]


def test_the_vision_diff_names_squares_with_the_rules_name():
    assert not hasattr(diff, "square_label") and not hasattr(diff, "COLUMNS")
    before = ["." * 15] * 7 + [".......A......."] + ["." * 15] * 7
    after = ["." * 15] * 15
    (gone,) = diff.diff_boards(before, after).anomalies
    assert gone.detail == f"{square_name(CENTRE)}: tile A is gone" == "H8: tile A is gone"


def test_every_square_s_name_is_the_down_coordinate_of_that_square_and_the_sheet_s_labels_agree():
    for sq in range(SIZE * SIZE):
        r, c = divmod(sq, SIZE)
        coord = parse_coordinate(square_name(sq))          # letter first: down, from that square
        assert (coord.row, coord.col, coord.across) == (r, c, False)
        across = parse_coordinate(f"{r + 1}{square_name(sq)[0]}")   # number first: across
        assert (across.row, across.col, across.across) == (r, c, True)
        assert square_label(sq) == square_name(sq) and square_label(sq, "letters") == team_label(sq)
