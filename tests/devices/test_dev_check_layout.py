"""``kiosk run --config F --check`` and the device check read a config file by one reader and refuse it in one
sentence: a key at the top of the file that belongs in a section is named as a key, with its section."""

from __future__ import annotations

from pathlib import Path

import pytest

from kiosk.cli import main as kiosk_main
from kiosk.devices.check import main as check_main
from kiosk.files.config_layout import home_of

TABLE = '[table]\nplayers = ["Ann", "Bob"]\njudge_pin = "2468"\n'


@pytest.mark.parametrize(("text", "problem"), [
    # kiosk run said "[players]: unknown section"; the device check "no [devices] table: the default devices", exit 0
    ('players = ["Ada", "Bo"]\n', "players belongs in [table]: write it under a [table] line"),
    ('judge_pin = "2468"\n' + TABLE, "judge_pin belongs in [table]: write it under a [table] line"),
    ("fullscreen = false\n" + TABLE, "fullscreen belongs in [screen]: write it under a [screen] line"),
    ('mqtt_host = "desk.local"\n' + TABLE, "mqtt_host belongs in [stream]: write it under a [stream] line"),
    # the device check said "write it as [devices.buttons]", kiosk run "[buttons]: unknown section"
    ('buttons = {backend = "gpio"}\n' + TABLE,
     "buttons belongs in [devices]: write it as [devices.buttons] (or buttons = {...} under a [devices] line)"),
    (TABLE + '[camera]\nbackend = "opencv"\n',
     "camera belongs in [devices]: write it as [devices.camera] (or camera = {...} under a [devices] line)"),
    (TABLE + "[screens]\nsize = [800, 480]\n", "[screens]: unknown section (known: table, screen, vision, stream, "
                                               "devices)"),
    ("colour = 3\n" + TABLE, "colour: unknown key at the top of the file: every key belongs in a section (table, "
                             "screen, vision, stream, devices)"),
    (TABLE + "size = [800, 480]\n", "table.size: unknown key (known: director_code, journal, judge_pin, lexicon, "
                                    "players, preset, tiles); size belongs in [screen]"),
])
def test_both_tools_refuse_a_key_out_of_its_place_in_one_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(text)
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2
    assert capsys.readouterr().err == f"kiosk run: {cfg}: {problem}\n"
    assert check_main([str(cfg), "--seconds", "0.1"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"device config: {cfg}: {problem}\n")


def test_a_file_of_device_tables_only_is_read_by_the_check_and_said_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "devices.toml"
    cfg.write_text('buttons = {backend = "keyboard"}\n')
    assert check_main([str(cfg), "--seconds", "0.1"]) == 0
    assert capsys.readouterr().out.startswith(f"{cfg}: device tables only, read as the [devices] table (kiosk run "
                                              "reads them only under [devices]) (buttons keyboard")


def test_each_key_has_its_section() -> None:
    assert home_of("camera") == "devices" and home_of("stable_frames") == "vision" and home_of("nothing") is None
    assert home_of("mqtt_password_env") == "stream" and home_of("journal") == "table"
