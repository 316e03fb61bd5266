"""The device check checks a config's ``[table]`` values as ``kiosk run --check`` does, by one function
(:func:`kiosk.settings.table.check_table`), in the same sentence: it checked only where the sections and keys
sit, and passed (exit 0, the watch run) a config ``kiosk run`` refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.cli import main as kiosk_main
from kiosk.devices.check import main as check_main

DEVICES = '[devices]\nbuttons = {backend = "keyboard"}\n'


@pytest.mark.parametrize(("table", "problem"), [
    ('players = ["Ann", "Bob"]\njudge_pin = 2468\n',
     'table.judge_pin = 2468: a PIN is text, so write it in quotes: judge_pin = "2468" (a number would lose its '
     "leading zeros)"),
    ('players = ["Ann", "Bob"]\n', 'table.judge_pin: expected 4 to 8 digits 0-9, e.g. "2468"'),
    ('players = ["Ann", "Bob"]\njudge_pin = "2468"\ndirector_code = "2468"\n',
     "table.director_code: expected 6 to 8 digits 0-9 (the pad takes 8)"),
    ('players = "Ann"\njudge_pin = "2468"\n', "table.players: expected 2 to 4 non-empty names, in turn order"),
    ('players = ["Ann", "Bob", "Cy"]\njudge_pin = "2468"\n',
     "table.players: 3 names, but the preset nsf is for 2 players"),
    ('players = ["Ann", "Bob"]\njudge_pin = "2468"\npreset = "nosuch"\n', "table.preset: "),
    ('players = ["Ann", "Bob"]\njudge_pin = "2468"\ntiles = "klingon"\n', "table.tiles: unknown tile set 'klingon'"),
    ('players = ["Ann", "Bob"]\njudge_pin = "2468"\njournal = "/var/lib/"\n',
     'table.journal: expected the path of a journal file, e.g. "/var/lib/scrabble-kiosk/journal.sqlite"'),
    ('players = ["Ann", "Bob"]\njudge_pin = "2468"\nlexicon = "{tmp}/words.txt"\n',
     "table.lexicon: {tmp}/words.txt: no such word list"),
])
def test_both_tools_refuse_a_bad_table_value_in_one_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, problem: str) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text("[table]\n" + table.format(tmp=tmp_path) + DEVICES)
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"kiosk run: {cfg}: {problem.format(tmp=tmp_path)}"), said
    assert check_main([str(cfg), "--seconds", "0.1"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", said.replace("kiosk run: ", "device config: ", 1))


def test_a_good_table_passes_both_and_a_file_without_one_is_left_to_kiosk_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[table]\nplayers = ["Ann", "Bob"]\njudge_pin = "2468"\njournal = "{tmp_path / "j.sqlite"}"\n'
                   + DEVICES)
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 0
    assert check_main([str(cfg), "--seconds", "0.1"]) == 0
    cfg.write_text(DEVICES)   # the devices alone: what an installer checks first
    assert check_main([str(cfg), "--seconds", "0.1"]) == 0
    assert capsys.readouterr().err == ""
