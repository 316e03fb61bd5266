"""USB webcams through ``cv2.VideoCapture`` (V4L2 on Linux).

A failed open or read raises CameraError and is retried on the next capture (not more often than every
``retry_ms``), so a webcam that was unplugged and plugged back returns by itself. Exposure / white balance
are fixed when given (V4L2 controls; webcams differ in which they honour).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kiosk.devices.camera import CameraError, check_frame
from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms


class OpenCVCamera:
    """``device``: index (0 = /dev/video0) or a path/URL; ``size`` (w, h) px requested; ``exposure``: the
    driver's CAP_PROP_EXPOSURE value (manual exposure when set); ``wb_temperature`` K (manual WB when set);
    ``warmup_frames`` frames dropped after opening (auto exposure settles); ``capture_factory`` (tests)."""

    def __init__(self, device: int | str = 0, size: tuple[int, int] | None = None, exposure: float | None = None,
                 wb_temperature: int | None = None, warmup_frames: int = 2, retry_ms: int = 2000,
                 capture_factory: Any = None) -> None:
        self.device = device
        self.size = size
        self.exposure = exposure
        self.wb_temperature = wb_temperature
        self.warmup_frames = warmup_frames
        self.retry_ms = retry_ms
        self._factory = capture_factory
        self._cap: Any = None
        self._last_try: int | None = None
        self._health = HealthTracker("camera", "opencv", "down", "not opened")
        self._open()

    def _open(self) -> bool:
        import cv2

        self._last_try = monotonic_ms()
        try:
            cap = self._factory(self.device) if self._factory else cv2.VideoCapture(self.device)
        except cv2.error as exc:
            self._health.count("open_errors")
            self._health.set("down", f"webcam {self.device!r} could not be opened: {exc}")
            return False
        if cap is None or not cap.isOpened():
            self._health.count("open_errors")
            self._health.set("down", f"webcam {self.device!r} could not be opened")
            return False
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        if self.exposure is not None:
            cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)  # V4L2: 1 = manual, 3 = aperture priority (auto)
            cap.set(cv2.CAP_PROP_EXPOSURE, self.exposure)
        if self.wb_temperature is not None:
            cap.set(cv2.CAP_PROP_AUTO_WB, 0)
            cap.set(cv2.CAP_PROP_WB_TEMPERATURE, self.wb_temperature)
        for _ in range(self.warmup_frames):
            cap.read()
        self._cap = cap
        self._health.set("ok", f"webcam {self.device!r}")
        return True

    def capture(self) -> tuple[int, np.ndarray]:
        if self._cap is None:
            if self._last_try is not None and monotonic_ms() - self._last_try < self.retry_ms:
                raise CameraError(self._health.snapshot().detail)
            if not self._open():
                raise CameraError(self._health.snapshot().detail)
        ok, frame = self._cap.read()
        t = monotonic_ms()
        if not ok or frame is None:
            self._health.count("read_errors")
            self._health.set("down", f"webcam {self.device!r} returned no frame (unplugged?)")
            self._release()
            raise CameraError(f"webcam {self.device!r} returned no frame (unplugged?)")
        self._health.count("frames")
        return t, check_frame(frame, f"webcam {self.device!r}")

    def _release(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        self._release()
