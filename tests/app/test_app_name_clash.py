"""Two players of one game whose names differ only in letter case ('Ann' and 'ann') are refused wherever the kiosk
takes a game's players, the refusal naming both (:func:`kiosk.rules.names.clash`, the one rule). Found by a tester:
a recording's ``name1 = Ann``, ``name2 = ann`` was taken as two players; so were ``table.players = ["Ann", "ann"]``
and ``selfplay --names Ann,ann``."""

from __future__ import annotations

import pytest
from common_fixtures import headless_config

from kiosk.app.config import ConfigError, load_config
from kiosk.app.recording import RecordingError, read_recording
from kiosk.cli import main

CSV = 'Move, Button, State, Coord, Word, Points, Score1, Score2\n1, "green", "S1", "H4", "AB", 5, 5, 0\n'


@pytest.mark.parametrize("name2, says", [
    ("ann", "are 'Ann' and 'ann', which differ only in letter case"),
    ("ANN", "are 'Ann' and 'ANN', which differ only in letter case"),
    ("\uff21nn", "are 'Ann' and 'Ａnn', which differ only in the form of a letter (full-width, a ligature)"),
])
def test_a_recordings_names_that_differ_only_in_case_are_refused_naming_both(tmp_path, name2, says):
    (tmp_path / "game.ini").write_text(f"[default]\nname1 = Ann\nname2 = {name2}\n", encoding="utf-8")
    (tmp_path / "game.csv").write_text(CSV, encoding="utf-8")
    with pytest.raises(RecordingError) as exc:
        read_recording(tmp_path)
    assert str(exc.value) == (f"{tmp_path / 'game.ini'}: [default] name1 and name2 {says}: the players need distinct "
                              "names; write each player's own (name1 = NAME1, name2 = NAME2)")


def test_the_recording_demo_refuses_them_with_exit_2(tmp_path, capsys):
    (tmp_path / "game.ini").write_text("[default]\nname1 = Ann\nname2 = ann\n", encoding="utf-8")
    (tmp_path / "game.csv").write_text(CSV, encoding="utf-8")
    assert main(["demo", "--headless", "--recording", str(tmp_path)]) == 2
    assert "[default] name1 and name2 are 'Ann' and 'ann', which differ only in letter case" in capsys.readouterr().err


def test_the_configs_players_that_differ_only_in_case_are_refused_naming_both(tmp_path):
    path = headless_config(tmp_path)
    path.write_text(path.read_text().replace('players = ["Ann", "Bob"]', 'players = ["Ann", "Bob", "aNN"]\n'
                                             'preset = "home"'))
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == (f"{path}: table.players: players 1 and 3 are 'Ann' and 'aNN', which differ only in "
                              "letter case: the players need distinct names")


def test_selfplay_refuses_nicknames_that_differ_only_in_case(capsys):
    assert main(["selfplay", "--names", "Ann,ann", "--quiet"]) == 2
    assert capsys.readouterr().err == ("kiosk selfplay: --names: nicknames 1 and 2 are 'Ann' and 'ann', which differ "
                                       "only in letter case; give 2 different nicknames, e.g. Ada,Bo\n")
    assert main(["selfplay", "--names", "Ann,Bob,Ann", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("kiosk selfplay: --names: nicknames 1 and 3 are both 'Ann'; ")
