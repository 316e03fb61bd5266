"""Reading and writing image files: one place that turns every way a file can fail to decode into a clear error,
and one that writes a picture atomically.

OpenCV signals a bad image two ways: ``None`` (unknown format, corrupt data) and an exception (``cv2.error``,
e.g. a header claiming more pixels than its decoder allows, ``CV_IO_MAX_IMAGE_PIXELS``: a decompression bomb).
:func:`read_image` turns both, and a missing or empty file, into :class:`ImageError` naming the file.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kiosk.vision.cvcompat import opencv_silenced

TOO_LARGE = ("not a readable image (its header claims more pixels than any camera frame, over 2^30: a damaged "
             "or hostile file)")


class ImageError(ValueError):
    """An image file that cannot be read; the message is ``"PATH: REASON"``, both also kept as attributes."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_image(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The decoded image (uint8: H x W x 3 BGR for ``IMREAD_COLOR``, H x W for ``IMREAD_GRAYSCALE``).

    Reads the bytes itself (any path, non-ASCII names too) and decodes them with OpenCV. Raises ImageError
    (reason "cannot open: ...", "empty file", :data:`TOO_LARGE` or "not a readable image (...)")."""
    p = Path(path)
    try:
        irregular = p.exists() and not p.is_file()   # a folder, or a FIFO / device that would block the read
    except OSError as exc:                            # a name too long, a folder that may not be entered
        raise ImageError(path, f"cannot open: {exc.strerror or exc}") from None
    if irregular:
        raise ImageError(path, "not a regular file")
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ImageError(path, f"cannot open: {exc.strerror or exc}") from None
    if data.size == 0:
        raise ImageError(path, "empty file")
    try:
        with opencv_silenced():                     # the error below says it, once
            img = cv2.imdecode(data, flags)
    except cv2.error as exc:
        if "CV_IO_MAX_IMAGE_PIXELS" in str(exc):   # OpenCV's own words are an assertion on a C++ expression
            raise ImageError(path, TOO_LARGE) from None
        why = (str(exc).split("error:", 1)[-1].strip().splitlines() or ["decoding failed"])[0]
        raise ImageError(path, f"not a readable image (OpenCV: {why})") from None
    if img is None:
        raise ImageError(path, "not a readable image (unknown format or corrupt data)")
    return img


def write_image(path: str | Path, image: np.ndarray, what: str = "picture") -> Path:
    """Write ``image`` (uint8 H x W x 3 BGR, or H x W grey) in the format the path's suffix names (.png, .jpg, ...),
    atomically through :func:`kiosk.files.atomic_output`: a failed write leaves nothing behind, and a folder,
    device, FIFO or socket at ``path`` is refused and left as it is. Returns ``path``.

    Raises:
        kiosk.files.InputError: ``PATH: REASON`` (no image format OpenCV writes for the suffix, the encoding
            failed, or the path cannot be written; ``what`` names the output in the message).
    """
    from kiosk.files import InputError, atomic_output

    suffix = Path(path).suffix.lower()
    try:
        with opencv_silenced():
            ok, buf = cv2.imencode(suffix or ".png", image)
    except cv2.error:
        ok = False
    if not ok:
        raise InputError(f"{path}: cannot write a {what} as {suffix or 'a file without a suffix'}: give a .png "
                         "or .jpg name")
    with atomic_output(path, "wb", what) as fh:
        fh.write(buf.tobytes())
    return Path(path)


GREY_TOLERANCE = 3
"""Grey levels the colour channels of a greyscale photo saved as colour may differ by (JPEG's rounding)."""

NO_COLOUR = "the photo is greyscale (it has no colour)"
"""How a photo without colour is named to the user, where colour is needed."""


def has_no_colour(image: np.ndarray) -> bool:
    """``image`` is greyscale: one channel, or three that nowhere differ by more than :data:`GREY_TOLERANCE` (a
    greyscale JPEG decoded as colour). Looks at every second pixel of every second row (a 2028x1520 frame: 3 ms)."""
    if image.ndim == 2 or image.shape[2] == 1:
        return True
    px = image[::2, ::2].astype(np.int16)
    return int(np.abs(px[..., 0] - px[..., 1]).max()) <= GREY_TOLERANCE and \
        int(np.abs(px[..., 1] - px[..., 2]).max()) <= GREY_TOLERANCE


def is_greyscale_photo(image: np.ndarray) -> bool:
    """``image`` is a greyscale photo (:func:`has_no_colour`) of something, not a blank frame (a black or covered
    camera's: under 32 grey levels from darkest to brightest), which is named as such where it matters."""
    return has_no_colour(image) and int(image.max()) - int(image.min()) >= 32
