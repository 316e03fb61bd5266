"""Letter and digit shapes for tile faces, as anti-aliased ink masks.

Built-in fonts (:data:`FONTS`): ``"sans"`` is pygame's bundled FreeSans Bold (GPL with font exception, shipped
inside pygame); the ``"hershey-*"`` fonts are OpenCV's built-in Hershey vector fonts. Hershey fonts have no
umlauts, so Ä, Ö, Ü are drawn as the base letter with two dots. System faces (:mod:`kiosk.vision.synth.fonts`:
TrueType / OpenType files of Debian font packages, split into training and held-out faces) are drawn live by
pygame from their file when it is installed.

The drawn shapes depend on the library versions: OpenCV 5 draws its ``FONT_HERSHEY_*`` faces with a TrueType
font, OpenCV 4 with the Hershey strokes, and apt's pygame 2.1 rasterises FreeSans a little differently from
PyPI's. The reader's networks were trained on frames drawn with OpenCV 5 and PyPI's pygame, so the glyphs of
every tile letter and digit are shipped as drawn there (``glyph_atlas.npz``, made by :func:`write_atlas`) and a
frame is the same on every stack; only a character outside the atlas, or a system face, is drawn live (a
system face's glyphs may differ slightly between pygame builds: PyPI's wheels bundle their own FreeType).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from kiosk.files import replacing
from kiosk.vision.synth.fonts import BY_NAME, font_file

FONTS = ("sans", "hershey-simplex", "hershey-duplex", "hershey-triplex", "hershey-complex")
_HERSHEY = {
    "hershey-simplex": (cv2.FONT_HERSHEY_SIMPLEX, 0.085),
    "hershey-duplex": (cv2.FONT_HERSHEY_DUPLEX, 0.065),
    "hershey-triplex": (cv2.FONT_HERSHEY_TRIPLEX, 0.055),
    "hershey-complex": (cv2.FONT_HERSHEY_COMPLEX, 0.05),
}
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame is imported lazily, for its font only
_REF_PX = 160  # reference cap height at which glyphs are drawn before scaling
_UMLAUTS = {"Ä": "A", "Ö": "O", "Ü": "U"}


@dataclass(frozen=True)
class Glyph:
    """An ink mask (float32 HxW, 0..1) and where it sits: ``(x0, y0)`` of its top-left relative to the pen
    origin on the baseline, at cap height ``cap_px``; ``advance`` is its ink width (px)."""

    mask: np.ndarray
    x0: float
    y0: float
    cap_px: float

    @property
    def advance(self) -> float:
        return float(self.mask.shape[1])


def _crop(mask: np.ndarray, origin: tuple[int, int]) -> tuple[np.ndarray, float, float]:
    ys, xs = np.nonzero(mask > 0.02)
    if len(xs) == 0:
        raise ValueError("glyph has no ink")
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    return mask[y0:y1, x0:x1], float(x0 - origin[0]), float(y0 - origin[1])


@lru_cache(maxsize=64)
def _pygame_font(px: int, path: str | None = None):  # noqa: ANN202 - pygame type
    """pygame's font at ``px``: the file ``path``, or pygame's bundled FreeSans Bold when None."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    if not pygame.font.get_init():
        pygame.font.init()
    if path is None:
        path = os.path.join(os.path.dirname(pygame.__file__), "freesansbold.ttf")
    return pygame.font.Font(path, px)


def _render_sans(ch: str) -> tuple[np.ndarray, float, float, float]:
    import pygame

    font = _pygame_font(int(_REF_PX * 1.4))
    if font.metrics(ch)[0] is None:
        raise ValueError(f"font sans (pygame's FreeSans Bold): has no glyph for {ch!r}")
    surf = font.render(ch, True, (255, 255, 255), (0, 0, 0))
    arr = pygame.surfarray.array3d(surf)[:, :, 0].T.astype(np.float32) / 255.0  # H x W
    baseline = font.get_ascent()
    mask, x0, y0 = _crop(arr, (0, baseline))
    href = font.render("H", True, (255, 255, 255), (0, 0, 0))
    harr = pygame.surfarray.array3d(href)[:, :, 0].T
    ys = np.nonzero(harr.max(1) > 5)[0]
    cap = float(ys.max() - ys.min() + 1)
    return mask, x0, y0, cap


def _render_face(ch: str, path: str) -> tuple[np.ndarray, float, float, float]:
    """A system face's glyph, placed on the baseline of a capital H drawn on the same line: a face whose
    ascent (its metrics) is below an umlaut's dots gets its line shifted by SDL_ttf, so the ascent cannot
    serve as the baseline."""
    import pygame

    font = _pygame_font(int(_REF_PX * 1.4), path)
    if font.metrics(ch)[0] is None:
        raise ValueError(f"font {path}: has no glyph for {ch!r}")
    surf = font.render("H  " + ch, True, (255, 255, 255), (0, 0, 0))
    arr = pygame.surfarray.array3d(surf)[:, :, 0].T.astype(np.float32) / 255.0  # H x W
    h_cols = arr[:, :font.size("H")[0]]
    rows = np.nonzero(h_cols.max(1) > 0.5)[0]
    baseline, cap = int(rows.max()) + 1, float(rows.max() - rows.min() + 1)
    start = font.size("H ")[0]   # the glyph's ink lies right of H and a space (a negative bearing stays clear)
    mask, x0, y0 = _crop(arr[:, start:], (0, baseline))
    return mask, x0, y0, cap


def _render_hershey(ch: str, font: str) -> tuple[np.ndarray, float, float, float]:
    face, thick_frac = _HERSHEY[font]
    scale = _REF_PX / 22.0  # Hershey cap height is ~22 units at scale 1... measured below anyway
    thick = max(1, int(round(_REF_PX * thick_frac)))
    base = _UMLAUTS.get(ch, ch)
    (tw, th), _ = cv2.getTextSize("H", face, scale, thick)
    canvas = np.zeros((int(_REF_PX * 2.4), int(_REF_PX * 2.4)), np.uint8)
    org = (int(_REF_PX * 0.5), int(_REF_PX * 1.8))
    cv2.putText(canvas, base, org, face, scale, 255, thick, cv2.LINE_AA)
    href = np.zeros_like(canvas)
    cv2.putText(href, "H", org, face, scale, 255, thick, cv2.LINE_AA)
    ys = np.nonzero(href.max(1) > 5)[0]
    cap = float(ys.max() - ys.min() + 1)
    if base != ch:  # umlaut dots above the letter
        xs = np.nonzero(canvas.max(0) > 5)[0]
        cx, w = (xs.min() + xs.max()) / 2, xs.max() - xs.min()
        top = ys.min()
        r = max(2, int(thick * 0.8))
        for dx in (-0.22 * w, 0.22 * w):
            cv2.circle(canvas, (int(cx + dx), int(top - 0.22 * cap)), r, 255, -1, cv2.LINE_AA)
    mask, x0, y0 = _crop(canvas.astype(np.float32) / 255.0, org)
    return mask, x0, y0, cap


ATLAS_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ0123456789"  # the letters of every tile set, and the values' digits
_ATLAS = "glyph_atlas.npz"


def render_reference_glyph(ch: str, font: str) -> Glyph:
    """The glyph of ``ch`` in ``font`` (a built-in font of :data:`FONTS` or a system face of
    :mod:`kiosk.vision.synth.fonts`) at the reference size, drawn by the installed OpenCV / pygame.

    Raises:
        ValueError: unknown font name, or the face has no glyph for ``ch``.
        FontMissing: a system face whose file is not installed (a ValueError too).
    """
    if font == "sans":
        mask, x0, y0, cap = _render_sans(ch)
    elif font in _HERSHEY:
        mask, x0, y0, cap = _render_hershey(ch, font)
    elif font in BY_NAME:
        mask, x0, y0, cap = _render_face(ch, font_file(font))
    else:
        raise ValueError(f"unknown tile font {font!r} (known: {', '.join(FONTS + tuple(BY_NAME))})")
    return Glyph(mask, x0, y0, cap)


def write_atlas(path: str | Path) -> None:
    """Write the glyphs of :data:`ATLAS_CHARS` in every font of :data:`FONTS`, as drawn by the installed OpenCV
    and pygame, to ``path`` (.npz: uint8 masks, lossless, and a JSON index of their placement)."""
    arrays: dict[str, np.ndarray] = {}
    index: list[list[str | float]] = []
    for font in FONTS:
        for ch in ATLAS_CHARS:
            g = render_reference_glyph(ch, font)
            arrays[f"m{len(index)}"] = np.round(g.mask * 255).astype(np.uint8)
            index.append([font, ch, g.x0, g.y0, g.cap_px])
    arrays["index"] = np.frombuffer(json.dumps(index).encode(), np.uint8)
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]  # numpy 2 stubs take **kwds as allow_pickle


@cache
def _atlas() -> dict[tuple[str, str], Glyph]:
    with resources.files(__package__).joinpath(_ATLAS).open("rb") as f, np.load(f) as z:
        index = json.loads(z["index"].tobytes())
        return {(font, ch): Glyph(z[f"m{i}"].astype(np.float32) / 255.0, x0, y0, cap)
                for i, (font, ch, x0, y0, cap) in enumerate(index)}


@lru_cache(maxsize=len(ATLAS_CHARS) * 48)
def reference_glyph(ch: str, font: str) -> Glyph:
    """The glyph of ``ch`` in ``font`` at the reference size (cached): the shipped one for a built-in font's
    character of :data:`ATLAS_CHARS`, else drawn live (:func:`render_reference_glyph`; system faces are
    always drawn live, from their installed file). The cache holds the glyphs of the last 48 faces or so: with
    hundreds of faces an unbounded one filled the memory of each renderer process.

    Raises:
        ValueError: unknown font name.
        FontMissing: a system face whose file is not installed (a ValueError too).
    """
    if font not in FONTS:
        return render_reference_glyph(ch, font)
    shipped = _atlas().get((font, ch))
    return shipped if shipped is not None else render_reference_glyph(ch, font)


@lru_cache(maxsize=8192)
def scaled_glyph(ch: str, font: str, cap_px: float) -> Glyph:
    """The glyph of ``ch`` scaled so that a capital H is ``cap_px`` tall (cached, the last 8192; float32 mask
    0..1)."""
    g = reference_glyph(ch, font)
    s = cap_px / g.cap_px
    h, w = g.mask.shape
    nh, nw = max(1, int(round(h * s))), max(1, int(round(w * s)))
    mask = cv2.resize(g.mask, (nw, nh), interpolation=cv2.INTER_AREA)
    return Glyph(np.clip(mask, 0, 1), g.x0 * s, g.y0 * s, cap_px)
