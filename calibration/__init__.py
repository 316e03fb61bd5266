"""Calibration tools behind ``kiosk calibrate ...``: marker sheet, camera intrinsics, board pose, exposure and
white-balance lock, tile glyph capture. Results go into the vision reader's calibration profile."""


class CalibrationError(ValueError):
    """A calibration step cannot give a trustworthy result; the message says why and what to do."""
