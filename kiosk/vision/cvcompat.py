"""The few OpenCV calls whose Python signature differs between the versions the kiosk runs on.

The Pi's stack on Raspberry Pi OS Bookworm is opencv-python-headless 4.11.0.86 (the last wheel that accepts
apt's numpy 1.24); elsewhere the kiosk runs on OpenCV 5. Two spots differ:

* ``undistortPoints`` with a termination criterion: OpenCV 5 takes it as a 7th argument; 4.x has it only in
  ``undistortPointsIter`` (at most 6 arguments to ``undistortPoints``).
* silencing OpenCV's own log lines: ``cv2.utils.logging`` in OpenCV 5; ``cv2.setLogLevel`` in 4.x.
* the dnn engine: OpenCV 5 has two and runs its new one unless asked (:func:`read_onnx`); 4.x has only the
  classic one.

Everything else the kiosk calls exists with the same signature in both (``scripts/pi-stack-check.sh`` runs
the vision tests on 4.11.0.86).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import cv2
import numpy as np


def undistort_points(pts: np.ndarray, camera_matrix: np.ndarray, dist: np.ndarray,
                     criteria: tuple[int, int, float]) -> np.ndarray:
    """Normalised, undistorted coordinates (N x 1 x 2 float64) of image points ``pts`` (N x 1 x 2, px).

    ``criteria`` is OpenCV's (type, max iterations, epsilon) for the iterative undistortion; ``dist`` holds
    OpenCV's (k1, k2, p1, p2[, k3 ...]). No rectification and no new camera matrix (R = P = identity)."""
    if hasattr(cv2, "undistortPointsIter"):      # OpenCV 4.x
        return cv2.undistortPointsIter(pts, camera_matrix, dist, None, None, criteria)
    return cv2.undistortPoints(pts, camera_matrix, dist, None, None, None, criteria)


_LOGGING = getattr(getattr(cv2, "utils", None), "logging", None)   # OpenCV 5


@contextmanager
def opencv_silenced() -> Iterator[None]:
    """Within the block OpenCV prints none of its own log lines (the caller reports the failure itself)."""
    if _LOGGING is not None:
        get, set_, silent = _LOGGING.getLogLevel, _LOGGING.setLogLevel, _LOGGING.LOG_LEVEL_SILENT
    else:                                          # OpenCV 4.x: cv2.getLogLevel / cv2.setLogLevel, SILENT = 0
        get, set_, silent = getattr(cv2, "getLogLevel"), getattr(cv2, "setLogLevel"), 0  # noqa: B009 - absent in 5
    level = get()
    set_(silent)
    try:
        yield
    finally:
        set_(level)


_CLASSIC = getattr(getattr(cv2, "dnn", None), "ENGINE_CLASSIC", None)   # OpenCV 5 only


def read_onnx(onnx: bytes) -> cv2.dnn.Net:
    """The ONNX network of the bytes ``onnx``, loaded by OpenCV's dnn module on its classic engine.

    OpenCV 4.x has no other engine (the Pi's 4.11 runs every network on it). OpenCV 5 runs its new engine unless
    asked, and takes the request only with a file's path: its Python binding for a buffer ignores the engine.
    There the bytes go through a temporary file (the buffer, on the new engine, when none can be written). The
    classic engine runs the kiosk's small networks in two thirds to five sixths of the new one's time; the two
    engines' outputs differ in the last digits of float32. Raises cv2.error for bytes OpenCV cannot load."""
    buffer = np.frombuffer(onnx, np.uint8)
    if _CLASSIC is None:
        return cv2.dnn.readNetFromONNX(buffer)
    try:
        fd, path = tempfile.mkstemp(suffix=".onnx", prefix="kiosk-net-")
    except OSError:
        return cv2.dnn.readNetFromONNX(buffer)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(onnx)
        return cv2.dnn.readNetFromONNX(path, engine=_CLASSIC)
    except OSError:
        return cv2.dnn.readNetFromONNX(buffer)
    finally:
        with suppress(OSError):
            os.unlink(path)
