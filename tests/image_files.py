"""Image files that break decoders, for the tests of every place that reads images.

Import as ``from image_files import png_claiming`` (``tests/`` is on ``sys.path``, see pyproject's pytest
``pythonpath``)."""

from __future__ import annotations

import struct
import zlib


def png_claiming(width: int, height: int) -> bytes:
    """A ~60-byte PNG whose header claims ``width`` x ``height`` px (a decompression bomb's header: OpenCV
    refuses it with an exception, not None, above ``CV_IO_MAX_IMAGE_PIXELS``)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b"")


def png_1x1() -> bytes:
    """A valid 1 x 1 grey PNG (a real image file that is no journal, no GCG, no frame of a board)."""
    return png_claiming(1, 1).replace(struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0),
                                      struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
