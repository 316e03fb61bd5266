"""Builds the kiosk's devices from its config dict.

Config (all sections optional; defaults in brackets)::

    {"buttons": {"backend": "gpio" | "serial" | "keyboard" | "scripted" ["keyboard"],
                 # gpio:     "pins": {"left": 17, "right": 27, "pause": 22, "judge": 23}, "debounce_ms": 20,
                 #           "active_low": true
                 # keyboard: "keys": {"z": "left", "m": "right", ...}
                 # scripted: "script": [[at_ms, "left"], ...]
                 },
     "display": {"backend": "ht16k33" | "serial" | "simulated" | "null" ["simulated"], or a list of them
                 # (every display shows the same clocks, e.g. ["ht16k33", "serial"]),
                 # ht16k33:  "bus": 1, "addresses": {"left": "0x70", "right": "0x71"}, "brightness": 15,
                 #           "retries": 2, "blink_overtime": false
                 },
     "serial":  {"port": "/dev/scrabble-clock", "baudrate": 115200,    # shared by serial buttons + display
                 "loss_ms": 2500},   # 2000..3000: two of the clock's 1 s heartbeats at least (firmware/link.py)
     "camera":  {"backend": "picamera2" | "opencv" | "replay" | "synthetic" | "none" ["none"],
                 # picamera2: "size": [2028, 1520], "mode": "still", "camera_num": 0,
                 #            "exposure_us", "analogue_gain", "colour_gains": [r, b]  (from the calibration profile)
                 # opencv:    "device": 0 or "/dev/video0", "size": [1920, 1080], "exposure", "wb_temperature"
                 # replay:    "path": folder or video, "loop": true
                 # synthetic: "seed": 0, "level": ...   (needs the board callable)
                 }}

A bad config raises :class:`DeviceConfigError` naming the key once and saying the value in the file's words
("serial.loss_ms must be a whole number of milliseconds (allowed 2000..3000 ms), not text ("2500")": a number
is never text, but for an I2C address, "0x70"; true/false is no number); missing or failing hardware never raises here:
the device is built with health "down" and the kiosk goes on without it. :func:`check_devices_config` checks a
config as :func:`build_devices` does (every key and value, the backends' own checks of pins and addresses)
without opening any device: ``kiosk run --check`` and the install script use it before the service starts.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

from firmware_bridge.firmware.debounce import DEBOUNCE_MAX_MS, DEBOUNCE_MIN_MS, DEBOUNCE_MS
from firmware_bridge.firmware.link import LOSS_MAX_MS, LOSS_MIN_MS, LOSS_MS, loss_problem
from kiosk.devices.buttons import ButtonSource, KeyboardButtons, ScriptedButtons
from kiosk.devices.camera import Camera, CameraError, UnavailableCamera
from kiosk.devices.display import ClockDisplay, FanOutDisplay, NullDisplay, SimulatedDisplay
from kiosk.devices.health import DeviceHealth
from kiosk.files.config_layout import DEVICE_TABLES
from kiosk.rules.checked import Checker, Parse, value_words

T = TypeVar("T")

BUTTON_BACKENDS = ("gpio", "serial", "keyboard", "scripted")
DISPLAY_BACKENDS = ("ht16k33", "serial", "simulated", "null")
CAMERA_BACKENDS = ("picamera2", "opencv", "replay", "synthetic", "none")
DEFAULT_PINS = {"left": 17, "right": 27, "pause": 22, "judge": 23}


class DeviceConfigError(ValueError):
    """The device config is wrong; the message names the key."""


_CHECK_ONLY: ContextVar[bool] = ContextVar("kiosk_devices_check_only", default=False)
"""True inside :func:`check_devices_config`: the hardware backends are checked, not opened."""


class _NoHardware:
    """RPi.GPIO and an SMBus for a config check: every call does nothing, so the backend's own checks of its
    pins and addresses run and no pin or bus is touched."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


class NotOpened:
    """A device a config check built without opening it (health "absent": not opened)."""

    def __init__(self, device: str, backend: str) -> None:
        self._health = DeviceHealth(device, backend, "absent", "config checked; not opened")

    def poll(self) -> list[Any]:
        return []

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        pass

    def capture(self) -> tuple[int, Any]:
        raise CameraError("not opened: a config check")

    def health(self) -> DeviceHealth:
        return self._health

    def close(self) -> None:
        pass


def _section(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    sec = config.get(name) or {}
    if not isinstance(sec, Mapping):
        raise DeviceConfigError(f"[devices] {name} must be a table ({name} = {{backend = ...}}), not "
                                f"{value_words(sec)}")
    return dict(sec)


def devices_words(exc: DeviceConfigError) -> str:
    """A device config problem said under ``[devices]``, once: ``[devices] serial.loss_ms must be ...``,
    ``[devices]: unknown key bogus; known: ...`` (a message of the section itself already names it)."""
    text = str(exc)
    return text if text.startswith("[devices]") else f"[devices] {text}"


def _backend(sec: Mapping[str, Any], name: str, allowed: tuple[str, ...], default: str) -> str:
    b = sec.get("backend", default)
    if b not in allowed:
        raise DeviceConfigError(f"{name}.backend: {b!r} is not one of {', '.join(allowed)}")
    return str(b)


def _whole(value: Any, key: str) -> int:
    """``value`` when it is a whole number (not text, true/false or a decimal number: the message says which)."""
    return int(_CHECK.value(int, value, key))


def _number(value: Any, key: str) -> Any:
    """``value`` when it is a finite number or absent (None); a whole number is one too."""
    if value is None:
        return None
    v = _CHECK.value(float, value, key)
    if not math.isfinite(v):
        raise DeviceConfigError(f"{key} must be {_CHECK.field_words.get(key, 'a finite number')}, not {v}")
    return value if isinstance(value, int) else v


def _text(value: Any, key: str) -> str:
    """``value`` when it is non-empty text."""
    text = str(_CHECK.value(str, value, key))
    if not text.strip():
        raise DeviceConfigError(f"{key} must be {_CHECK.field_words.get(key, 'text')}, not empty text")
    return text


def _size(value: Any, key: str) -> tuple[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise DeviceConfigError(f"{key} must be [width, height] in px, not {value_words(value)}")
    w, h = (_whole(v, f"{key}[{i}]") for i, v in enumerate(value))
    if w <= 0 or h <= 0:
        raise DeviceConfigError(f"{key}: width and height must be > 0, got [{w}, {h}]")
    return w, h


def _named(section: str, exc: Exception) -> DeviceConfigError:
    """A backend's ValueError as a DeviceConfigError naming the key once: its message names ``section.key``
    already ("display.brightness must be 0..15, got 99"), or is said after the section's name."""
    message = str(exc)
    return DeviceConfigError(message if message.startswith(f"{section}.") else f"{section}: {message}")


def _unknown(sec: Mapping[str, Any], name: str, known: set[str]) -> None:
    extra = sorted(set(sec) - known - {"backend"})
    if extra:
        raise DeviceConfigError(f"{name}: unknown {'key' if len(extra) == 1 else 'keys'} {', '.join(extra)}; known: "
                                f"{', '.join(sorted(known)) or 'none but backend'}")


def _parse_address(value: Any) -> int:
    """An I2C address from a whole number or its text ("0x70"; ValueError otherwise, true/false included)."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value, 0)
    raise ValueError(value)


Address = Annotated[int, Parse(_parse_address)]
"""An I2C address of a device section, a whole number or its text ("0x70"); every other number is a whole number,
never text ("2500" is refused: a number in quotes is a mistake the file's reader should hear of)."""


@dataclass(frozen=True)
class _SerialSection:
    """``[serial]``: the clock microcontroller's USB link."""

    port: str | None = None     # None: firmware_bridge.host.DEFAULT_PORT
    baudrate: int = 115200
    loss_ms: int = LOSS_MS      # checked against the clock's heartbeat interval: firmware.link.loss_problem


@dataclass(frozen=True)
class _GpioButtonsSection:
    """``[buttons]`` with ``backend = "gpio"``: BCM pins by side."""

    pins: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PINS))
    debounce_ms: int = DEBOUNCE_MS   # bounded: firmware.debounce.debounce_problem
    active_low: bool = True


@dataclass(frozen=True)
class _HT16K33Section:
    """``[display]`` with ``backend = "ht16k33"``: I2C bus and addresses by side."""

    addresses: dict[str, Address] = field(default_factory=lambda: {"left": 0x70, "right": 0x71})
    bus: int = 1
    brightness: int = 15
    retries: int = 2
    blink_overtime: bool = False


_MS = "a whole number of milliseconds"
_CHECK = Checker(error=DeviceConfigError, template="{path} must be {what}, not {got}",
                 words={int: "a whole number", float: "a number", bool: "true or false", str: "text"},
                 field_words={
                     "serial.port": 'the clock\'s device path, e.g. "/dev/scrabble-clock"',
                     "serial.baudrate": "a whole number of bits per second, e.g. 115200",
                     "serial.loss_ms": f"{_MS} (allowed {LOSS_MIN_MS}..{LOSS_MAX_MS} ms)",
                     "buttons.pins": "{side = BCM pin, ...}", "buttons.debounce_ms": f"{_MS} (allowed {DEBOUNCE_MIN_MS}..{DEBOUNCE_MAX_MS} ms)",
                     "display.addresses": "{left = address, right = address}",
                     "display.addresses.left": 'an I2C address, e.g. 0x70 or "0x70"',
                     "display.addresses.right": 'an I2C address, e.g. 0x71 or "0x71"',
                     "display.bus": "an I2C bus number, e.g. 1", "display.brightness": "a whole number 0..15",
                     "display.retries": "a whole number 0 or more",
                     "camera.mode": "still or preview", "camera.camera_num": "a camera number, e.g. 0",
                     "camera.exposure_us": "a number of microseconds", "camera.analogue_gain": "a gain, 1.0 or more",
                     "camera.colour_gains": "[red, blue] gains", "camera.colour_gains[0]": "a gain",
                     "camera.colour_gains[1]": "a gain", "camera.exposure": "a finite number",
                     "camera.wb_temperature": "a finite number", "camera.path": "a folder of images or a video file",
                     "camera.level": "a realism level (easy, typical, hard)"})
"""Device sections' wording (:mod:`kiosk.rules.checked`): "serial.loss_ms must be a whole number of milliseconds
(allowed 2000..3000 ms), not text ("2500")"; unknown keys are reported by :func:`_unknown`."""


def _checked(cls: type[T], sec: Mapping[str, Any], name: str) -> T:
    """Section ``name``'s keys other than ``backend`` as ``cls`` (raises DeviceConfigError naming the key)."""
    return _CHECK.build(cls, {k: v for k, v in sec.items() if k != "backend"}, name)


# Backends that live in packages built on kiosk.devices are loaded by module name, the way gpiozero loads its
# pin factories by name: the serial clock link (firmware_bridge.host) implements ButtonSource and ClockDisplay
# with kiosk.devices' own types, so kiosk.devices must not import it at module or function level.
SERIAL_LINK_MODULE = "firmware_bridge.host"


def _serial_backend(name: str) -> Any:
    """``name`` (SerialClockLink, SerialButtons, SerialDisplay, DEFAULT_PORT) from :data:`SERIAL_LINK_MODULE`."""
    return getattr(importlib.import_module(SERIAL_LINK_MODULE), name)


def build_serial_link(config: Mapping[str, Any]) -> Any:
    """The shared :class:`firmware_bridge.host.SerialClockLink` from config["serial"] (not started)."""
    SerialClockLink = _serial_backend("SerialClockLink")

    sec = _section(config, "serial")
    _unknown(sec, "serial", {"port", "baudrate", "loss_ms"})
    s = _checked(_SerialSection, sec, "serial")   # names the key: "serial.baudrate must be ..."
    if s.port is not None:
        _text(s.port, "serial.port")
    if s.baudrate <= 0:
        raise DeviceConfigError(f"serial.baudrate must be more than 0 bits per second, got {s.baudrate}")
    problem = loss_problem(s.loss_ms)
    if problem is not None:   # said here, naming the key, before the link is built
        raise DeviceConfigError(f"serial.loss_ms {problem}")
    try:
        port = _serial_backend("DEFAULT_PORT") if s.port is None else s.port
        return SerialClockLink(str(port), s.baudrate, loss_ms=s.loss_ms)
    except ValueError as exc:
        raise _named("serial", exc) from None


def build_buttons(config: Mapping[str, Any], serial_link: Any = None) -> ButtonSource:
    """ButtonSource from config["buttons"]; ``serial_link`` shares one link with the display."""
    sec = _section(config, "buttons")
    backend = _backend(sec, "buttons", BUTTON_BACKENDS, "keyboard")
    try:
        if backend == "gpio":
            _unknown(sec, "buttons", {"pins", "debounce_ms", "active_low"})
            from kiosk.devices.gpio_buttons import GpioButtons

            g = _checked(_GpioButtonsSection, sec, "buttons")
            if _CHECK_ONLY.get():
                GpioButtons(g.pins, g.debounce_ms, g.active_low, gpio=_NoHardware())
                return NotOpened("buttons", "gpio")
            return GpioButtons(g.pins, g.debounce_ms, g.active_low)
        if backend == "serial":
            _unknown(sec, "buttons", set())
            link = serial_link or build_serial_link(config)
            if _CHECK_ONLY.get():
                return NotOpened("buttons", "serial")
            return _serial_backend("SerialButtons")(link)
        if backend == "keyboard":
            _unknown(sec, "buttons", {"keys"})
            keys = sec.get("keys")
            if keys is not None and not (isinstance(keys, Mapping) and all(isinstance(k, str) for k in keys)):
                raise DeviceConfigError(f"buttons.keys: expected {{key name: side}}, got {keys!r}")
            return KeyboardButtons(keys)
        _unknown(sec, "buttons", {"script"})
        script = sec.get("script", [])
        if not isinstance(script, (list, tuple)):
            raise DeviceConfigError(f"buttons.script: expected a list of [at_ms, side], got {script!r}")
        return ScriptedButtons(script)
    except DeviceConfigError:
        raise
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise _named("buttons", exc) from None


def build_display(config: Mapping[str, Any], serial_link: Any = None) -> ClockDisplay:
    """ClockDisplay from config["display"]; a list of backends gives a :class:`FanOutDisplay` of them (each
    takes the section's keys that are its own)."""
    sec = _section(config, "display")
    backends = sec.get("backend")
    if isinstance(backends, (list, tuple)):
        if not backends or len(set(backends)) != len(backends):
            raise DeviceConfigError(f"display.backend: a list must name distinct backends, got {backends!r}")
        own = {"ht16k33": {"bus", "addresses", "brightness", "retries", "blink_overtime"}}
        _unknown(sec, "display", set().union(*own.values()))
        built = [build_display({"display": {"backend": b, **{k: v for k, v in sec.items()
                                                            if k in own.get(str(b), set())}}}, serial_link
                               or (build_serial_link(config) if b == "serial" else None)) for b in backends]
        return FanOutDisplay(built)
    backend = _backend(sec, "display", DISPLAY_BACKENDS, "simulated")
    try:
        if backend == "ht16k33":
            _unknown(sec, "display", {"bus", "addresses", "brightness", "retries", "blink_overtime"})
            from kiosk.devices.ht16k33 import HT16K33Display

            h = _checked(_HT16K33Section, sec, "display")
            if _CHECK_ONLY.get():
                HT16K33Display(h.addresses, h.bus, h.brightness, h.retries, h.blink_overtime,
                               bus_factory=lambda bus: _NoHardware())
                return NotOpened("display", "ht16k33")
            return HT16K33Display(h.addresses, h.bus, h.brightness, h.retries, h.blink_overtime)
        if backend == "serial":
            _unknown(sec, "display", set())
            link = serial_link or build_serial_link(config)
            if _CHECK_ONLY.get():
                return NotOpened("display", "serial")
            return _serial_backend("SerialDisplay")(link)
        _unknown(sec, "display", set())
        return SimulatedDisplay() if backend == "simulated" else NullDisplay()
    except DeviceConfigError:
        raise
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise _named("display", exc) from None


def profile_camera_settings(profile: Any) -> dict[str, Any]:
    """The locked exposure / white balance of a calibration profile (kiosk.vision.profile.CalibrationProfile
    ``camera_settings``) as picamera2 config keys: exposure_us, analogue_gain, colour_gains."""
    cs = dict(getattr(profile, "camera_settings", None) or {})
    if cs.get("auto_exposure", False):
        return {}
    out: dict[str, Any] = {}
    for src, dst in (("exposure_us", "exposure_us"), ("analogue_gain", "analogue_gain"), ("awb_gains", "colour_gains")):
        if cs.get(src) is not None:
            out[dst] = cs[src]
    return out


def _picamera2(sec: Mapping[str, Any]) -> Camera:
    """``[camera]`` with ``backend = "picamera2"`` (not opened in a config check: every value checked)."""
    from kiosk.devices.camera_picamera2 import MODES, Picamera2Camera, picamera2_controls

    _unknown(sec, "camera", {"size", "mode", "camera_num", "exposure_us", "analogue_gain", "colour_gains"})
    size = _size(sec.get("size", (2028, 1520)), "camera.size") or (2028, 1520)
    mode = _text(sec.get("mode", "still"), "camera.mode")
    if mode not in MODES:
        raise DeviceConfigError(f'camera.mode must be still or preview, not text ("{mode}")')
    num = _whole(sec.get("camera_num", 0), "camera.camera_num")
    exposure, gain = _number(sec.get("exposure_us"), "camera.exposure_us"), _number(sec.get("analogue_gain"),
                                                                                 "camera.analogue_gain")
    gains = sec.get("colour_gains")
    if gains is not None:
        if not isinstance(gains, (list, tuple)) or len(gains) != 2:
            raise DeviceConfigError(f"camera.colour_gains must be [red, blue] gains, not {value_words(gains)}")
        gains = tuple(_number(g, f"camera.colour_gains[{i}]") for i, g in enumerate(gains))
    if _CHECK_ONLY.get():
        picamera2_controls(exposure, gain, gains)   # the ranges, as the camera checks them
        return NotOpened("camera", "picamera2")
    return Picamera2Camera(size, mode, num, exposure, gain, gains)


def _opencv(sec: Mapping[str, Any]) -> Camera:
    """``[camera]`` with ``backend = "opencv"``."""
    from kiosk.devices.camera_opencv import OpenCVCamera

    _unknown(sec, "camera", {"device", "size", "exposure", "wb_temperature"})
    dev = sec.get("device", 0)
    if isinstance(dev, bool) or not isinstance(dev, (int, str)) or dev == "":
        raise DeviceConfigError(f"camera.device must be a camera number or a device path (0 or \"/dev/video0\"), "
                                f"not {value_words(dev)}")
    if isinstance(dev, str) and dev.strip().lstrip("+-").isdigit():   # OpenCV opens "0" as a path, and fails
        n = int(dev)
        raise DeviceConfigError(f"camera.device must be a camera number or a device path, not {value_words(dev)}: a "
                                f"number in quotes is neither: write device = {n} for camera number {n} (0 is the "
                                f"first), or a path like \"/dev/video{abs(n)}\"")
    size = _size(sec.get("size"), "camera.size")
    exposure, wb = _number(sec.get("exposure"), "camera.exposure"), _number(sec.get("wb_temperature"),
                                                                            "camera.wb_temperature")
    if _CHECK_ONLY.get():
        return NotOpened("camera", "opencv")
    return OpenCVCamera(dev, size, exposure, wb)


def build_camera(config: Mapping[str, Any], board: Callable[[], Any] | None = None, profile: Any = None) -> Camera:
    """Camera from config["camera"]; ``board`` (callable -> physical Board) feeds the synthetic camera;
    ``profile`` (the calibration profile) gives a Pi camera its locked exposure and white balance unless the
    config sets them. A camera that cannot start comes back as one whose capture raises CameraError
    (health "down")."""
    sec = _section(config, "camera")
    if profile is not None and sec.get("backend") == "picamera2":
        sec = {**profile_camera_settings(profile), **sec}
    backend = _backend(sec, "camera", CAMERA_BACKENDS, "none")
    try:
        if backend == "picamera2":
            return _picamera2(sec)
        if backend == "opencv":
            return _opencv(sec)
        if backend == "replay":
            _unknown(sec, "camera", {"path", "loop"})
            from kiosk.devices.camera_replay import ReplayCamera

            if sec.get("path") is None:
                raise DeviceConfigError("camera.path: the replay backend needs a folder of images or a video file")
            path, loop = _text(sec["path"], "camera.path"), _CHECK.value(bool, sec.get("loop", True), "camera.loop")
            try:
                return ReplayCamera(path, loop)
            except CameraError as exc:
                return UnavailableCamera(str(exc), "replay")
        if backend == "synthetic":
            _unknown(sec, "camera", {"seed", "level", "size"})
            from kiosk.devices.camera_synthetic import SyntheticCamera

            if board is None:
                raise DeviceConfigError("camera.backend synthetic needs the kiosk's current-board callable")
            level = sec.get("level")
            if level is not None and _text(level, "camera.level") not in ("easy", "typical", "hard"):
                raise DeviceConfigError(f"camera.level must be {_CHECK.field_words['camera.level']}, not "
                                        f"{value_words(level)}")
            return SyntheticCamera(board, _whole(sec.get("seed", 0), "camera.seed"), level,
                                   size=_size(sec.get("size"), "camera.size"))
        _unknown(sec, "camera", set())
        return UnavailableCamera("no camera configured: moves are entered by hand", "none", "absent")
    except DeviceConfigError:
        raise
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise _named("camera", exc) from None


def _uses(backend: Any, name: str) -> bool:
    """Whether a section's ``backend`` (a name or a list of names) is or names ``name``."""
    return backend == name or (isinstance(backend, (list, tuple)) and name in backend)


@dataclass
class Devices:
    """Everything the kiosk talks to, built by :func:`build_devices`."""

    buttons: ButtonSource
    display: ClockDisplay
    camera: Camera
    serial_link: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def health(self) -> list[DeviceHealth]:
        """Health of every device (and of the serial link when there is one)."""
        out = [self.buttons.health(), self.display.health(), self.camera.health()]
        if self.serial_link is not None:
            out.append(self.serial_link.health())
        return out

    def close(self) -> None:
        for dev in (self.buttons, self.display, self.camera, self.serial_link):
            if dev is not None:
                dev.close()


def build_devices(config: Mapping[str, Any], board: Callable[[], Any] | None = None, profile: Any = None) -> Devices:
    """All devices from the kiosk config; serial buttons and a serial display share one link; ``profile``:
    the calibration profile (camera settings)."""
    if not isinstance(config, Mapping):
        raise DeviceConfigError(f"[devices]: expected a table, not {value_words(config)}")
    _unknown(config, "[devices]", set(DEVICE_TABLES))
    link = None
    uses_serial = [_uses(_section(config, s).get("backend"), "serial") for s in ("buttons", "display")]
    if any(uses_serial):
        link = build_serial_link(config)
    buttons = build_buttons(config, link)
    try:
        display = build_display(config, link)
        camera = build_camera(config, board, profile)
    except DeviceConfigError:
        buttons.close()
        raise
    return Devices(buttons, display, camera, link)


def check_devices_config(config: Mapping[str, Any]) -> str:
    """Check the devices config as :func:`build_devices` reads it, opening no device (no GPIO pin, I2C bus,
    serial port or camera); returns what it names ("buttons gpio, display ht16k33, camera picamera2").

    Raises:
        DeviceConfigError: naming the key, as :func:`build_devices` would.
    """
    from kiosk.rules.board import Board

    token = _CHECK_ONLY.set(True)
    try:
        devices = build_devices(config, board=Board)
    finally:
        _CHECK_ONLY.reset(token)
    try:
        named = [h for h in devices.health() if h.device != "clock-link"]
        return ", ".join(f"{h.device} {h.backend}" for h in named)
    finally:
        devices.close()
