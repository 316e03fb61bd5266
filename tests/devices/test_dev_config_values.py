"""Every value of [devices] of the wrong kind is refused in a config file's words, naming the key once: a number
in quotes ("2500") was taken as the number, true was "expected an integer, got True", 1e9 "got 1000000000.0", a
decimal number gave no range, and the section was said twice ("[devices] serial: serial.loss_ms: ...")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kiosk.devices.check import main as check_main
from kiosk.devices.factory import DeviceConfigError, check_devices_config

LOSS = "serial.loss_ms must be a whole number of milliseconds (allowed 2000..3000 ms), not "
SERIAL = {"buttons": {"backend": "serial"}}
GPIO = {"backend": "gpio"}
HT = {"backend": "ht16k33"}


@pytest.mark.parametrize(("config", "message"), [
    ({**SERIAL, "serial": {"loss_ms": "2500"}}, LOSS + 'text ("2500")'),
    ({**SERIAL, "serial": {"loss_ms": True}}, LOSS + "true/false"),
    ({**SERIAL, "serial": {"loss_ms": 1e9}}, LOSS + "a decimal number (1e+09)"),
    ({**SERIAL, "serial": {"loss_ms": 2500.5}}, LOSS + "a decimal number (2500.5)"),
    ({**SERIAL, "serial": {"loss_ms": 2500.0}}, LOSS + "a decimal number (2500.0)"),
    ({**SERIAL, "serial": {"baudrate": "115200"}},
     'serial.baudrate must be a whole number of bits per second, e.g. 115200, not text ("115200")'),
    ({**SERIAL, "serial": {"baudrate": 0}}, "serial.baudrate must be more than 0 bits per second, got 0"),
    ({**SERIAL, "serial": {"port": 5}},
     'serial.port must be the clock\'s device path, e.g. "/dev/scrabble-clock", not the number 5'),
    ({**SERIAL, "serial": {"port": ""}},
     'serial.port must be the clock\'s device path, e.g. "/dev/scrabble-clock", not empty text'),
    ({"buttons": {**GPIO, "pins": {"left": "17"}}}, 'buttons.pins.left must be a whole number, not text ("17")'),
    ({"buttons": {**GPIO, "debounce_ms": True}},
     "buttons.debounce_ms must be a whole number of milliseconds (allowed 2..50 ms), not true/false"),
    ({"buttons": {**GPIO, "active_low": "yes"}}, 'buttons.active_low must be true or false, not text ("yes")'),
    ({"display": {**HT, "brightness": "15"}}, 'display.brightness must be a whole number 0..15, not text ("15")'),
    ({"display": {**HT, "bus": 1.0}}, "display.bus must be an I2C bus number, e.g. 1, not a decimal number (1.0)"),
    ({"display": {**HT, "retries": False}}, "display.retries must be a whole number 0 or more, not true/false"),
    ({"display": {**HT, "blink_overtime": 1}}, "display.blink_overtime must be true or false, not the number 1"),
    ({"display": {**HT, "addresses": {"left": True, "right": 113}}},
     'display.addresses.left must be an I2C address, e.g. 0x70 or "0x70", not true/false'),
    ({"camera": {"backend": "picamera2", "camera_num": "0"}},
     'camera.camera_num must be a camera number, e.g. 0, not text ("0")'),
    ({"camera": {"backend": "picamera2", "mode": 5}}, "camera.mode must be still or preview, not the number 5"),
    ({"camera": {"backend": "picamera2", "mode": "video"}}, 'camera.mode must be still or preview, not text ("video")'),
    ({"camera": {"backend": "picamera2", "exposure_us": "abc"}},
     'camera.exposure_us must be a number of microseconds, not text ("abc")'),
    ({"camera": {"backend": "picamera2", "exposure_us": -5}}, "camera.exposure_us must be > 0, got -5"),
    ({"camera": {"backend": "picamera2", "colour_gains": ["1.5", 2]}},
     'camera.colour_gains[0] must be a gain, not text ("1.5")'),
    ({"camera": {"backend": "picamera2", "size": ["640", 480]}},
     'camera.size[0] must be a whole number, not text ("640")'),
    ({"camera": {"backend": "opencv", "exposure": True}}, "camera.exposure must be a finite number, not true/false"),
    ({"camera": {"backend": "opencv", "device": True}},
     'camera.device must be a camera number or a device path (0 or "/dev/video0"), not true/false'),
    # passed the check, and the camera did not open: "webcam '0' could not be opened"
    ({"camera": {"backend": "opencv", "device": "0"}},
     'camera.device must be a camera number or a device path, not text ("0"): a number in quotes is neither: write '
     'device = 0 for camera number 0 (0 is the first), or a path like "/dev/video0"'),
    ({"camera": {"backend": "opencv", "device": " 2"}},
     'camera.device must be a camera number or a device path, not text (" 2"): a number in quotes is neither: write '
     'device = 2 for camera number 2 (0 is the first), or a path like "/dev/video2"'),
    ({"camera": {"backend": "replay", "path": "/tmp", "loop": "false"}},
     'camera.loop must be true or false, not text ("false")'),
    ({"camera": {"backend": "replay", "path": 3}},
     "camera.path must be a folder of images or a video file, not the number 3"),
    ({"camera": {"backend": "synthetic", "seed": 1.5}}, "camera.seed must be a whole number, not a decimal number (1.5)"),
    ({"camera": {"backend": "synthetic", "level": "extreme"}},
     'camera.level must be a realism level (easy, typical, hard), not text ("extreme")'),
])
def test_a_value_of_the_wrong_kind_is_refused_in_the_files_words(config: dict, message: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(DeviceConfigError) as err:
        check_devices_config(config)
    assert str(err.value) == message


@pytest.mark.parametrize(("value", "got"), [('"2500"', 'text ("2500")'), ("true", "true/false"),
                                            ("1e9", "a decimal number (1e+09)"),
                                            ("2500.5", "a decimal number (2500.5)")])
def test_the_device_check_and_kiosk_run_refuse_it_naming_the_key_once(tmp_path: Path, value: str, got: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from kiosk.cli import main as kiosk_main

    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[table]\njudge_pin = "2468"\njournal = "{tmp_path / "j.sqlite"}"\n[devices]\n'
                   f'buttons = {{backend = "serial"}}\nserial = {{port = "{tmp_path / "clk"}", loss_ms = {value}}}\n')
    assert check_main([str(cfg), "--seconds", "0.1"]) == 2
    assert capsys.readouterr().err == f"device config: {cfg}: [devices] {LOSS}{got}\n"
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2
    assert capsys.readouterr().err == f"kiosk run: {cfg}: [devices] {LOSS}{got}\n"


def test_addresses_may_be_written_as_text_and_an_unknown_key_is_one_or_more() -> None:
    assert check_devices_config({"display": {**HT, "addresses": {"left": "0x70", "right": 0x71}}}) == (
        "buttons keyboard, display ht16k33, camera none")
    with pytest.raises(DeviceConfigError, match="^serial: unknown key speed; known: baudrate, loss_ms, port$"):
        check_devices_config({**SERIAL, "serial": {"speed": 1}})
    with pytest.raises(DeviceConfigError, match="^serial: unknown keys rate, speed; known: "):
        check_devices_config({**SERIAL, "serial": {"speed": 1, "rate": 2}})
    with pytest.raises(DeviceConfigError, match="^buttons: unknown key pins; known: none but backend$"):
        check_devices_config({"buttons": {"backend": "serial", "pins": {}}})


@pytest.mark.parametrize(("ms", "says"), [
    (0, "buttons.debounce_ms must be at least 2 ms (allowed 2..50 ms): a switch's contacts bounce for a few ms, and "
        "each bounce would count as a press (the pause button would pause and resume at once); got 0 ms"),
    (1000, "buttons.debounce_ms must be at most 50 ms (allowed 2..50 ms): a press counts only once it has held that "
           "long, and a quick tap on the clock would be dropped; got 1000 ms"),
])
def test_a_button_debounce_out_of_its_bounds_is_refused_with_why(ms, says):
    """buttons.debounce_ms took 0..1000 ms: 0 counts every contact bounce as a press, and at 1,000 ms a press had
    to be held a second to count (a tester's finding); the bounds are the debounce module's own, shared with the
    clock's firmware (firmware.debounce.debounce_problem)."""
    with pytest.raises(DeviceConfigError) as exc:
        check_devices_config({"buttons": {**GPIO, "pins": {"left": 17}, "debounce_ms": ms}})
    assert str(exc.value).endswith(says), str(exc.value)
    for ok in (2, 20, 50):
        check_devices_config({"buttons": {**GPIO, "pins": {"left": 17}, "debounce_ms": ok}})


@pytest.mark.parametrize(("devices", "problem"), [
    # was "[devices] devices config: unknown key bogus; known: ..." in both tools
    ('bogus = 1\n', "[devices]: unknown key bogus; known: buttons, camera, display, serial"),
    ('camera = "opencv"\n', '[devices] camera must be a table (camera = {backend = ...}), not text ("opencv")'),
])
def test_a_mistake_in_devices_itself_names_the_section_once(tmp_path: Path, devices: str, problem: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from kiosk.cli import main as kiosk_main

    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[table]\njudge_pin = "2468"\njournal = "{tmp_path / "j.sqlite"}"\n[devices]\n{devices}')
    assert check_main([str(cfg), "--seconds", "0.1"]) == 2
    assert capsys.readouterr().err == f"device config: {cfg}: {problem}\n"
    assert kiosk_main(["run", "--config", str(cfg), "--check"]) == 2
    assert capsys.readouterr().err == f"kiosk run: {cfg}: {problem}\n"
