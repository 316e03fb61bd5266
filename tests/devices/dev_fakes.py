"""Fakes at the hardware libraries' boundaries: RPi.GPIO, smbus2.SMBus, picamera2."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np


class FakeGPIO(types.ModuleType):
    """Enough of RPi.GPIO's API; ``drive(pin, level)`` changes a pin and fires its edge callback."""

    BCM, BOARD, IN, OUT, PUD_UP, PUD_DOWN, RISING, FALLING, BOTH = 11, 10, 1, 0, 22, 21, 31, 32, 33

    def __init__(self, fail_on: str | None = None) -> None:
        super().__init__("RPi.GPIO")
        self.mode: int | None = None
        self.levels: dict[int, int] = {}
        self.pulls: dict[int, int] = {}
        self.callbacks: dict[int, Callable[[int], None]] = {}
        self.cleaned: list[Any] = []
        self.fail_on = fail_on

    def setwarnings(self, flag: bool) -> None:
        pass

    def setmode(self, mode: int) -> None:
        self.mode = mode

    def setup(self, pin: int, direction: int, pull_up_down: int = 0) -> None:
        if self.fail_on == "setup":
            raise RuntimeError("Cannot determine SOC peripheral base address")
        assert self.mode == self.BCM, "setmode(BCM) must come first"
        self.pulls[pin] = pull_up_down
        self.levels[pin] = 1 if pull_up_down == self.PUD_UP else 0

    def add_event_detect(self, pin: int, edge: int, callback: Callable[[int], None] | None = None,
                         bouncetime: int | None = None) -> None:
        if self.fail_on == "edge":
            raise RuntimeError("Failed to add edge detection")
        assert pin in self.pulls, "setup() before add_event_detect()"
        assert edge == self.BOTH
        assert callback is not None
        self.callbacks[pin] = callback

    def remove_event_detect(self, pin: int) -> None:
        self.callbacks.pop(pin, None)

    def input(self, pin: int) -> int:
        return self.levels[pin]

    def cleanup(self, pins: Any = None) -> None:
        self.cleaned.append(pins)

    def drive(self, pin: int, level: int) -> None:
        if self.levels.get(pin) != level:
            self.levels[pin] = level
            cb = self.callbacks.get(pin)
            if cb:
                cb(pin)


class RecordingSMBus:
    """Records smbus2 writes as ("byte", addr, value) / ("block", addr, register, [bytes]); can fail N times."""

    def __init__(self, bus: int = 1, fail_next: int = 0, fail_addr: int | None = None) -> None:
        self.bus = bus
        self.writes: list[tuple[Any, ...]] = []
        self.fail_next = fail_next
        self.fail_addr = fail_addr
        self.closed = False

    def _maybe_fail(self, addr: int) -> None:
        if self.fail_next and (self.fail_addr is None or addr == self.fail_addr):
            self.fail_next -= 1
            raise OSError(121, "Remote I/O error")

    def write_byte(self, addr: int, value: int) -> None:
        self._maybe_fail(addr)
        self.writes.append(("byte", addr, value))

    def write_i2c_block_data(self, addr: int, register: int, data: list[int]) -> None:
        self._maybe_fail(addr)
        assert len(data) <= 32
        self.writes.append(("block", addr, register, list(data)))

    def close(self) -> None:
        self.closed = True


class FakePicamera2:
    """picamera2.Picamera2 look-alike recording configuration and controls."""

    instances: list[FakePicamera2] = []
    fail_start = False

    def __init__(self, camera_num: int = 0) -> None:
        if FakePicamera2.fail_start:
            raise IndexError("list index out of range")  # what picamera2 raises with no sensor attached
        self.camera_num = camera_num
        self.config: dict[str, Any] | None = None
        self.controls: dict[str, Any] = {}
        self.started = False
        self.fail_capture = False
        self.kind = ""
        FakePicamera2.instances.append(self)

    def create_still_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        self.kind = "still"
        return {"kind": "still", "main": main}

    def create_preview_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        self.kind = "preview"
        return {"kind": "preview", "main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        pass

    def capture_array(self, name: str = "main") -> np.ndarray:
        if self.fail_capture:
            raise RuntimeError("Camera frontend has timed out!")
        assert self.started and self.config is not None
        w, h = self.config["main"]["size"]
        img = np.zeros((h, w, 3), np.uint8)
        img[:, :, 0] = 255  # blue in BGR order
        return img

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 8000, "AnalogueGain": 2.0, "ColourGains": (1.8, 1.5)}


def fake_picamera2_module() -> types.ModuleType:
    mod = types.ModuleType("picamera2")
    mod.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    return mod
