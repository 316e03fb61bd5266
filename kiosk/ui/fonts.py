"""The touchscreen's text: a chain of wide-coverage faces, each character drawn with the first face that has it.

pygame's bundled face (freesansbold, subset in PyPI's wheel) draws Vietnamese ễ, Yoruba Ọ, Greek, Cyrillic,
Hebrew, Arabic, Thai or CJK as empty boxes. :func:`face_paths` finds, in order, DejaVu Sans (Debian's
``fonts-dejavu-core``: Latin with Vietnamese and Yoruba, Greek, Cyrillic, Hebrew, Arabic), Noto Sans and its
per-script faces (``fonts-noto-core``: Thai, Devanagari and the other Indic scripts, Armenian, Georgian,
Ethiopic, ...) and WenQuanYi Micro Hei (``fonts-wqy-microhei``: Chinese, Japanese, Korean), at Debian's paths
or wherever fontconfig has them; pygame's bundled face comes last, so the screen works with none installed.

:class:`TextFont` measures and renders a line as runs, each run in the first face of the chain that has
every character of it (a combining mark stays with its base). Apt's pygame 2.1 (the Raspberry Pi's) has no
right-to-left shaping: Arabic letters take their joined forms here (:func:`kiosk.ui.arabic.join_forms`),
right-to-left runs (Hebrew, Arabic) are put in visual order (:func:`visual_order`, a small bidi), and Indic
vowel signs are not reordered (drawn as typed).
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

import pygame

from kiosk.ui.arabic import join_forms

log = logging.getLogger("kiosk.ui")

DEFAULT_SCALE = 0.6875
"""pygame draws its bundled face at this fraction of the size asked for; the other faces are drawn at it too,
so a design size keeps the same height whichever face draws it."""

_TT = "/usr/share/fonts/truetype"
KNOWN_FACES: tuple[tuple[str, str], ...] = (
    ("DejaVu Sans:style=Book", f"{_TT}/dejavu/DejaVuSans.ttf"),
    ("Noto Sans:style=Regular", f"{_TT}/noto/NotoSans-Regular.ttf"),
    ("WenQuanYi Micro Hei", f"{_TT}/wqy/wqy-microhei.ttc"),
)
"""(fontconfig pattern, Debian's path) of the main faces, in order of preference."""
NOTO_DIR = f"{_TT}/noto"
"""Noto's per-script faces (``NotoSans<Script>-Regular.ttf``), tried after the main faces."""


def _fc_match(pattern: str) -> str | None:
    """The file fontconfig gives for ``pattern`` if it is that family (fc-match always answers something)."""
    if shutil.which("fc-match") is None:
        return None
    try:
        out = subprocess.run(["fc-match", "-f", "%{family}\n%{file}", pattern], capture_output=True, text=True,
                             timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    family, _, path = out.partition("\n")
    wanted = pattern.split(":", 1)[0]
    return path if wanted in family.split(",") and Path(path).is_file() else None


@lru_cache(maxsize=1)
def face_paths() -> tuple[str, ...]:
    """The installed faces of the chain, most preferred first (pygame's bundled face is not in it)."""
    paths: list[str] = []
    for pattern, known in KNOWN_FACES:
        path = known if Path(known).is_file() else _fc_match(pattern)
        if path and path not in paths:
            paths.append(path)
    noto = Path(NOTO_DIR)
    if noto.is_dir():
        paths += [str(p) for p in sorted(noto.glob("NotoSans?*-Regular.ttf")) if str(p) not in paths]
    if not paths:
        log.warning("no wide-coverage font installed (fonts-dejavu-core): names outside basic Latin show as "
                    "boxes")
    return tuple(paths)


@cache
def _coverage_face(path: str | None) -> object | None:
    """A pygame.freetype face of ``path`` (None: the bundled face) for coverage checks, or None."""
    try:
        import pygame.freetype as ft

        if not ft.get_init():
            ft.init()
        return ft.Font(path, 12)
    except (ImportError, OSError, pygame.error):
        return None


@lru_cache(maxsize=65536)
def has_glyph(path: str | None, ch: str) -> bool:
    """Whether the face at ``path`` (None: pygame's bundled face) has a glyph for the character ``ch``."""
    face = _coverage_face(path)
    if face is not None:
        return face.get_metrics(ch)[0] is not None  # type: ignore[attr-defined]
    f = face_font(path, 24)  # no freetype module: compare with the face's missing-glyph box
    return _raster(f, ch) != _raster(f, "\uffff")


def _raster(f: pygame.font.Font, text: str) -> bytes:
    return pygame.image.tostring(f.render(text, True, (255, 255, 255), (0, 0, 0)), "RGB")


@lru_cache(maxsize=512)
def face_font(path: str | None, px: int) -> pygame.font.Font:
    """The pygame font of the face at ``path`` (None: pygame's bundled face) for ``px`` design pixels (cached)."""
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(path, px if path is None else max(4, round(px * DEFAULT_SCALE)))


def _clusters(text: str) -> list[str]:
    """``text`` split into a base character with its combining marks (and joiners) each."""
    out: list[str] = []
    for ch in text:
        if out and (unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf")):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _direction(ch: str) -> str:
    """"R" (right-to-left letter), "L" (left-to-right letter), "N" (digit: left to right inside a right-to-left
    run) or " " (neutral: takes its neighbours' direction)."""
    kind = unicodedata.bidirectional(ch)
    if kind in ("R", "AL"):
        return "R"
    if kind == "L":
        return "L"
    return "N" if kind in ("EN", "AN") else " "


def visual_order(text: str) -> str:
    """``text`` (logical order) in the order to draw it left to right: right-to-left runs (Hebrew, Arabic)
    reversed by clusters, digits inside them kept left to right, neutrals between two right-to-left letters
    joining the run; a line starting with a right-to-left letter is right-to-left as a whole."""
    clusters = _clusters(text)
    dirs = [_direction(c[0]) for c in clusters]
    if "R" not in dirs:
        return text
    strong = [d for d in dirs if d in "LR"]
    base = strong[0] if strong else "L"
    levels = _levels(dirs, base)
    top = max(levels)
    for level in range(top, 0, -1):  # UAX 9 rule L2: reverse every run at this level or higher
        i = 0
        while i < len(clusters):
            if levels[i] < level:
                i += 1
                continue
            j = i
            while j < len(clusters) and levels[j] >= level:
                j += 1
            clusters[i:j], levels[i:j] = clusters[i:j][::-1], levels[i:j][::-1]
            i = j
    return "".join(clusters)


def _levels(dirs: list[str], base: str) -> list[int]:
    """Embedding levels (0 left to right, 1 right to left, 2 digits or Latin inside a right-to-left line)."""
    b = 1 if base == "R" else 0
    out: list[int] = []
    prev_strong = base
    for d in dirs:
        if d == "R":
            out.append(1)
            prev_strong = "R"
        elif d == "L":
            out.append(2 if b else 0)
            prev_strong = "L"
        elif d == "N":
            out.append(2 if prev_strong == "R" or b else 0)
        else:
            out.append(-1)
    for i, lv in enumerate(out):  # neutrals: their neighbours' direction when both agree, else the line's
        if lv >= 0:
            continue
        left = next((out[k] for k in range(i - 1, -1, -1) if out[k] >= 0), b)
        right = next((out[k] for k in range(i + 1, len(out)) if out[k] >= 0), b)
        odd = left % 2 if left % 2 == right % 2 else b
        out[i] = 1 if odd else (2 if b else 0)
    return out


@lru_cache(maxsize=16384)
def _face_for(paths: tuple[str | None, ...], cluster: str) -> str | None:
    for path in paths[:-1]:
        if all(has_glyph(path, ch) for ch in cluster if unicodedata.category(ch) != "Cf"):
            return path
    return None


@lru_cache(maxsize=4096)
def _runs(paths: tuple[str | None, ...], text: str) -> tuple[tuple[str | None, str], ...]:
    """(face path, characters) runs of ``text`` in drawing order, for the chain ``paths`` (cached: the screen
    measures the same lines every frame)."""
    out: list[tuple[str | None, str]] = []
    for cluster in _clusters(visual_order(join_forms(unicodedata.normalize("NFC", text)))):
        path = _face_for(paths, cluster)
        if out and out[-1][0] == path:
            out[-1] = (path, out[-1][1] + cluster)
        else:
            out.append((path, cluster))
    return tuple(out)


class TextFont:
    """One size of the chain: measures and renders a line like ``pygame.font.Font`` (``size``, ``render``,
    ``get_linesize``, ``get_height``), each run of characters in the first face that has them all.

    ``px``: the design size in pixels (pygame's ``Font(None, px)`` size); ``paths``: the faces to try before
    pygame's bundled face (default: :func:`face_paths`).
    """

    def __init__(self, px: int, paths: tuple[str, ...] | None = None) -> None:
        self.px = px
        self.paths: tuple[str | None, ...] = (*(face_paths() if paths is None else paths), None)
        self._primary = face_font(self.paths[0], px)
        self._sizes: dict[str, tuple[int, int]] = {}

    def face_for(self, cluster: str) -> str | None:
        """The first face of the chain with every character of ``cluster`` (the last, bundled, face if none)."""
        return _face_for(self.paths, cluster)

    def runs(self, text: str) -> list[tuple[str | None, str]]:
        """``text`` in drawing order as (face path, characters) runs."""
        return list(_runs(self.paths, text))

    def _fonts(self, runs: list[tuple[str | None, str]]) -> list[pygame.font.Font]:
        return [face_font(path, self.px) for path, _ in runs]

    def size(self, text: str) -> tuple[int, int]:
        """(width, height) px of ``text`` drawn on one line (cached)."""
        got = self._sizes.get(text)
        if got is None:
            if len(self._sizes) > 2048:
                self._sizes.clear()
            got = self._sizes[text] = self._measure(text)
        return got

    def _measure(self, text: str) -> tuple[int, int]:
        runs = self.runs(text)
        fonts = self._fonts(runs)
        if not runs:
            return 0, self._primary.get_height()
        ascent = max(f.get_ascent() for f in fonts)
        descent = max(f.get_height() - f.get_ascent() for f in fonts)
        return sum(f.size(t)[0] for f, (_, t) in zip(fonts, runs)), ascent + descent

    def render(self, text: str, antialias: bool, color: tuple[int, int, int]) -> pygame.Surface:
        """``text`` drawn in ``color`` on a transparent surface, runs on one baseline."""
        runs = self.runs(text)
        fonts = self._fonts(runs)
        w, h = self.size(text)
        img = pygame.Surface((max(1, w), h), pygame.SRCALPHA)
        ascent = max((f.get_ascent() for f in fonts), default=0)
        x = 0
        for f, (_, part) in zip(fonts, runs):
            piece = f.render(part, antialias, color)
            img.blit(piece, (x, ascent - f.get_ascent()))
            x += piece.get_width()
        return img

    def get_linesize(self) -> int:
        """The primary face's line spacing, px."""
        return int(self._primary.get_linesize())

    def get_height(self) -> int:
        """The primary face's height, px."""
        return int(self._primary.get_height())
