"""A player's name never holds a control character, wherever it comes in (kiosk.rules.names): a line break in
'Ada\\nX' was taken by `kiosk run` (`journal show` then printed broken lines) and would add lines to a GCG record
and the desk's exports; emoji names stay (their zero-width joiner is a format character, not a control)."""

from __future__ import annotations

import pytest
from common_fixtures import headless_config

from kiosk.app.config import ConfigError, load_config
from kiosk.rules.gcg import parse_gcg
from kiosk.rules.names import has_control, name_problem

MOVE = ">A: GJSTUXZ 8F JUGS +24 24\n"


@pytest.mark.parametrize("text, control", [
    ("Ada", False), ("Éléonore", False), ("😀", False), ("👩\u200d👩\u200d👧", False), ("Ada Lovelace", False),
    ("Ada\nX", True), ("Ada\tX", True), ("Ada\x1b[31m", True), ("A\x00", True), ("A\u2028B", True),
    ("A\u2029B", True), ("A\x85B", True), ("A\rB", True),
])
def test_control_characters_are_the_unicode_controls_and_breaks(text, control):
    assert has_control(text) is control
    assert (name_problem(text) is None) is not control


@pytest.mark.parametrize("line, says", [
    ("#player1 A Ada\x07x\n", "x.gcg:1: #player1: the name 'Ada\\x07x' holds a control character"),
    ("#player1 A\x1b Ada\n", "x.gcg:1: #player1: the nickname 'A\\x1b' holds a control character"),
])
def test_a_gcg_player_line_with_a_control_character_is_an_error_at_its_line(line, says):
    game = parse_gcg(line + "#player2 B Bob\n" + MOVE, "x.gcg")
    assert str(game.errors[0]) == f"{says} (a line break, tab or the like)"   # the first error: the record's


def test_a_gcg_name_with_an_emoji_sequence_is_read():
    game = parse_gcg("#player1 A Ada 👩\u200d👩\u200d👧\n#player2 B Bob\n" + MOVE, "x.gcg")
    assert not game.errors and game.players[0].name == "Ada 👩\u200d👩\u200d👧"


def test_the_config_refuses_a_player_name_with_a_line_break(tmp_path):
    path = headless_config(tmp_path)
    text = path.read_text()
    assert 'players = ["Ann", "Bob"]' in text
    path.write_text(text.replace('players = ["Ann", "Bob"]', 'players = ["Ada\\nX", "Bob"]'))
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == f"{path}: table.players: the name 'Ada\\nX' holds a control character (a line " \
                             "break, tab or the like)"
