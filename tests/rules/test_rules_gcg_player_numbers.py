"""A ``#playerN`` pragma whose number names no seat is an error at its line, saying what to write: ``#player0`` said
"a game has at most 4 players", and ``#player02`` or ``#player٢`` (an Arabic-Indic digit) were kept as unknown
pragmas, so the record stopped later with "move before both players are named"."""

from __future__ import annotations

import pytest

from kiosk.rules.gcg import parse_gcg

MOVE = ">A: GJSTUXZ 8F JUGS +24 24\n"


@pytest.mark.parametrize("line, says", [
    ("#player0 B Bob", "x.gcg:2: #player0: players are numbered from 1 (#player1 to #player4)"),
    ("#player00 B Bob", "x.gcg:2: #player00: players are numbered from 1 (#player1 to #player4)"),
    ("#player02 B Bob", "x.gcg:2: #player02: write #player2"),
    ("#player\u0662 B Bob", "x.gcg:2: #player\u0662: write #player2"),
    ("#player5 B Bob", "x.gcg:2: #player5: a game has at most 4 players (#player1 to #player4)"),
])
def test_a_player_pragma_numbered_wrongly_is_an_error_at_its_line(line, says):
    game = parse_gcg(f"#player1 A Ada\n{line}\n{MOVE}", "x.gcg")
    assert [str(e) for e in game.errors][0] == says


def test_player_pragmas_in_capitals_still_name_the_seats():
    game = parse_gcg(f"#PLAYER1 A Ada\n#Player2 B Bob\n{MOVE}", "x.gcg")
    assert not game.errors and [p.nick for p in game.players] == ["A", "B"]
