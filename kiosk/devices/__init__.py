"""The kiosk's edges: clock buttons, clock display, camera, health, systemd notification.

Each device is a small interface with a real Raspberry Pi backend and simulated ones; hardware packages
(RPi.GPIO / rpi-lgpio, smbus2, picamera2) are imported only by their backend. Build them with
:func:`kiosk.devices.factory.build_devices`.
"""

from kiosk.devices.buttons import SIDES, ButtonPress, ButtonSource, KeyboardButtons, ScriptedButtons
from kiosk.devices.camera import Camera, CameraError
from kiosk.devices.display import ClockDisplay, NullDisplay, SimulatedDisplay
from kiosk.devices.factory import DeviceConfigError, Devices, build_buttons, build_camera, build_devices, build_display
from kiosk.devices.health import DeviceHealth, monotonic_ms
from kiosk.devices.sdnotify import SdNotifier, Watchdog, start_watchdog

__all__ = ["SIDES", "ButtonPress", "ButtonSource", "Camera", "CameraError", "ClockDisplay", "DeviceConfigError",
           "DeviceHealth", "Devices", "KeyboardButtons", "NullDisplay", "ScriptedButtons", "SimulatedDisplay",
           "SdNotifier", "Watchdog", "build_buttons", "build_camera", "build_devices", "build_display",
           "monotonic_ms", "start_watchdog"]
