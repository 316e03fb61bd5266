"""The empty board as a top-down texture: table, board edge, premium squares with their printed labels, the
centre star and the four ArUco markers of :mod:`kiosk.vision.geometry`.

A texture covers the board plane from ``origin_mm`` (both axes) at ``ppm`` px per mm; texture pixel (u, v)
shows the point ``origin_mm + (u + 0.5, v + 0.5) / ppm``.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.rules.board import DLS, DWS, LAYOUT, SIZE, TLS, TWS
from kiosk.vision.geometry import DEFAULT_GEOMETRY, BoardGeometry
from kiosk.vision.synth.textures import cloth, smooth_noise, wood

TABLE_MM = 150.0      # table around the board inside the texture (seen beyond it: the outer FOLD_MM mirrored)
FOLD_MM = 25.0        # outer band of the table, kept free of objects, mirrored to fill the rest of the view
BOARD_STYLES = ("classic", "green")
TABLE_STYLES = ("wood", "grey-cloth", "blue-cloth")
_SHIFT = 4            # cv2 sub-pixel drawing bits
_LABELS = {TWS: ("TRIPLE", "WORD", "SCORE"), DWS: ("DOUBLE", "WORD", "SCORE"),
           TLS: ("TRIPLE", "LETTER", "SCORE"), DLS: ("DOUBLE", "LETTER", "SCORE")}


@dataclass(frozen=True)
class BoardStyle:
    """Colours (BGR 0..255) of a printed board."""

    plain: tuple[int, int, int]
    lines: tuple[int, int, int]
    edge: tuple[int, int, int]
    rim: tuple[int, int, int]
    premium: dict[str, tuple[int, int, int]]
    label_ink: tuple[int, int, int]
    star_ink: tuple[int, int, int]
    line_mm: float
    crease: bool = False  # a folding board: the hinge line across the middle
    edging: str = "none"  # premium squares spill into plain neighbours: "teeth" (triangles) or "dots"


STYLES: dict[str, BoardStyle] = {
    "classic": BoardStyle(  # the familiar beige board: tan squares, cream lines, red/pink/blue premium squares
        plain=(160, 184, 200), lines=(226, 236, 240), edge=(150, 176, 194), rim=(40, 40, 110),
        premium={TWS: (52, 44, 196), DWS: (160, 160, 236), TLS: (190, 120, 30), DLS: (232, 206, 150)},
        label_ink=(30, 30, 30), star_ink=(20, 20, 20), line_mm=1.0, crease=True, edging="teeth"),
    "green": BoardStyle(  # a club/tournament board: green squares, dark lines, white frame
        plain=(54, 118, 26), lines=(25, 45, 25), edge=(232, 234, 230), rim=(60, 60, 60),
        premium={TWS: (50, 40, 215), DWS: (120, 135, 240), TLS: (150, 60, 20), DLS: (220, 180, 110)},
        label_ink=(245, 245, 245), star_ink=(30, 30, 30), line_mm=0.8, edging="dots"),
}


@dataclass(frozen=True)
class BoardTexture:
    """The empty board texture (uint8 HxWx3 BGR) and its mapping to board mm."""

    image: np.ndarray
    origin_mm: float
    ppm: float

    def to_px(self, mm: np.ndarray) -> np.ndarray:
        """Board mm (Nx2) -> texture pixel coordinates (Nx2 float, pixel centres at integers)."""
        return (np.asarray(mm, np.float64) - self.origin_mm) * self.ppm - 0.5


def _fx(p: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(p) * (1 << _SHIFT)).astype(np.int32)


def _rect(img: np.ndarray, tex: BoardTexture, x0: float, y0: float, x1: float, y1: float, colour) -> None:
    pts = tex.to_px(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    cv2.fillConvexPoly(img, _fx(pts), colour, cv2.LINE_AA, _SHIFT)


def _text_centred(img: np.ndarray, lines: tuple[str, ...], centre_px: tuple[float, float], width_px: float,
                  colour) -> None:
    face = cv2.FONT_HERSHEY_SIMPLEX
    (wref, href), _ = cv2.getTextSize("LETTER", face, 1.0, 1)
    scale = 0.78 * width_px / wref
    thick = max(1, int(round(scale * 1.6)))
    lh = href * scale * 1.55
    y = centre_px[1] - lh * (len(lines) - 1) / 2 + href * scale / 2
    for ln in lines:
        (tw, _), _ = cv2.getTextSize(ln, face, scale, thick)
        cv2.putText(img, ln, (int(round(centre_px[0] - tw / 2)), int(round(y))), face, scale, colour, thick, cv2.LINE_AA)
        y += lh


def _star(img: np.ndarray, centre_px: tuple[float, float], r: float, colour) -> None:
    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.42
        pts.append((centre_px[0] + rr * math.cos(a), centre_px[1] + rr * math.sin(a)))
    cv2.fillPoly(img, [_fx(np.array(pts))], colour, cv2.LINE_AA, _SHIFT)


def _edging(img: np.ndarray, tex: BoardTexture, sq: int, cell: float, st: BoardStyle) -> None:
    """Decorate premium square ``sq`` where it meets a plain square: three small triangles ("teeth") or
    three rows of dots in the premium colour reaching into the neighbour, as printed boards do."""
    r, c = divmod(sq, SIZE)
    colour = st.premium[LAYOUT[sq]]
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        nr, nc = r + dr, c + dc
        if not (0 <= nr < SIZE and 0 <= nc < SIZE) or LAYOUT[nr * SIZE + nc] != ".":
            continue
        # edge midpoint, outward normal n and tangent t, in mm
        mid = np.array([(c + 0.5 + dc * 0.5) * cell, (r + 0.5 + dr * 0.5) * cell])
        n, t = np.array([dc, dr], float), np.array([dr, dc], float)
        for k in (-1, 0, 1):
            base = mid + t * k * cell * 0.22
            if st.edging == "teeth":
                pts = [base - t * 1.6, base + t * 1.6, base + n * 2.2]
                cv2.fillConvexPoly(img, _fx(tex.to_px(np.array(pts))), colour, cv2.LINE_AA, _SHIFT)
            else:
                for d in (1.4, 3.0):
                    ctr = base + n * d
                    _rect(img, tex, ctr[0] - 0.55, ctr[1] - 0.55, ctr[0] + 0.55, ctr[1] + 0.55, colour)


def _table(style: str, shape: tuple[int, int], ppm: float) -> np.ndarray:
    rng = np.random.default_rng(TABLE_STYLES.index(style) + 11)
    if style == "wood":
        return wood(rng, shape, (60, 100, 150), grain_px=9 * ppm, contrast=0.18)
    colour = (150, 150, 145) if style == "grey-cloth" else (110, 60, 40)
    return cloth(rng, shape, colour)


def _markers(img: np.ndarray, tex: BoardTexture, geometry: BoardGeometry) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.aruco_dictionary))
    quiet = 0.25 * geometry.marker_mm
    for i, mid in enumerate(geometry.marker_ids):
        cx, cy = geometry.marker_centres_mm()[i]
        h = geometry.marker_mm / 2 + quiet
        _rect(img, tex, cx - h, cy - h, cx + h, cy + h, (238, 240, 240))
        # draw the marker large, then warp it onto its exact place (sub-pixel, anti-aliased)
        big = cv2.aruco.generateImageMarker(dictionary, mid, 6 * 40)
        big = cv2.cvtColor(big, cv2.COLOR_GRAY2BGR)
        src = np.array([[0, 0], [240, 0], [240, 240], [0, 240]], np.float32) - 0.5
        dst = tex.to_px(geometry.marker_corners_mm(i)).astype(np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        x0, y0 = np.floor(dst.min(0)).astype(int) - 2
        x1, y1 = np.ceil(dst.max(0)).astype(int) + 3
        T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
        roi = img[y0:y1, x0:x1]
        warped = cv2.warpPerspective(big, T, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        inside = cv2.warpPerspective(np.full((240, 240), 255, np.uint8), T, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        a = (inside.astype(np.float32) / 255.0)[:, :, None]
        ink = np.where(warped > 128, 238, 28).astype(np.float32)  # matte print: black not quite black
        roi[:] = (roi * (1 - a) + ink * a).astype(np.uint8)


TEXTURE_CACHE_BYTES = 320_000_000  # board textures kept: every style, table and ppm of a 2028x1520 frame fit


_TEXTURES: OrderedDict[tuple[str, str, float, BoardGeometry], BoardTexture] = OrderedDict()
_TEXTURES_LOCK = threading.Lock()


def board_texture(style: str = "classic", table: str = "wood", ppm: float = 4.0,
                  geometry: BoardGeometry = DEFAULT_GEOMETRY) -> BoardTexture:
    """The empty board texture for a board ``style`` on a ``table`` style, ``ppm`` px/mm (cached; don't modify).

    The textures last used are kept up to :data:`TEXTURE_CACHE_BYTES` in all (one takes 5-48 MB and
    0.2-1 s to draw); the same arguments always give the same texture.

    Raises:
        ValueError: unknown style names.
    """
    key = (style, table, float(ppm), geometry)
    with _TEXTURES_LOCK:
        bt = _TEXTURES.get(key)
        if bt is not None:
            _TEXTURES.move_to_end(key)
            return bt
    bt = _draw_board_texture(style, table, float(ppm), geometry)
    with _TEXTURES_LOCK:
        _TEXTURES[key] = bt
        while len(_TEXTURES) > 1 and sum(t.image.nbytes for t in _TEXTURES.values()) > TEXTURE_CACHE_BYTES:
            _TEXTURES.popitem(last=False)
    return bt


def _draw_board_texture(style: str, table: str, ppm: float, geometry: BoardGeometry) -> BoardTexture:
    if style not in STYLES:
        raise ValueError(f"unknown board style {style!r} (known: {', '.join(STYLES)})")
    if table not in TABLE_STYLES:
        raise ValueError(f"unknown table style {table!r} (known: {', '.join(TABLE_STYLES)})")
    st = STYLES[style]
    g, cell, b = geometry.grid_mm, geometry.cell_mm, geometry.border_mm
    origin = -(b + TABLE_MM)
    n = int(math.ceil((g - 2 * origin) * ppm))
    tex = BoardTexture(np.zeros((n, n, 3), np.uint8), origin, ppm)
    half = (n + 1) // 2  # the table needs no fine detail: drawn at half resolution
    img = cv2.resize(cv2.convertScaleAbs(_table(table, (half, half), ppm / 2)), (n, n), interpolation=cv2.INTER_LINEAR)
    # board: rim, edge, grid background (the line colour shows between the squares)
    _rect(img, tex, -b, -b, g + b, g + b, st.rim)
    _rect(img, tex, -b + 1.5, -b + 1.5, g + b - 1.5, g + b - 1.5, st.edge)
    _rect(img, tex, -st.line_mm / 2, -st.line_mm / 2, g + st.line_mm / 2, g + st.line_mm / 2, st.lines)
    inset = st.line_mm / 2
    for sq in range(SIZE * SIZE):
        r, c = divmod(sq, SIZE)
        kind = LAYOUT[sq]
        colour = st.premium.get(kind, st.plain)
        _rect(img, tex, c * cell + inset, r * cell + inset, (c + 1) * cell - inset, (r + 1) * cell - inset, colour)
        centre = tex.to_px(np.array([[(c + 0.5) * cell, (r + 0.5) * cell]]))[0]
        if sq == SIZE * SIZE // 2:
            _star(img, (centre[0], centre[1]), 0.36 * cell * ppm, st.star_ink)
        elif kind in _LABELS:
            ink = (245, 245, 245) if kind in (TWS, TLS) else st.label_ink  # white print on the dark squares
            _text_centred(img, _LABELS[kind], (centre[0], centre[1]), (cell - st.line_mm) * ppm, ink)
    for sq in range(SIZE * SIZE):
        if LAYOUT[sq] in st.premium and st.edging != "none":
            _edging(img, tex, sq, cell, st)
    if st.crease:  # the fold runs across the middle of row 8: a thin dark gap with a lit edge beside it
        y = g / 2 + 0.3
        _rect(img, tex, -b, y - 0.35, g + b, y + 0.35, tuple(int(c * 0.55) for c in st.plain))
        band = img.copy()
        _rect(band, tex, -b, y + 0.35, g + b, y + 1.6, (255, 255, 255))
        cv2.addWeighted(band, 0.08, img, 0.92, 0, dst=img)
    # print texture: slight unevenness of the printed surface
    rng = np.random.default_rng(BOARD_STYLES.index(style) + 101)
    shade = smooth_noise(rng, (n, n), (6, 6))
    shade *= 0.03  # in place: 1 + 0.03 * noise, the same float32 values without two more full-size copies
    shade += 1.0
    # channel by channel: the same products as one multiply by the three-channel shade, without that copy
    img = cv2.merge([cv2.multiply(ch, shade, dtype=cv2.CV_8U) for ch in cv2.split(img)])
    _markers(img, tex, geometry)
    img.setflags(write=False)
    return BoardTexture(img, origin, ppm)
