"""Board pose: where the board's grid lies in the camera image, from the ArUco markers or from four corners
the judge taps on the touchscreen (A1, O1, O15, A15, clockwise from the top-left).

The result is the homography image px -> canonical warp px of :mod:`kiosk.vision.geometry` (what the reader
uses) and, with camera intrinsics, the camera's 3-D pose over the board (height, tilt) for the record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from calibration import CalibrationError
from kiosk.vision.corners import CornersError, check_corners
from kiosk.vision.geometry import DEFAULT_GEOMETRY, SIZE, WARP_SIZE_PX, BoardGeometry, warp_grid_corners
from kiosk.vision.locate import find_markers, from_corners, grid_corners_in_image

CORNER_NAMES = ("A1 (top-left)", "O1 (top-right)", "O15 (bottom-right)", "A15 (bottom-left)")


@dataclass
class BoardPose:
    """``homography``: 3x3 float64 image px -> canonical warp px; ``grid_corners_px``: 4x2 float32 image px of
    the grid's outer corners (A1, O1, O15, A15); ``method``: "markers" or "corners"; ``mode``: how the reader
    should find the board later ("markers": detect them in every frame; "fixed": reuse this homography, for
    a camera and board that do not move); with intrinsics also
    ``rvec``/``tvec`` (board mm -> camera), ``camera_height_mm`` above the board and ``tilt_deg`` of the
    optical axis from straight down, and ``reprojection_px`` of the grid corners. ``image_size``: (width, height)
    px of the frame the pose was measured on (the grid belongs to frames of that size; the profile records it as
    ``board.image_size``)."""

    homography: np.ndarray
    grid_corners_px: np.ndarray
    method: str
    mode: str = "markers"
    image_size: tuple[int, int] | None = None
    rvec: np.ndarray | None = None
    tvec: np.ndarray | None = None
    camera_height_mm: float | None = None
    tilt_deg: float | None = None
    reprojection_px: float | None = None


def _gray(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def _size(image: np.ndarray) -> tuple[int, int]:
    """(width, height) px of ``image``."""
    return int(image.shape[1]), int(image.shape[0])


def _check_quad(corners: np.ndarray, image: np.ndarray, where: str) -> np.ndarray:
    """``corners`` (4x2 float32) when they can be the grid in ``image`` (:func:`kiosk.vision.corners.check_corners`);
    CalibrationError ``"{where}: what is wrong"``."""
    try:
        return check_corners(corners, where, image.shape)
    except CornersError as exc:
        raise CalibrationError(str(exc)) from None


def _with_intrinsics(pose: BoardPose, geometry: BoardGeometry, K: np.ndarray | None,
                     dist: np.ndarray | None) -> BoardPose:
    if K is None:
        return pose
    obj = np.hstack([geometry.grid_corners_mm(), np.zeros((4, 1), np.float32)]).astype(np.float64)
    img = pose.grid_corners_px.astype(np.float64)
    d = np.zeros(5) if dist is None else np.asarray(dist, np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, d, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise CalibrationError("solvePnP found no camera pose for these corners")
    proj, _ = cv2.projectPoints(obj, rvec, tvec, K, d)
    r, _ = cv2.Rodrigues(rvec)
    centre = -r.T @ tvec.reshape(3)
    axis = r.T @ np.array([0.0, 0.0, 1.0])  # optical axis in board coordinates (z into the table)
    pose.rvec, pose.tvec = rvec.reshape(3), tvec.reshape(3)
    pose.camera_height_mm = float(abs(centre[2]))
    pose.tilt_deg = float(np.degrees(np.arccos(min(1.0, abs(axis[2])))))
    pose.reprojection_px = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
    return pose


def pose_from_markers(image: np.ndarray, geometry: BoardGeometry = DEFAULT_GEOMETRY, K: np.ndarray | None = None,
                      dist: np.ndarray | None = None) -> BoardPose:
    """Pose from the ArUco markers (at least 3 of the 4). Raises CalibrationError naming what is missing."""
    h = find_markers(_gray(image), geometry)
    if h is None:
        raise CalibrationError(f"fewer than 3 of the 4 {geometry.aruco_dictionary} markers (ids "
                               f"{', '.join(map(str, geometry.marker_ids))}) are visible; print them with "
                               "`kiosk calibrate markers`, or tap the corners instead")
    corners = _check_quad(grid_corners_in_image(h), image, "the markers' grid corners")
    return _with_intrinsics(BoardPose(h, corners, "markers", image_size=_size(image)), geometry, K, dist)


def pose_from_corners(image: np.ndarray, corners: np.ndarray, geometry: BoardGeometry = DEFAULT_GEOMETRY,
                      K: np.ndarray | None = None, dist: np.ndarray | None = None, refine: bool = True,
                      where: str = "corners") -> BoardPose:
    """Pose from four given grid corners (4x2 image px, A1, O1, O15, A15; ``where``: where they come from, e.g.
    "--corners"), refined on the printed grid lines when ``refine``. Raises CalibrationError for corners that
    cannot be the grid in ``image`` (:func:`kiosk.vision.corners.check_corners`: the sentence names ``where``)."""
    pts = _check_quad(corners, image, where)
    try:
        h = from_corners(image, pts, refine=refine)
    except ValueError as exc:
        raise CalibrationError(f"{where}: {exc}") from exc
    return _with_intrinsics(BoardPose(h, grid_corners_in_image(h), "corners", "fixed", image_size=_size(image)),
                            geometry, K, dist)


def overlay_image(image: np.ndarray, pose: BoardPose) -> np.ndarray:
    """The frame with the 16x16 grid lines drawn where the pose puts them (green), corner labels, and the
    canonical top-down warp beside it: a person can see at a glance whether the grid sits on the board."""
    img = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    inv = np.linalg.inv(pose.homography)
    a, b = warp_grid_corners()[0, 0], warp_grid_corners()[2, 0]
    step = (b - a) / SIZE
    thick = max(1, img.shape[1] // 600)
    for i in range(SIZE + 1):
        for seg in (((a + i * step, a), (a + i * step, b)), ((a, a + i * step), (b, a + i * step))):
            p = cv2.perspectiveTransform(np.array([seg], np.float32), inv)[0]
            cv2.line(img, tuple(map(int, p[0])), tuple(map(int, p[1])), (0, 220, 0), thick, cv2.LINE_AA)
    for name, c in zip(CORNER_NAMES, pose.grid_corners_px):
        cv2.circle(img, (int(c[0]), int(c[1])), 6 * thick, (0, 0, 255), thick, cv2.LINE_AA)
        cv2.putText(img, name.split()[0], (int(c[0]) + 8, int(c[1]) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick,
                    (0, 0, 255), thick, cv2.LINE_AA)
    warp = cv2.warpPerspective(img if image.ndim == 3 else img, pose.homography, (WARP_SIZE_PX, WARP_SIZE_PX))
    scale = img.shape[0] / WARP_SIZE_PX
    warp = cv2.resize(warp, (int(WARP_SIZE_PX * scale), img.shape[0]))
    out = np.hstack([img, warp])
    text = f"pose from {pose.method}"
    if pose.camera_height_mm is not None:
        text += f": camera {pose.camera_height_mm:.0f} mm above the board, tilt {pose.tilt_deg:.1f} deg"
    cv2.putText(out, text, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 3, cv2.LINE_AA)
    cv2.putText(out, text, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 1, cv2.LINE_AA)
    return out


FRAMEBUFFERS = ("/dev/fb0", "/dev/dri/card0", "/dev/dri/card1")
"""The devices a screen without a window system is drawn on (SDL's fbdev and kmsdrm drivers: the Pi's touchscreen)."""
NO_SCREEN_DRIVERS = ("dummy", "offscreen")
"""SDL video drivers that draw nowhere: nothing shown, no tap ever comes."""


def no_screen(env: Mapping[str, str] | None = None) -> str | None:
    """Why there is no screen to tap the corners on (a sentence naming what is missing and how to give the corners
    instead), or None when there is one: a window system (``DISPLAY``, ``WAYLAND_DISPLAY``) or a framebuffer
    (:data:`FRAMEBUFFERS`), and ``SDL_VIDEODRIVER`` not one of :data:`NO_SCREEN_DRIVERS`. ``env``: the
    environment (default ``os.environ``)."""
    import os

    env = os.environ if env is None else env
    instead = ('give the grid\'s corners instead with --corners "x,y x,y x,y x,y" (A1, O1, O15, A15 in image px), or '
               "let the printed markers find the board (no --tap)")
    driver = env.get("SDL_VIDEODRIVER", "")
    if driver in NO_SCREEN_DRIVERS:
        return f"--tap: tapping the corners needs a screen, and SDL_VIDEODRIVER={driver} shows nothing: {instead}"
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or any(os.path.exists(d) for d in FRAMEBUFFERS):
        return None
    return ("--tap: tapping the corners needs a screen, and there is none here (no DISPLAY or WAYLAND_DISPLAY, no "
            "framebuffer /dev/fb0 or /dev/dri): " + instead)


def tap_corners(image: np.ndarray, screen: tuple[int, int] = (800, 480),
                events: Callable[[], list] | None = None, timeout_s: float = 300.0) -> np.ndarray:
    """Let the judge tap the grid's 4 outer corners on the touchscreen (pygame), in the order A1, O1, O15, A15.

    Shows the frame scaled to ``screen`` (w, h) px with the next corner's name; Backspace undoes a tap,
    Escape cancels (CalibrationError). Returns 4x2 float32 image px. ``events`` replaces pygame's event queue
    (tests).
    """
    import time

    import pygame

    pygame.display.init()
    pygame.font.init()
    try:
        surface = pygame.display.set_mode(screen)
        h, w = image.shape[:2]
        scale = min(screen[0] / w, screen[1] / h)
        shown = cv2.resize(image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR),
                           (int(w * scale), int(h * scale)))
        frame = pygame.image.frombuffer(cv2.cvtColor(shown, cv2.COLOR_BGR2RGB).tobytes(),
                                        (shown.shape[1], shown.shape[0]), "RGB")
        font = pygame.font.Font(None, 32)
        taps: list[tuple[float, float]] = []
        end = time.monotonic() + timeout_s
        while len(taps) < 4:
            if time.monotonic() > end:
                raise CalibrationError("no corners tapped in time")
            surface.fill((0, 0, 0))
            surface.blit(frame, (0, 0))
            for x, y in taps:
                pygame.draw.circle(surface, (255, 0, 0), (int(x * scale), int(y * scale)), 6, 2)
            label = font.render(f"tap the grid corner {CORNER_NAMES[len(taps)]}", True, (255, 255, 0))
            surface.blit(label, (10, screen[1] - 36))
            pygame.display.flip()
            for ev in (events() if events else pygame.event.get()):
                if ev.type == pygame.QUIT or (ev.type == pygame.KEYDOWN and ev.key == pygame.K_ESCAPE):
                    raise CalibrationError("corner tapping cancelled")
                if ev.type == pygame.KEYDOWN and ev.key == pygame.K_BACKSPACE and taps:
                    taps.pop()
                elif ev.type in (pygame.MOUSEBUTTONDOWN, pygame.FINGERDOWN) and len(taps) < 4:
                    if ev.type == pygame.FINGERDOWN:
                        px, py = ev.x * screen[0], ev.y * screen[1]
                    else:
                        px, py = ev.pos
                    if px < shown.shape[1] and py < shown.shape[0]:
                        taps.append((px / scale, py / scale))
            if not events:
                time.sleep(0.01)
        return np.array(taps, np.float32)
    finally:
        pygame.display.quit()
