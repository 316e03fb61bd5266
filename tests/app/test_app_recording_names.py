"""Players' names, wherever they come into the kiosk, follow one rule (:func:`kiosk.rules.names.name_problem`, as the
config, selfplay and the desk apply it) and a refusal names where the name was written and what to write there.

Found by a tester on ``kiosk demo --recording DIR``: an empty ``name2 =`` or ``name2`` equal to ``name1`` was refused
as "the kiosk refuses the game: players need distinct, non-empty names", naming neither game.ini nor the key; a
``name1`` holding an escape sequence and a bell was accepted, printed raw to the terminal and journaled."""

from __future__ import annotations

import pytest

from kiosk.app.recording import RecordingError, read_recording
from kiosk.cli import main
from kiosk.referee.records import events_from_gcg
from kiosk.rules.gcg import parse_gcg
from shared_data import SHARED, needs_shared

CSV = 'Move, Button, State, Coord, Word, Points, Score1, Score2\n1, "green", "S1", "H4", "AB", 5, 5, 0\n'


def _recording(folder, ini: str):
    (folder / "game.ini").write_text("[default]\n" + ini, encoding="utf-8")
    (folder / "game.csv").write_text(CSV, encoding="utf-8")
    return folder


@pytest.mark.parametrize("ini, says", [
    ("name1 = Ann\nname2 =\n", "game.ini: [default] name2 is empty: write the second player's name there (name2 = NAME)"),
    ("name1 =   \nname2 = Bob\n", "game.ini: [default] name1 is empty: write the first player's name there (name1 = NAME)"),
    ("name1 = Ann\nname2 = Ann \n", "game.ini: [default] name1 and name2 are both 'Ann': the players need distinct "
                                    "names; write each player's own (name1 = NAME1, name2 = NAME2)"),
    ("name1 = \x1b[31mEvil\x07\nname2 = Bob\n", "game.ini: [default] name1: the name '\\x1b[31mEvil\\x07' holds a "
                                                "control character (a line break, tab or the like): write the first "
                                                "player's name as plain text (name1 = NAME)"),
    ("name1 = Ann\nname2 = Bob\n  Evil\n", "game.ini: [default] name2: the name 'Bob\\nEvil' holds a control character"),
    ("name1 = Ann\nname2 = B\u202eob\n", "game.ini: [default] name2: the name 'B\\u202eob' holds a right-to-left"),
])
def test_a_recordings_bad_player_name_is_refused_naming_the_file_and_key(tmp_path, ini, says):
    with pytest.raises(RecordingError) as exc:
        read_recording(_recording(tmp_path, ini))
    assert f"{tmp_path / 'game.ini'}: " in str(exc.value) and says in str(exc.value), str(exc.value)


def test_the_recording_demo_refuses_a_name_with_an_escape_code_before_it_prints_it(tmp_path, capsys):
    """The demo's own output never holds the raw escape code (it printed 'final: ^[[31mEvil^G 377, ...')."""
    rc = main(["demo", "--headless", "--recording", str(_recording(tmp_path, "name1 = \x1b[31mEvil\x07\nname2 = Bob\n"))])
    out, err = capsys.readouterr()
    assert rc == 2 and "\x1b" not in out + err and "\x07" not in out + err
    assert f"kiosk demo: {tmp_path / 'game.ini'}: [default] name1: the name '\\x1b[31mEvil\\x07' holds a control" in err


def test_a_recording_without_names_plays_as_player_1_and_player_2(tmp_path):
    assert read_recording(_recording(tmp_path, "")).names == ("Player 1", "Player 2")


def test_a_gcg_record_whose_players_share_a_nickname_names_the_player_lines():
    """GCG engines assign such a record's moves by turn order; a referee cannot tell its players apart. Was: 'the
    referee refuses the start of the game: players need distinct, non-empty names', naming no line."""
    game = parse_gcg("#player1 Ada Ada\n#player2 Ada Ada\n>Ada: ABCDEFG 8G BAD +12 12\n", "dup.gcg")
    with pytest.raises(ValueError, match=r"dup\.gcg: #player1 and #player2 are both 'Ada': the referee needs each "
                                         r"player under a nickname of his own"):
        events_from_gcg(game, "nsf")


def test_a_gcg_record_whose_nicknames_differ_only_in_letter_case_is_refused_naming_them():
    """The kiosk's one rule (kiosk.rules.names.clash): a scoresheet cannot tell 'Ann' from 'ann'. Was: replayed as
    two players ("0 mismatches")."""
    game = parse_gcg("#player1 Ann Ann\n#player2 ann ann\n>Ann: ABCDEFG 8G BAD +12 12\n", "case.gcg")
    with pytest.raises(ValueError, match=r"case\.gcg: #player1 and #player2 are 'Ann' and 'ann', which differ only "
                                         r"in letter case: the referee needs each player under a nickname of his own"):
        events_from_gcg(game, "nsf")


@pytest.mark.parametrize("name", ["Ann 100%", "Ann%(x)s", "100%%", "%(name2)s", "Ann %"])
def test_a_name_with_a_percent_sign_is_a_plain_name(tmp_path, name):
    """configparser's interpolation refused them with its own raw text, naming neither [default] name1 nor what to
    write ("'%' must be followed by '%' or '(', found: '%'", "Bad value substitution: option 'name1' ...") or, for
    '100%%', took a name the player did not write ('100%')."""
    assert read_recording(_recording(tmp_path, f"name1 = {name}\nname2 = Bob\n")).names == (name, "Bob")


@pytest.mark.parametrize("ini, says", [
    ("name1 = Ann\nname2 = Bob\njust text\n", "line 4 'just text' in [default]: not NAME = VALUE; write one setting "
                                              "a line, e.g. name1 = NAME"),
    ("name1 = Ann\nname2\n", "line 3 'name2' in [default]: not NAME = VALUE"),
    ("name1 = Ann\nname1 = Bob\n", "line 3: name1 is given twice in [default]: keep one of its lines"),
    ("name1 = Ann\n[default]\n", "line 3: the section [default] is given twice"),
])
def test_a_game_ini_that_is_no_ini_file_names_the_file_the_line_and_the_section(tmp_path, ini, says):
    with pytest.raises(RecordingError) as exc:
        read_recording(_recording(tmp_path, ini))
    assert str(exc.value).startswith(f"{tmp_path / 'game.ini'}: {says}"), str(exc.value)


@needs_shared
def test_the_real_recordings_game_ini_needs_no_interpolation():
    """game.ini is read without interpolation: the real files (ScrabScrap's keys warp, warp-coord, name1, name2,
    formatter, layout) read the same either way, and their corners and names are as recorded."""
    import configparser

    from kiosk.vision.scrabscrap import read_game_ini

    games = sorted((SHARED / "photos" / "scrabscrap").glob("game0*"))
    assert len(games) == 4
    for game in games:
        plain = configparser.ConfigParser()
        plain.read(game / "game.ini", encoding="utf-8")
        assert dict(read_game_ini(game / "game.ini")["default"]) == dict(plain["default"]), game
    assert read_recording(games[0]).names == ("Stefan", "Hanns")
    assert read_recording(games[0]).corners.tolist()[0] == [5, 44]
