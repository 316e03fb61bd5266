"""Reading and writing image files: one place that turns every way a file can fail to decode into a clear error,
and one that writes a picture atomically.

OpenCV signals a bad image two ways: ``None`` (unknown format, corrupt data) and an exception (``cv2.error``,
e.g. a header claiming more pixels than its decoder allows, ``CV_IO_MAX_IMAGE_PIXELS``: a decompression bomb).
:func:`read_image` turns both, and a missing or empty file, into :class:`ImageError` naming the file.

A decompression bomb is refused before it is decoded: :func:`header_size` reads the width and height from the
file's header (PNG, JPEG, BMP, GIF, WebP, TIFF, PNM/PAM/PFM, Sun raster, Radiance HDR, JPEG 2000, AVIF: the
formats a camera or a photo tool writes), and an image over :data:`MAX_PIXELS` is refused naming its size. A 30000 x 30000 px PNG of
927 KB took 26 s and 5.3 GB in ``read-board`` (OpenCV's own limit, 2^30 px, let it through) before it said
"blank frame". A format whose size cannot be read from its header (JPEG 2000, OpenEXR, ...) is not decoded
either: OpenCV has no header-only call in every version the kiosk runs on, and its limit is read from the
environment once, whenever cv2 first needs it, so setting ``CV_IO_MAX_IMAGE_PIXELS`` cannot be relied on. The
header's size is checked against the decoded image's too: a file whose header lies is refused.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import cv2
import numpy as np

from kiosk.vision.cvcompat import opencv_silenced

TOO_LARGE = ("not a readable image (its header claims more pixels than any camera frame, over 2^30: a damaged "
             "or hostile file)")

MAX_PIXELS = 70_000_000
"""The most pixels an image may have to be decoded: 70 megapixels. Every camera the kiosk is wired to is below
it with room to spare: the Raspberry Pi cameras (12.3 MP HQ, 11.9 MP Camera Module 3) and the largest camera
module made for a Pi (64 MP, 9152 x 6944, 63.6 MP), whose frame ``read-board`` read in 1.5 s and 460 MB on the
CI machine (a 108 MP phone photo: 3.4 s and 740 MB, too much for a Pi with 1 GB: scale such a photo down
first). OpenCV's own limit (2^30 px) let a 927 KB PNG take 5.3 GB."""

FORMATS = "PNG, JPEG, BMP, GIF, WebP, TIFF, PNM, JPEG 2000 and AVIF images"
"""The image formats whose size :func:`header_size` reads (the kiosk decodes only those)."""


def too_large(width: int, height: int) -> str:
    """Why an image of ``width`` x ``height`` px is not decoded (over :data:`MAX_PIXELS`)."""
    return (f"not a readable image (its header claims more pixels than any camera frame: {width}x{height} px, "
            f"{width * height / 1e6:,.0f} megapixels, where the kiosk reads at most {MAX_PIXELS // 1_000_000}: a "
            "damaged or hostile file)")


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:                              # fill byte
            i += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if marker in (0xD9, 0xDA):                      # end, or the scan before any frame header
            return None
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > n:
                return None
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    if struct.unpack(order + "H", data[2:4])[0] != 42 or len(data) < 8:
        return None                                     # BigTIFF (43) and the rest: not read
    at = struct.unpack(order + "I", data[4:8])[0]
    if at + 2 > len(data):
        return None
    count = struct.unpack(order + "H", data[at:at + 2])[0]
    size: dict[int, int] = {}
    for k in range(count):
        e = at + 2 + 12 * k
        if e + 12 > len(data):
            return None
        tag, kind = struct.unpack(order + "HH", data[e:e + 4])
        if tag in (256, 257):
            size[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), data[e + 8:e + (10 if kind == 3 else 12)])[0]
    return (size[256], size[257]) if len(size) == 2 else None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if kind == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = struct.unpack("<I", data[21:25])[0]
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


_PNM_TOKEN = re.compile(rb"(?:\s|#[^\n]*\n?)*(\d+)")


def _pnm_size(data: bytes) -> tuple[int, int] | None:
    head = data[:4096]
    if head[:2] == b"P7":                               # PAM: WIDTH and HEIGHT lines
        w, h = re.search(rb"\bWIDTH\s+(\d+)", head), re.search(rb"\bHEIGHT\s+(\d+)", head)
        return (int(w.group(1)), int(h.group(1))) if w and h else None
    at, values = 2, []
    for _ in range(2):
        m = _PNM_TOKEN.match(head, at)
        if m is None:
            return None
        values.append(int(m.group(1)))
        at = m.end()
    return values[0], values[1]


def _hdr_size(data: bytes) -> tuple[int, int] | None:
    head = data[:8192]
    end = head.find(b"\n\n")
    m = re.match(rb"([-+])Y\s+(\d+)\s+([-+])X\s+(\d+)", head[end + 2:]) if end >= 0 else None
    return (int(m.group(4)), int(m.group(2))) if m else None


def _box_sizes(data: bytes, box: bytes, at: int) -> list[tuple[int, int]]:
    """(width, height) of every ``box`` in the first bytes: AVIF's ``ispe`` (after 4 bytes of version and flags:
    width, height) and JPEG 2000's ``ihdr`` (height, width)."""
    found, i = [], data.find(box)
    while i >= 0 and i + at + 8 <= len(data):
        a, b = struct.unpack(">II", data[i + at:i + at + 8])
        found.append((a, b) if box == b"ispe" else (b, a))
        i = data.find(box, i + 4)
    return found


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) in px as an image file's header gives them, or None for a format it does not know (or a
    header cut short): PNG, JPEG, BMP, GIF, WebP, TIFF, PNM/PAM/PFM, Sun raster, Radiance HDR, JPEG 2000 and AVIF
    (the largest size their boxes give). Reads the header only, so a decompression bomb is seen before anything
    is decoded."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:2] == b"\xff\xd8":
            return _jpeg_size(data)
        if data[:2] == b"BM":
            if struct.unpack("<I", data[14:18])[0] == 12:        # OS/2 header: 16-bit sizes
                return struct.unpack("<HH", data[18:22])
            w, h = struct.unpack("<ii", data[18:26])
            return abs(w), abs(h)                       # a negative height: rows top-down
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_size(data)
        if data[:4] in (b"II*\0", b"MM\0*"):
            return _tiff_size(data)
        if data[:1] == b"P" and len(data) > 1 and data[1] in b"1234567Ff":
            return _pnm_size(data)
        if data[:4] == b"\x59\xa6\x6a\x95":
            return struct.unpack(">II", data[4:12])
        if data[:10] == b"#?RADIANCE" or data[:6] == b"#?RGBE":
            return _hdr_size(data)
        if data[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n":      # JPEG 2000 (JP2)
            return max(_box_sizes(data, b"ihdr", 4), key=lambda wh: wh[0] * wh[1], default=None)
        if data[:4] == b"\xff\x4f\xff\x51":                      # JPEG 2000 codestream: its SIZ segment
            xs, ys, xo, yo = struct.unpack(">IIII", data[8:24])
            return xs - xo, ys - yo
        if data[4:8] == b"ftyp":                                    # AVIF / HEIF: the largest item's ispe
            return max(_box_sizes(data, b"ispe", 8), key=lambda wh: wh[0] * wh[1], default=None)
    except (struct.error, IndexError, ValueError):
        return None                                     # a header cut short
    return None


class ImageError(ValueError):
    """An image file that cannot be read; the message is ``"PATH: REASON"``, both also kept as attributes."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_image(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The decoded image (uint8: H x W x 3 BGR for ``IMREAD_COLOR``, H x W for ``IMREAD_GRAYSCALE``).

    Reads the bytes itself (any path, non-ASCII names too), reads the image's size from its header
    (:func:`header_size`) and decodes it with OpenCV only when it is at most :data:`MAX_PIXELS`. Raises ImageError
    (reason "cannot open: ...", "empty file", :func:`too_large`, :data:`TOO_LARGE` or "not a readable image
    (...)")."""
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
    size = header_size(data[:65536].tobytes())
    if size is None:
        raise ImageError(path, f"not a readable image (unknown format or corrupt data; the kiosk reads {FORMATS})")
    if size[0] * size[1] > MAX_PIXELS:
        raise ImageError(path, too_large(*size))
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
    if img.shape[0] * img.shape[1] > MAX_PIXELS:      # a header that lied: decoded (within OpenCV's limit), refused
        raise ImageError(path, too_large(img.shape[1], img.shape[0]))
    return img


def _no_format(path: str | Path, what: str) -> str:
    """The refusal of a picture path whose suffix names no format OpenCV writes."""
    suffix = Path(path).suffix.lower()
    return f"{path}: cannot write a {what} as {suffix or 'a file without a suffix'}: give a .png or .jpg name"


def check_image_output(path: str | Path, what: str = "picture") -> Path:
    """``path`` once a picture can be written there (:func:`kiosk.files.check_output`) in a format its suffix names
    (.png, .jpg, ...): checked before the work, as :func:`write_image` would refuse it after.

    Raises:
        kiosk.files.InputError: ``PATH: REASON``, as :func:`write_image`'s.
    """
    from kiosk.files import InputError, check_output

    checked = check_output(path, what)      # a folder, FIFO, missing folder ... first: said as what it is
    suffix = Path(path).suffix.lower()
    if not suffix or not cv2.haveImageWriter(f"x{suffix}"):
        raise InputError(_no_format(path, what))
    return checked


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
        raise InputError(_no_format(path, what))
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
