"""Exposure and white-balance lock, so the reader sees the same colours all game.

The white paper around the printed ArUco markers is the reference: it should be bright but not clipped
(``TARGET_WHITE`` of 255) and neutral. On a Pi camera the lock takes the auto-exposure / auto-white-balance
values once they have settled and fixes them (libcamera controls); for any camera the frame is measured on the
marker paper and the result says whether it is usable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration import CalibrationError
from kiosk.vision.geometry import DEFAULT_GEOMETRY, BoardGeometry

TARGET_WHITE = 215.0
MIN_WHITE, MAX_WHITE = 150.0, 245.0
MAX_CLIPPED = 0.02


@dataclass
class WhiteMeasure:
    """Paper white measured in a frame: ``white_bgr`` mean of the white pixels (0..255 each), ``clipped``
    fraction of them at >= 250 in any channel, ``gains`` (red, blue) that would make the white neutral,
    ``markers`` how many markers were used, ``exposure_scale`` factor to bring the white to TARGET_WHITE."""

    white_bgr: tuple[float, float, float]
    clipped: float
    gains: tuple[float, float]
    markers: int
    exposure_scale: float

    @property
    def problems(self) -> list[str]:
        out = []
        lum = float(np.mean(self.white_bgr))
        if lum < MIN_WHITE:
            out.append(f"too dark: paper white {lum:.0f} < {MIN_WHITE:.0f}")
        if lum > MAX_WHITE or self.clipped > MAX_CLIPPED:
            out.append(f"too bright: paper white {lum:.0f}, {100 * self.clipped:.1f} % clipped")
        return out


@dataclass
class ExposureLock:
    """Fixed camera settings for the profile: ``exposure_us`` (µs), ``analogue_gain``, ``colour_gains``
    (red, blue), plus the white measured with them."""

    exposure_us: int | None
    analogue_gain: float | None
    colour_gains: tuple[float, float] | None
    measure: WhiteMeasure | None = None
    notes: list[str] = field(default_factory=list)


def measure_white(image: np.ndarray, geometry: BoardGeometry = DEFAULT_GEOMETRY) -> WhiteMeasure:
    """Measure the paper white inside the detected markers' quiet zone. Raises CalibrationError when no
    marker is visible or the frame has no colour (a greyscale camera mode: its white is neutral in any light)."""
    from kiosk.vision.images import NO_COLOUR, has_no_colour

    if image.ndim != 3:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)   # said below, once its markers show it is a board
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.aruco_dictionary))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters()).detectMarkers(gray)
    if ids is None:
        raise CalibrationError("no ArUco marker visible: the exposure lock measures the white paper around them")
    mask = np.zeros(gray.shape, np.uint8)
    used = 0
    for c, i in zip(corners, ids.ravel()):
        if int(i) not in geometry.marker_ids:
            continue
        quad = c.reshape(4, 2)
        centre = quad.mean(axis=0)
        ring_out = (centre + (quad - centre) * 1.30).astype(np.int32)  # the paper margin around the marker
        ring_in = (centre + (quad - centre) * 1.08).astype(np.int32)
        cv2.fillConvexPoly(mask, ring_out, 255)
        cv2.fillConvexPoly(mask, ring_in, 0)
        used += 1
    if used == 0:
        raise CalibrationError(f"no marker with ids {geometry.marker_ids} visible")
    if has_no_colour(image):   # its white would be neutral whatever the light: a lock taken from it means nothing
        raise CalibrationError(f"{NO_COLOUR.replace('photo', 'frame')}: white balance is measured on a colour frame; "
                               "set the camera to colour")
    px = image[mask > 0].astype(np.float32)
    # the brighter half of the ring is paper (a shadow or the board edge may cut in)
    lum = px.mean(axis=1)
    px = px[lum >= np.median(lum)]
    b, g, r = (float(v) for v in px.mean(axis=0))
    clipped = float(np.mean(np.any(px >= 250, axis=1)))
    gains = (g / max(r, 1.0), g / max(b, 1.0))
    scale = TARGET_WHITE / max(float(np.mean((b, g, r))), 1.0)
    return WhiteMeasure((b, g, r), clipped, gains, used, scale)


def lock_picamera2(camera: Any, settle_frames: int = 12, progress: Callable[[str], None] | None = None,
                   geometry: BoardGeometry = DEFAULT_GEOMETRY) -> ExposureLock:
    """Let a :class:`~kiosk.devices.camera_picamera2.Picamera2Camera` run auto exposure / white balance for
    ``settle_frames``, fix the settled ExposureTime, AnalogueGain and ColourGains, correct them once on the
    marker paper, and check the locked frame. Raises CalibrationError when the result is unusable."""
    camera.set_controls({"AeEnable": True, "AwbEnable": True})
    for i in range(settle_frames):
        camera.capture()
        if progress:
            progress(f"settling auto exposure {i + 1}/{settle_frames}")
    meta = camera.metadata()
    try:
        exposure = int(meta["ExposureTime"])
        gain = float(meta["AnalogueGain"])
        r_gain, b_gain = (float(v) for v in meta["ColourGains"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CalibrationError(f"the camera's metadata lacks exposure/white-balance values: {exc}") from exc
    locked = {"AeEnable": False, "AwbEnable": False, "ExposureTime": exposure, "AnalogueGain": gain,
              "ColourGains": (r_gain, b_gain)}
    camera.set_controls(locked)
    _, frame = camera.capture()
    m = measure_white(frame, geometry)
    # fine-tune on the paper: neutral white at the target level
    exposure = int(round(exposure * min(max(m.exposure_scale, 0.5), 2.0)))
    r_gain, b_gain = r_gain * m.gains[0], b_gain * m.gains[1]
    camera.set_controls({"ExposureTime": exposure, "ColourGains": (r_gain, b_gain)})
    _, frame = camera.capture()
    final = measure_white(frame, geometry)
    lock = ExposureLock(exposure, gain, (r_gain, b_gain), final)
    if final.problems:
        raise CalibrationError("exposure lock failed: " + "; ".join(final.problems) + " (change the lighting)")
    return lock


def check_frame_white(image: np.ndarray, geometry: BoardGeometry = DEFAULT_GEOMETRY) -> ExposureLock:
    """For cameras whose exposure is not set through libcamera (webcams, replays, synthetic): measure and
    report. Raises CalibrationError when the frame is too dark or clipped."""
    m = measure_white(image, geometry)
    if m.problems:
        raise CalibrationError("; ".join(m.problems))
    notes = []
    if max(abs(m.gains[0] - 1), abs(m.gains[1] - 1)) > 0.15:
        notes.append(f"white is tinted: red x{m.gains[0]:.2f}, blue x{m.gains[1]:.2f} would neutralise it")
    return ExposureLock(None, None, None, m, notes)
