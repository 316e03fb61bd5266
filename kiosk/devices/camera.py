"""The Camera interface, its error, and the camera that is not there.

``capture()`` returns ``(timestamp_ms, frame)``: monotonic ms when the frame was taken and a BGR uint8 image
of shape (height, width, 3); it raises :class:`CameraError` (never anything else for device trouble) so the
kiosk can fall back to manual move entry. ``health()`` reports the state.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from kiosk.devices.health import DeviceHealth, HealthTracker


class CameraError(RuntimeError):
    """A frame could not be captured; the message says which camera and why."""


@runtime_checkable
class Camera(Protocol):
    def capture(self) -> tuple[int, np.ndarray]:
        """(monotonic ms, BGR uint8 HxWx3 frame); raises CameraError."""
        ...

    def health(self) -> DeviceHealth: ...

    def close(self) -> None: ...


def check_frame(frame: object, where: str) -> np.ndarray:
    """Return ``frame`` as a BGR uint8 HxWx3 array (grey frames are expanded); CameraError if it is not one."""
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise CameraError(f"{where}: no image data")
    if frame.dtype != np.uint8:
        raise CameraError(f"{where}: expected uint8 pixels, got {frame.dtype}")
    if frame.ndim == 2:
        frame = np.repeat(frame[:, :, None], 3, axis=2)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = np.ascontiguousarray(frame[:, :, :3])
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise CameraError(f"{where}: expected an HxWx3 image, got shape {frame.shape}")
    return frame


class UnavailableCamera:
    """Stands in when no camera could be set up: every capture raises CameraError with the reason."""

    def __init__(self, reason: str, backend: str = "none", state: str = "down") -> None:
        self.reason = reason
        self._health = HealthTracker("camera", backend, "absent" if state == "absent" else "down", reason)

    def capture(self) -> tuple[int, np.ndarray]:
        raise CameraError(self.reason)

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        pass
