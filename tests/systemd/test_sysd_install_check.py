"""The install script starts the service only on a config the kiosk accepts, and says so when it does not (it
enabled and started the kiosk on the example's judge_pin = "CHANGE-ME", systemd restarted it until it gave up,
and the script said "started"); it removes python3-rpi.gpio alone, never with packages that depend on it; the
example config lights the HT16K33 clock faces the README wires; the unit's documentation exists; the README's
wiring table is the config's TOML. The script runs here only as ``--dry-run`` (it changes nothing), with
dpkg-query and apt-get's simulation stubbed where the test needs an installed python3-rpi.gpio."""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kiosk.devices.factory import DeviceConfigError, check_devices_config

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "systemd" / "install.sh"
EXAMPLE = ROOT / "systemd" / "kiosk.toml.example"
KIOSK = [sys.executable, "-m", "kiosk"]

needs_no_installed_config = pytest.mark.skipif(Path("/etc/scrabble-kiosk/kiosk.toml").exists(),
                                               reason="this machine has an installed kiosk config, which the "
                                                      "script checks instead of the one given")
needs_venv = pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "kiosk").exists(),
                                reason="no .venv: the dry run checks the config with the checkout's kiosk")


def _ok_config(tmp_path: Path) -> Path:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(EXAMPLE.read_text().replace('judge_pin = "CHANGE-ME"', 'judge_pin = "2468"'))
    return cfg


def test_kiosk_run_check_refuses_the_example_until_its_pin_is_set(tmp_path: Path) -> None:
    res = subprocess.run([*KIOSK, "run", "--config", str(EXAMPLE), "--check"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == f'kiosk run: {EXAMPLE}: table.judge_pin: expected 4 to 8 digits 0-9, e.g. "2468"\n'
    cfg = _ok_config(tmp_path)
    res = subprocess.run([*KIOSK, "run", "--config", str(cfg), "--check"], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"{cfg}: config ok (Player1 vs Player2 under nsf, tiles english; buttons gpio, "
                                 "display ht16k33, camera picamera2; ")
    assert list(tmp_path.iterdir()) == [cfg]       # no journal made, nothing written


def test_kiosk_run_check_names_a_device_mistake_without_opening_a_device(tmp_path: Path) -> None:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(_ok_config(tmp_path).read_text().replace('right = "0x71"', 'right = "0x90"'))
    res = subprocess.run([*KIOSK, "run", "--config", str(cfg), "--check"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2
    assert res.stderr == (f"kiosk run: {cfg}: [devices] display.addresses['right']: HT16K33 address must be "
                          "0x70..0x77, got 144\n")   # the key said once (was "[devices] display: display.addr...")


def test_the_device_check_runs_the_backends_own_checks_and_opens_nothing(monkeypatch) -> None:
    import kiosk.devices.gpio_buttons as gpio_buttons

    monkeypatch.setattr(gpio_buttons, "load_gpio_module", lambda: pytest.fail("the check opened GPIO"))
    monkeypatch.setattr("kiosk.devices.ht16k33._default_bus_factory", lambda bus: pytest.fail("the check opened I2C"))
    assert check_devices_config({"buttons": {"backend": "gpio"}, "display": {"backend": ["ht16k33", "serial"]},
                                 "serial": {"port": "/dev/nothing-here"}, "camera": {"backend": "opencv"}}) \
        == "buttons gpio, display ht16k33+serial, camera opencv"
    with pytest.raises(DeviceConfigError, match=r"BCM pin must be an int 0\.\.27, got 40"):
        check_devices_config({"buttons": {"backend": "gpio", "pins": {"left": 40}}})
    with pytest.raises(DeviceConfigError, match=r"^serial\.loss_ms must be at least 2000 ms \(allowed 2000\.\.3000"):
        check_devices_config({"buttons": {"backend": "serial"}, "serial": {"loss_ms": 10}})


def test_the_example_config_names_the_devices_the_readme_wires() -> None:
    devices = tomllib.loads(EXAMPLE.read_text())["devices"]
    assert devices["display"]["backend"] == "ht16k33"
    assert {k: int(v, 0) for k, v in devices["display"]["addresses"].items()} == {"left": 0x70, "right": 0x71}
    assert devices["buttons"]["pins"] == {"left": 17, "right": 27, "pause": 22, "judge": 23}
    assert check_devices_config(devices) == "buttons gpio, display ht16k33, camera picamera2"


def test_the_readmes_wiring_table_is_the_configs_toml() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Wiring", 1)[1].split("\n\n", 2)[1]
    rows = [r for r in table.splitlines() if r.startswith("|") and not r.startswith(("| what", "| ---"))]
    assert len(rows) == 5
    for row in rows:
        config = row.rstrip(" |").rsplit("|", 1)[1]
        snippets = re.findall(r"`([^`]+)`", config)
        assert snippets, row
        for snippet in snippets:
            if snippet.startswith("{"):
                snippet = f"camera = {snippet}"
            data = tomllib.loads(snippet)         # TOML, as the config is (it was YAML-like: buttons: {...})
            check_devices_config(data if "backend" in next(iter(data.values())) else {})


def test_the_units_documentation_exists() -> None:
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.read_string((ROOT / "systemd" / "scrabble-kiosk.service").read_text())
    docs = cp["Unit"]["Documentation"].split()
    assert docs
    for uri in docs:
        assert uri.startswith("file:///opt/scrabble-kiosk/"), uri
        assert (ROOT / uri.removeprefix("file:///opt/scrabble-kiosk/")).is_file(), f"{uri} is not in the checkout"


def _dry_run(*args: str, path_prefix: Path | None = None) -> subprocess.CompletedProcess[str]:
    # a script without the dry run would install for real when the tests run as root: never run one
    assert '--dry-run) DRY=1 ;;' in SCRIPT.read_text(), "install.sh has no --dry-run: not run"
    env = dict(os.environ)
    if path_prefix is not None:
        env["PATH"] = f"{path_prefix}{os.pathsep}{env['PATH']}"
    return subprocess.run(["bash", str(SCRIPT), "--dry-run", *args], capture_output=True, text=True, timeout=300,
                          env=env)


@needs_no_installed_config
@needs_venv
def test_the_script_refuses_a_config_the_kiosk_cannot_start_on_and_enables_nothing() -> None:
    res = _dry_run()
    assert res.returncode == 1
    assert 'table.judge_pin: expected 4 to 8 digits 0-9, e.g. "2468"' in res.stderr
    assert ("install.sh: the kiosk cannot start on /etc/scrabble-kiosk/kiosk.toml (above): the service was not "
            "enabled, started or restarted.") in res.stderr
    assert "systemctl enable" not in res.stdout and "restart" not in res.stdout and "started" not in res.stdout


@needs_no_installed_config
@needs_venv
def test_the_script_enables_and_starts_on_a_good_config_then_watches_it(tmp_path: Path) -> None:
    res = _dry_run("--config", str(_ok_config(tmp_path)))
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert out.index("config ok (") < out.index("would run: systemctl enable scrabble-kiosk.service") \
        < out.index("would run: systemctl restart scrabble-kiosk.service, then see it running for 10 s")
    res = _dry_run("--config", str(_ok_config(tmp_path)), "--no-enable")
    assert res.returncode == 0 and "systemctl enable scrabble" not in res.stdout.replace("enable --now", "")
    text = SCRIPT.read_text()
    assert 'systemctl is-active --quiet "$SERVICE"' in text and "journalctl -u" in text


def _stub_apt(tmp_path: Path, removes: list[str]) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dpkg-query").write_text("#!/bin/sh\nprintf 'install ok installed'\n")
    lines = "".join(f"echo 'Remv {p} [1.0]'\n" for p in removes)
    (bin_dir / "apt-get").write_text(f"#!/bin/sh\n[ \"$1\" = -s ] || exit 99\necho 'Reading package lists...'\n{lines}")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return bin_dir


@needs_no_installed_config
@needs_venv
def test_rpi_gpio_is_never_removed_with_packages_that_depend_on_it(tmp_path: Path) -> None:
    res = _dry_run(path_prefix=_stub_apt(tmp_path, ["python3-rpi.gpio", "python3-gpiozero", "scratch3"]))
    assert res.returncode == 1
    assert ("install.sh: python3-rpi.gpio (RPi.GPIO, which rpi-lgpio replaces) cannot be removed alone: apt would "
            "also remove python3-gpiozero scratch3, which depend on it. Nothing was removed.") in res.stderr
    assert "apt-get remove" not in res.stdout and "apt-get install" not in res.stdout


@needs_no_installed_config
@needs_venv
def test_rpi_gpio_alone_is_removed(tmp_path: Path) -> None:
    res = _dry_run("--config", str(_ok_config(tmp_path)), path_prefix=_stub_apt(tmp_path, ["python3-rpi.gpio"]))
    assert res.returncode == 0, res.stderr
    assert "would run: env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq python3-rpi.gpio" in res.stdout


def test_the_script_has_its_options_and_refuses_another() -> None:
    assert '--dry-run) DRY=1 ;;' in SCRIPT.read_text(), "install.sh has no --dry-run: not run"
    res = subprocess.run(["bash", str(SCRIPT), "--frobnicate"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 1
    assert res.stderr == "install.sh: unknown option '--frobnicate' (options: --no-enable, --config FILE, --dry-run)\n"
