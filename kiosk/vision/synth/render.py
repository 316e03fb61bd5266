"""``render_board``: a board state -> a realistic camera frame with its ground truth.

Pipeline: the empty board texture (cached) -> tiles composited top-down with their contact shadows, visible
sides and parallax (a tile's top face is ``thickness`` above the board) -> one remap through the posed camera
with lens distortion -> a hand -> light field, shadows, glare -> defocus, motion blur -> sensor noise -> JPEG.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from kiosk.rules.board import SIZE, Board, square_name
from kiosk.rules.tiles import BLANK, ENGLISH, TileSet
from kiosk.vision.geometry import DEFAULT_GEOMETRY, BoardGeometry
from kiosk.vision.reading import board_rows
from kiosk.vision.synth import effects
from kiosk.vision.synth.board_art import FOLD_MM, TABLE_STYLES, BoardTexture, board_texture
from kiosk.vision.synth.camera import Camera, make_camera, texture_maps
from kiosk.vision.synth.hand import draw_hand
from kiosk.vision.synth.levels import RealismParams, get_level
from kiosk.vision.synth.racks import draw_racks
from kiosk.vision.synth.tile_art import TileLook, pick_look, tile_face

_SHIFT = 4


MIN_SIZE = (160, 120)   # the smallest frame render_board draws, (width, height) px
MAX_SIDE = 10000        # its largest width or height, px


class RenderError(ValueError):
    """The board, size or level given to :func:`render_board` is not usable (the message says which)."""


@dataclass
class SyntheticFrame:
    """A rendered camera frame and its ground truth.

    Attributes:
        image: BGR uint8, H x W x 3.
        truth: 15 strings of 15 characters as :meth:`kiosk.vision.reading.BoardReading.grid` writes them:
            ``.`` empty, the upper-case letter of a lettered tile, ``?`` for a blank tile (never ``#``).
        grid_corners_px: 4x2 float32, the grid's outer corners A1, O1, O15, A15 in the image (px, with the
            lens distortion applied; on the board plane).
        occluded: squares (``row * 15 + col``) covered, even in part, by a hand or arm.
        meta: what was drawn: level, seed, styles, camera, light, glare, turned tiles, timings (ms)...
    """

    image: np.ndarray
    truth: list[str]
    grid_corners_px: np.ndarray
    occluded: set[int] = field(default_factory=set)
    meta: dict = field(default_factory=dict)


def _u(rng: np.random.Generator, r: tuple[float, float]) -> float:
    return float(rng.uniform(r[0], r[1])) if r[1] > r[0] else float(r[0])


def _clipped_normal(rng: np.random.Generator, sd: float, n: int = 1) -> np.ndarray:
    return np.clip(rng.normal(0, sd, n), -2 * sd, 2 * sd) if sd > 0 else np.zeros(n)


def _check(board: Board, tile_set: TileSet, size: tuple[int, int]) -> None:
    if not isinstance(board, Board):
        raise RenderError(f"render_board needs a kiosk.rules.board.Board, got {type(board).__name__}")
    for sq, ch in enumerate(board.cells):
        if ch and ch != BLANK and not tile_set.is_letter(ch):
            raise RenderError(f"square {sq} ({square_name(sq)}) holds {ch!r}, "
                              f"not a tile of the {tile_set.name} set")
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise RenderError(f"size must be (width, height) in px, got {size!r}") from None
    if not (MIN_SIZE[0] <= w <= MAX_SIDE and MIN_SIZE[1] <= h <= MAX_SIDE):
        raise RenderError(f"size {w}x{h} px is outside {MIN_SIZE[0]}x{MIN_SIZE[1]} .. {MAX_SIDE}x{MAX_SIDE}")


def truth_grid(board: Board) -> list[str]:
    """The ground truth of a board as 15 strings: ``.``, upper-case letter, ``?`` for a blank tile."""
    return board_rows(board.cells)


def _cast_shadows(tex: np.ndarray, bt: BoardTexture, centres: np.ndarray, angles_deg: np.ndarray, half: float,
                  light: np.ndarray, softness_mm: float, darkness: float) -> None:
    """Darken the board (in place) where the tiles' shadows fall: each tile's footprint swept by ``light``
    (mm), blurred by ``softness_mm``, ``darkness`` at the core."""
    if not len(centres):
        return
    pad = np.abs(light).max() + half + 4 * softness_mm + 2
    lo = np.floor(bt.to_px((centres.min(0) - pad)[None])[0]).astype(int).clip(0)
    hi = np.ceil(bt.to_px((centres.max(0) + pad)[None])[0]).astype(int).clip(max=tex.shape[0] - 1)
    mask = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
    for c, a in zip(centres, angles_deg):
        ang = math.radians(float(a))
        pts = np.vstack([_corners(c, half, ang), _corners(c + light, half, ang)])
        hull = cv2.convexHull((bt.to_px(pts) - lo).astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(mask, np.round(hull * (1 << _SHIFT)).astype(np.int32), 255, cv2.LINE_AA, _SHIFT)
    soft = cv2.GaussianBlur(mask, (0, 0), max(0.3, softness_mm * bt.ppm))
    keep = cv2.convertScaleAbs(soft, alpha=-darkness * 128 / 255, beta=128)  # 128 = no change
    roi = tex[lo[1]:hi[1], lo[0]:hi[0]]
    roi[:] = cv2.multiply(roi, cv2.merge([keep, keep, keep]), scale=1 / 128)


def _corners(centre_mm: np.ndarray, half: float, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    base = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return centre_mm + base @ np.array([[c, s], [-s, c]])


def _tile_rng(scene_seed: int, sq: int, ch: str) -> np.random.Generator:
    """Per-tile randomness: fixed for a tile on its square in one scene (it doesn't move between frames)."""
    return np.random.default_rng([scene_seed & 0xFFFFFFFF, sq, ord(ch)])


def paste_face(tex: np.ndarray, face: np.ndarray, centre_px: np.ndarray, angle: float, sx: float, sy: float) -> None:
    """Composite a face (SxSx4 premultiplied, see :func:`tile_face`) into ``tex`` (uint8, in place): scaled by
    ``sx`` across and ``sy`` down its own axes, turned by ``angle`` (rad), centred at ``centre_px``."""
    size = face.shape[0]
    c, s = math.cos(angle), math.sin(angle)
    A = np.array([[c * sx, -s * sy], [s * sx, c * sy]])
    r = int(math.ceil(size / 2 * max(sx, sy) * (abs(c) + abs(s)))) + 2  # half the turned face's extent
    x0, y0 = int(centre_px[0]) - r, int(centre_px[1]) - r
    cs = (size - 1) / 2
    offset = np.array([centre_px[0] - x0, centre_px[1] - y0]) - A @ np.array([cs, cs])
    M = np.hstack([A, offset[:, None]]).astype(np.float32)
    if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > tex.shape[1] or y0 + 2 * r + 1 > tex.shape[0]:
        return  # off the texture
    warped = cv2.warpAffine(face, M, (2 * r + 1, 2 * r + 1), flags=cv2.INTER_LINEAR)
    roi = tex[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1]
    a = warped[:, :, 3:4]
    roi[:] = (roi * (1 - a) + warped[:, :, :3] + 0.5).astype(np.uint8)


def _draw_tiles(tex: np.ndarray, bt: BoardTexture, board: Board, tile_set: TileSet, look: TileLook,
                camera: Camera, p: RealismParams, scene_seed: int, light: np.ndarray, softness_mm: float,
                darkness: float, geometry: BoardGeometry, thickness: float, meta: dict) -> None:
    """Composite every tile into the top-down texture ``tex`` (uint8, in place): contact shadow, the sides the
    camera sees, the face at its height (parallax and zoom), small offset and rotation, now and then a turn."""
    ppm = bt.ppm
    size = int(round(geometry.tile_mm * ppm))
    cam = camera.centre_mm
    height = -cam[2]
    zoom = height / (height - thickness)
    squares = [sq for sq, ch in enumerate(board.cells) if ch]
    if not squares:
        meta["turned_tiles"] = {}
        return
    jitter = []
    for sq in squares:
        r = _tile_rng(scene_seed, sq, board.cells[sq])
        off = _clipped_normal(r, p.tile_offset_mm, 2)
        ang = float(_clipped_normal(r, p.tile_rotation_deg, 1)[0])
        turn = int(r.integers(1, 4)) if r.random() < p.tile_turn_prob else 0
        jitter.append((off, ang, turn, int(r.integers(0, 6))))
    centres = np.array([[(sq % SIZE + 0.5) * geometry.cell_mm, (sq // SIZE + 0.5) * geometry.cell_mm]
                        for sq in squares]) + np.array([j[0] for j in jitter])
    meta["turned_tiles"] = {int(sq): 90 * j[2] for sq, j in zip(squares, jitter) if j[2]}
    order = np.argsort(-np.linalg.norm(centres - cam[:2], axis=1))
    side_colour = tuple(float(c) * look.side_shade for c in look.face)
    half = geometry.tile_mm / 2
    _cast_shadows(tex, bt, centres, np.array([j[1] for j in jitter]), half, light, softness_mm, darkness)
    for i in order:
        sq, ch = squares[i], board.cells[squares[i]]
        _, ang_deg, turn, variant = jitter[i]
        base = centres[i]
        top = cam[:2] + (base - cam[:2]) * zoom
        ang = math.radians(ang_deg)
        hull = cv2.convexHull(bt.to_px(np.vstack([_corners(base, half, ang), _corners(top, half * zoom, ang)]))
                              .astype(np.float32))
        cv2.fillConvexPoly(tex, np.round(hull.reshape(-1, 2) * (1 << _SHIFT)).astype(np.int32), side_colour,
                           cv2.LINE_AA, _SHIFT)
        lettered = ch != BLANK and not ch.islower()
        face = tile_face(ch if lettered else None, tile_set.values.get(ch) if lettered else None, look, size, variant)
        paste_face(tex, face, bt.to_px(top[None])[0], ang + math.radians(90 * turn), zoom, zoom)


def _occluded(camera: Camera, hand: np.ndarray, geometry: BoardGeometry, thickness: float) -> set[int]:
    cell = geometry.cell_mm
    f = (np.arange(4) + 0.5) / 4
    gx, gy = np.meshgrid(f, f)
    local = np.stack([gx.ravel(), gy.ravel()], 1) * cell
    sqs = np.arange(SIZE * SIZE)
    origins = np.stack([(sqs % SIZE) * cell, (sqs // SIZE) * cell], 1)
    pts = (origins[:, None, :] + local[None]).reshape(-1, 2)
    h, w = hand.shape
    hit = np.zeros(len(pts), bool)
    for z in (0.0, -thickness):
        px = camera.project(np.hstack([pts, np.full((len(pts), 1), z)]))
        xi = np.clip(np.round(px[:, 0]).astype(int), 0, w - 1)
        yi = np.clip(np.round(px[:, 1]).astype(int), 0, h - 1)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
        hit |= inside & (hand[yi, xi] > 0.05)
    per_sq = hit.reshape(SIZE * SIZE, -1).any(1)
    return {int(s) for s in np.nonzero(per_sq)[0]}


PPM_STEPS = (2.0, 3.0, 4.5, 6.0)  # texture resolutions (px/mm); few of them so board textures stay cached


@dataclass(frozen=True)
class Scene:
    """What stays fixed while a camera watches one board: camera pose, styles, tile look, tile height, the
    light direction of tile shadows. Drawn from the scene seed."""

    camera: Camera
    board_style: str
    table: str
    look: TileLook
    thickness_mm: float
    light_mm: tuple[float, float]
    shadow_softness_mm: float
    shadow_darkness: float
    ppm: float
    px_per_mm: float
    meta: dict


def make_scene(scene_seed: int, p: RealismParams, size: tuple[int, int], geometry: BoardGeometry) -> Scene:
    """Draw a :class:`Scene` from ``scene_seed`` at realism ``p`` for an image of ``size`` (w, h) px."""
    w, h = size
    rng = np.random.default_rng([int(scene_seed) & 0xFFFFFFFF, 0x5CE7E])
    rot = _u(rng, p.board_rotation_deg)
    if rng.random() < p.board_turn_prob:
        rot += 90 * int(rng.integers(1, 4))
    cam_kw: dict[str, Any] = dict(height_mm=_u(rng, p.camera_height_mm), tilt_deg=_u(rng, p.tilt_deg),
                  tilt_dir_deg=float(rng.uniform(0, 360)), rotation_deg=rot, fill=_u(rng, p.board_fill),
                  offset_px=tuple(float(v) for v in rng.uniform(-1, 1, 2) * p.centre_offset_frac * np.array([w, h])),
                  k1=_u(rng, p.distortion_k1))
    camera = make_camera(geometry, (w, h), **cam_kw)
    corners = camera.project(geometry.grid_corners_mm())
    grid_px = float(np.mean(np.linalg.norm(np.roll(corners, 1, 0) - corners, axis=1)))
    px_per_mm = grid_px / geometry.grid_mm
    ppm = next((v for v in PPM_STEPS if v >= 1.15 * px_per_mm), PPM_STEPS[-1])
    board_style = str(rng.choice(p.board_styles))
    table = str(rng.choice(TABLE_STYLES))
    tile_style = str(rng.choice(p.tile_styles))
    font = str(rng.choice(p.fonts))
    look = pick_look(tile_style, font, rng)
    thickness = _u(rng, p.tile_thickness_mm)
    reach, light_dir = _u(rng, p.tile_shadow_mm), rng.uniform(0, 2 * math.pi)
    light = (reach * math.cos(light_dir), reach * math.sin(light_dir))
    shadow_soft, shadow_dark = _u(rng, p.tile_shadow_softness_mm), _u(rng, p.tile_shadow_darkness)
    meta: dict[str, Any] = {"camera": {k: (round(v, 3) if isinstance(v, float) else v) for k, v in cam_kw.items()}}
    meta["camera"]["focal_px"] = round(float(camera.K[0, 0]), 1)
    meta.update(board_style=board_style, table=table, tile_style=tile_style, font=font,
                tile_thickness_mm=round(thickness, 2), texture_ppm=ppm, board_px_per_mm=round(px_per_mm, 3))
    meta["tile_shadow"] = {"mm": round(reach, 2), "softness_mm": round(shadow_soft, 2), "darkness": round(shadow_dark, 2)}
    return Scene(camera, board_style, table, look, thickness, light, shadow_soft, shadow_dark, ppm, px_per_mm, meta)


_MAPS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
_TILED: dict[tuple, tuple[np.ndarray, dict]] = {}  # last textures with their tiles drawn


def _maps(scene: Scene, bt: BoardTexture, extent_mm: float) -> tuple[np.ndarray, np.ndarray]:
    cam = scene.camera
    key = (cam.K.tobytes(), cam.dist.tobytes(), cam.R.tobytes(), cam.t.tobytes(), cam.size, bt.origin_mm, bt.ppm)
    if key not in _MAPS:
        if len(_MAPS) >= 4:
            _MAPS.pop(next(iter(_MAPS)))
        _MAPS[key] = texture_maps(cam, bt.origin_mm, extent_mm, bt.ppm, fold_band_mm=FOLD_MM)
    return _MAPS[key]


def render_board(board: Board, *, seed: int, level: str | RealismParams = "typical", tile_set: TileSet = ENGLISH,
                 size: tuple[int, int] = (2028, 1520), geometry: BoardGeometry = DEFAULT_GEOMETRY,
                 scene_seed: int | None = None) -> SyntheticFrame:
    """Render ``board`` as a camera frame of ``size`` = (width, height) px at realism ``level``.

    The same arguments always give the same frame. ``scene_seed`` (default: ``seed``) fixes the camera pose,
    board, table and tile styles and where each tile lies on its square; ``seed`` then only varies the
    frame (light, glare, hand, blur, noise, JPEG) -- a fixed camera watching a game is one ``scene_seed``
    with a new ``seed`` per frame. Lower-case letters on the board are blanks (drawn without a glyph, truth
    ``?``); lettered tiles carry their value from ``tile_set``.

    Raises:
        RenderError: not a Board, a square holds a letter outside ``tile_set``, or a silly size.
        ValueError: unknown level name.
    """
    t_start = time.perf_counter()
    p = get_level(level)
    _check(board, tile_set, size)
    for name, value in (("seed", seed), ("scene_seed", scene_seed)):
        if value is not None and not isinstance(value, int | np.integer):
            raise RenderError(f"{name} must be an integer, got {value!r}")
    w, h = int(size[0]), int(size[1])
    scene_seed = int(seed) if scene_seed is None else int(scene_seed)
    scene = make_scene(scene_seed, p, (w, h), geometry)
    camera, px_per_mm, thickness = scene.camera, scene.px_per_mm, scene.thickness_mm
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0xF4A3E])
    meta: dict = {"level": p.name, "seed": int(seed), "scene_seed": scene_seed, **scene.meta}
    # --- top-down texture with tiles, seen through the camera
    bt = board_texture(scene.board_style, scene.table, scene.ppm, geometry)
    t0 = time.perf_counter()
    key = (scene_seed, p, (w, h), geometry, tile_set.name, tuple(board.cells))
    if key in _TILED:  # the same board seen again by the same camera (a demo between moves)
        tex, turned = _TILED[key]
        meta["turned_tiles"] = dict(turned)
    else:
        tex = bt.image.copy()
        _draw_tiles(tex, bt, board, tile_set, scene.look, camera, p, scene_seed, np.array(scene.light_mm),
                    scene.shadow_softness_mm, scene.shadow_darkness, geometry, thickness, meta)
        tex.setflags(write=False)
        if len(_TILED) >= 2:
            _TILED.pop(next(iter(_TILED)))
        _TILED[key] = (tex, dict(meta["turned_tiles"]))
    if rng.random() < p.racks_prob:  # drawn on a copy: the cached texture stays as it is
        tex = tex.copy()
        meta["racks"] = draw_racks(tex, bt, rng, scene.look, tile_set, geometry, paste_face)
    t1 = time.perf_counter()
    mu, mv = _maps(scene, bt, tex.shape[1] / bt.ppm)
    img = cv2.remap(tex, mu, mv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    t2 = time.perf_counter()
    # --- light, a hand over the board, shadows
    occluded: set[int] = set()
    field = effects.light_field(rng, (w, h), brightness=_u(rng, p.brightness), gradient=_u(rng, p.light_gradient),
                                vignetting=_u(rng, p.vignetting), kelvin=_u(rng, p.colour_temp_k),
                                white_balance=_u(rng, p.white_balance), flicker=_u(rng, p.flicker))
    meta["hand"] = bool(rng.random() < p.hand_prob)
    if meta["hand"]:
        sq = int(rng.integers(SIZE * SIZE))
        tip_mm = np.array([[(sq % SIZE + 0.5) * geometry.cell_mm, (sq // SIZE + 0.5) * geometry.cell_mm, -60.0]])
        tip = camera.project(tip_mm)[0]
        hand_h = 100.0
        scale = px_per_mm * (-camera.centre_mm[2]) / (-camera.centre_mm[2] - hand_h)
        hand = draw_hand(img, rng, (float(tip[0]), float(tip[1])), scale)
        occluded = _occluded(camera, hand, geometry, thickness)
        # its shadow on the board: the hand's outline, shifted and soft, in the light field
        fh, fw = field.shape[:2]
        small = cv2.resize(hand, (fw, fh), interpolation=cv2.INTER_AREA)
        shift = rng.uniform(-1, 1, 2) * 0.03 * np.array([fw, fh])
        M = np.array([[1, 0, shift[0]], [0, 1, shift[1]]], np.float32)
        cast = cv2.GaussianBlur(cv2.warpAffine(small, M, (fw, fh)), (0, 0), 2.0)
        field *= (1 - 0.35 * cast * (1 - small))[:, :, None]
    if rng.random() < p.shadow_prob:
        strength = _u(rng, p.shadow_strength)
        effects.add_shadow(field, rng, strength)
        meta["shadow"] = round(strength, 3)
    img = effects.apply_field(img, field)
    # --- glare spots over the board
    glare = []
    if rng.random() < p.glare_prob:
        for _ in range(int(round(_u(rng, p.glare_spots)))):
            at_mm = rng.uniform(0, geometry.grid_mm, 2)
            c = camera.project(np.array([[at_mm[0], at_mm[1], -thickness]]))[0]
            radius_mm = _u(rng, p.glare_radius_mm)
            radius = radius_mm * px_per_mm
            strength = _u(rng, p.glare_strength)
            effects.add_glare(img, (float(c[0]), float(c[1])), radius, strength,
                              aspect=float(rng.uniform(0.5, 1.0)), angle_deg=float(rng.uniform(0, 180)))
            glare.append({"centre_mm": [round(float(v), 1) for v in at_mm], "radius_mm": round(radius_mm, 1),
                          "radius_px": round(radius, 1),
                          "strength": round(strength, 3)})
    meta["glare"] = glare
    # --- optics and sensor
    sigma = _u(rng, p.defocus_sigma_px) * min(1.0, px_per_mm / 3.6)
    img = effects.defocus(img, sigma)
    meta["defocus_sigma_px"] = round(sigma, 2)
    if rng.random() < p.motion_blur_prob:
        length, ang = _u(rng, p.motion_blur_px), float(rng.uniform(0, 180))
        img = effects.motion_blur(img, length, ang)
        meta["motion_blur"] = {"length_px": round(length, 2), "angle_deg": round(ang, 1)}
    noise = _u(rng, p.noise_sigma)
    img = effects.sensor_noise(img, rng, noise)
    meta["noise_sigma"] = round(noise, 2)
    amount = _u(rng, p.sharpen)
    img = effects.sharpen(img, amount)
    meta["sharpen"] = round(amount, 2)
    if rng.random() < p.jpeg_prob:
        q = int(round(_u(rng, p.jpeg_quality)))
        img = effects.jpeg(img, q)  # OpenCV's JPEG subsamples the colour 4:2:0 itself
        meta["jpeg_quality"] = q
    elif p.chroma_subsampling:
        img = effects.chroma_subsample(img)
    t3 = time.perf_counter()
    meta["timings_ms"] = {"tiles": round(1000 * (t1 - t0), 1), "project": round(1000 * (t2 - t1), 1),
                          "effects": round(1000 * (t3 - t2), 1), "total": round(1000 * (t3 - t_start), 1)}
    corners = camera.project(geometry.grid_corners_mm())
    return SyntheticFrame(image=img, truth=truth_grid(board), grid_corners_px=corners.astype(np.float32),
                          occluded=occluded, meta=meta)
