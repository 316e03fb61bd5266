"""GPIO buttons: the real backend's code against a fake RPi.GPIO module."""

from __future__ import annotations

import sys
import types

import pytest
from common_fixtures import ManualClock
from dev_fakes import FakeGPIO

from kiosk.devices.gpio_buttons import GpioButtons

PINS = {"left": 17, "right": 27, "pause": 22}


def make(debounce: int = 20) -> tuple[GpioButtons, FakeGPIO, ManualClock]:
    gpio, clock = FakeGPIO(), ManualClock(1000)
    return GpioButtons(PINS, debounce, gpio=gpio, clock=clock), gpio, clock


def test_setup_uses_bcm_pull_ups_and_both_edges() -> None:
    buttons, gpio, _ = make()
    assert gpio.mode == gpio.BCM
    assert gpio.pulls == {17: gpio.PUD_UP, 27: gpio.PUD_UP, 22: gpio.PUD_UP}
    assert set(gpio.callbacks) == {17, 27, 22}
    assert buttons.health().state == "ok"
    buttons.close()
    assert gpio.callbacks == {} and gpio.cleaned == [[17, 27, 22]]


def test_bouncy_press_is_one_event_stamped_at_first_edge() -> None:
    buttons, gpio, clock = make()
    for dt, level in [(0, 0), (1, 1), (2, 0), (4, 1), (5, 0)]:  # active low: 0 = pressed
        clock.t = 2000 + dt
        gpio.drive(17, level)
    assert buttons.poll() == []           # not held 20 ms yet
    clock.t = 2030
    presses = buttons.poll()
    assert [(p.side, p.timestamp_ms) for p in presses] == [("left", 2000)]
    clock.t = 5000                         # held for seconds: no repeat
    assert buttons.poll() == []
    for dt, level in [(0, 1), (1, 0), (3, 1)]:
        clock.t = 6000 + dt
        gpio.drive(17, level)
    clock.t = 6100
    assert buttons.poll() == []            # release chatter is no press


def test_short_press_seen_only_by_edge_callbacks_is_delivered() -> None:
    buttons, gpio, clock = make()
    clock.t = 3000
    gpio.drive(27, 0)
    clock.t = 3050
    gpio.drive(27, 1)                      # main loop never polled during the press
    assert [(p.side, p.timestamp_ms) for p in buttons.poll()] == [("right", 3000)]


def test_glitch_is_rejected_and_counted() -> None:
    buttons, gpio, clock = make()
    clock.t = 100
    gpio.drive(22, 0)
    clock.t = 105
    gpio.drive(22, 1)
    clock.t = 200
    assert buttons.poll() == []
    assert buttons.health().counters["glitches_rejected"] == 1


def test_presses_on_two_sides_come_in_order_once() -> None:
    buttons, gpio, clock = make(debounce=5)
    clock.t = 10
    gpio.drive(17, 0)
    clock.t = 40
    gpio.drive(27, 0)
    clock.t = 60
    assert [p.side for p in buttons.poll()] == ["left", "right"]
    assert buttons.poll() == []


def test_lazy_import_through_sys_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeGPIO()
    pkg = types.ModuleType("RPi")
    pkg.GPIO = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "RPi", pkg)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", fake)
    buttons = GpioButtons({"left": 5})
    assert buttons.health().state == "ok" and 5 in fake.callbacks


def test_missing_library_reports_down_with_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    buttons = GpioButtons({"left": 5})
    h = buttons.health()
    assert h.state == "down" and "rpi-lgpio" in h.detail
    assert buttons.poll() == []


@pytest.mark.parametrize("fail", ["setup", "edge"])
def test_gpio_errors_report_down(fail: str) -> None:
    buttons = GpioButtons({"left": 5}, gpio=FakeGPIO(fail_on=fail))
    assert buttons.health().state == "down"
    assert buttons.poll() == []


@pytest.mark.parametrize("pins,match", [
    ({}, "at least one"), ({"left": 40}, "0..27"), ({"middle": 4}, "unknown button side"),
    ({"left": 4, "right": 4}, "share a pin"), ({"left": "4"}, "BCM pin"),
])
def test_bad_pin_config_names_the_problem(pins: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        GpioButtons(pins, gpio=FakeGPIO())


def test_a_pin_that_cannot_be_read_is_degraded_until_it_is_read_again() -> None:
    """A read error made the buttons "degraded" for good: the device check then called them not working after
    the pin was read again (a tester's finding about the check, the whole kind)."""
    buttons, gpio, clock = make()
    real_input = gpio.input
    broken = {17, 27}

    def flaky(pin: int) -> int:
        if pin in broken:
            raise RuntimeError("pin gone")
        return real_input(pin)

    gpio.input = flaky  # type: ignore[method-assign]
    buttons.poll()
    h = buttons.health()
    assert h.state == "degraded" and h.detail == "reading BCM17 failed: pin gone; reading BCM27 failed: pin gone"
    broken.discard(17)
    buttons.poll()
    assert buttons.health().detail == "reading BCM27 failed: pin gone"
    broken.clear()
    buttons.poll()
    h = buttons.health()
    assert (h.state, h.detail) == ("ok", "pins left=BCM17, right=BCM27, pause=BCM22") and h.counters["read_errors"] == 3
