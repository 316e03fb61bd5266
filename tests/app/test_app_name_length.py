"""A player's name has at most 100 characters, wherever it comes in (:data:`kiosk.rules.names.NAME_MAX`, in the one
rule :func:`kiosk.rules.names.name_problem`): a GCG line holds 512 and a name travels into its ``#player`` line, its
move lines (the nickname) and the desk's exports. Found by a tester: a 5,000-character ``name1`` in a recording's
game.ini was taken; only selfplay capped its nicknames, with a rule of its own."""

from __future__ import annotations

import pytest
from common_fixtures import headless_config

from kiosk.app.config import ConfigError, load_config
from kiosk.rules.gcg import MAX_LINE, parse_gcg
from kiosk.rules.names import NAME_MAX, name_problem

LONG = "X" * 5000
SAYS = "'XXXXXXXXXXXXXXXXXXXX'... has 5,000 characters; a GCG record's lines hold 512, so a name has at most 100"
MOVE = ">A: GJSTUXZ 8F JUGS +24 24\n"


def test_the_one_rule_takes_100_characters_and_refuses_101():
    assert NAME_MAX == 100
    assert name_problem("X" * 100) is None and name_problem("😀" * 100) is None   # characters, not bytes
    assert name_problem("X" * 101) == "has 101 characters; a GCG record's lines hold 512, so a name has at most 100"
    # a #player line of the longest nickname (written twice, as selfplay does) fits a GCG line
    assert len(f"#player4 {'X' * NAME_MAX} {'X' * NAME_MAX}") <= MAX_LINE


def test_the_config_refuses_a_long_player_name(tmp_path):
    path = headless_config(tmp_path)
    path.write_text(path.read_text().replace('players = ["Ann", "Bob"]', f'players = ["{LONG}", "Bob"]'))
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == f"{path}: table.players: the name {SAYS}"


@pytest.mark.parametrize("line, what", [(f"#player1 A {LONG}\n", "name"), (f"#player1 {'X' * 101} Ann\n", "nickname")])
def test_a_gcg_player_line_with_a_long_name_is_an_error_at_its_line(line, what):
    game = parse_gcg(line + "#player2 B Bob\n" + MOVE, "x.gcg")
    says = SAYS if what == "name" else SAYS.replace("'XXXXXXXXXXXXXXXXXXXX'... has 5,000", "'XXXXXXXXXXXXXXXXXXXX'... has 101")
    assert str(game.errors[0]) == f"x.gcg:1: #player1: the {what} {says}"


def test_a_recordings_long_name_is_refused_naming_the_file_and_key(tmp_path):
    from kiosk.app.recording import RecordingError, read_recording

    (tmp_path / "game.ini").write_text(f"[default]\nname1 = {LONG}\nname2 = Bob\n", encoding="utf-8")
    (tmp_path / "game.csv").write_text('Move, Button, State, Coord, Word, Points, Score1, Score2\n'
                                       '1, "green", "S1", "H4", "AB", 5, 5, 0\n', encoding="utf-8")
    with pytest.raises(RecordingError) as exc:
        read_recording(tmp_path)
    assert str(exc.value) == (f"{tmp_path / 'game.ini'}: [default] name1: the name {SAYS}: write the first player's "
                              "name as plain text (name1 = NAME)")


def test_selfplay_refuses_a_long_nickname_by_the_same_rule(capsys):
    from kiosk.cli import main

    assert main(["selfplay", "--names", f"{LONG},B", "--quiet"]) == 2
    assert capsys.readouterr().err == f"kiosk selfplay: --names: the nickname {SAYS}; give nicknames such as Ada,Bo\n"


def test_the_desks_event_file_refuses_a_long_name(tmp_path):
    from kiosk.desk.event import EventFileError, load_event

    (tmp_path / "event.toml").write_text(f'rounds = 1\n[[division]]\nname = "A"\nplayers = ["{LONG}", "Bo"]\n')
    with pytest.raises(EventFileError, match="has 5,000 characters; a GCG record's lines hold 512, so a name has at "
                                             "most 100"):
        load_event(tmp_path)
