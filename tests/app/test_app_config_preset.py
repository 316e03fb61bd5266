"""The config's preset and tile set are checked with the config, naming the file and the key (an unknown preset
was reported at start as "unknown preset 'worlds' ..." without either); and the installers' device check runs on
the shipped example of a simulated table (it said "needs the kiosk's current-board callable", exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from common_fixtures import headless_config

from kiosk.app.config import ConfigError, load_config
from kiosk.cli import main
from kiosk.devices.check import main as check_main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("line, says", [
    ('preset = "worlds"', "table.preset: unknown preset 'worlds' (bundled: "),
    ('tiles = "klingon"', "table.tiles: unknown tile set 'klingon' (bundled: english, german)"),
    ('preset = "{tmp}/event.toml"', "table.preset: {tmp}/event.toml: scoring.bingo_bonus: -50 is out of range"),
])
def test_the_configs_preset_and_tiles_are_named_when_they_do_not_load(tmp_path, capsys, line, says):
    (tmp_path / "event.toml").write_text('extends = "nsf"\nname = "event"\n[scoring]\nbingo_bonus = -50\n')
    path = headless_config(tmp_path)
    path.write_text(path.read_text().replace("[table]\n", f"[table]\n{line.format(tmp=tmp_path)}\n"))
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value).startswith(f"{path}: {says.format(tmp=tmp_path)}"), str(exc.value)
    assert main(["run", "--config", str(path), "--headless", "--seconds", "1"]) == 2
    assert f"kiosk run: {path}: {says.format(tmp=tmp_path)}" in capsys.readouterr().err


def test_the_device_check_runs_on_the_shipped_simulated_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    frame = tmp_path / "frame.png"
    rc = check_main([str(ROOT / "docs" / "examples" / "simulated-table.toml"), "--seconds", "0.1",
                     "--frame", str(frame)])
    out = capsys.readouterr()
    assert rc == 0, out
    assert "camera     synthetic  ok" in out.out and frame.stat().st_size > 0
    assert "current-board callable" not in out.err


@pytest.mark.parametrize("content, says", [
    ('[table]\nplayers = ["Ann", "B\xe9b\xe9"]\n'.encode("latin-1"),
     ":2: not UTF-8 text (byte 0xe9): save it as UTF-8 to read it as a config file"),
    ("[table]\n".encode("utf-16"), "UTF-16"),
    (b"", "empty"),
])
def test_kiosk_run_reads_its_config_file_as_the_device_check_does(tmp_path, content, says):
    """One reader of the config file (kiosk.files.read_toml) for `kiosk run` and the device check: a Latin-1 file
    was 'kiosk run: not UTF-8 text (byte 28: ...)' without the file's name; both now name it, the line, and say what
    to do."""
    path = tmp_path / "kiosk.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value).startswith(f"{path}:") and says in str(exc.value), str(exc.value)
