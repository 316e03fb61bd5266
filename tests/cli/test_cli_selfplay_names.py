"""kiosk selfplay --names: a nickname a GCG record cannot hold is refused by name, before the game."""

from __future__ import annotations

import pytest

from kiosk.cli import main


@pytest.mark.parametrize("names, nick, why", [
    ("A:da,Bo", "'A:da'", "holds a colon, which ends a nickname on a GCG move line"),
    ("Ada,B o", "'B o'", "holds a space (a GCG nickname is one word)"),
    ("Ada,B\u00a0o", "'B\\xa0o'", "holds a space (a GCG nickname is one word)"),
    ("A\tda,Bo", "'A\\tda'", "holds a control character (a line break, tab or the like)"),
    ("A\x1bda,Bo", "'A\\x1bda'", "holds a control character (a line break, tab or the like)"),
])
def test_selfplay_refuses_a_nickname_gcg_cannot_hold(tmp_path, capsys, names, nick, why):
    """--names 'A:da,Bo' exited 0 with a GCG its own replay could not read (the colon ends a line's nickname)."""
    out = tmp_path / "g.gcg"
    assert main(["selfplay", "--names", names, "--quiet", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"kiosk selfplay: --names: the nickname {nick} {why}; give nicknames such as Ada,Bo\n"
    assert not out.exists()
