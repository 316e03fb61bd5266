"""HT16K33 4-digit 7-segment backpacks over I2C (smbus2), one per clock side.

Commands (HT16K33 datasheet): system setup ``0x20|S`` (0x21 = oscillator on), display setup
``0x80|B<<1|D`` (0x81 = on, no blink; 0x83 = on, blink 2 Hz), dimming ``0xE0|level`` (0..15), display RAM
written from address 0x00 (16 bytes). On a 4-digit backpack the digits sit at RAM addresses 0, 2, 6, 8 and
the centre colon is bit 0x02 of address 4.

An I2C error is retried (re-initialising the chip), then reported in ``health()``; ``show`` never raises for it
and tries again on the next call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from kiosk.devices.display import faces
from kiosk.devices.health import DeviceHealth, HealthTracker
from kiosk.devices.sevenseg import ClockFace
from kiosk.rules.counts import counted

CMD_OSCILLATOR_ON = 0x21
CMD_DISPLAY_ON = 0x81
CMD_DISPLAY_BLINK_2HZ = 0x83
CMD_DIMMING = 0xE0
DIGIT_ADDRESSES = (0, 2, 6, 8)
COLON_ADDRESS = 4
COLON_BIT = 0x02


def ram_image(face: ClockFace) -> list[int]:
    """The 16 display-RAM bytes for ``face`` (digits at 0, 2, 6, 8; colon bit at 4)."""
    ram = [0] * 16
    for addr, seg in zip(DIGIT_ADDRESSES, face.segments()):
        ram[addr] = seg
    if face.colon:
        ram[COLON_ADDRESS] = COLON_BIT
    return ram


def init_commands(brightness: int) -> list[int]:
    """Initialisation command bytes: oscillator on, dimming, display on."""
    return [CMD_OSCILLATOR_ON, CMD_DIMMING | brightness, CMD_DISPLAY_ON]


def _default_bus_factory(bus: int) -> Any:
    return importlib.import_module("smbus2").SMBus(bus)


class HT16K33Display:
    """Two HT16K33 backpacks: ``addresses`` maps "left"/"right" -> 7-bit I2C address (0x70..0x77).

    ``bus``: I2C bus number (1 on a Pi); ``brightness`` 0..15; ``retries``: extra attempts per write;
    ``blink_overtime``: blink a side's display while it is in overtime; ``bus_factory(bus) -> SMBus-like``
    (tests pass a recorder).
    """

    def __init__(self, addresses: Mapping[str, int] | None = None, bus: int = 1, brightness: int = 15,
                 retries: int = 2, blink_overtime: bool = False,
                 bus_factory: Callable[[int], Any] | None = None) -> None:
        addresses = dict(addresses or {"left": 0x70, "right": 0x71})
        if set(addresses) != {"left", "right"}:
            raise ValueError(f"display.addresses must name exactly 'left' and 'right', got {sorted(addresses)}")
        for side, a in addresses.items():
            if not isinstance(a, int) or not 0x70 <= a <= 0x77:
                raise ValueError(f"display.addresses[{side!r}]: HT16K33 address must be 0x70..0x77, got {a!r}")
        if addresses["left"] == addresses["right"]:
            raise ValueError("display.addresses: left and right must differ")
        if not isinstance(brightness, int) or not 0 <= brightness <= 15:
            raise ValueError(f"display.brightness must be 0..15, got {brightness!r}")
        if not isinstance(retries, int) or retries < 0:
            raise ValueError(f"display.retries must be an int >= 0, got {retries!r}")
        self.addresses = addresses
        self.bus_number = bus
        self.brightness = brightness
        self.retries = retries
        self.blink_overtime = blink_overtime
        self._bus_factory = bus_factory or _default_bus_factory
        self._bus: Any = None
        self._ready = {"left": False, "right": False}
        self._shown: dict[str, tuple[list[int], int] | None] = {"left": None, "right": None}
        self._health = HealthTracker("display", "ht16k33", "down", "not initialised yet")
        if all(self._write(side, [0] * 16, CMD_DISPLAY_ON) for side in ("left", "right")):
            self._health.set("ok", "blank")

    def _open(self) -> bool:
        if self._bus is not None:
            return True
        try:
            self._bus = self._bus_factory(self.bus_number)
        except (ImportError, OSError, PermissionError) as exc:
            self._health.count("open_errors")
            self._health.set("down", f"I2C bus {self.bus_number} unavailable: {exc}")
            return False
        return True

    def _init_chip(self, side: str) -> None:
        for cmd in init_commands(self.brightness):
            self._bus.write_byte(self.addresses[side], cmd)
        self._ready[side] = True

    def _write(self, side: str, ram: list[int], mode: int) -> bool:
        addr = self.addresses[side]
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if not self._open():
                return False
            try:
                if not self._ready[side] or attempt > 0:
                    self._init_chip(side)
                self._bus.write_i2c_block_data(addr, 0x00, ram)
                self._bus.write_byte(addr, mode)
                return True
            except OSError as exc:
                last = exc
                self._ready[side] = False
                self._health.count("i2c_errors")
        self._health.count("failed_updates")
        self._health.set("down", f"{side} display at 0x{addr:02x} on I2C bus {self.bus_number}: {last}")
        return False

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        """Show both clocks; writes only what changed. I2C errors are retried, then reported in health."""
        ok = True
        before = self._health.snapshot().counters.get("i2c_errors", 0)
        for side, face in zip(("left", "right"), faces(left_ms, right_ms, left_overtime, right_overtime)):
            ram = ram_image(face)
            mode = CMD_DISPLAY_BLINK_2HZ if (self.blink_overtime and face.flag) else CMD_DISPLAY_ON
            if self._shown[side] == (ram, mode):
                continue
            if self._write(side, ram, mode):
                self._shown[side] = (ram, mode)
            else:
                self._shown[side] = None
                ok = False
        if ok:
            retried = self._health.snapshot().counters.get("i2c_errors", 0) - before
            if retried:
                self._health.set("degraded", f"{counted(retried, 'I2C error')} retried successfully")
            else:
                self._health.set("ok", f"HT16K33 at {self.addresses['left']:#04x}/{self.addresses['right']:#04x}")

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        bus, self._bus = self._bus, None
        if bus is not None:
            try:
                bus.close()
            except OSError:
                pass
