"""Clock buttons on the Pi's GPIO pins through the RPi.GPIO API.

On a Pi 5 install ``rpi-lgpio`` (same ``RPi.GPIO`` import, built on lgpio); on a Pi 4 or older either works.
The two packages must not share one environment. The module is imported only when this backend is built.

Buttons connect a BCM pin to GND (internal pull-up, active low) unless ``active_low=False``. Every edge is
fed to a :class:`~firmware_bridge.firmware.debounce.Debouncer` (RPi.GPIO's own ``bouncetime`` is not used: it
would drop the first edge's timestamp and cannot reject a short glitch).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from firmware_bridge.firmware.debounce import DEBOUNCE_MS, Debouncer, debounce_problem
from kiosk.devices.buttons import check_side
from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms
from kiosk.devices.presses import ButtonPress, PressQueue

INSTALL_HINT = "install rpi-lgpio (any Pi, required on a Pi 5) or RPi.GPIO (Pi 4 and older), not both"


def load_gpio_module() -> ModuleType:
    """Import ``RPi.GPIO``; raises ImportError with an install hint."""
    try:
        return importlib.import_module("RPi.GPIO")
    except ImportError as exc:
        raise ImportError(f"RPi.GPIO is not importable ({exc}); {INSTALL_HINT}") from exc


class GpioButtons:
    """Buttons on BCM pins: ``pins`` maps side ("left"/"right"/"pause"/"judge") -> BCM pin number.

    ``debounce_ms`` (default 20 ms, allowed 2..50: :func:`~firmware_bridge.firmware.debounce.debounce_problem`) is how
    long a level must hold. Presses are confirmed by the edge
    callbacks and by :meth:`poll`, which the main loop calls; ``timestamp_ms`` is the first edge's monotonic ms.
    A failure to open the pins leaves the source empty with health "down" instead of raising; a pin that cannot
    be read makes it "degraded" (naming the pin) until that pin is read again, then "ok".
    ``gpio`` injects the module (tests pass a fake); default imports RPi.GPIO. ``clock``: monotonic ms.
    """

    def __init__(self, pins: Mapping[str, int], debounce_ms: int = DEBOUNCE_MS, active_low: bool = True,
                 gpio: Any = None, clock: Callable[[], int] = monotonic_ms) -> None:
        if not pins:
            raise ValueError("buttons.pins: at least one side -> BCM pin is needed")
        self.pins: dict[str, int] = {}
        for side, pin in pins.items():
            check_side(side, "buttons.pins")
            if not isinstance(pin, int) or isinstance(pin, bool) or not 0 <= pin <= 27:
                raise ValueError(f"buttons.pins[{side!r}]: BCM pin must be an int 0..27, got {pin!r}")
            self.pins[side] = pin
        if len(set(self.pins.values())) != len(self.pins):
            raise ValueError(f"buttons.pins: two sides share a pin: {self.pins}")
        if not isinstance(debounce_ms, int) or isinstance(debounce_ms, bool):
            raise ValueError(f"buttons.debounce_ms must be a whole number of milliseconds, got {debounce_ms!r}")
        if (problem := debounce_problem(debounce_ms)) is not None:
            raise ValueError(f"buttons.debounce_ms {problem}")
        self.debounce_ms = debounce_ms
        self.active_low = active_low
        self._clock = clock
        self._by_pin = {pin: side for side, pin in self.pins.items()}
        self._deb = {pin: Debouncer(debounce_ms) for pin in self._by_pin}
        self._lock = threading.Lock()
        self._queue = PressQueue()
        self._health = HealthTracker("buttons", "gpio")
        self._failing: dict[int, str] = {}   # pins whose last read failed -> why ("degraded" until read again)
        self._gpio: Any = None
        self._open(gpio)

    def _open(self, gpio: Any) -> None:
        try:
            g = gpio if gpio is not None else load_gpio_module()
            g.setwarnings(False)
            g.setmode(g.BCM)
            pull = g.PUD_UP if self.active_low else g.PUD_DOWN
            for pin in self._by_pin:
                g.setup(pin, g.IN, pull_up_down=pull)
            for pin in self._by_pin:
                g.add_event_detect(pin, g.BOTH, callback=self._edge)
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            self._health.set("down", f"GPIO buttons unavailable: {exc}")
            self._gpio = None
            return
        self._gpio = g
        self._health.set("ok", self._ok_detail())

    def _ok_detail(self) -> str:
        return "pins " + ", ".join(f"{s}=BCM{p}" for s, p in self.pins.items())

    def _pressed(self, pin: int) -> bool:
        level = self._gpio.input(pin)
        return (not level) if self.active_low else bool(level)

    def _sample(self, pin: int, now: int) -> None:
        try:
            pressed = self._pressed(pin)
        except (RuntimeError, OSError, ValueError) as exc:
            self._health.count("read_errors")
            with self._lock:
                self._failing[pin] = f"reading BCM{pin} failed: {exc}"
                self._health.set("degraded", "; ".join(self._failing.values()))
            return
        with self._lock:
            if self._failing.pop(pin, None) is not None:   # read again: working, once every pin is
                if self._failing:
                    self._health.set("degraded", "; ".join(self._failing.values()))
                else:
                    self._health.set("ok", self._ok_detail())
            t = self._deb[pin].update(pressed, now)
        if t is not None:
            self._queue.put(ButtonPress(self._by_pin[pin], t))

    def _edge(self, channel: int) -> None:
        """RPi.GPIO callback (its own thread): one edge on ``channel``."""
        if self._gpio is None or channel not in self._deb:
            return
        self._health.count("edges")
        self._sample(channel, self._clock())

    def poll(self, now_ms: int | None = None) -> list[ButtonPress]:
        if self._gpio is not None:
            now = self._clock() if now_ms is None else now_ms
            for pin in self._by_pin:
                self._sample(pin, now)
        return self._queue.drain()

    def health(self) -> DeviceHealth:
        rejected = sum(d.rejected for d in self._deb.values())
        self._health.set_counters({"glitches_rejected": rejected, "presses_refused_queue_full": self._queue.refused})
        return self._health.snapshot()

    def close(self) -> None:
        g, self._gpio = self._gpio, None
        if g is None:
            return
        for pin in self._by_pin:
            try:
                g.remove_event_detect(pin)
            except (RuntimeError, OSError, ValueError):
                pass
        try:
            g.cleanup(list(self._by_pin))
        except (RuntimeError, OSError, ValueError):
            pass
