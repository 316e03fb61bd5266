"""A decompression bomb is refused before it is decoded: a 30000 x 30000 px PNG of 927 KB took 26 s and 5.3 GB
in ``read-board`` (OpenCV's own limit, 2^30 px, let it through) and then said "blank frame". The size comes from
the file's header (kiosk.vision.images.header_size) in every format the kiosk decodes; an image over
MAX_PIXELS (70 megapixels: the largest Pi camera is 64) is refused naming its size, and a format whose size
cannot be read is not decoded at all."""

from __future__ import annotations

import struct

import cv2
import numpy as np
import pytest

from image_files import png_claiming
from kiosk.vision import images
from kiosk.vision.images import MAX_PIXELS, ImageError, header_size, read_image

SMALL = (np.random.default_rng(0).random((37, 53, 3)) * 255).astype(np.uint8)
FORMATS = [".png", ".jpg", ".bmp", ".webp", ".tiff", ".ppm", ".pgm", ".pbm", ".pam", ".ras", ".hdr", ".pfm",
           ".jp2", ".gif", ".avif"]


def _encoded(ext: str, params: tuple[int, ...] = ()) -> bytes:
    image = SMALL.astype(np.float32) / 255 if ext in (".hdr", ".pfm") else SMALL
    if ext in (".pgm", ".pbm"):
        image = SMALL[..., 0]
    try:
        ok, buf = cv2.imencode(ext, image, list(params))
    except cv2.error:
        ok = False
    if not ok:
        pytest.skip(f"this OpenCV writes no {ext}")
    return buf.tobytes()


@pytest.mark.parametrize("ext", FORMATS)
def test_the_header_gives_the_size_in_every_format_the_kiosk_decodes(ext: str, tmp_path) -> None:
    data = _encoded(ext)
    assert header_size(data) == (53, 37)
    path = tmp_path / f"frame{ext}"
    path.write_bytes(data)
    assert read_image(path).shape[:2] == (37, 53)


def test_the_other_webp_and_jpeg_kinds_too() -> None:
    assert header_size(_encoded(".webp", (cv2.IMWRITE_WEBP_QUALITY, 101))) == (53, 37)      # lossless: VP8L
    assert header_size(_encoded(".jpg", (cv2.IMWRITE_JPEG_PROGRESSIVE, 1))) == (53, 37)     # SOF2


def _jpeg_claiming(width: int, height: int) -> bytes:
    data = bytearray(_encoded(".jpg"))
    at = data.index(b"\xff\xc0")
    data[at + 5:at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def _bmp_claiming(width: int, height: int) -> bytes:
    data = bytearray(_encoded(".bmp"))
    data[18:26] = struct.pack("<ii", width, -height)
    return bytes(data)


def _gif_claiming(width: int, height: int) -> bytes:
    data = bytearray(_encoded(".gif"))
    data[6:10] = struct.pack("<HH", width, height)
    return bytes(data)


def _webp_claiming(width: int, height: int) -> bytes:
    data = bytearray(_encoded(".webp", (cv2.IMWRITE_WEBP_QUALITY, 101)))
    bits = struct.unpack("<I", data[21:25])[0] & ~0x0FFFFFFF
    data[21:25] = struct.pack("<I", bits | (width - 1) | ((height - 1) << 14))
    return bytes(data)


def _tiff_claiming(width: int, height: int) -> bytes:
    return (b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 2)
            + struct.pack("<HHII", 256, 4, 1, width) + struct.pack("<HHII", 257, 4, 1, height) + b"\0" * 64)


# built in the test, not at import: an OpenCV that writes no GIF (the Pi's 4.11 build) skips that case alone
BOMBS = {
    "png": (lambda: png_claiming(30000, 30000), "30000x30000 px, 900 megapixels"),
    "jpeg": (lambda: _jpeg_claiming(60000, 60000), "60000x60000 px, 3,600 megapixels"),
    "bmp": (lambda: _bmp_claiming(20000, 20000), "20000x20000 px, 400 megapixels"),
    "gif": (lambda: _gif_claiming(65535, 65535), "65535x65535 px, 4,295 megapixels"),
    "webp": (lambda: _webp_claiming(16384, 16384), "16384x16384 px, 268 megapixels"),
    "tiff": (lambda: _tiff_claiming(100000, 1000), "100000x1000 px, 100 megapixels"),
    "pnm": (lambda: b"P5\n# a comment\n20000 20000\n255\n" + b"\0" * 64, "20000x20000 px, 400 megapixels"),
}


@pytest.mark.parametrize("kind", BOMBS)
def test_a_bomb_is_refused_from_its_header_and_never_decoded(kind: str, tmp_path, monkeypatch) -> None:
    make, size = BOMBS[kind]
    data = make()
    path = tmp_path / f"bomb.{kind}"
    path.write_bytes(data)
    monkeypatch.setattr(images.cv2, "imdecode", lambda *a: pytest.fail("a bomb was decoded"))
    with pytest.raises(ImageError) as err:
        read_image(path)
    assert str(err.value) == (f"{path}: not a readable image (its header claims more pixels than any camera frame: "
                              f"{size}, where the kiosk reads at most 70: a damaged or hostile file)")


def test_the_limit_takes_every_pi_camera(tmp_path, monkeypatch) -> None:
    assert MAX_PIXELS >= 9152 * 6944                          # the largest camera module for a Pi, 64 MP
    path = tmp_path / "cam64.png"
    path.write_bytes(png_claiming(9152, 6944))
    decoded = []
    monkeypatch.setattr(images.cv2, "imdecode", lambda *a: decoded.append(1) or SMALL)
    assert read_image(path) is SMALL and decoded == [1]     # under the limit: decoded


def test_a_format_of_unknown_size_is_not_decoded_and_a_lying_header_is_refused(tmp_path, monkeypatch) -> None:
    odd = tmp_path / "frame.xyz"
    odd.write_bytes(b"\x76\x2f\x31\x01" + b"\0" * 64)           # OpenEXR's magic: a format whose size is not read
    monkeypatch.setattr(images.cv2, "imdecode", lambda *a: pytest.fail("decoded"))
    with pytest.raises(ImageError, match=r"frame\.xyz: not a readable image \(unknown format or corrupt data; the "
                                         r"kiosk reads PNG, JPEG, BMP, GIF, WebP, TIFF, PNM, JPEG 2000 and AVIF"):
        read_image(odd)
    monkeypatch.undo()
    liar = tmp_path / "liar.png"
    liar.write_bytes(png_claiming(10, 10))
    monkeypatch.setattr(images.cv2, "imdecode", lambda *a: np.zeros((9000, 9000), np.uint8))
    with pytest.raises(ImageError, match="9000x9000 px, 81 megapixels"):
        read_image(liar)


def test_read_board_refuses_the_testers_bomb_at_once(tmp_path, capsys, monkeypatch) -> None:
    from kiosk.cli import main

    bomb = tmp_path / "bomb.png"
    assert cv2.imwrite(str(bomb), np.zeros((30000, 30000), np.uint8))      # 927 KB
    monkeypatch.setattr(images.cv2, "imdecode", lambda *a: pytest.fail("the bomb was decoded"))
    assert main(["read-board", str(bomb)]) == 2
    out, err = capsys.readouterr()
    assert "30000x30000 px, 900 megapixels" in err
    assert out.splitlines()[:15] == ["#" * 15] * 15    # nothing read: its block keeps the images' order
