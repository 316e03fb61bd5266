"""Camera intrinsics from chessboard photos: camera matrix K (px), distortion (k1, k2, p1, p2, k3), and the
RMS reprojection error (px). A result above ``max_rms_px`` is refused: the photos (blur, a bent board, a wrong
pattern size) are the problem, and a bad lens model would mislead every later reading."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration import CalibrationError
from kiosk.rules.counts import counted

DEFAULT_PATTERN = (9, 6)
DEFAULT_MAX_RMS_PX = 1.0
MIN_VIEWS = 5


@dataclass
class IntrinsicsResult:
    """K (3x3 float64, px), dist (5,) float64, image_size (w, h) px, rms_px: overall RMS reprojection error,
    per_view_px: {photo name: RMS px}, rejected: {photo name: reason}."""

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    rms_px: float
    per_view_px: dict[str, float] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)
    corners: dict[str, np.ndarray] = field(default_factory=dict)
    reprojected: dict[str, np.ndarray] = field(default_factory=dict)


def board_points(pattern: tuple[int, int], square_mm: float) -> np.ndarray:
    """Inner-corner coordinates (N x 3 float32, mm) on the board plane, row by row."""
    cols, rows = pattern
    g = np.zeros((rows * cols, 3), np.float32)
    g[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    return g


def find_corners(gray: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Sub-pixel inner corners (N x 1 x 2 float32, px) of a ``pattern`` = (cols, rows) chessboard, or None."""
    ok, corners = cv2.findChessboardCornersSB(gray, pattern, flags=cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY)
    if ok:
        return corners.astype(np.float32)
    ok, corners = cv2.findChessboardCorners(gray, pattern, flags=cv2.CALIB_CB_ADAPTIVE_THRESH
                                            | cv2.CALIB_CB_NORMALIZE_IMAGE)
    if not ok:
        return None
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-3)
    return cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1), crit)


def calibrate_intrinsics(photos: Iterable[tuple[str, np.ndarray]], pattern: tuple[int, int] = DEFAULT_PATTERN,
                         square_mm: float = 25.0, max_rms_px: float = DEFAULT_MAX_RMS_PX, min_views: int = MIN_VIEWS,
                         progress: Callable[[str], None] | None = None) -> IntrinsicsResult:
    """Calibrate from ``photos`` ((name, BGR or gray image) pairs, all the same size).

    Raises CalibrationError when the sizes differ, fewer than ``min_views`` photos show the whole chessboard,
    or the RMS reprojection error exceeds ``max_rms_px``.
    """
    if pattern[0] < 3 or pattern[1] < 3:
        raise CalibrationError(f"chessboard pattern {pattern}: need at least 3x3 inner corners")
    obj = board_points(pattern, square_mm)
    names: list[str] = []
    img_pts: list[np.ndarray] = []
    rejected: dict[str, str] = {}
    size: tuple[int, int] | None = None
    for name, image in photos:
        if image is None or not isinstance(image, np.ndarray) or image.ndim not in (2, 3):
            rejected[name] = "not an image"
            continue
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        this = (gray.shape[1], gray.shape[0])
        if size is None:
            size = this
        elif this != size:
            raise CalibrationError(f"{name}: {this[0]}x{this[1]} px, but earlier photos are {size[0]}x{size[1]}; "
                                   "use one camera mode for all photos")
        corners = find_corners(gray, pattern)
        if corners is None:
            rejected[name] = f"no complete {pattern[0]}x{pattern[1]} chessboard found"
        else:
            names.append(name)
            img_pts.append(corners)
        if progress:
            progress(f"{name}: {'ok' if corners is not None else rejected[name]}")
    if size is None or len(names) < min_views:
        shows = "shows" if len(names) == 1 else "show"
        raise CalibrationError(f"only {counted(len(names), 'photo')} {shows} the whole {pattern[0]}x{pattern[1]} "
                               f"chessboard; need at least {min_views} (rejected: {len(rejected)})")
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera([obj] * len(names), img_pts, size, None, None)
    result = IntrinsicsResult(K, dist.reshape(-1)[:5].astype(np.float64), size, float(rms), rejected=rejected)
    for name, pts, rv, tv in zip(names, img_pts, rvecs, tvecs):
        proj, _ = cv2.projectPoints(obj, rv, tv, K, dist)
        err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - pts.reshape(-1, 2)) ** 2, axis=1))))
        result.per_view_px[name] = err
        result.corners[name] = pts.reshape(-1, 2)
        result.reprojected[name] = proj.reshape(-1, 2)
    if rms > max_rms_px:
        worst = sorted(result.per_view_px.items(), key=lambda kv: -kv[1])[:3]
        raise CalibrationError(f"RMS reprojection error {rms:.2f} px is above the {max_rms_px:g} px limit; "
                               "retake the worst photos: " + ", ".join(f"{n} ({e:.2f} px)" for n, e in worst))
    return result


def report_image(result: IntrinsicsResult, image: np.ndarray, name: str | None = None) -> np.ndarray:
    """A picture of the calibration: left, one photo with detected corners (green) and reprojected ones (red,
    error x20); right, the same photo undistorted. Title with K, dist and the RMS error."""
    name = name or next(iter(result.corners))
    img = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    left = img.copy()
    for p, q in zip(result.corners.get(name, []), result.reprojected.get(name, [])):
        cv2.circle(left, (int(round(p[0])), int(round(p[1]))), 4, (0, 200, 0), 1, cv2.LINE_AA)
        tip = p + (q - p) * 20
        cv2.line(left, (int(p[0]), int(p[1])), (int(tip[0]), int(tip[1])), (0, 0, 255), 1, cv2.LINE_AA)
    right = cv2.undistort(img, result.K, result.dist)
    both = np.hstack([left, right])
    bar = np.full((70, both.shape[1], 3), 255, np.uint8)
    k = result.K
    lines = [f"RMS reprojection error {result.rms_px:.3f} px over {len(result.per_view_px)} photos "
             f"({len(result.rejected)} rejected)   left: {name}, corners green, error x20 red   right: undistorted",
             f"fx {k[0, 0]:.1f}  fy {k[1, 1]:.1f}  cx {k[0, 2]:.1f}  cy {k[1, 2]:.1f}  dist "
             + " ".join(f"{d:+.4f}" for d in result.dist)]
    for i, text in enumerate(lines):
        cv2.putText(bar, text, (8, 26 + 28 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([bar, both])
