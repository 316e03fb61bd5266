"""The chess clock down (tester's findings 1 and 9): every seat ends its turn on the screen while the clock's
buttons or its link are down, and the device line says so readably, logged once, not once a frame."""

from __future__ import annotations

import logging

import pygame
import pytest
from test_ui_screens import SIZES, shot, touch
from ui_fixtures import display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.control.words import device_notes
from kiosk.devices.health import DeviceHealth
from kiosk.ui import screens
from kiosk.ui.app import KioskUI

SERIAL_DOWN = (DeviceHealth("buttons", "serial", "down"), DeviceHealth("display", "serial", "down"),
               DeviceHealth("clock-link", "serial", "down", "no such port"))


def _dones(ui: KioskUI) -> list[str]:
    ui.draw()
    return [b.label for b in ui.buttons if b.action == "done" and b.enabled]


@pytest.mark.parametrize("down", [SERIAL_DOWN, SERIAL_DOWN[:1], SERIAL_DOWN[2:]], ids=["all", "buttons", "link"])
def test_with_the_clock_down_the_first_two_seats_end_their_turn_on_the_screen(tmp_path, down):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert _dones(ui) == []  # the clock works: its buttons end the turn
    k.view.devices = device_notes(down)
    assert _dones(ui) == ["Done"]
    assert k.state.on_move == 0
    c.t += 5_000
    touch(ui, "Done")  # no camera: the press is a pass
    assert k.state.on_move == 1 and k.session.referee.events[-1].type == "pass"
    assert _dones(ui) == ["Done"]
    k.view.devices = ()  # the clock works again: its buttons, not the screen, end the turn
    assert _dones(ui) == []


def test_a_clock_display_alone_down_leaves_the_buttons_to_the_clock(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    k.view.devices = device_notes([DeviceHealth("display", "ht16k33", "down"),
                                   DeviceHealth("buttons", "gpio", "degraded")])
    assert _dones(ui) == []


@pytest.mark.parametrize("size", [*SIZES, (480, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_clock_down_line_is_one_readable_sentence_that_fits(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    assert play(k, c, 0, "8D", "QUIRT")
    k.view.devices = device_notes([*SERIAL_DOWN, DeviceHealth("camera", "picamera2", "down")])
    ui = KioskUI(k, size)
    shot(ui, "60-clock-down-main", "main")  # fails on any text outside its box
    said = " ".join(ui.texts)
    assert "The clock is not working: press Done on the screen. Camera not working." in said
    assert "Clock buttons" not in said and "Clock link" not in said
    touch(ui, "Judge")
    shot(ui, "61-clock-down-pin", "pin")


def test_a_text_that_does_not_fit_is_logged_once_not_every_frame(tmp_path, monkeypatch, caplog):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    said = ["A sentence far too long for the little box it was given on this screen."]

    def tiny(ui_: KioskUI, cv) -> None:  # noqa: ANN001
        cv.text(said[0], pygame.Rect(0, 0, 40, 20), 20)

    monkeypatch.setitem(screens.SCREENS, "main", tiny)
    with caplog.at_level(logging.WARNING, logger="kiosk.ui"):
        for _ in range(30):
            ui.draw()
        assert ui.overflows  # still recorded at every frame, for the screenshot tests
        said[0] = "Another sentence, also far too long for that box."
        for _ in range(30):
            ui.draw()
    fits = [r.getMessage() for r in caplog.records if "does not fit" in r.getMessage()]
    assert len(fits) == 2 and "Another" in fits[1]
