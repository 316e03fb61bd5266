"""Building devices from the kiosk config: backends, shared serial link, clear config errors, no crash when
hardware is absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.host import SerialButtons, SerialDisplay, wait_until
from firmware_bridge.simulator import FirmwareSimulator
from kiosk.devices import (
    CameraError,
    DeviceConfigError,
    KeyboardButtons,
    ScriptedButtons,
    SimulatedDisplay,
    build_buttons,
    build_camera,
    build_devices,
    build_display,
)
from kiosk.devices.display import NullDisplay
from kiosk.devices.gpio_buttons import GpioButtons


def test_defaults_are_the_demo_devices() -> None:
    devs = build_devices({})
    assert isinstance(devs.buttons, KeyboardButtons) and isinstance(devs.display, SimulatedDisplay)
    states = {h.device: h.state for h in devs.health()}
    assert states == {"buttons": "ok", "display": "ok", "camera": "absent"}
    with pytest.raises(CameraError):
        devs.camera.capture()
    devs.close()


def test_scripted_null_and_replay(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((8, 8, 3), np.uint8))
    devs = build_devices({"buttons": {"backend": "scripted", "script": [[0, "left"]]},
                          "display": {"backend": "null"},
                          "camera": {"backend": "replay", "path": str(tmp_path)}})
    assert isinstance(devs.buttons, ScriptedButtons) and isinstance(devs.display, NullDisplay)
    assert devs.camera.capture()[1].shape == (8, 8, 3)
    assert [p.side for p in devs.buttons.poll()] == ["left"]


def test_gpio_and_ht16k33_without_hardware_are_down_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    import types

    fake = types.ModuleType("smbus2")

    def no_bus(n: int) -> None:
        raise FileNotFoundError(f"/dev/i2c-{n}")

    fake.SMBus = no_bus  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "smbus2", fake)
    devs = build_devices({"buttons": {"backend": "gpio", "pins": {"left": 17, "right": 27}},
                          "display": {"backend": "ht16k33", "addresses": {"left": "0x70", "right": "0x71"}},
                          "camera": {"backend": "picamera2"}})
    assert isinstance(devs.buttons, GpioButtons) and devs.buttons.pins == {"left": 17, "right": 27}
    states = {h.device: h.state for h in devs.health()}
    assert states == {"buttons": "down", "display": "down", "camera": "down"}
    devs.display.show(1000, 1000)
    assert devs.buttons.poll() == []


def test_serial_buttons_and_display_share_one_link(tmp_path: Path) -> None:
    sim = FirmwareSimulator(tmp_path / "clock")
    sim.plug()
    devs = build_devices({"buttons": {"backend": "serial"}, "display": {"backend": "serial"},
                          "serial": {"port": str(tmp_path / "clock")}})
    try:
        assert isinstance(devs.buttons, SerialButtons) and isinstance(devs.display, SerialDisplay)
        assert devs.buttons.link is devs.display.link is devs.serial_link
        assert devs.serial_link.wait_connected(5)
        devs.display.show(3_000, 4_000)
        assert wait_until(lambda: sim.display_text(1) == " 0:04", 2)
        assert {h.device for h in devs.health()} == {"buttons", "display", "camera", "clock-link"}
    finally:
        devs.close()
        sim.unplug()


@pytest.mark.parametrize("config,match", [
    ({"buttons": {"backend": "morse"}}, r"buttons\.backend: 'morse'"),
    ({"buttons": {"backend": "gpio", "pins": {"left": "x"}}}, r"buttons\.pins\.left"),
    ({"buttons": {"backend": "gpio", "debounce": 5}}, "unknown key debounce; known: "),
    ({"buttons": {"backend": "scripted", "script": [[1, "up"]]}}, r"script\[0\]"),
    ({"display": {"backend": "ht16k33", "brightness": 99}}, "brightness"),
    ({"display": {"backend": "ht16k33", "addresses": [112]}}, "display.addresses"),
    ({"camera": {"backend": "replay"}}, "camera.path"),
    ({"camera": {"backend": "synthetic"}}, "board callable"),
    ({"camera": {"backend": "opencv", "size": [0, 5]}}, "camera.size"),
    ({"camera": {"backend": "picamera2", "colour_gains": 2}}, "colour_gains"),
    ({"camera": {"backend": "picamera2", "mode": "video"}}, "camera.mode"),
    ({"serial": {"loss_ms": 9000}, "buttons": {"backend": "serial"}}, r"^serial\.loss_ms must be at most 3000 ms"),
    ({"serial": {"loss_ms": 500}, "buttons": {"backend": "serial"}},
     r"^serial\.loss_ms must be at least 2000 ms \(allowed 2000\.\.3000 ms\): the clock sends a heartbeat every "
     r"1000 ms"),
    ({"serial": {"loss_ms": "fast"}, "buttons": {"backend": "serial"}}, r"serial\.loss_ms"),
    ({"buttons": "gpio"}, r"^\[devices\] buttons must be a table \(buttons = \{backend = \.\.\.\}\), not text \(\"gpio\"\)$"),
    ({"clock": {}}, "unknown key"),
])
def test_config_errors_name_the_key(config: dict, match: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(DeviceConfigError, match=match):
        build_devices(config)


def test_single_builders() -> None:
    assert isinstance(build_buttons({"buttons": {"backend": "keyboard", "keys": {"a": "left"}}}), KeyboardButtons)
    assert isinstance(build_display({}), SimulatedDisplay)
    missing = build_camera({"camera": {"backend": "replay", "path": "/nonexistent/frames"}})
    assert missing.health().state == "down" and "does not exist" in missing.health().detail


def test_pi_camera_takes_locked_settings_from_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    from dev_fakes import FakePicamera2, fake_picamera2_module

    from kiosk.vision.profile import CalibrationProfile

    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    prof = CalibrationProfile(camera_settings={"exposure_us": 12000, "analogue_gain": 1.5, "awb_gains": [2.1, 1.4],
                                               "auto_exposure": False})
    build_camera({"camera": {"backend": "picamera2", "size": [64, 48]}}, profile=prof)
    assert FakePicamera2.instances[-1].controls == {"AeEnable": False, "ExposureTime": 12000, "AnalogueGain": 1.5,
                                                    "AwbEnable": False, "ColourGains": (2.1, 1.4)}
    build_camera({"camera": {"backend": "picamera2", "size": [64, 48], "exposure_us": 5000}}, profile=prof)
    assert FakePicamera2.instances[-1].controls["ExposureTime"] == 5000  # the config wins



_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 200) | st.floats(allow_nan=True) | st.text(max_size=6),
                       lambda v: st.lists(v, max_size=3) | st.dictionaries(st.text(max_size=6), v, max_size=3),
                       max_leaves=6)
_KEYS = {
    ("buttons", "scripted"): ["script"], ("buttons", "keyboard"): ["keys"],
    ("buttons", "gpio"): ["pins", "debounce_ms", "active_low"],
    ("display", "ht16k33"): ["addresses", "bus", "brightness", "retries", "blink_overtime"],
    ("camera", "replay"): ["path", "loop"], ("camera", "opencv"): ["device", "size", "exposure", "wb_temperature"],
    ("camera", "picamera2"): ["size", "mode", "camera_num", "exposure_us", "analogue_gain", "colour_gains"],
    ("camera", "synthetic"): ["seed", "level", "size"],
}


@st.composite
def _configs(draw) -> dict:
    section, backend = draw(st.sampled_from(sorted(_KEYS)))
    keys = draw(st.lists(st.sampled_from(_KEYS[(section, backend)]), unique=True))
    return {section: {"backend": backend, **{k: draw(_values) for k in keys}}}


@settings(max_examples=int(os.environ.get("DEV_FUZZ_EXAMPLES", "300")), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(config=_configs())
def test_any_config_gives_devices_or_a_config_error(monkeypatch: pytest.MonkeyPatch, config: dict) -> None:
    for mod in ("RPi", "RPi.GPIO", "picamera2", "smbus2"):
        monkeypatch.setitem(sys.modules, mod, None)
    try:
        devs = build_devices(config, board=lambda: None)
    except DeviceConfigError as exc:
        assert str(exc)
        return
    devs.health()
    devs.close()


def test_the_serial_loss_timeout_range_and_default_follow_the_heartbeat() -> None:
    """The config takes 2000..3000 ms (two of the clock's 1 s heartbeats at least: firmware/link.py), and its
    default is the link's; the docs and the example config say the same range."""
    from firmware_bridge.firmware.link import HEARTBEAT_MS, LOSS_MAX_MS, LOSS_MIN_MS, LOSS_MS
    from kiosk.devices.factory import build_serial_link, check_devices_config

    assert build_serial_link({}).loss_ms == LOSS_MS == 2500
    for ok in (LOSS_MIN_MS, LOSS_MS, LOSS_MAX_MS):
        check_devices_config({"buttons": {"backend": "serial"}, "serial": {"loss_ms": ok}})
        assert build_serial_link({"serial": {"loss_ms": ok}}).loss_ms == ok
    for bad in (LOSS_MIN_MS - 1, LOSS_MAX_MS + 1):
        with pytest.raises(DeviceConfigError, match=f"allowed {2 * HEARTBEAT_MS}\\.\\.{LOSS_MAX_MS} ms"):
            check_devices_config({"buttons": {"backend": "serial"}, "serial": {"loss_ms": bad}})
    root = Path(__file__).resolve().parents[2]
    said = f"{LOSS_MIN_MS}..{LOSS_MAX_MS}"
    for doc in ("README.md", "firmware_bridge/PROTOCOL.md", "systemd/kiosk.toml.example"):
        text = (root / doc).read_text(encoding="utf-8")
        assert said in text and "500..3000" not in text, doc
