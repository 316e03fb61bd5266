"""Temporal gating and the board diff (pure logic, no camera)."""

from __future__ import annotations

import pytest

from kiosk.vision.diff import diff_boards
from kiosk.vision.gating import EMPTY_GRID, ReadingGate
from kiosk.vision.reading import BoardReading, FrameQuality


def grid_with(**cells: str) -> list[str]:
    """An empty grid with the given squares set, e.g. grid_with(H8="A")."""
    rows = [list("." * 15) for _ in range(15)]
    for name, ch in cells.items():
        col = "ABCDEFGHIJKLMNO".index(name[0])
        rows[int(name[1:]) - 1][col] = ch
    return ["".join(r) for r in rows]


def reading(grid: list[str], verdict: str = "ok") -> BoardReading:
    r = BoardReading.from_grid(grid)
    if verdict != "ok":
        r = BoardReading(r.squares, None, FrameQuality(True, True, False, verdict == "hand", verdict), {})
    return r


def test_reader_diff_reports_new_tiles_and_blanks():
    d = diff_boards(EMPTY_GRID, grid_with(H8="C", I8="A", J8="?"))
    assert d.placed == ((112, "C"), (113, "A"), (114, "?"))
    assert d.clean
    assert d.placements() == {112: "C", 113: "A", 114: "?"}
    assert d.board[7] == ".......CA?....."


def test_reader_diff_anomalies_vanished_changed_moved_unsure():
    before = grid_with(H8="C", I8="A", J8="T")
    d = diff_boards(before, grid_with(H8="C", I8="E", J8="T"))
    assert [a.kind for a in d.anomalies] == ["changed"] and d.anomalies[0].square == 113 and not d.placed
    d = diff_boards(before, grid_with(H8="C", I8="A"))
    assert [(a.kind, a.square, a.before) for a in d.anomalies] == [("vanished", 114, "T")]
    d = diff_boards(before, grid_with(H8="C", I8="A", J9="T"))
    assert [a.kind for a in d.anomalies] == ["moved"] and not d.placed
    d = diff_boards(before, grid_with(H8="C", I8="A", J8="T", H9="#"))
    assert [a.kind for a in d.anomalies] == ["unsure"]


def test_reader_diff_keeps_old_tile_under_unsure_square_and_blank_designations():
    before = grid_with(H8="C", I8="a")          # a designated blank from the referee
    d = diff_boards(before, grid_with(H8="#", I8="?", H9="O"))
    assert d.clean and d.placed == ((127, "O"),)
    assert d.board[7][7] == "C"


def test_reader_diff_rejects_wrong_size():
    with pytest.raises(ValueError, match="225"):
        diff_boards(EMPTY_GRID, ["..."])


def test_reader_gate_accepts_first_stable_reading_after_press():
    gate = ReadingGate(stable_ms=500)
    g1 = grid_with(H8="C", I8="A", J8="T")
    assert gate.feed(0, reading(g1)) is None          # no press yet
    gate.press(1000)
    assert gate.feed(400, reading(g1)) is None         # before the press
    acc = gate.feed(1000, reading(g1))                 # stable since 0 ms, at the press
    assert acc is not None and acc.press_ms == 1000
    assert acc.diff.placed == ((112, "C"), (113, "A"), (114, "T"))
    assert gate.board == tuple(g1) and not gate.waiting


def test_reader_gate_waits_for_stability_and_no_hand():
    gate = ReadingGate(stable_ms=500, start=grid_with(H8="C"))
    gate.press(0)
    g = grid_with(H8="C", H9="A")
    assert gate.feed(0, reading(g, "hand")) is None
    assert gate.feed(100, reading(g)) is None          # stable from 100 ms
    assert gate.feed(400, reading(grid_with(H8="C", H9="#"))) is None  # changed: restart at 400
    assert gate.feed(700, reading(g)) is None          # restart at 700
    assert gate.feed(1100, reading(g)) is None
    assert gate.feed(1150, reading(g, "hand")) is None  # hand: start again
    assert gate.feed(1200, reading(g)) is None
    acc = gate.feed(1700, reading(g))
    assert acc is not None and acc.timestamp_ms == 1700 and acc.diff.placed == ((127, "A"),)


def test_reader_gate_reports_anomaly_instead_of_move():
    gate = ReadingGate(stable_ms=0, start=grid_with(H8="C", I8="A"))
    gate.press(5)
    acc = gate.feed(5, reading(grid_with(H8="C", I8="E", H9="X")))
    assert acc is not None
    assert [a.kind for a in acc.diff.anomalies] == ["changed"]
    assert acc.diff.placed == ((127, "X"),)
    assert gate.feed(3, reading(grid_with())) is None   # time going backwards is ignored
