"""A UTF-8 byte-order mark (what Windows Notepad writes at a file's start) is read past in every TOML file the
kiosk reads: the config (``kiosk run --check`` and the device check said "not valid TOML: Invalid statement (at
line 1, column 1)"), a preset file, a tile set file, the desk's event.toml. A file of only a mark is empty."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from kiosk.cli import main as kiosk_main
from kiosk.devices.check import main as check_main

BOM = b"\xef\xbb\xbf"


def test_a_config_with_a_byte_order_mark_is_read_by_both_tools(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_bytes(BOM + f'[table]\r\nplayers = ["Ada", "Bo"]\r\njudge_pin = "2468"\r\njournal = "{tmp_path / "j"}"\r\n'
                          '[devices]\r\nbuttons = {backend = "keyboard"}\r\n'.encode())
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.startswith(f"{cfg}: config ok (Ada vs Bo")
    assert check_main([str(cfg), "--seconds", "0.1"]) == 0
    assert capsys.readouterr().err == ""


def test_a_file_of_only_a_byte_order_mark_is_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_bytes(BOM + b"\n")
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2
    assert capsys.readouterr().err == f"kiosk run: {cfg}: empty file, not a config file\n"


def test_a_preset_a_tile_set_and_an_event_file_with_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    from kiosk.desk.event import load_event
    from kiosk.referee.presets import load_preset
    from kiosk.rules.tiles import load_tile_set

    preset = tmp_path / "event-rules.toml"
    preset.write_bytes(BOM + b'extends = "naspa"\n')
    assert load_preset(str(preset)).name
    tiles = tmp_path / "tiles.toml"
    tiles.write_bytes(BOM + (resources.files("kiosk.rules") / "data" / "tilesets" / "english.toml").read_bytes())
    assert load_tile_set(str(tiles)).values["Q"] == 10
    (tmp_path / "event.toml").write_bytes(BOM + b'rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n')
    assert load_event(tmp_path).rounds == 1
