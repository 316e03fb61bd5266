"""Tile faces: wooden, plastic and tournament (Protiles-like) tiles with the letter and its small value digit.

A face is drawn top-down at ``size`` px square: an RGBA float32 array (BGR premultiplied by alpha, alpha
0..1) with rounded corners and a bevel. Blanks carry no glyph and no digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np

from kiosk.vision.synth.glyph_art import scaled_glyph
from kiosk.vision.synth.textures import smooth_noise, wood

TILE_STYLES = ("wooden", "plastic", "tournament")


@dataclass(frozen=True)
class TileLook:
    """One tile set's appearance for a frame: face colour, ink colour (BGR 0..255), side shade, font, texture."""

    style: str
    face: tuple[float, float, float]
    ink: tuple[float, float, float]
    side_shade: float
    font: str
    letter_cap: float = 0.52     # capital height / tile side
    digit_cap: float = 0.19
    letter_centre_x: float = 0.46
    letter_baseline: float = 0.77
    digit_right: float = 0.90
    digit_baseline: float = 0.89
    gloss: float = 0.0           # bevel highlight strength


_TOURNAMENT_FACES = ((40, 30, 120), (95, 45, 25), (40, 40, 40), (100, 40, 90))  # maroon, navy, black, purple
_TOURNAMENT_INKS = ((235, 240, 242), (60, 215, 245))


def _tinted(bgr: tuple[float, float, float], j: np.ndarray) -> tuple[float, float, float]:
    """``bgr`` (0..255) times the per-channel shade ``j``."""
    b, g, r = (float(c) for c in np.array(bgr) * j)
    return b, g, r


def pick_look(style: str, font: str, rng: np.random.Generator) -> TileLook:
    """A random appearance of tile ``style`` using ``font``.

    Raises:
        ValueError: unknown style.
    """
    # a few discrete shades (so faces can be cached across frames): brightness, and a faint tint
    j = (1.0 + 0.03 * int(rng.integers(-2, 3))) * (1.0 + 0.015 * rng.integers(-1, 2, 3))
    if style == "wooden":
        return TileLook(style, _tinted((118, 170, 214), j), (28, 28, 30), 0.72, font)
    if style == "plastic":
        return TileLook(style, _tinted((200, 228, 238), j), (22, 22, 22), 0.80, font, gloss=0.08)
    if style == "tournament":
        face = _TOURNAMENT_FACES[int(rng.integers(len(_TOURNAMENT_FACES)))]
        ink = _TOURNAMENT_INKS[int(rng.integers(len(_TOURNAMENT_INKS)))]
        return TileLook(style, _tinted(face, j), ink, 0.65, font,
                        letter_cap=0.50, digit_cap=0.18, gloss=0.05)
    raise ValueError(f"unknown tile style {style!r} (known: {', '.join(TILE_STYLES)})")


@cache
def face_shape(size: int, corner_frac: float = 0.09) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, bevel) for a ``size`` px tile: alpha float32 SxS with rounded corners (anti-aliased); bevel a
    float32 SxS shading offset (+ towards the top-left edges, - towards the bottom-right)."""
    ss = 4
    big = np.zeros((size * ss, size * ss), np.uint8)
    r = int(corner_frac * size * ss)
    n = size * ss - 1
    cv2.rectangle(big, (r, 0), (n - r, n), 255, -1)
    cv2.rectangle(big, (0, r), (n, n - r), 255, -1)
    for cx, cy in ((r, r), (n - r, r), (r, n - r), (n - r, n - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    alpha = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    idx = (np.arange(size, dtype=np.float32) + 0.5) / size
    width = 0.07
    left = np.clip(1 - idx / width, 0, 1)
    right = np.clip(1 - (1 - idx) / width, 0, 1)
    bevel = (left[None, :] + left[:, None]) * 0.10 - (right[None, :] + right[:, None]) * 0.16
    return alpha, bevel.astype(np.float32)


@cache
def _wood_stock(size: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    return wood(rng, (size * 8, size * 8), (1.0, 1.0, 1.0), grain_px=size / 6, contrast=0.10)


def _ink_layer(ch: str, value: int | None, look: TileLook, size: int) -> np.ndarray:
    ink = np.zeros((size, size), np.float32)
    cap = look.letter_cap * size
    g = scaled_glyph(ch, look.font, cap)
    # keep the letter clear of the value digit: fit its ink (Q's tail, wide W) into the letter box
    box_right, box_bottom = (0.70 if value is not None and value >= 10 else 0.80) * size, 0.84 * size
    h_ink, w_ink = g.mask.shape
    x = look.letter_centre_x * size - w_ink / 2
    y = look.letter_baseline * size + g.y0
    fit = min(1.0, (box_right - 0.10 * size) / w_ink, (box_bottom - 0.12 * size) / max(1.0, y + h_ink - 0.12 * size))
    if fit < 1.0:
        g = scaled_glyph(ch, look.font, round(cap * fit, 1))
        h_ink, w_ink = g.mask.shape
        x = min(look.letter_centre_x * size - w_ink / 2, box_right - w_ink)
        y = look.letter_baseline * size + g.y0
    _blit(ink, g.mask, x, y)
    if value is not None:
        digits = str(value)
        right = look.digit_right * size
        dcap = look.digit_cap * size * (0.85 if len(digits) > 1 else 1.0)
        for d in reversed(digits):
            dg = scaled_glyph(d, look.font, dcap)
            right -= dg.advance
            _blit(ink, dg.mask, right, look.digit_baseline * size + dg.y0)
            right -= 0.02 * size
    return ink


@cache
def ink_mask(ch: str, value: int | None, style_key: tuple, size: int) -> np.ndarray:
    """Cached ink mask (float32 SxS, 0..1) of a face; ``style_key`` = the layout fields of the look."""
    font, cap, dcap, cx, base, dr, db = style_key
    look = TileLook("", (0, 0, 0), (0, 0, 0), 0, font, cap, dcap, cx, base, dr, db)
    return _ink_layer(ch, value, look, size)


def _blit(dst: np.ndarray, src: np.ndarray, x: float, y: float) -> None:
    """Max-combine ``src`` into ``dst`` at sub-pixel position (x, y) of its top-left (clipped at the edges)."""
    h, w = src.shape
    M = np.array([[1, 0, x - int(np.floor(x))], [0, 1, y - int(np.floor(y))]], np.float32)
    shifted = cv2.warpAffine(src, M, (w + 1, h + 1), flags=cv2.INTER_LINEAR)
    x0, y0 = int(np.floor(x)), int(np.floor(y))
    sx0, sy0 = max(0, -x0), max(0, -y0)
    dx0, dy0 = max(0, x0), max(0, y0)
    dx1, dy1 = min(dst.shape[1], x0 + w + 1), min(dst.shape[0], y0 + h + 1)
    if dx1 <= dx0 or dy1 <= dy0:
        return
    region = shifted[sy0:sy0 + dy1 - dy0, sx0:sx0 + dx1 - dx0]
    np.maximum(dst[dy0:dy1, dx0:dx1], region, out=dst[dy0:dy1, dx0:dx1])


@lru_cache(maxsize=800)
def tile_face(glyph: str | None, value: int | None, look: TileLook, size: int, variant: int) -> np.ndarray:
    """One tile's face (float32 SxSx4: premultiplied BGR 0..255 and alpha 0..1), top-down, upright (cached).

    ``glyph`` None = a blank tile (no letter, no digit); ``value`` None = no digit; ``variant`` picks the
    grain or surface speckle (tiles of one letter are not all identical). Treat the result as read-only.
    """
    rng = np.random.default_rng([variant, size])
    alpha, bevel = face_shape(size)
    if look.style == "wooden":
        stock = _wood_stock(size)
        y, x = rng.integers(0, stock.shape[0] - size, 2)
        base = stock[y:y + size, x:x + size] * np.asarray(look.face, np.float32)
        if rng.random() < 0.5:
            base = base.transpose(1, 0, 2)
    else:
        speck = 1.0 + 0.015 * smooth_noise(rng, (size, size), (size // 3, size // 3))
        base = np.asarray(look.face, np.float32)[None, None, :] * speck[:, :, None]
    shade = 1.0 + bevel * (1.0 + 4 * look.gloss)
    rgb = base * shade[:, :, None]
    if glyph is not None:
        key = (look.font, look.letter_cap, look.digit_cap, look.letter_centre_x, look.letter_baseline,
               look.digit_right, look.digit_baseline)
        ink = ink_mask(glyph, value, key, size)[:, :, None]
        rgb = rgb * (1 - ink) + np.asarray(look.ink, np.float32) * ink
    out = np.empty((size, size, 4), np.float32)
    out[:, :, :3] = np.clip(rgb, 0, 255) * alpha[:, :, None]
    out[:, :, 3] = alpha
    out.setflags(write=False)
    return out
