"""The ArUco marker sheet, printed at real size (layout: :mod:`kiosk.vision.geometry`).

The four markers (DICT_4X4_50 ids 0..3) go beside the grid corners A1, O1, O15, A15, each marker's centre
``marker_offset_mm`` outside the grid corner along both axes. The sheet prints each marker at
``marker_mm`` with a white quiet zone, centre ticks, its id and where it goes, an L at the exact place of its
grid corner (cut the paper and lay the L on the board's grid corner), and a 100 mm scale bar to check that
the printer did not scale the page.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.vision.geometry import DEFAULT_GEOMETRY, BoardGeometry

PAPERS_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
CORNER_NAMES = ("A1 (top-left)", "O1 (top-right)", "O15 (bottom-right)", "A15 (bottom-left)")


@dataclass(frozen=True)
class MarkerSheet:
    """A rendered sheet: ``image`` (uint8 gray, H x W px) at ``dpi``, page ``width_mm`` x ``height_mm``, and
    ``marker_boxes_px``: for each marker id, its (x0, y0, side) square in px."""

    image: np.ndarray
    dpi: float
    width_mm: float
    height_mm: float
    marker_boxes_px: dict[int, tuple[int, int, int]]


def render_marker_sheet(geometry: BoardGeometry = DEFAULT_GEOMETRY, dpi: float = 300, paper: str = "a4") -> MarkerSheet:
    """Render the marker sheet. Raises ValueError for an unknown paper or a dpi outside 72..1200."""
    if paper not in PAPERS_MM:
        raise ValueError(f"paper must be one of {', '.join(PAPERS_MM)}, got {paper!r}")
    if not 72 <= dpi <= 1200:
        raise ValueError(f"dpi must be 72..1200, got {dpi}")
    wmm, hmm = PAPERS_MM[paper]
    ppmm = dpi / 25.4
    w, h = round(wmm * ppmm), round(hmm * ppmm)
    img = np.full((h, w), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.aruco_dictionary))
    side = round(geometry.marker_mm * ppmm)
    cell_w, cell_h = wmm / 2, (hmm - 60) / 2
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = 0.9 * dpi / 300
    thick = max(1, round(2 * dpi / 300))
    boxes: dict[int, tuple[int, int, int]] = {}
    places = ((0, 0), (1, 0), (1, 1), (0, 1))  # each marker where it goes on the board: A1, O1, O15, A15
    for k, mid in enumerate(geometry.marker_ids):
        col, row = places[k]
        cx = round((col + 0.5) * cell_w * ppmm)
        cy = round((25 + (row + 0.5) * cell_h) * ppmm)
        marker = cv2.aruco.generateImageMarker(dictionary, mid, side)
        x0, y0 = cx - side // 2, cy - side // 2
        img[y0:y0 + side, x0:x0 + side] = marker
        boxes[mid] = (x0, y0, side)
        quiet = round(4 * ppmm)  # white margin the detector needs; then a thin cut line
        cv2.rectangle(img, (x0 - quiet, y0 - quiet), (x0 + side + quiet, y0 + side + quiet), 170, 1)
        tick = round(3 * ppmm)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):  # centre ticks outside the marker
            a = (cx + dx * (side // 2 + quiet), cy + dy * (side // 2 + quiet))
            b = (a[0] + dx * tick, a[1] + dy * tick)
            cv2.line(img, a, b, 0, thick)
        # the grid corner this marker belongs to, as an L along the grid's two edges: lay it on the corner
        gx, gy = geometry.grid_corners_mm()[k] - geometry.marker_centres_mm()[k]
        sx, sy = (1 if gx > 0 else -1), (1 if gy > 0 else -1)
        corner = (cx + round(gx * ppmm), cy + round(gy * ppmm))
        arm = round(12 * ppmm)
        cv2.line(img, corner, (corner[0] + sx * arm, corner[1]), 0, thick)
        cv2.line(img, corner, (corner[0], corner[1] + sy * arm), 0, thick)
        cv2.putText(img, f"grid corner {CORNER_NAMES[k].split()[0]}", (corner[0] + (sx - 1) * arm // 2 + sx * 4,
                    corner[1] + sy * round(5 * ppmm)), font, scale * 0.6, 0, max(1, thick // 2), cv2.LINE_AA)
        lines = [f"id {mid}: beside {CORNER_NAMES[k]}",
                 f"centre {geometry.marker_offset_mm:g} mm out from the grid corner on both axes"]
        for j, text in enumerate(lines):
            (tw, _), _ = cv2.getTextSize(text, font, scale * (1 if j == 0 else 0.7), thick)
            above = y0 - quiet - round((14 - 7 * j) * ppmm)  # when the L is below the marker
            ty = above if sy > 0 else y0 + side + quiet + round((10 + 7 * j) * ppmm)
            cv2.putText(img, text, (cx - tw // 2, ty), font, scale * (1 if j == 0 else 0.7), 0, thick, cv2.LINE_AA)
    title = f"Scrabble kiosk markers {geometry.aruco_dictionary}, {geometry.marker_mm:g} mm - print at 100 %"
    cv2.putText(img, title, (round(10 * ppmm), round(12 * ppmm)), font, scale * 0.8, 0, thick, cv2.LINE_AA)
    y = round((hmm - 15) * ppmm)
    x0, x1 = round(10 * ppmm), round(110 * ppmm)
    cv2.line(img, (x0, y), (x1, y), 0, thick)
    for i in range(11):
        x = round((10 + 10 * i) * ppmm)
        cv2.line(img, (x, y - round((3 if i % 5 else 5) * ppmm)), (x, y), 0, thick)
    cv2.putText(img, "100 mm", (x1 + round(3 * ppmm), y), font, scale * 0.8, 0, thick, cv2.LINE_AA)
    return MarkerSheet(img, dpi, wmm, hmm, boxes)
