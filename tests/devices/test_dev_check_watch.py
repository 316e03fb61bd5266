"""The device check judges each device by its state at the end of the watch and says what happened during it.
A serial clock link unplugged during the watch and plugged in again was "degraded" at the end (the link reports
so for 10 s after an outage) and the check called it "not working", exit 1 (a tester's finding): it works, and
was lost for a while. The same for every device: one that went bad and came back works; one failing at the end
does not (exit 1)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from firmware_bridge.simulator import FirmwareSimulator
from kiosk.devices import check
from kiosk.devices.check import main
from kiosk.devices.factory import Devices
from kiosk.devices.health import DeviceHealth, State
from kiosk.devices.watch import HealthWatch


def test_a_serial_clock_lost_during_the_watch_and_back_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    sim = FirmwareSimulator(tmp_path / "clk")
    sim.plug()
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[devices]\nserial = {{port = "{tmp_path / "clk"}"}}\n'
                   'buttons = {backend = "serial"}\ndisplay = {backend = "serial"}\n')

    def cable() -> None:
        time.sleep(0.6)
        sim.unplug()
        time.sleep(1.0)
        sim.plug()

    pulling = threading.Thread(target=cable)
    pulling.start()
    try:
        code = main([str(cfg), "--seconds", "3.5"])
    finally:
        pulling.join()
        sim.unplug()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "not working" not in out
    lines = [line for line in out.splitlines() if "lost once" in line]
    assert len(lines) == 1, out
    line = lines[0]
    assert line.startswith("buttons (serial), display (serial) and clock-link (serial) work; they were lost once "
                           "for 1."), line
    assert line.endswith(").") and f"{tmp_path / 'clk'}" in line


class Scripted:
    """A device whose health follows a script: (state, detail) for each look, the last one staying."""

    def __init__(self, device: str, backend: str, script: list[tuple[State, str]]) -> None:
        self.device, self.backend, self.script = device, backend, list(script)
        self.since = 0

    def health(self) -> DeviceHealth:
        state, detail = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        return DeviceHealth(self.device, self.backend, state, detail, self.since)

    def poll(self) -> list:
        return []

    def show(self, *args: object) -> None:
        pass

    def close(self) -> None:
        pass


def _run(monkeypatch, capsys, buttons: Scripted, display: Scripted, camera: Scripted) -> tuple[int, str]:
    monkeypatch.setattr(check, "build_devices", lambda config, board: Devices(buttons, display, camera))  # type: ignore[arg-type]
    code = main(["--seconds", "0.5"])
    return code, capsys.readouterr().out


OK: tuple[State, str] = ("ok", "fine")


def test_every_device_that_went_bad_and_came_back_works(monkeypatch, capsys) -> None:
    gpio = Scripted("buttons", "gpio", [OK, ("degraded", "reading BCM17 failed: gone"), OK])
    i2c = Scripted("display", "ht16k33", [OK, *[("down", "left display at 0x70 on I2C bus 1: EIO")] * 3,
                                          ("degraded", "1 I2C error(s) retried successfully")])
    cam = Scripted("camera", "opencv", [OK, ("down", "webcam 0 returned no frame (unplugged?)"), OK,
                                        ("down", "webcam 0 could not be opened"), OK])
    code, out = _run(monkeypatch, capsys, gpio, i2c, cam)
    assert code == 0, out
    assert "not working" not in out
    assert "buttons (gpio) work; they had trouble once during the check (reading BCM17 failed: gone)." in out
    assert re.search(r"^display \(ht16k33\) works; it was lost once for 0\.\d s during the check \(left display at "
                     r"0x70 on I2C bus 1: EIO\)\.$", out, re.M), out
    assert ("camera (opencv) works; it was lost 2 times during the check, for ") in out
    assert "(the first time: webcam 0 returned no frame (unplugged?))." in out


def test_a_device_failing_at_the_end_does_not_work(monkeypatch, capsys) -> None:
    gpio = Scripted("buttons", "gpio", [OK, ("degraded", "reading BCM17 failed: gone")])   # its own errors, now
    i2c = Scripted("display", "ht16k33", [OK, OK, ("down", "left display at 0x70 on I2C bus 1: EIO")])
    cam = Scripted("camera", "opencv", [("down", "webcam 0 could not be opened")])
    code, out = _run(monkeypatch, capsys, gpio, i2c, cam)
    assert code == 1, out
    assert "display (ht16k33) does not work; it stopped working 0." in out
    assert "s before the check ended (left display at 0x70 on I2C bus 1: EIO)." in out
    assert "camera (opencv) does not work" not in out          # never worked: its line and the list say it
    assert "buttons (gpio) do not work; they had trouble once during the check (reading BCM17 failed: gone)." in out
    assert out.splitlines()[-1] == "not working: buttons (gpio), display (ht16k33), camera (opencv)"


def test_the_watch_times_an_outage_by_the_devices_own_state_changes() -> None:
    watch = HealthWatch(1_000)
    look = [("ok", 900), ("down", 1_250), ("down", 1_250), ("degraded", 3_550), ("ok", 13_550)]
    for t, (state, since) in zip((1_000, 1_300, 2_000, 3_600, 14_000), look):
        watch.look([DeviceHealth("clock-link", "serial", state, "why" if state == "down" else "", since)], t)
    assert watch.sentences(14_000) == ["clock-link (serial) works; it was lost once for 2.3 s during the check (why)."]


def test_a_device_that_came_up_late_says_when() -> None:
    watch = HealthWatch(0)
    for t, state in ((0, "down"), (1_000, "down"), (2_400, "ok")):
        watch.look([DeviceHealth("camera", "opencv", state, "not opened" if state == "down" else "")], t)
    assert watch.sentences(3_000) == ["camera (opencv) works; it started working 2.4 s into the check "
                                      "(before that: not opened)."]
    quiet = HealthWatch(0)
    quiet.look([DeviceHealth("camera", "none", "absent", "no camera")], 0)
    quiet.look([DeviceHealth("display", "simulated", "ok", "")], 0)
    assert quiet.sentences(10) == []
