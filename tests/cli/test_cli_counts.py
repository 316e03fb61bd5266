"""Counts on the command line read right at 1 (kiosk.rules.counts.counted): `kiosk read-board`'s timing line said
"1 unsure squares"."""

from __future__ import annotations

from types import SimpleNamespace

from kiosk.commands.read_board import _print_block


def _timing_line(capsys, unsure: int) -> str:
    grid = ["#" * unsure + "." * (15 - unsure)] + ["." * 15] * 14
    reading = SimpleNamespace(timings_ms={"total": 12.0}, quality=SimpleNamespace(verdict="ok"), note="")
    _print_block("board.png", grid, reading)   # type: ignore[arg-type]
    return capsys.readouterr().out.splitlines()[-1]


def test_read_board_says_one_unsure_square(capsys):
    assert _timing_line(capsys, 1) == "# board.png: 12.0 ms; ok; 1 unsure square"   # was "1 unsure squares"
    assert _timing_line(capsys, 3) == "# board.png: 12.0 ms; ok; 3 unsure squares"
    assert _timing_line(capsys, 0) == "# board.png: 12.0 ms; ok"
