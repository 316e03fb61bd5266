"""The OpenCV calls that differ between 4.11 (the Pi's stack) and 5, and the synthetic camera's glyphs, which
must not depend on the installed OpenCV or pygame. scripts/pi-stack-check.sh runs these on OpenCV 4.11.0.86."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.vision.cvcompat import opencv_silenced, undistort_points
from kiosk.vision.images import ImageError, read_image
from kiosk.vision.synth.glyph_art import ATLAS_CHARS, FONTS, reference_glyph, render_reference_glyph
from kiosk.vision.synth.tile_art import ink_mask

OPENCV_5 = int(cv2.__version__.split(".")[0]) >= 5


def test_undistort_points_inverts_the_lens_distortion():
    K = np.array([[800.0, 0, 320], [0, 800, 240], [0, 0, 1]])
    dist = np.array([-0.3, 0.1, 0.001, 0.002, 0.0])
    norm = np.random.default_rng(1).uniform(-0.35, 0.35, (40, 2))
    px, _ = cv2.projectPoints(np.hstack([norm, np.ones((40, 1))]), np.zeros(3), np.zeros(3), K, dist)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)
    back = undistort_points(px.reshape(-1, 1, 2), K, dist, crit).reshape(-1, 2)
    assert np.abs(back - norm).max() < 1e-6


def test_opencv_silenced_restores_the_log_level_and_a_bad_image_is_named(tmp_path):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    get = cv2.utils.logging.getLogLevel if OPENCV_5 else cv2.getLogLevel
    before = get()
    with opencv_silenced():
        assert get() == 0
    assert get() == before
    with pytest.raises(ImageError, match="broken.png: not a readable image"):
        read_image(bad)
    assert get() == before


@pytest.mark.skipif(not OPENCV_5, reason="the glyph atlas holds the shapes OpenCV 5 draws; OpenCV 4 draws its "
                                         "Hershey fonts as strokes, which is why the atlas is shipped")
def test_the_shipped_glyphs_are_the_ones_opencv_5_draws():
    for font in FONTS:
        if font == "sans":
            continue   # pygame's rasteriser: the shipped glyphs are PyPI pygame's, checked on their own below
        for ch in ATLAS_CHARS:
            live, shipped = render_reference_glyph(ch, font), reference_glyph(ch, font)
            assert np.array_equal(live.mask, shipped.mask), (font, ch)
            assert (live.x0, live.y0, live.cap_px) == (shipped.x0, shipped.y0, shipped.cap_px)


# ink of a Q with value 10 on a 64 px tile face: (sum, centre x, centre y) as drawn with OpenCV 5 and PyPI pygame
_Q10 = {"sans": (744.48, 31.457, 31.225), "hershey-simplex": (788.92, 31.83, 32.24),
        "hershey-duplex": (1006.59, 31.473, 32.061), "hershey-triplex": (1006.59, 31.473, 32.061),
        "hershey-complex": (1006.59, 31.473, 32.061)}


@pytest.mark.parametrize("font", FONTS)
def test_a_tile_face_is_drawn_alike_on_every_stack(font):
    """OpenCV 4.11's own Hershey strokes gave another ink (the reader read 49 of 60 letters of a rendered
    frame on the Pi's stack); the atlas keeps it the same up to resampling noise."""
    m = ink_mask("Q", 10, (font, 0.55, 0.2, 0.45, 0.72, 0.93, 0.9), 64)
    ys, xs = np.mgrid[:64, :64]
    s = float(m.sum())
    want = _Q10[font]
    assert s == pytest.approx(want[0], abs=1.0)
    assert float((m * xs).sum() / s) == pytest.approx(want[1], abs=0.05)
    assert float((m * ys).sum() / s) == pytest.approx(want[2], abs=0.05)


def _square_model_bytes() -> bytes:
    from importlib.resources import files
    return files("kiosk.vision.models").joinpath("squares_english.onnx").read_bytes()


def test_read_onnx_runs_the_network_on_the_classic_engine_and_leaves_no_file(tmp_path, monkeypatch):
    # OpenCV 5's binding ignores the engine asked for a buffer; read_onnx goes through a file so that the
    # network runs as on the Pi's OpenCV 4.11 (the classic engine), and removes that file
    from kiosk.vision.cvcompat import read_onnx
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    onnx = _square_model_bytes()
    x = np.random.default_rng(3).normal(size=(5, 1, 32, 32)).astype(np.float32)
    net = read_onnx(onnx)
    net.setInput(x)
    got = net.forward()
    assert list(tmp_path.iterdir()) == []
    path = tmp_path / "squares.onnx"
    path.write_bytes(onnx)
    ref = cv2.dnn.readNetFromONNX(str(path), engine=cv2.dnn.ENGINE_CLASSIC) if OPENCV_5 \
        else cv2.dnn.readNetFromONNX(str(path))
    ref.setInput(x)
    assert np.array_equal(got, ref.forward())


def test_read_onnx_loads_from_the_bytes_where_no_temporary_file_can_be_written(tmp_path, monkeypatch):
    from kiosk.vision.cvcompat import read_onnx
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    monkeypatch.setattr("tempfile.tempdir", None)
    net = read_onnx(_square_model_bytes())
    net.setInput(np.zeros((1, 1, 32, 32), np.float32))
    assert net.forward().shape[0] == 1
    with pytest.raises(cv2.error):
        read_onnx(b"not an onnx network")
