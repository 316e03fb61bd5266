"""The ArUco marker sheet, printed at real size (layout: :mod:`kiosk.vision.geometry`).

The four markers (DICT_4X4_50 ids 0..3) go beside the grid corners A1, O1, O15, A15, each marker's centre
``marker_offset_mm`` outside the grid corner along both axes. The sheet prints each marker at
``marker_mm`` with a white quiet zone, centre ticks, its id and where it goes, an L at the exact place of its
grid corner, dashed cut lines through that corner (cut along them: the paper's cut corner is the grid corner,
and the L's arms show the grid edges to lay it along) and around each marker's quarter of the sheet, labels
``LABEL_MM`` tall, and a 100 mm scale bar to check that the printer did not scale the page.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.vision.geometry import DEFAULT_GEOMETRY, BoardGeometry

PAPERS_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
CORNER_NAMES = ("A1 (top-left)", "O1 (top-right)", "O15 (bottom-right)", "A15 (bottom-left)")
LABEL_MM = 3.0        # cap height of the labels (mm): legible at arm's length; the small lines are 0.7 of it
HERSHEY_CAP_PX = 22   # cap height of FONT_HERSHEY_SIMPLEX at scale 1 (px)
DASH_MM, GAP_MM, CUT_LINE_MM = 3.0, 2.0, 0.3


def _dashed(img: np.ndarray, a: tuple[int, int], b: tuple[int, int], ppmm: float) -> None:
    """A dashed cut line from ``a`` to ``b`` (px): DASH_MM on, GAP_MM off, CUT_LINE_MM wide, dark grey."""
    length = float(np.hypot(b[0] - a[0], b[1] - a[1]))
    if length < 1:
        return
    step, on = (DASH_MM + GAP_MM) * ppmm, DASH_MM * ppmm
    width = max(1, round(CUT_LINE_MM * ppmm))
    t = 0.0
    while t < length:
        e = min(length, t + on)
        p = (round(a[0] + (b[0] - a[0]) * t / length), round(a[1] + (b[1] - a[1]) * t / length))
        q = (round(a[0] + (b[0] - a[0]) * e / length), round(a[1] + (b[1] - a[1]) * e / length))
        cv2.line(img, p, q, 60, width)
        t += step


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
    scale = LABEL_MM * ppmm / HERSHEY_CAP_PX
    thick = max(1, round(0.3 * ppmm))
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
        # cut lines through the grid corner, along the grid edges back past the marker to its quarter's edge,
        # and that quarter's border: the cut-out piece's corner is the grid corner
        qx = round((col + (1 - sx) / 2) * cell_w * ppmm)   # the quarter's edge on the marker's far side
        qy = round((25 + (row + (1 - sy) / 2) * cell_h) * ppmm)
        _dashed(img, corner, (qx, corner[1]), ppmm)
        _dashed(img, corner, (corner[0], qy), ppmm)
        _dashed(img, (qx, qy), (corner[0], qy), ppmm)
        _dashed(img, (qx, qy), (qx, corner[1]), ppmm)
        label = f"grid corner {CORNER_NAMES[k].split()[0]}"
        (lw, _), _ = cv2.getTextSize(label, font, scale, thick)
        lx = corner[0] + sx * round(2 * ppmm) - (lw if sx < 0 else 0)   # between the L's arms
        ly = corner[1] + sy * round(2 * ppmm) + (round(LABEL_MM * ppmm) if sy > 0 else 0)
        cv2.putText(img, label, (lx, ly), font, scale, 0, thick, cv2.LINE_AA)
        lines = [f"id {mid}: beside {CORNER_NAMES[k]}",
                 f"centre {geometry.marker_offset_mm:g} mm out from the grid corner on both axes"]
        for j, text in enumerate(lines):
            (tw, _), _ = cv2.getTextSize(text, font, scale * (1 if j == 0 else 0.7), thick)
            above = y0 - quiet - round((12 - 6 * j) * ppmm)  # when the L is below the marker
            ty = above if sy > 0 else y0 + side + quiet + round((8 + 6 * j) * ppmm)
            # inside the piece: ending short of the cut through the grid corner (or starting past it)
            tx = corner[0] - round(2 * ppmm) - tw if sx > 0 else corner[0] + round(2 * ppmm)
            cv2.putText(img, text, (tx, ty), font, scale * (1 if j == 0 else 0.7), 0, thick, cv2.LINE_AA)
    title = f"Scrabble kiosk markers {geometry.aruco_dictionary}, {geometry.marker_mm:g} mm - print at 100 %"
    cv2.putText(img, title, (round(10 * ppmm), round(12 * ppmm)), font, scale * 0.8, 0, thick, cv2.LINE_AA)
    cv2.putText(img, "cut along the dashed lines; lay each cut corner on its grid corner", (round(10 * ppmm),
                round(20 * ppmm)), font, scale * 0.7, 0, thick, cv2.LINE_AA)
    y = round((hmm - 15) * ppmm)
    x0, x1 = round(10 * ppmm), round(110 * ppmm)
    cv2.line(img, (x0, y), (x1, y), 0, thick)
    for i in range(11):
        x = round((10 + 10 * i) * ppmm)
        cv2.line(img, (x, y - round((3 if i % 5 else 5) * ppmm)), (x, y), 0, thick)
    cv2.putText(img, "100 mm", (x1 + round(3 * ppmm), y), font, scale * 0.8, 0, thick, cv2.LINE_AA)
    return MarkerSheet(img, dpi, wmm, hmm, boxes)
