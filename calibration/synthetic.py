"""Synthetic chessboard photos from a known camera, to test and demonstrate the intrinsics calibration.

The chessboard lies on the plane z = 0 (mm); a camera with intrinsics ``K`` and distortion ``dist`` (OpenCV's
k1, k2, p1, p2, k3) looks at it from pose (R, t) (world -> camera). Every image pixel's ray is traced to the
plane (through the real distortion), at 2x supersampling for smooth edges.
"""

from __future__ import annotations

import cv2
import numpy as np

from kiosk.vision.cvcompat import undistort_points


def look_at(centre_mm: np.ndarray, target_mm: np.ndarray, roll_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(R, t) of a camera at ``centre_mm`` looking at ``target_mm`` (world frame, z towards the plane)."""
    c = np.asarray(centre_mm, np.float64)
    z = np.asarray(target_mm, np.float64) - c
    z /= np.linalg.norm(z)
    up = np.array([0.0, -1.0, 0.0]) if abs(z[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(up, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    r = np.stack([x, y, z])
    a = np.deg2rad(roll_deg)
    roll = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    r = roll @ r
    return r, -r @ c


_RAYS: dict[bytes, np.ndarray] = {}


def _rays(K: np.ndarray, dist: np.ndarray, size: tuple[int, int], s: int) -> np.ndarray:
    """Camera-frame ray (x, y, 1) of every supersampled pixel; depends on the camera only, so it is cached."""
    key = np.asarray(K, np.float64).tobytes() + np.asarray(dist, np.float64).tobytes() + bytes(f"{size}{s}", "ascii")
    if key not in _RAYS:
        w, h = size
        ks = np.array([[s, 0, (s - 1) / 2], [0, s, (s - 1) / 2], [0, 0, 1]], np.float64) @ K
        u, v = np.meshgrid(np.arange(w * s, dtype=np.float64), np.arange(h * s, dtype=np.float64))
        pts = np.stack([u.ravel(), v.ravel()], axis=1).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)
        norm = undistort_points(pts, ks, np.asarray(dist, np.float64), crit).reshape(-1, 2)
        _RAYS.clear()
        _RAYS[key] = np.hstack([norm, np.ones((len(norm), 1))])
    return _RAYS[key]


def render_chessboard(K: np.ndarray, dist: np.ndarray, R: np.ndarray, t: np.ndarray, size: tuple[int, int],
                      pattern: tuple[int, int] = (9, 6), square_mm: float = 25.0, supersample: int = 2) -> np.ndarray:
    """Gray uint8 image (h, w) of a chessboard with ``pattern`` = (cols, rows) inner corners, its first inner
    corner at the world origin, seen by the camera; table around it is mid grey."""
    w, h = size
    s = supersample
    rays = _rays(K, dist, size, s) @ R  # each row R^T d
    c = -R.T @ t
    with np.errstate(divide="ignore", invalid="ignore"):
        k = -c[2] / rays[:, 2]
    x = c[0] + rays[:, 0] * k
    y = c[1] + rays[:, 1] * k
    cols, rows = pattern
    i = np.floor(x / square_mm) + 1  # squares -1..cols are the board (the first inner corner at 0, 0)
    j = np.floor(y / square_mm) + 1
    on_board = (k > 0) & (i >= 0) & (i <= cols) & (j >= 0) & (j <= rows)
    margin = (k > 0) & (i >= -1) & (i <= cols + 1) & (j >= -1) & (j <= rows + 1)
    val = np.full(len(x), 128.0)
    val[margin] = 245.0
    dark = on_board & ((i + j) % 2 == 0)
    val[dark] = 15.0
    img: np.ndarray = val.reshape(h * s, w * s).astype(np.float32)
    if s > 1:
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def random_views(K: np.ndarray, dist: np.ndarray, size: tuple[int, int], n: int, seed: int = 0,
                 pattern: tuple[int, int] = (9, 6), square_mm: float = 25.0) -> list[np.ndarray]:
    """``n`` chessboard photos from varied, tilted viewpoints that keep the whole board in view."""
    rng = np.random.default_rng(seed)
    cols, rows = pattern
    centre = np.array([(cols - 1) * square_mm / 2, (rows - 1) * square_mm / 2, 0.0])
    views: list[np.ndarray] = []
    tries = 0
    while len(views) < n and tries < n * 20:
        tries += 1
        dist_mm = rng.uniform(330, 480)
        tilt = np.deg2rad(rng.uniform(10, 35))
        az = rng.uniform(0, 2 * np.pi)
        cam = centre + dist_mm * np.array([np.sin(tilt) * np.cos(az), np.sin(tilt) * np.sin(az), -np.cos(tilt)])
        target = centre + np.array([rng.uniform(-20, 20), rng.uniform(-20, 20), 0])
        R, t = look_at(cam, target, rng.uniform(-20, 20))
        corners = np.array([[x * square_mm, y * square_mm, 0] for y in (-1, rows) for x in (-1, cols)], np.float64)
        img_pts, _ = cv2.projectPoints(corners, cv2.Rodrigues(R)[0], t, K, dist)
        p = img_pts.reshape(-1, 2)
        if p.min() < 10 or p[:, 0].max() > size[0] - 10 or p[:, 1].max() > size[1] - 10:
            continue
        views.append(render_chessboard(K, dist, R, t, size, pattern, square_mm))
    return views
