"""A player's name never holds a control character, wherever it comes in (kiosk.rules.names): a line break in
'Ada\\nX' was taken by `kiosk run` (`journal show` then printed broken lines) and would add lines to a GCG record
and the desk's exports; emoji names stay (their zero-width joiner is a format character, not a control)."""

from __future__ import annotations

import pytest
from common_fixtures import headless_config

from kiosk.app.config import ConfigError, load_config
from kiosk.rules.gcg import parse_gcg
from kiosk.rules.names import clash, has_control, name_problem

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


@pytest.mark.parametrize("text, says", [
    ("Ada\u202eX", "holds a right-to-left or left-to-right control character (U+202E)"),
    ("\u202aAda", "holds a right-to-left or left-to-right control character (U+202A)"),
    ("Ada\u2066X\u2069", "holds a right-to-left or left-to-right control character (U+2066)"),
    ("Ada\u200b", "holds an invisible character (U+200B)"),
    ("A\u200cda", "holds an invisible character (U+200C)"),
    ("Ada\u2060", "holds an invisible character (U+2060)"),
    ("\ufeffAda", "holds an invisible character (U+FEFF)"),
])
def test_bidi_controls_and_invisible_characters_are_refused_in_a_name(text, says):
    why = name_problem(text)
    assert why is not None and why.startswith(says)


def test_the_zero_width_joiner_of_an_emoji_name_stays_allowed():
    assert name_problem("Ada 👩\u200d👩\u200d👧") is None


def test_the_config_refuses_two_names_that_differ_only_by_an_invisible_character(tmp_path, capsys):
    """["Ada\\u200b", "Ada"] were two players who read the same."""
    from kiosk.cli import main
    path = headless_config(tmp_path)
    path.write_text(path.read_text().replace('players = ["Ann", "Bob"]', 'players = ["Ada\\u200b", "Ada"]'))
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == f"{path}: table.players: the name 'Ada\\u200b' holds an invisible character (U+200B)"
    assert main(["run", "--config", str(path), "--headless", "--seconds", "1"]) == 2
    assert "holds an invisible character (U+200B)" in capsys.readouterr().err


def test_a_gcg_player_line_with_a_right_to_left_override_is_an_error_at_its_line():
    game = parse_gcg("#player1 A Ada\u202eX\n#player2 B Bob\n" + MOVE, "x.gcg")
    assert str(game.errors[0]).startswith("x.gcg:1: #player1: the name 'Ada\\u202eX' holds a right-to-left")


@pytest.mark.parametrize("names, found", [
    (("Ann", "ann"), (0, 1, "are 'Ann' and 'ann', which differ only in letter case")),
    (("Ann", "Bob", "ANN"), (0, 2, "are 'Ann' and 'ANN', which differ only in letter case")),
    (("Ann", "Bob", "Ann"), (0, 2, "are both 'Ann'")),
    (("Ann Lee", "Ann  Lee"), (0, 1, "are 'Ann Lee' and 'Ann  Lee', which differ only in spacing")),
    (("Ann Lee", "ann  lee"), (0, 1, "are 'Ann Lee' and 'ann  lee', which differ only in letter case and spacing")),
    (("\uff21nn", "Ann"), (0, 1, "are 'Ａnn' and 'Ann', which differ only in the form of a letter (full-width, a "
                                "ligature)")),
    (("Straße", "STRASSE"), (0, 1, "are 'Straße' and 'STRASSE', which differ only in letter case")),
    (("Ann", "Bob", "Cy", "Di"), None), (("Ann", "Anne"), None), (("Éva", "Eva"), None),
])
def test_two_names_a_scoresheet_cannot_tell_apart_clash_and_the_clause_names_both(names, found):
    """A tournament director's rule: 'Ann' and 'ann' are one name on the scoresheet, the screen and the GCG
    record (they were two players); accents stay letters of their own."""
    assert clash(names) == found
