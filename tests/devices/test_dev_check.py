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
