"""The marker sheet: real size in PNG and PDF, and the printed markers are detectable with the right ids."""

from __future__ import annotations

import re
import zlib

import cv2
import numpy as np
import pytest

from calibration.markers import render_marker_sheet
from calibration.printing import png_dpi, real_size_bytes
from kiosk.vision.geometry import DEFAULT_GEOMETRY


def test_sheet_markers_are_real_size_and_detected() -> None:
    sheet = render_marker_sheet(dpi=300)
    assert sheet.image.shape == (round(297 / 25.4 * 300), round(210 / 25.4 * 300))
    side_px = DEFAULT_GEOMETRY.marker_mm / 25.4 * 300
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters()).detectMarkers(sheet.image)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for c in corners:
        edge = np.linalg.norm(c[0, 0] - c[0, 1])
        assert abs(edge - side_px) <= 2.0, edge  # a printed marker is marker_mm wide


def test_png_carries_dpi_and_pdf_page_is_a4() -> None:
    sheet = render_marker_sheet(dpi=150)
    png = real_size_bytes(".png", sheet.image, sheet.dpi, sheet.width_mm, sheet.height_mm)
    assert abs(png_dpi(png) - 150) < 0.1
    back = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert np.array_equal(back, sheet.image)
    pdf = real_size_bytes(".PDF", sheet.image, sheet.dpi, sheet.width_mm, sheet.height_mm)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert box and abs(float(box[1]) - 595.276) < 0.01 and abs(float(box[2]) - 841.89) < 0.01  # A4 in points
    m = re.search(rb"/Length (\d+) >>\nstream\n", pdf)
    data = pdf[m.end():m.end() + int(m[1])]
    assert zlib.decompress(data) == sheet.image.tobytes()
    start = int(re.search(rb"startxref\n(\d+)", pdf)[1])
    assert pdf[start:start + 4] == b"xref"


def test_bad_sheet_requests() -> None:
    with pytest.raises(ValueError, match="paper"):
        render_marker_sheet(paper="a0")
    with pytest.raises(ValueError, match="dpi"):
        render_marker_sheet(dpi=20)
    with pytest.raises(ValueError, match="png or .pdf"):
        real_size_bytes(".jpg", np.zeros((2, 2), np.uint8), 300, 1, 1)


def test_each_marker_shows_its_grid_corner_at_the_offset() -> None:
    sheet = render_marker_sheet(dpi=300)
    ppmm = 300 / 25.4
    off = DEFAULT_GEOMETRY.marker_offset_mm * ppmm
    for mid, (sx, sy) in zip((0, 1, 2, 3), ((1, 1), (-1, 1), (-1, -1), (1, -1))):
        x0, y0, side = sheet.marker_boxes_px[mid]
        cx, cy = x0 + side / 2, y0 + side / 2
        corner = (round(cx + sx * off), round(cy + sy * off))
        patch = sheet.image[corner[1] - 2:corner[1] + 3, corner[0] - 2:corner[0] + 3]
        assert patch.min() < 60, f"no L at grid corner of marker {mid}"
        # the L's arms run along the grid edges, away from the marker
        arm = (round(corner[0] + sx * 8 * ppmm), corner[1])
        assert sheet.image[arm[1] - 2:arm[1] + 3, arm[0]].min() < 60


def test_dashed_cut_lines_run_through_each_grid_corner_and_its_label_is_legible() -> None:
    """The sheet had no cut lines and a 'grid corner A1' label about 1 mm tall."""
    sheet = render_marker_sheet(dpi=300)
    ppmm = 300 / 25.4
    off = DEFAULT_GEOMETRY.marker_offset_mm * ppmm
    for mid, (sx, sy) in zip((0, 1, 2, 3), ((1, 1), (-1, 1), (-1, -1), (1, -1))):
        x0, y0, side = sheet.marker_boxes_px[mid]
        cx, cy = x0 + side / 2, y0 + side / 2
        corner = (round(cx + sx * off), round(cy + sy * off))
        # along the grid edge through the corner, back past the marker: dashed (3 mm on, 2 mm off)
        ys = [corner[1] - sy * k for k in range(round(2 * ppmm), round(40 * ppmm))]
        column = np.array([sheet.image[y, corner[0] - 1:corner[0] + 2].min() for y in ys])
        assert 0.45 < float(np.mean(column < 128)) < 0.75, mid
        # the label between the L's arms: ink at least 2.5 mm tall
        y_a, y_b = sorted((corner[1] + sy * round(1 * ppmm), corner[1] + sy * round(8 * ppmm)))
        x_a, x_b = sorted((corner[0] + sx * round(2 * ppmm), corner[0] + sx * round(30 * ppmm)))
        rows = np.nonzero((sheet.image[y_a:y_b, x_a:x_b] < 128).any(axis=1))[0]
        assert len(rows) and rows.max() - rows.min() >= 2.5 * ppmm, mid
