"""Calibration tools behind ``kiosk calibrate ...``: marker sheet, camera intrinsics, board pose, exposure and
white-balance lock, tile glyph capture. Results go into the vision reader's calibration profile."""


class CalibrationError(ValueError):
    """A calibration step cannot give a trustworthy result; the message says why and what to do."""


class CalibrationInputError(CalibrationError):
    """A file given to a step cannot be used (a layout or profile that is not one): bad input, exit code 2,
    where a step that ran and refused its result is a finding (:class:`CalibrationError`, exit code 1)."""
