"""The systemd unit, udev rule and install script: `systemd-analyze verify` must print nothing (it exits 0 on
unknown keys, so any output fails), and the facts the kiosk depends on are in the files."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "systemd"
UNIT = SYSTEMD / "scrabble-kiosk.service"
PREFIX = "/opt/scrabble-kiosk"


def verify(unit_text: str, tmp_path: Path) -> str:
    """Run systemd-analyze verify on ``unit_text`` with the install prefix moved to a temp dir holding a
    stand-in executable (verify checks that ExecStart exists); returns everything it printed."""
    exe = shutil.which("systemd-analyze")
    assert exe, "systemd-analyze is missing: install the 'systemd' package (scripts/system-packages.txt)"
    prefix = tmp_path / "prefix"
    (prefix / ".venv" / "bin").mkdir(parents=True)
    kiosk = prefix / ".venv" / "bin" / "kiosk"
    kiosk.write_text("#!/bin/sh\nexit 0\n")
    kiosk.chmod(0o755)
    unit = tmp_path / UNIT.name
    unit.write_text(unit_text.replace(PREFIX, str(prefix)))
    res = subprocess.run([exe, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    return (res.stdout + res.stderr).strip() + ("" if res.returncode == 0 else f"\n(exit {res.returncode})")


def test_unit_verifies_without_any_warning(tmp_path: Path) -> None:
    assert verify(UNIT.read_text(), tmp_path) == ""


def test_verify_check_catches_an_unknown_key(tmp_path: Path) -> None:
    bad = UNIT.read_text().replace("[Service]\n", "[Service]\nWatchDogSec=30\n", 1)
    assert "WatchDogSec" in verify(bad, tmp_path)


def unit_sections() -> configparser.ConfigParser:
    cp = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    cp.optionxform = str  # type: ignore[assignment,method-assign]
    cp.read_string(UNIT.read_text())
    return cp


def test_unit_is_notify_with_watchdog_restart_and_a_dedicated_user() -> None:
    s = unit_sections()["Service"]
    assert s["Type"] == "notify"
    assert int(s["WatchdogSec"]) >= 10
    assert s["Restart"] == "on-failure"
    assert s["User"] == "scrabble-kiosk" and s["User"] != "root"
    assert set(s["SupplementaryGroups"].split()) >= {"gpio", "i2c", "video", "dialout"}
    assert s["ExecStart"].startswith(f"{PREFIX}/.venv/bin/kiosk ")


def test_sandboxing_keeps_devices_reachable() -> None:
    s = unit_sections()["Service"]
    assert s["ProtectSystem"] == "strict" and s["NoNewPrivileges"] == "yes"
    for hides_devices in ("PrivateDevices", "DeviceAllow", "DevicePolicy", "ProtectClock", "ProcSubset"):
        assert hides_devices not in s, f"{hides_devices}= would hide /dev/gpiochip*, /dev/i2c-*, ... or /proc/device-tree"
    assert "AF_NETLINK" in s["RestrictAddressFamilies"]  # libcamera watches udev over netlink
    assert s["WorkingDirectory"] == "/var/lib/scrabble-kiosk"  # writable (lgpio's pipes go to LG_WD)
    envs = dict(e.split("=", 1) for e in re.findall(r"^Environment=(\S+)", UNIT.read_text(), re.M))
    assert envs["LG_WD"] == "/run/scrabble-kiosk" and s["RuntimeDirectory"] == "scrabble-kiosk"


UDEV_KEY = re.compile(r'^(ACTION|SUBSYSTEM|KERNEL|DRIVERS?|ATTRS?\{[\w]+\}|ENV\{[\w]+\}|SYMLINK|GROUP|MODE|TAG|OWNER)'
                      r'(==|!=|\+=|=|:=)"([^"]*)"$')


def test_udev_rule_syntax_and_symlink() -> None:
    rules = [ln for ln in (SYSTEMD / "99-scrabble-clock.rules").read_text().splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(rules) == 1
    fields = [f.strip() for f in rules[0].split(",")]
    parsed = []
    for f in fields:
        m = UDEV_KEY.match(f)
        assert m, f"bad udev field {f!r}"
        parsed.append(m.groups())
    assert ("SUBSYSTEM", "==", "tty") in parsed
    assert ("SYMLINK", "+=", "scrabble-clock") in parsed
    assert ("ENV{ID_MM_DEVICE_IGNORE}", "=", "1") in parsed
    assert ("GROUP", "=", "dialout") in parsed
    assert any(k == "ATTRS{idVendor}" and op == "==" for k, op, _ in parsed)


def test_udev_symlink_is_the_hosts_default_port() -> None:
    from firmware_bridge.host import DEFAULT_PORT

    assert DEFAULT_PORT == "/dev/scrabble-clock"


def test_install_script_parses_and_gets_the_pi_facts() -> None:
    script = SYSTEMD / "install.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    text = script.read_text()
    assert "--system-site-packages" in text
    assert "python3-picamera2" in text and "python3-pygame" in text
    for fonts in ("fonts-dejavu-core", "fonts-noto-core", "fonts-wqy-microhei"):  # the touchscreen's names
        assert fonts in text
    assert "apt-get remove" in text and "python3-rpi.gpio" in text
    assert "[pi]" in text
    assert "opencv-python-headless==4.11.0.86" in text  # the newest wheel for an apt numpy 1.x
    assert "99-scrabble-clock.rules" in text and "scrabble-kiosk.service" in text


def test_install_script_passes_shellcheck() -> None:
    exe = shutil.which("shellcheck")
    if exe is None:
        pytest.fail("shellcheck is missing: install the 'shellcheck' package (scripts/system-packages.txt)")
    res = subprocess.run([exe, str(SYSTEMD / "install.sh")], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
