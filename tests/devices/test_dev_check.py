"""The installer's device check, on simulated backends."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.devices.check import load_devices_config, main


def test_check_reports_presses_frame_and_health(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "a.png"), np.full((30, 40, 3), 90, np.uint8))
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f"""
[table]
players = ["A", "B"]
judge_pin = "2468"
[devices]
buttons = {{backend = "scripted", script = [[50, "left"], [120, "right"]]}}
display = {{backend = "simulated"}}
camera = {{backend = "replay", path = "{frames}"}}
""")
    code = main([str(cfg), "--seconds", "0.4", "--frame", str(tmp_path / "f.png")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "press left" in out and "press right" in out
    assert cv2.imread(str(tmp_path / "f.png")).shape == (30, 40, 3)
    assert "camera     replay     ok" in out


def test_check_names_what_is_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text('[devices]\nserial = {port = "' + str(tmp_path / "no-clock") + '"}\nbuttons = {backend = "serial"}\n')
    assert main([str(cfg), "--seconds", "0.2"]) == 1
    assert "not working: buttons (serial), clock-link (serial)" in capsys.readouterr().out


def test_bad_config_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[devices\n")
    assert main([str(bad)]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    bad.write_text('[devices]\nbuttons = {backend = "telepathy"}\n')
    assert main([str(bad)]) == 2
    assert "buttons.backend" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.toml")]) == 2
    assert load_devices_config(None) == {}


def test_a_loss_timeout_shorter_than_two_heartbeats_is_refused_naming_the_file(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``loss_ms = 500`` was accepted, and the check then reported the working simulated clock lost 4 times in 5 s
    (its heartbeat comes once a second): refused before any device is opened, naming the file, the key, the range
    and why; the bound follows the heartbeat interval (firmware/link.py)."""
    from firmware_bridge.firmware.link import HEARTBEAT_MS, LOSS_MIN_MS

    cfg = tmp_path / "kiosk.toml"
    for loss in (500, 1500, LOSS_MIN_MS - 1):
        cfg.write_text(f'[devices]\nbuttons = {{backend = "serial"}}\nserial = {{port = "{tmp_path / "clk"}", '
                       f'loss_ms = {loss}}}\n')
        assert main([str(cfg), "--seconds", "0.2"]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == (
            f"device config: {cfg}: [devices] serial.loss_ms must be at least {LOSS_MIN_MS} ms (allowed "
            f"{LOSS_MIN_MS}..3000 ms): the clock sends a heartbeat every {HEARTBEAT_MS} ms, and a heartbeat late by "
            f"up to one interval (USB latency, a busy kiosk) must not count as a lost link; got {loss} ms\n")


TABLE_ONLY = '[table]\nplayers = ["Ann", "Bob"]\npreset = "nsf"\njudge_pin = "2468"\njournal = "{journal}"\n'


def test_a_kiosk_config_without_devices_checks_the_default_devices_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A valid kiosk config of only [table], which ``kiosk run --check`` accepts, was refused as if the whole file
    were the devices table ("unknown key(s) table")."""
    from kiosk.cli import main as kiosk_main

    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(TABLE_ONLY.format(journal=tmp_path / "j.sqlite"))
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 0
    capsys.readouterr()
    assert main([str(cfg), "--seconds", "0.1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith(f"{cfg}: no [devices] table: the default devices (buttons keyboard, display "
                                   "simulated, camera none)\n")
    assert load_devices_config(cfg) == {}


def test_a_file_of_device_tables_only_is_the_devices_table_and_a_stray_one_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "devices.toml"
    cfg.write_text('buttons = {backend = "scripted", script = [[10, "left"]]}\n[display]\nbackend = "null"\n')
    assert load_devices_config(cfg) == {"buttons": {"backend": "scripted", "script": [[10, "left"]]},
                                        "display": {"backend": "null"}}
    assert main([str(cfg), "--seconds", "0.2"]) == 0
    assert "press left" in capsys.readouterr().out
    cfg.write_text(TABLE_ONLY.format(journal=tmp_path / "j.sqlite") + '[buttons]\nbackend = "gpio"\n')
    assert main([str(cfg), "--seconds", "0.1"]) == 2   # kiosk run refuses it: not the default devices instead
    assert capsys.readouterr().err == (f"device config: {cfg}: buttons belongs in [devices]: write it as "
                                       "[devices.buttons] (or buttons = {...} under a [devices] line)\n")


@pytest.mark.parametrize(("content", "reason"), [
    (b"", ": empty file, not a config file"),
    (b"\n  \n", ": empty file, not a config file"),
    ("[table]\n".encode("utf-16"), ": UTF-16 text (what a Windows editor saves as 'Unicode'), not UTF-8: save it as "
                                   "UTF-8 to read it as a config file"),
    (b"\x89PNG\r\n\x1a\n\0\0\0", ": binary data, not a config file"),
    (b'[table]\nplayers = ["B\xe9b"]\n', ":2: not UTF-8 text (byte 0xe9): save it as UTF-8 to read it as a config "
                                         "file"),
    (b"[devices\n", None),
])
def test_the_file_is_refused_as_kiosk_run_refuses_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     content: bytes, reason: str | None) -> None:
    from kiosk.cli import main as kiosk_main

    cfg = tmp_path / "kiosk.toml"
    cfg.write_bytes(content)
    assert main([str(cfg), "--seconds", "0.1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    if reason is None:
        assert captured.err.startswith(f"device config: {cfg}: not valid TOML: ")
        return
    assert captured.err == f"device config: {cfg}{reason}\n"
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2   # it reads the file with the same checks
    assert capsys.readouterr().err == f"kiosk run: {cfg}{reason}\n"


def test_a_missing_file_or_a_folder_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing.toml")]) == 2
    assert capsys.readouterr().err == f"device config: {tmp_path / 'missing.toml'}: no such config file\n"
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"device config: {tmp_path}: is a folder, not a config file\n"
