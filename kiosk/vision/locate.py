"""Board localisation: find the homography image px -> canonical warp px (:mod:`kiosk.vision.geometry`).

Three ways, in the reader's order of preference:

* :func:`from_corners` -- given the grid's outer corners (A1, O1, O15, A15) in image px, then refined on the
  printed grid lines (so a rough quad, e.g. the board's outer edge, is enough; corners the lines confirm are
  never moved by whole squares);
* :func:`find_markers` -- the four ArUco markers (``DICT_4X4_50``, ids 0..3) beside the grid corners;
* :func:`find_grid` -- marker-less fall-back: the board's grid lines (dark lines on a coloured board, or light
  lines on a beige one), searched from a rough quad (default: the whole frame).

All functions return a 3x3 float64 homography or None; they never raise on a bad frame.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from kiosk.vision.corners import corners_problem
from kiosk.vision.geometry import (
    DEFAULT_GEOMETRY,
    SIZE,
    WARP_CELL_PX,
    WARP_MARGIN_PX,
    BoardGeometry,
    warp_grid_corners,
)

# Rough canvas used to search the grid: the rough quad maps to [0, ROUGH_PX]^2 inside a margin.
ROUGH_PX = 600
ROUGH_MARGIN = 30
_CANVAS = ROUGH_PX + 2 * ROUGH_MARGIN
_CLAHE = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))
MIN_CONTRAST_SEARCH = 9.0     # line / mid-cell strength needed to believe a grid was found (boards: 18-40)
MIN_CONTRAST_LOCAL = 5.0
MIN_GRID_POINTS = 24          # intersections needed to trust a grid fit
MAX_REPROJ_PX = 2.5           # RANSAC threshold on the rough canvas, px


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Return 4x2 float32 points as given (A1, O1, O15, A15); raises ValueError if not 4 finite points."""
    a = np.asarray(pts, np.float32).reshape(-1, 2)
    if a.shape != (4, 2) or not np.all(np.isfinite(a)):
        raise ValueError(f"corners: expected 4 points (x, y), got shape {a.shape}")
    return a


def homography_from_grid_corners(corners: np.ndarray) -> np.ndarray:
    """Homography (3x3 float64) image px -> canonical warp px from the grid's 4 outer corners (A1,O1,O15,A15)."""
    return cv2.getPerspectiveTransform(order_corners(corners), warp_grid_corners()).astype(np.float64)


def grid_corners_in_image(h: np.ndarray) -> np.ndarray:
    """The grid's outer corners (4x2 float32 image px) for homography ``h`` (image -> canonical)."""
    inv = np.linalg.inv(h)
    return cv2.perspectiveTransform(warp_grid_corners().reshape(-1, 1, 2), inv).reshape(4, 2)


# ---------------------------------------------------------------- ArUco markers

_DETECTORS: dict[str, cv2.aruco.ArucoDetector] = {}


def _detector(name: str) -> cv2.aruco.ArucoDetector:
    if name not in _DETECTORS:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        _DETECTORS[name] = cv2.aruco.ArucoDetector(dictionary, params)
    return _DETECTORS[name]


def _markers_to_homography(found: dict[int, np.ndarray], geometry: BoardGeometry) -> np.ndarray | None:
    if len(found) < 3:
        return None
    ids = sorted(found)
    src = np.concatenate([found[i] for i in ids]).astype(np.float32)
    mm = np.concatenate([geometry.marker_corners_mm(geometry.marker_ids.index(i)) for i in ids]).astype(np.float32)
    px_per_mm = SIZE * WARP_CELL_PX / geometry.grid_mm
    dst = mm * px_per_mm + warp_grid_corners()[0]
    h, _ = cv2.findHomography(src, dst, 0)
    return None if h is None else h.astype(np.float64)


def _detect(gray: np.ndarray, geometry: BoardGeometry, scale: float, offset: tuple[int, int] = (0, 0)
            ) -> dict[int, np.ndarray]:
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    corners, ids, _ = _detector(geometry.aruco_dictionary).detectMarkers(small)
    found: dict[int, np.ndarray] = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel()):
            if int(i) in geometry.marker_ids and int(i) not in found:
                found[int(i)] = c.reshape(4, 2) / scale + np.array(offset, np.float32)
    return found


def find_markers(gray: np.ndarray, geometry: BoardGeometry = DEFAULT_GEOMETRY, max_side_px: int = 1100,
                 previous: np.ndarray | None = None) -> np.ndarray | None:
    """Homography from the ArUco corner markers, or None when fewer than 3 of the 4 are found.

    ``gray``: H x W uint8. The frame is searched at most ``max_side_px`` on its long side (speed). With
    ``previous`` (the last homography of a steady camera) only small windows around the predicted markers are
    searched first, at full resolution; the whole frame is searched when that fails. With 3 markers the 12
    marker corners still fix the homography.
    """
    if previous is not None:
        inv = np.linalg.inv(previous)
        px_per_mm = SIZE * WARP_CELL_PX / geometry.grid_mm
        found: dict[int, np.ndarray] = {}
        hgt, wid = gray.shape[:2]
        for k, mid in enumerate(geometry.marker_ids):
            c_mm = geometry.marker_corners_mm(k) * px_per_mm + warp_grid_corners()[0]
            c_img = cv2.perspectiveTransform(c_mm.reshape(-1, 1, 2).astype(np.float64), inv).reshape(-1, 2)
            side = float(np.ptp(c_img[:, 0]) + np.ptp(c_img[:, 1])) / 2
            x0, y0 = np.floor(c_img.min(axis=0) - side).astype(int)
            x1, y1 = np.ceil(c_img.max(axis=0) + side).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, wid), min(y1, hgt)
            if x1 - x0 < 16 or y1 - y0 < 16:
                continue
            roi = np.ascontiguousarray(gray[y0:y1, x0:x1])
            hit = _detect(roi, geometry, 1.0, (x0, y0))
            if mid in hit:
                found[mid] = hit[mid]
        h = _markers_to_homography(found, geometry)
        if h is not None:
            return h
    scale = min(1.0, max_side_px / max(gray.shape[:2]))
    return _markers_to_homography(_detect(gray, geometry, scale), geometry)


# ---------------------------------------------------------------- grid lines

def _line_maps(gray: np.ndarray, pitch_guess: float) -> tuple[np.ndarray, np.ndarray]:
    """Vertical- and horizontal-line strength maps (float32) of a roughly top-down board image."""
    k = max(3, int(pitch_guess * 0.18) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel)
    light = cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, kernel)
    run = max(5, int(pitch_guess * 0.6))
    maps = []
    for img in (dark, light):   # opened in uint8 (min and max: the same values as in float32, a few times faster)
        v = cv2.morphologyEx(img, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, run)))
        h = cv2.morphologyEx(img, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1)))
        maps.append((v.astype(np.float32), h.astype(np.float32)))
    # choose the polarity whose lines are the more periodic (the stronger long thin structures)
    (dv, dh), (lv, lh) = maps
    return (dv, dh) if dv.sum() + dh.sum() >= lv.sum() + lh.sum() else (lv, lh)


def _interp(x: np.ndarray, *fps: np.ndarray) -> list[np.ndarray]:
    """Each ``fp`` (1-D, all of one length n >= 2, sampled at 0, 1, ..., n - 1) linearly interpolated at ``x``
    (a non-empty array of finite float32 or float64), 0 outside [0, n - 1]: float64, bit for bit ``np.interp(x,
    arange(n), fp, left=0, right=0)`` (the same slope x (x - j) + fp[j] in float64, j = floor(x)), without its
    search for each x's interval (unit spacing) and with the intervals found once for all ``fps``."""
    n = len(fps[0])
    jf = np.floor(x)
    t = x - jf                                    # exact
    lo, hi = min(int(jf.min()), 0), max(int(jf.max()), n - 1)
    j = jf.astype(np.intp)
    j -= lo                                       # the tables below start at lo: 0 beyond fp's ends
    beyond = np.flatnonzero((j == n - 1 - lo) & (t > 0))    # n - 1 < x < n: 0, not fp[n - 1]
    out = []
    for fp in fps:
        f = np.asarray(fp, np.float64)
        value = np.zeros(hi - lo + 1)
        value[-lo:n - lo] = f
        slope = np.zeros(hi - lo + 1)
        slope[-lo:n - 1 - lo] = np.diff(f)
        r = slope[j] * t
        r += value[j]
        r.flat[beyond] = 0.0
        out.append(r)
    return out


FIT_BLOCK_ROWS = 2048   # _fit_lines measures its candidates this many at a time (its arrays stay in the cache)


def _fit_lines(profile: np.ndarray, valid: np.ndarray, pitches: np.ndarray,
               near: float | None = None, reach: float = 1.0) -> tuple[float, float, float, float]:
    """Best (offset, pitch, score, contrast) of 16 equally spaced lines on a 1-D profile.

    ``contrast``: mean line strength over the median strength mid-way between lines (a printed grid gives
    well over 15, noise or a plain surface a few units).

    ``valid`` (same length, 0..1) says how much of each profile position lies inside the camera frame; lines
    outside the frame are not counted (a board partly out of view), but at least 15 must be inside.
    ``near``: only offsets within ``reach`` x a third of a pitch of it are tried (local polish).
    ``pitches``: float32 candidate pitches (px). The candidates (pitch, offset) are measured FIT_BLOCK_ROWS at a
    time (numpy); the first best in the order pitch, then offset, wins. (0, 0, -1, 0) when no candidate scores
    above -1.

    A candidate's score is its lines' strength (mean + weakest, :func:`_line_strengths`) less what lies
    between and beyond them (:func:`_between_lines`), which is never negative on a profile of no negative
    values: a candidate whose lines' strength is below the score of the one with the strongest lines cannot
    win, and only the others are measured between and beyond their lines. The same answer as scoring all.
    """
    n = len(profile)
    prof = profile / np.maximum(valid, 0.25)
    prof = np.minimum(prof / (np.percentile(prof, 97) + 1e-6), 1.5)  # one very strong edge must not rule
    if near is None:
        per_pitch = [np.arange(-p, n - p * SIZE + p, 1.0, dtype=np.float32) for p in pitches]
    else:
        per_pitch = [np.arange(near - reach * p / 3, near + reach * p / 3, 0.5, dtype=np.float32) for p in pitches]
    offsets = np.concatenate(per_pitch) if per_pitch else np.zeros(0, np.float32)
    if not len(offsets):
        return 0.0, 0.0, -1.0, 0.0
    p = np.repeat(np.asarray(pitches), [len(o) for o in per_pitch])     # each candidate's pitch
    strength, mean_on, in_view = _blocked(_line_strengths, offsets, p, prof, valid)
    if not in_view.any():
        return 0.0, 0.0, -1.0, 0.0
    todo = np.flatnonzero(in_view)
    if prof.min() >= 0:
        top = todo[np.argmax(strength[todo])]
        gap, beyond = _between_lines(offsets[top:top + 1], p[top:top + 1], prof)
        todo = todo[strength[todo] >= strength[top] - gap[0] - 0.5 * beyond[0]]
    gap, beyond = _blocked(_between_lines, offsets[todo], p[todo], prof)
    # every visible line must be present (min), cells between lines must be line-free (median), and there
    # must be no grid line one pitch beyond either end
    score = np.where(in_view, -np.inf, -1.0)        # -inf: cannot win (see above)
    score[todo] = strength[todo] - gap - 0.5 * beyond
    i = int(np.argmax(score))
    if not score[i] > -1.0:
        return 0.0, 0.0, -1.0, 0.0
    mid_median = gap[np.searchsorted(todo, i)]
    return float(offsets[i]), float(p[i]), float(score[i]), float(mean_on[i] / (mid_median + 0.02))


def _blocked(measure: Callable[..., tuple[np.ndarray, ...]], offsets: np.ndarray, pitches: np.ndarray,
             *profiles: np.ndarray) -> list[np.ndarray]:
    """``measure(offsets, pitches, *profiles)`` (a tuple of per-candidate arrays) over FIT_BLOCK_ROWS candidates
    at a time, joined; at least one candidate."""
    parts = [measure(offsets[s:s + FIT_BLOCK_ROWS], pitches[s:s + FIT_BLOCK_ROWS], *profiles)
             for s in range(0, len(offsets), FIT_BLOCK_ROWS)]
    return [np.concatenate(c) for c in zip(*parts)]


def _line_strengths(offsets: np.ndarray, pitches: np.ndarray, prof: np.ndarray, valid: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean + weakest line strength, mean line strength, whether 15 lines or more lie in the frame) of each
    candidate grid of 16 lines, the first at ``offsets[c]`` (float32 px), then every ``pitches[c]`` px, on the
    normalised profile ``prof`` whose positions lie ``valid`` (0..1) inside the frame (see :func:`_fit_lines`);
    only the lines in the frame count (the strengths are NaN for a candidate with no line in the frame)."""
    k = np.arange(SIZE + 1, dtype=np.float32)
    on, seen_share = _interp(offsets[:, None] + k[None, :] * pitches[:, None], prof, valid)
    seen = seen_share > 0.5
    n_seen = seen.sum(axis=1)
    with np.errstate(all="ignore"):     # candidates with no line in view: not counted
        mean_on = np.where(seen, on, 0.0).sum(axis=1) / n_seen
    min_on = np.where(seen, on, np.inf).min(axis=1)
    return mean_on + min_on, mean_on, n_seen >= SIZE


def _between_lines(offsets: np.ndarray, pitches: np.ndarray, prof: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(median strength mid-way between the lines, strongest one pitch beyond either end) of each candidate grid
    (as :func:`_line_strengths`)."""
    k = np.arange(SIZE, dtype=np.float32)
    off, p = offsets[:, None], pitches[:, None]
    (mid,) = _interp(off + (k[None, :] + 0.5) * p, prof)
    (outside,) = _interp(off + np.array([-1.0, SIZE + 1.0])[None, :] * p, prof)      # float64, as before
    return np.partition(mid, SIZE // 2, axis=1)[:, SIZE // 2], outside.max(axis=1)   # the 8th of 15: the median


def _refine_points(vmap: np.ndarray, hmap: np.ndarray, ox: float, px: float, oy: float, py: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Locate grid intersections near their predicted places; returns (found px Nx2, grid index Nx2).

    Each of the 16 x 16 predicted intersections is looked for in a window of +-0.22 pitch around it in the
    product of the blurred line maps (windows reaching out of the map are skipped); the window's strongest pixel
    (the first in row-major order, as ``np.argmax``) counts when it is at least 0.15 of the map's 97th
    percentile, refined to sub-pixel by the centroid of its 3x3 neighbourhood. All windows at once (numpy)."""
    rad = max(2, int(min(px, py) * 0.22))
    prod = cv2.GaussianBlur(vmap, (0, 0), 1.0) * cv2.GaussianBlur(hmap, (0, 0), 1.0)
    h, w = prod.shape
    thresh = np.percentile(prod, 97) * 0.15 + 1e-3
    jj, ii = np.mgrid[0:SIZE + 1, 0:SIZE + 1]
    ii, jj = ii.ravel(), jj.ravel()
    x0 = np.round(ox + ii * px).astype(np.int64) - rad
    y0 = np.round(oy + jj * py).astype(np.int64) - rad
    side = 2 * rad + 1
    inside = (x0 >= 0) & (y0 >= 0) & (x0 + side <= w) & (y0 + side <= h)
    ii, jj, x0, y0 = ii[inside], jj[inside], x0[inside], y0[inside]
    if not len(ii):
        return np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32)
    k = np.arange(side)
    wins = prod[(y0[:, None] + k)[:, :, None], (x0[:, None] + k)[:, None, :]]      # N x side x side
    best = wins.reshape(len(wins), -1).argmax(axis=1)
    yy, xx = best // side, best % side
    peak = wins[np.arange(len(wins)), yy, xx]
    keep = peak >= thresh
    wins, yy, xx, x0, y0, ii, jj = wins[keep], yy[keep], xx[keep], x0[keep], y0[keep], ii[keep], jj[keep]
    cx, cy = (x0 + xx).astype(np.float64), (y0 + yy).astype(np.float64)
    # sub-pixel: centroid of the 3x3 neighbourhood (a peak on the window's edge stays where it is)
    inner = np.flatnonzero((yy >= 1) & (yy < side - 1) & (xx >= 1) & (xx < side - 1))
    d = np.array([-1, 0, 1])
    nb = wins[inner[:, None, None], yy[inner][:, None, None] + d[None, :, None], xx[inner][:, None, None] + d]
    s = nb.sum(axis=(1, 2)) + 1e-6
    cx[inner] += (nb.sum(axis=1) * d).sum(axis=1) / s
    cy[inner] += (nb.sum(axis=2) * d).sum(axis=1) / s
    found = np.stack([cx, cy], axis=1).astype(np.float32)
    index = np.stack([ii, jj], axis=1).astype(np.float32)
    return found.reshape(-1, 2), index.reshape(-1, 2)


def _rough_homography(quad: np.ndarray) -> np.ndarray:
    dst = np.array([[0, 0], [ROUGH_PX, 0], [ROUGH_PX, ROUGH_PX], [0, ROUGH_PX]], np.float32) + ROUGH_MARGIN
    return cv2.getPerspectiveTransform(order_corners(quad), dst).astype(np.float64)


def refine_grid(gray: np.ndarray, h_img_to_canon: np.ndarray, search: bool = True, reach: float = 1.0
                ) -> np.ndarray | None:
    """Refine a homography (image -> canonical) on the printed grid lines; None when no grid is seen.

    With ``search`` the grid's size and place are searched over the whole rough canvas (the quad may be the
    board's outer edge or the whole frame); without, only a local correction is allowed: the pitch within
    ``reach`` x 5 % and the first line within ``reach`` x a third of a square (``reach`` < 1: a grid known from
    the last frame, :func:`track_grid`).
    """
    quad = grid_corners_in_image(h_img_to_canon)
    rough = _rough_homography(quad)
    canvas = cv2.warpPerspective(gray, rough, (_CANVAS, _CANVAS), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full(gray.shape[:2], 255, np.uint8), rough, (_CANVAS, _CANVAS),
                                 flags=cv2.INTER_NEAREST).astype(np.float32) / 255.0
    canvas = _CLAHE.apply(canvas)  # dim or uneven light: equalise locally before looking for thin lines
    pitch0 = ROUGH_PX / SIZE
    vmap, hmap = _line_maps(canvas, pitch0 * (0.8 if search else 1.0))
    near = None if search else float(ROUGH_MARGIN)
    fits = []
    for prof, valid in ((vmap.sum(axis=0), inside.mean(axis=0)), (hmap.sum(axis=1), inside.mean(axis=1))):
        if search:   # coarse, then fine around the best pitch
            _, p1, _, _ = _fit_lines(prof, valid, np.arange(pitch0 * 0.45, pitch0 * 1.12, 0.6, dtype=np.float32))
            pitches = np.arange(p1 - 0.6, p1 + 0.61, 0.15, dtype=np.float32)
        else:
            pitches = np.arange(pitch0 * (1 - 0.05 * reach), pitch0 * (1 + 0.05 * reach), 0.1, dtype=np.float32)
        fits.append(_fit_lines(prof, valid, pitches, near, reach))
    (ox, px, sx, cx), (oy, py, sy, cy) = fits
    if min(cx, cy) < (MIN_CONTRAST_SEARCH if search else MIN_CONTRAST_LOCAL):
        return None
    if min(sx, sy) <= 0.05 or px <= 0 or py <= 0 or abs(px - py) > 0.15 * max(px, py) * 2:
        return None
    pts, idx = _refine_points(vmap, hmap, ox, px, oy, py)
    if len(pts) < MIN_GRID_POINTS:
        return None
    canon = idx * WARP_CELL_PX + warp_grid_corners()[0]
    h_rough_to_canon, inliers = cv2.findHomography(pts, canon, cv2.RANSAC, MAX_REPROJ_PX * WARP_CELL_PX / px)
    if h_rough_to_canon is None or inliers is None or int(inliers.sum()) < MIN_GRID_POINTS:
        return None
    return (h_rough_to_canon @ rough).astype(np.float64)


def _median(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=0)`` of finite values (1-D ``a``: a scalar), bit for bit (the middle value, or the
    mean of the two middle ones in ``a``'s dtype), without np.median's checks (most of its time on 225 values).
    Raises IndexError for an empty ``a``."""
    half = len(a) // 2
    if len(a) % 2:
        return np.partition(a, half, axis=0)[half]
    part = np.partition(a, [half - 1, half], axis=0)
    total = part[half - 1] + part[half]
    return total / total.dtype.type(2)    # in a's dtype on numpy 1.x too (a scalar / 2 gave float64 there)


def _layout_fit(cells_lab: np.ndarray, valid: np.ndarray, codes: np.ndarray, names: np.ndarray) -> float:
    """How clearly the premium squares differ in colour from the plain ones (Lab units; higher = better fit).

    ``cells_lab``: 225x3 float, ``valid``: 225 bool (cell inside the frame), ``codes``: 225 ints, each square's
    premium class as an index into ``names`` (the sorted premium codes, ``"."`` a plain square: ``np.unique`` of
    the layout with ``return_inverse``). Tile-like cells (bright, colourless) are left out: tiles hide the
    premium colours.
    """
    chroma = np.hypot(cells_lab[:, 1] - 128, cells_lab[:, 2] - 128)
    tile_like = (chroma < 15) & (cells_lab[:, 0] > _median(cells_lab[:, 0]))
    valid = valid & ~tile_like  # tiles hide the premium colours: leave them out
    x = cells_lab[valid]
    if len(x) < 100:
        return -1e9
    cls = codes[valid]
    is_plain = names[cls] == "."
    plain = x[is_plain]
    if len(plain) < 20:
        return -1e9
    d = np.minimum(np.linalg.norm(x - _median(plain), axis=1), 60.0)
    # each premium class's typical cell must differ from the plain squares (median: robust to a few misfits)
    per_class = [_median(d[sel]) for k, c in enumerate(names) if c != "." and (sel := cls == k).any()]
    return float(np.mean(per_class) - _median(d[is_plain])) if per_class else -1e9


def fix_layout_shift(bgr: np.ndarray, h: np.ndarray, layout: tuple[str, ...] | None = None, extra: int = 2
                     ) -> np.ndarray:
    """Correct a grid fit that is one or two squares off (``extra`` squares), using the premium squares' colours.

    Tries the fit shifted by -extra..+extra squares on each axis and keeps the shift under which the premium
    layout best explains the cells' colours. A board whose premiums are not coloured keeps ``h``.
    """
    if bgr.ndim != 3:
        return h
    results = _layout_fits(bgr, h, extra, layout)
    best = max(results, key=lambda t: t[0])
    here = next(r for r in results if r[1] == (0, 0))
    # move only when the shifted fit is clearly better (plain-coloured boards give small differences)
    return best[2] if best[0] > here[0] + 8.0 else h


def whole_squares_fixed(image: np.ndarray, h: np.ndarray, extra: int = 2) -> np.ndarray:
    """``h`` (image -> canonical, full-frame px), or ``h`` moved by the whole squares (one or two on each axis)
    under which the premium layout clearly explains the colours better (:func:`fix_layout_shift`, measured on
    the reduced frame as the fits measure it). Grid lines alone cannot tell a board moved by a whole square from
    one that kept still: its lines lie where the old ones lay. ``image``: BGR (a grey frame keeps ``h``)."""
    small, h_small, s = _reduced(image, h)
    fixed = fix_layout_shift(small, h_small, extra=extra)
    return h if fixed is h_small else fixed @ s


def layout_fit(bgr: np.ndarray, h: np.ndarray, layout: tuple[str, ...] | None = None) -> float:
    """How well the premium layout explains the squares' colours where ``h`` (image -> canonical) puts the grid
    (:func:`_layout_fit`; Lab units, higher = better; -1e9 for a grey image or too few squares in view)."""
    return _layout_fits(bgr, h, 0, layout)[0][0] if bgr.ndim == 3 else -1e9


def _layout_fits(bgr: np.ndarray, h: np.ndarray, extra: int, layout: tuple[str, ...] | None
                 ) -> list[tuple[float, tuple[int, int], np.ndarray]]:
    """(layout fit, (dx, dy), shifted homography) of ``h`` shifted by -extra..+extra squares on each axis."""
    if layout is None:
        from kiosk.rules.board import LAYOUT

        layout = LAYOUT
    names, codes = np.unique(np.array(list(layout)), return_inverse=True)
    cell = 8                              # 8 px per square, ``extra`` squares of border around the grid
    m = WARP_MARGIN_PX
    f = cell / WARP_CELL_PX
    off = -m * f + extra * cell
    scale = np.array([[f, 0, off], [0, f, off], [0, 0, 1]], np.float64)
    side = (SIZE + 2 * extra) * cell
    small = cv2.warpPerspective(bgr, scale @ h, (side, side), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full(bgr.shape[:2], 255, np.uint8), scale @ h, (side, side),
                                 flags=cv2.INTER_NEAREST)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    n = SIZE + 2 * extra
    cores = lab.reshape(n, cell, n, cell, 3)[:, 2:-2, :, 2:-2].mean(axis=(1, 3))
    seen = inside.reshape(n, cell, n, cell).min(axis=(1, 3)) > 0
    results = []
    for dy in range(-extra, extra + 1):
        for dx in range(-extra, extra + 1):
            win = (slice(extra + dy, extra + dy + SIZE), slice(extra + dx, extra + dx + SIZE))
            core = cores[win].reshape(-1, 3)
            valid = seen[win].ravel()
            shift = np.array([[1, 0, -dx * WARP_CELL_PX], [0, 1, -dy * WARP_CELL_PX], [0, 0, 1]], np.float64)
            results.append((_layout_fit(core, valid, codes, names), (dx, dy), shift @ h))
    return results


_PREPARED = False


def prepare() -> None:
    """Pay once per process, ahead of the first fit, what that fit would otherwise pay in the first reading:
    OpenCV builds its tables for 8-bit BGR -> Lab on the first such conversion (about 100-150 ms on one core here;
    :func:`_layout_fits`, and the reader's quality pass every frame, use it) and numpy imports its masked-array
    module on the first ``np.unique`` (about 17 ms). Cheap after the first call; never raises."""
    global _PREPARED
    if _PREPARED:
        return
    cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)
    np.unique(np.array(["."]))
    _PREPARED = True


def _gray(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


SEARCH_MAX_SIDE_PX = 1000  # the grid is searched on a copy at most this big (the canvas is 660 px anyway)


def _reduced(image: np.ndarray, h0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(image at most SEARCH_MAX_SIDE_PX on its long side, ``h0`` for it, the scale matrix: full px -> reduced)."""
    scale = min(1.0, SEARCH_MAX_SIDE_PX / max(image.shape[:2]))
    s = np.diag([scale, scale, 1.0])
    if scale < 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return image, h0 @ np.linalg.inv(s), s


def _search_then_polish(image: np.ndarray, gray: np.ndarray, h0: np.ndarray) -> np.ndarray | None:
    """The grid searched from ``h0``, its premium layout checked, then polished locally; ``image`` / ``gray``:
    the reduced frame (:func:`_reduced`), ``h0`` and the result in its px. None when no grid is found."""
    first = refine_grid(gray, h0, search=True)
    if first is None:
        return None
    first = fix_layout_shift(image, first)
    # a second, local pass corrects the remaining perspective error
    again = refine_grid(gray, first, search=False)
    return again if again is not None else first


CORNER_SLIP_SQUARES = 0.75  # a searched grid this far (squares) from given corners the lines confirm has slipped
NO_FIT = -1e8              # layout_fit below this: the colours could not be judged (too few squares in view)
LAYOUT_OVERRULES = 30.0     # ... unless its premium-layout fit (Lab units) beats theirs by more than this: the
# given corners are off (scrabscrap corners one square off: 53.9 against -2.9 and 11.0; declanfinerty's pale
# premiums let the slipped search beat the right corners by 15.6)


def _corner_shift_squares(h_a: np.ndarray, h_b: np.ndarray) -> float:
    """Largest distance between the grid corners two homographies put in the image, in squares (of ``h_a``)."""
    a, b = grid_corners_in_image(h_a), grid_corners_in_image(h_b)
    square = float(np.linalg.norm(a[1] - a[0]) + np.linalg.norm(a[2] - a[3])) / (2 * SIZE)
    return float(np.linalg.norm(a - b, axis=1).max()) / max(square, 1e-6)


def grid_shift_squares(h_a: np.ndarray, h_b: np.ndarray) -> float:
    """How far apart two grids (image -> canonical homographies) lie in the image: the largest distance between
    their corners, in squares (of ``h_a``)."""
    return _corner_shift_squares(h_a, h_b)


def from_corners(image: np.ndarray, corners: np.ndarray, refine: bool = True) -> np.ndarray:
    """The grid's homography from given corners: :func:`fit_corners` without saying whether the lines confirmed
    them (the corners as given when no grid line is seen). Raises ValueError as :func:`fit_corners`."""
    return fit_corners(image, corners, refine)[0]


def fit_corners(image: np.ndarray, corners: np.ndarray, refine: bool = True) -> tuple[np.ndarray, bool]:
    """(homography from given grid corners (A1, O1, O15, A15 image px), refined on grid lines when possible;
    whether the printed lines confirmed the corners there).

    ``image``: BGR (H x W x 3) or grey uint8. The grid is searched from the given quad (which may be rough: the
    search may move the corners, e.g. when the quad is the board's outer edge) and, beside that, polished
    locally where the quad says it is. When the printed lines confirm the given corners (the local polish finds
    all 16 lines within a third of a square) and the search ends CORNER_SLIP_SQUARES or more away from them, the
    search has slipped by whole squares (a board's border lines, pale premium colours) and the polished corners
    are used, unless the premium layout fits the searched grid better by more than LAYOUT_OVERRULES (both fits
    measured): then the given corners are whole squares off and the searched grid is used. The lines confirm
    the corners when the search ends within CORNER_SLIP_SQUARES of them or the local polish finds them
    (``refine=False``: never). A search ending further, with no local polish, gives the searched grid,
    unconfirmed; neither, the given corners as they are, unconfirmed (whether a board lies there at all:
    :func:`kiosk.vision.presence.no_board`). Raises ValueError for malformed corners or corners that cannot be
    the grid in this frame (:func:`kiosk.vision.corners.corners_problem`: its message says why).
    """
    problem = corners_problem(corners, image.shape)
    if problem is not None:
        raise ValueError(problem)
    h = homography_from_grid_corners(corners)
    if not refine:
        return h, False
    small, h_small, s = _reduced(image, h)        # every candidate is found and judged on the reduced frame
    gray = _gray(small)
    searched = _search_then_polish(small, gray, h_small)
    if searched is not None and _corner_shift_squares(h_small, searched) < CORNER_SLIP_SQUARES:
        return searched @ s, True
    # only the local pass: None when the printed lines are not within a third of a square of the given corners
    local = refine_grid(gray, h_small, search=False)
    if local is not None:
        if searched is not None:
            fit_searched, fit_local = layout_fit(small, searched), layout_fit(small, local)
            if min(fit_searched, fit_local) > NO_FIT and fit_searched > fit_local + LAYOUT_OVERRULES:
                return searched @ s, True   # the given corners are whole squares off: the colours say so beyond doubt
        return local @ s, True
    return (h, False) if searched is None else (searched @ s, False)


TRACK_REACH = 0.3          # a tracked grid's local refit tries 0.3 of the local pass's pitches and offsets
TRACK_STILL_SQUARES = 0.02  # a first local refit within this (squares) of the last grid: the camera kept still
TRACK_SLIP_SQUARES = 0.25  # a local refit this far (squares) from the last frame's grid: the camera moved, search again


def track_grid(image: np.ndarray, previous: np.ndarray) -> np.ndarray | None:
    """The last frame's grid (``previous``: image -> canonical homography, full-frame px) refitted locally in
    this frame: only the local pass of :func:`refine_grid` within TRACK_REACH of its range, on the reduced frame
    as :func:`from_corners`, a second pass when the first moved the grid TRACK_STILL_SQUARES or more. A steady
    camera drifting a pixel or two is followed; None when the lines are
    not found there or the refit lies TRACK_SLIP_SQUARES or more from ``previous`` (then search again with
    :func:`from_corners`)."""
    small, h_small, s = _reduced(image, previous)
    gray = _gray(small)
    local = refine_grid(gray, h_small, search=False, reach=TRACK_REACH)
    if local is not None and _corner_shift_squares(h_small, local) >= TRACK_STILL_SQUARES:
        # moved: a second pass from the first, as from_corners polishes its searched grid
        again = refine_grid(gray, local, search=False, reach=TRACK_REACH)
        local = local if again is None else again
    if local is None or _corner_shift_squares(h_small, local) >= TRACK_SLIP_SQUARES:
        return None
    return local @ s


def find_grid(image: np.ndarray, quad: np.ndarray | None = None) -> np.ndarray | None:
    """Marker-less fall-back: homography from the board's grid lines, searched inside ``quad`` (default: frame).

    ``image``: BGR or grey uint8; returns None when no 15x15 grid is seen.
    """
    hgt, wid = image.shape[:2]
    if quad is None:
        side = min(hgt, wid)
        x0, y0 = (wid - side) / 2, (hgt - side) / 2
        quad = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)
    small, h0, s = _reduced(image, homography_from_grid_corners(quad))
    found = _search_then_polish(small, _gray(small), h0)
    return None if found is None else found @ s
