"""The simulated camera: a pinhole with radial lens distortion above the board plane.

World frame = the board frame of :mod:`kiosk.vision.geometry` (mm, origin at the outer corner of A1, x towards
column O, y towards row 15) with z pointing into the table (a right-handed frame), so the camera sits at
negative z and a tile's top face at ``z = -thickness``. Images are ``size = (width, height)`` px.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.vision.cvcompat import undistort_points
from kiosk.vision.geometry import BoardGeometry


@dataclass(frozen=True)
class Camera:
    """A posed camera.

    Attributes:
        K: 3x3 intrinsics (px).
        dist: OpenCV distortion coefficients (k1, k2, p1, p2, k3).
        R: 3x3 rotation world -> camera.
        t: translation (3,) world -> camera, mm.
        size: (width, height) of the image, px.
    """

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]

    @property
    def centre_mm(self) -> np.ndarray:
        """Camera centre in the world frame (3,), mm."""
        return -self.R.T @ self.t

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Project world points (Nx3 or Nx2 on the board plane, mm) to image px (Nx2 float32), with distortion."""
        pts = np.asarray(pts_mm, np.float64).reshape(-1, pts_mm.shape[-1])
        if pts.shape[1] == 2:
            pts = np.hstack([pts, np.zeros((len(pts), 1))])
        rvec, _ = cv2.Rodrigues(self.R)
        img, _ = cv2.projectPoints(pts, rvec, self.t.astype(np.float64), self.K, self.dist)
        return img.reshape(-1, 2).astype(np.float32)

    def image_to_plane(self, px: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Where the rays through image points (Nx2 px, distorted) meet the plane z = ``z_mm`` (Nx2 mm)."""
        pts = np.ascontiguousarray(px, np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6)
        norm = undistort_points(pts, self.K, self.dist, crit).reshape(-1, 2)
        rays = np.hstack([norm, np.ones((len(norm), 1))]) @ self.R  # rows: R^T d
        c = self.centre_mm
        s = (z_mm - c[2]) / rays[:, 2]
        return (c[:2] + rays[:, :2] * s[:, None]).astype(np.float32)


def look_at(centre: np.ndarray, target: np.ndarray, down_hint: np.ndarray) -> np.ndarray:
    """Rotation world -> camera (3x3) for a camera at ``centre`` looking at ``target``; image "down" ~ ``down_hint``."""
    z = target - centre
    z = z / np.linalg.norm(z)
    x = np.cross(down_hint, z)  # image x axis (right)
    if np.linalg.norm(x) < 1e-9:
        x = np.cross(np.array([0.0, 1.0, 0.0]), z)
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)  # image y axis (down)
    return np.stack([x, y, z])


def make_camera(
    geometry: BoardGeometry,
    size: tuple[int, int],
    *,
    height_mm: float,
    tilt_deg: float,
    tilt_dir_deg: float,
    rotation_deg: float,
    fill: float,
    offset_px: tuple[float, float],
    k1: float,
) -> Camera:
    """Pose a camera over the board centre and pick the focal length so the board fills ``fill`` of the image.

    ``rotation_deg`` turns the board in the image (0 = row 1 at the top); ``tilt_deg`` moves the camera off the
    vertical in direction ``tilt_dir_deg`` while it keeps looking at the board centre; ``fill`` is the
    fraction of the image's short side that the board's outer edge spans (its bounding box, not over the long
    side either); ``offset_px`` shifts the board in the image; ``k1`` is the radial distortion.
    """
    w, h = size
    g = geometry.grid_mm
    target = np.array([g / 2, g / 2, 0.0])
    tilt, tdir = math.radians(tilt_deg), math.radians(tilt_dir_deg)
    lateral = height_mm * math.tan(tilt)
    centre = target + np.array([lateral * math.cos(tdir), lateral * math.sin(tdir), -height_mm])
    rot = math.radians(rotation_deg)
    # image "down" is board +y (towards row 15) turned by the rotation
    down = np.array([-math.sin(rot), math.cos(rot), 0.0])
    R = look_at(centre, target, down)
    t = -R @ centre
    # focal length: fit the outer board corners
    b = geometry.border_mm
    outer = np.array([[-b, -b, 0], [g + b, -b, 0], [g + b, g + b, 0], [-b, g + b, 0]], np.float64)
    cam = (R @ outer.T).T + t
    nx, ny = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
    span = max((nx.max() - nx.min()) * min(w, h) / w, ny.max() - ny.min()) if w >= h else \
        max(nx.max() - nx.min(), (ny.max() - ny.min()) * min(w, h) / h)
    f = fill * min(w, h) / span
    dist = np.array([k1, 0.0, 0.0, 0.0, 0.0])
    for _ in range(20):
        # principal point so that the board centre lands at the image centre + offset
        K = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]])
        c = (R @ target) + t
        cx = w / 2 + offset_px[0] - f * c[0] / c[2]
        cy = h / 2 + offset_px[1] - f * c[1] / c[2]
        K[0, 2], K[1, 2] = cx, cy
        camera = Camera(K, dist, R, t, size)
        px = camera.project(outer)
        margin = 0.01 * min(w, h)
        if px[:, 0].min() >= margin and px[:, 1].min() >= margin and px[:, 0].max() <= w - margin \
                and px[:, 1].max() <= h - margin:
            return camera
        f *= 0.96
    return camera


def _fold(x: np.ndarray, lo: float, hi: float, band: float) -> np.ndarray:
    """Mirror coordinates beyond [lo, hi] back and forth inside the outer ``band`` (keeps them on the table)."""
    def tri(d: np.ndarray) -> np.ndarray:
        m = np.mod(d, 2 * band)
        return np.where(m > band, 2 * band - m, m)
    return np.where(x < lo, lo + tri(lo - x), np.where(x > hi, hi - tri(x - hi), x))


def texture_maps(camera: Camera, origin_mm: float, extent_mm: float, ppm: float, fold_band_mm: float = 0.0,
                 step: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps (float32, HxW each) from image px to texture px of the board plane z = 0.

    The texture is square: its pixel (u, v) shows board point ``origin_mm + (u + 0.5, v + 0.5) / ppm`` (mm),
    ``extent_mm`` wide. Points seen beyond the texture are folded back into its outer ``fold_band_mm``
    (the table) when that is > 0. The exact mapping is computed on a grid every ``step`` px and
    interpolated bilinearly (sub-pixel error: the mapping is smooth).
    """
    w, h = camera.size
    nx, ny = -(-w // step), -(-h // step)
    xs = (np.arange(nx) + 0.5) * step - 0.5
    ys = (np.arange(ny) + 0.5) * step - 0.5
    gx, gy = np.meshgrid(xs, ys)
    mm = camera.image_to_plane(np.stack([gx.ravel(), gy.ravel()], 1)).astype(np.float64)
    if fold_band_mm > 0:
        mm = _fold(mm, origin_mm + 0.5 / ppm, origin_mm + extent_mm - 1.0 / ppm, fold_band_mm)
    u = ((mm[:, 0] - origin_mm) * ppm - 0.5).reshape(ny, nx).astype(np.float32)
    v = ((mm[:, 1] - origin_mm) * ppm - 0.5).reshape(ny, nx).astype(np.float32)
    mu = cv2.resize(u, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
    mv = cv2.resize(v, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
    return mu, mv
