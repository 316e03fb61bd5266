"""Writing images at real size: PNG with its pHYs resolution chunk, and a one-page PDF."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np

MM_PER_INCH = 25.4


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bytes(image: np.ndarray, dpi: float) -> bytes:
    """PNG of ``image`` (uint8 gray or BGR) carrying ``dpi`` in a pHYs chunk, so viewers print it at real size."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("PNG encoding failed")
    data = buf.tobytes()
    ppm = round(dpi / MM_PER_INCH * 1000)  # pixels per metre
    phys = _chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + phys + data[ihdr_end:]


def png_dpi(data: bytes) -> float | None:
    """The dpi stored in a PNG's pHYs chunk (None if absent)."""
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            x, _, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            return x * MM_PER_INCH / 1000 if unit == 1 else None
        pos += 12 + length
    return None


def pdf_bytes(gray: np.ndarray, width_mm: float, height_mm: float) -> bytes:
    """A one-page PDF whose page is ``width_mm`` x ``height_mm`` filled by the 8-bit gray image ``gray``."""
    if gray.ndim != 2 or gray.dtype != np.uint8:
        raise ValueError("pdf_bytes needs a 2-D uint8 gray image")
    h, w = gray.shape
    wpt, hpt = width_mm / MM_PER_INCH * 72, height_mm / MM_PER_INCH * 72
    stream = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    content = f"q {wpt:.3f} 0 0 {hpt:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wpt:.3f} {hpt:.3f}] "
         "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(stream)} >>\nstream\n").encode()
        + stream + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def real_size_bytes(suffix: str, gray: np.ndarray, dpi: float, width_mm: float, height_mm: float) -> bytes:
    """``gray`` as a .png file (with dpi) or a .pdf file (a page of the given size), by ``suffix``.

    Raises:
        ValueError: another suffix.
    """
    if suffix.lower() == ".png":
        return png_bytes(gray, dpi)
    if suffix.lower() == ".pdf":
        return pdf_bytes(gray, width_mm, height_mm)
    raise ValueError(f"the marker sheet is written as .png or .pdf, not {suffix or 'no suffix'!r}")
