"""Raspberry Pi camera modules through picamera2 (from Raspberry Pi OS's apt package python3-picamera2).

Exposure and white balance are fixed from the calibration profile (``exposure_us``, ``analogue_gain``,
``colour_gains``) so readings don't drift with the light; without them the camera runs auto (calibration only).
Frames come as picamera2's "RGB888" format, which is laid out B, G, R per pixel: OpenCV's BGR as is.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from kiosk.devices.camera import CameraError, check_frame
from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms

MODES = ("still", "preview")


def picamera2_controls(exposure_us: int | None, analogue_gain: float | None,
                       colour_gains: tuple[float, float] | None) -> dict[str, Any]:
    """libcamera controls that fix exposure (µs, gain) and white balance (red, blue gains); {} = all auto."""
    controls: dict[str, Any] = {}
    for name, v in (("exposure_us", exposure_us), ("analogue_gain", analogue_gain)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
            raise ValueError(f"camera.{name} must be a finite number, got {v!r}")
    if colour_gains is not None and (len(colour_gains) != 2 or not all(
            isinstance(g, (int, float)) and not isinstance(g, bool) for g in colour_gains)):
        raise ValueError(f"camera.colour_gains must be two numbers [red, blue], got {colour_gains!r}")
    if exposure_us is not None:
        if exposure_us <= 0:
            raise ValueError(f"camera.exposure_us must be > 0, got {exposure_us}")
        controls.update(AeEnable=False, ExposureTime=int(exposure_us))
        if analogue_gain is not None:
            if analogue_gain < 1.0:
                raise ValueError(f"camera.analogue_gain must be >= 1.0, got {analogue_gain}")
            controls["AnalogueGain"] = float(analogue_gain)
    if colour_gains is not None:
        r, b = colour_gains
        if not (0 < r < 32 and 0 < b < 32):
            raise ValueError(f"camera.colour_gains must be two gains in (0, 32), got {colour_gains}")
        controls.update(AwbEnable=False, ColourGains=(float(r), float(b)))
    return controls


class Picamera2Camera:
    """A Pi camera. ``size`` (w, h) px; ``mode`` "still" (full quality) or "preview" (faster);
    ``camera_num`` which sensor; ``module`` injects a picamera2-like module (tests)."""

    def __init__(self, size: tuple[int, int] = (2028, 1520), mode: str = "still", camera_num: int = 0,
                 exposure_us: int | None = None, analogue_gain: float | None = None,
                 colour_gains: tuple[float, float] | None = None, module: Any = None) -> None:
        if mode not in MODES:
            raise ValueError(f"camera.mode must be one of {MODES}, got {mode!r}")
        self.size = (int(size[0]), int(size[1]))
        self.mode = mode
        self.camera_num = camera_num
        self.controls = picamera2_controls(exposure_us, analogue_gain, colour_gains)
        self._module = module
        self._cam: Any = None
        self._health = HealthTracker("camera", "picamera2", "down", "not started")
        self._start()

    def _start(self) -> bool:
        try:
            mod = self._module or importlib.import_module("picamera2")
            cam = mod.Picamera2(self.camera_num)
            make = cam.create_still_configuration if self.mode == "still" else cam.create_preview_configuration
            cam.configure(make(main={"size": self.size, "format": "RGB888"}))
            if self.controls:
                cam.set_controls(self.controls)
            cam.start()
        except ImportError as exc:
            self._health.set("down", f"picamera2 not importable ({exc}): apt install python3-picamera2 and use a "
                                     "venv made with --system-site-packages")
            return False
        except Exception as exc:  # libcamera raises RuntimeError/IndexError/OSError for a missing sensor
            self._health.count("start_errors")
            self._health.set("down", f"Pi camera {self.camera_num} did not start: {exc}")
            return False
        self._cam = cam
        self._health.set("ok", f"{self.mode} {self.size[0]}x{self.size[1]}"
                         + (", exposure/WB locked" if self.controls else ", auto exposure"))
        return True

    def capture(self) -> tuple[int, np.ndarray]:
        if self._cam is None and not self._start():
            raise CameraError(self._health.snapshot().detail)
        try:
            frame = self._cam.capture_array("main")
            t = monotonic_ms()
        except Exception as exc:
            self._health.count("capture_errors")
            self._health.set("down", f"Pi camera capture failed: {exc}")
            self._stop()
            raise CameraError(f"Pi camera capture failed: {exc}") from exc
        frame = check_frame(frame, "Pi camera")
        self._health.count("frames")
        return t, frame

    def metadata(self) -> dict[str, Any]:
        """The last frame's metadata (ExposureTime µs, AnalogueGain, ColourGains ...); CameraError if down."""
        if self._cam is None and not self._start():
            raise CameraError(self._health.snapshot().detail)
        try:
            return dict(self._cam.capture_metadata())
        except Exception as exc:
            raise CameraError(f"Pi camera metadata failed: {exc}") from exc

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Apply libcamera controls now (the exposure lock uses it)."""
        if self._cam is None:
            raise CameraError("Pi camera is not running")
        self._cam.set_controls(controls)
        self.controls.update(controls)

    def _stop(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
                cam.close()
            except Exception:  # already broken; nothing else to do
                pass

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        self._stop()
