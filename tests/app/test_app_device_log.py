"""``kiosk run`` logs the device problems its screen shows (before, a headless table showed them to nobody: a
camera down or a clock link lost left no line in the log): each as the screen's sentence, a warning when it
appears, info when it clears, once per change however often the devices' health is looked at."""

from __future__ import annotations

import logging
from pathlib import Path

from common_fixtures import headless_config

from kiosk.app.config import load_config
from kiosk.app.device_log import DeviceLog
from kiosk.app.table import run_table
from kiosk.control.words import device_notes
from kiosk.devices.health import DeviceHealth

OK = [DeviceHealth("camera", "picamera2", "ok"), DeviceHealth("clock-link", "serial", "ok"),
      DeviceHealth("display", "ht16k33", "ok")]


def _with(*changed: DeviceHealth) -> list[DeviceHealth]:
    by = {h.device: h for h in changed}
    return [by.get(h.device, h) for h in OK]


def _said(caplog) -> list[tuple[str, str]]:
    out = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "kiosk.devices"]
    caplog.clear()
    return out


def test_each_problem_is_logged_as_the_screen_says_it_when_it_comes_and_when_it_goes(caplog):
    device_log = DeviceLog()
    down = DeviceHealth("camera", "picamera2", "down", "Pi camera capture failed: timeout")
    lost = DeviceHealth("clock-link", "serial", "down", "/dev/ttyACM0 cannot be opened: no such device")
    garbled = DeviceHealth("clock-link", "serial", "degraded", "3 garbled frames dropped")
    with caplog.at_level(logging.INFO, logger="kiosk.devices"):
        assert device_log.update(OK) == () and _said(caplog) == []
        shown = device_log.update(_with(down, lost))
        assert shown == device_notes(_with(down, lost)) == ("Camera not working.", "Clock link not working.")
        assert _said(caplog) == [
            ("WARNING", "Camera not working. (picamera2: Pi camera capture failed: timeout)"),
            ("WARNING", "Clock link not working. (serial: /dev/ttyACM0 cannot be opened: no such device)")]
        for detail in ("Pi camera capture failed: timeout", "Pi camera capture failed: again"):  # every poll
            device_log.update(_with(DeviceHealth("camera", "picamera2", "down", detail), lost))
        assert _said(caplog) == []                                   # the same problems: nothing more
        device_log.update(_with(down, garbled))
        assert _said(caplog) == [("WARNING", "Clock link having trouble. (serial: 3 garbled frames dropped)")]
        assert device_log.update(_with(garbled)) == ("Clock link having trouble.",)
        assert _said(caplog) == [("INFO", "Camera working again.")]
        assert device_log.update(OK) == ()
        assert _said(caplog) == [("INFO", "Clock link working again.")]
        device_log.update(OK)
        assert _said(caplog) == []


def test_a_headless_table_without_its_camera_logs_it_once(tmp_path: Path, caplog):
    path = headless_config(tmp_path)
    with caplog.at_level(logging.INFO):
        assert run_table(load_config(path), headless=True, max_seconds=1) == 0
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "kiosk.devices"]
    assert said == [("WARNING", "No camera: the judge enters each move. (none: no camera configured: moves are "
                                "entered by hand)")]
