"""Accuracy of a board reader on synthetic frames: positions of real games -> rendered frames -> readings ->
the figures of the vision issue, a confusion matrix and annotated samples of the errors.

Scoring (per frame, squares a hand covers are left out of the tile figures):

* occupancy: a square is right when it is read empty iff it is empty, ``#`` (unsure) counting as not empty:
  the vision issue's definition as ``../shared/checks/measure.py`` applies it to the real photos. ``#`` on an
  empty square is a miss; ``#`` on a tile is a doubt about that tile, counted against the letter, blank and
  whole-board figures (and in the next line);
* occupancy, sure: the stricter count where ``#`` is a miss on any square (a tile read ``#`` too);
* letter accuracy: lettered tiles read as their letter;
* blank accuracy: blank tiles read as ``?``;
* whole board: every uncovered square exactly right, covered squares right or ``#``;
* unsure share of errors: among tiles read wrong, the share read ``#`` (doubt) rather than a wrong
  letter, ``?`` or empty;
* silent tile errors: tiles read wrong without doubt (a wrong letter, ``?`` or empty), in percent of all tiles.

Fonts (:func:`level_params`): the level's own (the renderer's built-in fonts, all trained on), or the system
faces of one role of :mod:`kiosk.vision.synth.fonts`: ``held-out`` faces were never drawn on a training frame,
so their figures are the ones that count for an unfamiliar tile set (:data:`FONT_BARS`); ``held-out-2`` is a
second held-out batch, never drawn before the lead's one measurement; ``validation`` faces were never trained
on either, and are where the reader's confidence rules are chosen. With system faces the figures are also
given per face (:attr:`Tally.by_face`).
"""

from __future__ import annotations

import glob
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from kiosk.rules.board import SIZE, Board
from kiosk.rules.tiles import ENGLISH, GERMAN, TileSet
from kiosk.vision.images import write_image
from kiosk.vision.synth import fonts as font_table
from kiosk.vision.synth.levels import HELD_OUT_BIT, RealismParams

if TYPE_CHECKING:
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.synth.render import SyntheticFrame

UNSURE = "#"


@dataclass(frozen=True)
class Sample:
    """One position to render: the board, its tile set, where it came from (file name and move index)."""

    board: Board
    tile_set: TileSet
    source: str


def corpus_files(shared_dir: str | Path) -> tuple[Path, list[str]]:
    """The corpus folder ``shared_dir``/corpus/gcg and its game files (real, then selfplay; sorted).

    Raises:
        FileNotFoundError: there is no GCG file there.
    """
    root = Path(shared_dir) / "corpus" / "gcg"
    files = sorted(glob.glob(str(root / "real" / "*.gcg"))) + sorted(glob.glob(str(root / "selfplay" / "*.gcg")))
    if not files:
        raise FileNotFoundError(f"no GCG games under {root}/real or {root}/selfplay")
    return root, files


def corpus_samples(shared_dir: str | Path, n: int, seed: int = 0, tile_sets: tuple[str, ...] = ("english", "german")
                   ) -> list[Sample]:
    """``n`` positions drawn (seeded, without replacement) from every game in ``shared_dir``/corpus/gcg/real and
    selfplay (the board after each move), German games with the German tile set; ``tile_sets`` limits the
    games to those sets.

    Raises:
        FileNotFoundError: the corpus folder is missing or holds no usable game.
    """
    from kiosk.rules.replay import game_positions

    root, files = corpus_files(shared_dir)
    pool: list[Sample] = []
    for f in files:
        try:
            boards = game_positions(f)
        except Exception:  # noqa: BLE001 - a broken record only loses its positions
            continue
        ts = game_tile_set(boards)
        for i, b in enumerate(boards):
            if ts is not None and ts.name in tile_sets and b.tiles_on_board:
                pool.append(Sample(b, ts, f"{os.path.basename(f)}#{i + 1}"))
    if not pool:
        raise FileNotFoundError(f"no usable positions in the games under {root}")
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
    return [pool[int(i)] for i in idx]


def game_tile_set(boards: list[Board]) -> TileSet | None:
    """A game's tile set, from every letter it lays: English when they are all English letters, else German when
    they are all German ones, else None (a German game's boards before its first umlaut are German too: read with
    the English set, its second K was more than that set holds)."""
    letters = {c.upper() for b in boards for c in b.cells if c}
    return ENGLISH if letters <= set(ENGLISH.values) else GERMAN if letters <= set(GERMAN.values) else None


@dataclass
class FrameResult:
    """Truth vs reading of one frame (grids of 15 strings) plus what was drawn (``meta`` of the frame)."""

    index: int
    truth: list[str]
    read: list[str]
    occluded: set[int]
    meta: dict
    verdict: str = "ok"
    read_ms: float = 0.0

    def wrong_squares(self) -> list[int]:
        """Squares read differently from the truth (covered squares read ``#`` are not wrong)."""
        out = []
        for sq in range(SIZE * SIZE):
            t, r = self.truth[sq // SIZE][sq % SIZE], self.read[sq // SIZE][sq % SIZE]
            if t != r and not (sq in self.occluded and r == UNSURE):
                out.append(sq)
        return out


@dataclass
class FaceTally:
    """Running totals of one tile font (a frame's ``meta["font"]``): frames drawn in it, lettered tiles and
    those read right, all uncovered tiles and those read wrong without doubt (a wrong letter, ``?`` or empty)."""

    frames: int = 0
    letters: int = 0
    letters_right: int = 0
    tiles: int = 0
    silent: int = 0

    def line(self, name: str) -> str:
        """One printed line: ``NAME: F frames, letters R/L (P%), silent S of T tiles (Q%)``."""
        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:.2f}%" if b else "n/a"
        return (f"{name}: {self.frames} frames, letters {self.letters_right}/{self.letters} "
                f"({pct(self.letters_right, self.letters)}), read wrong silently {self.silent} of {self.tiles} "
                f"tiles ({pct(self.silent, self.tiles)})")


@dataclass
class Tally:
    """Running totals over frames (see the module doc for the definitions)."""

    frames: int = 0
    exact: int = 0
    squares: int = 0
    occupancy_right: int = 0
    occupancy_sure_right: int = 0
    letters: int = 0
    letters_right: int = 0
    blanks: int = 0
    blanks_right: int = 0
    tile_errors: int = 0
    tile_errors_unsure: int = 0
    empty_read_unsure: int = 0
    not_ok_frames: int = 0
    confusion: Counter = field(default_factory=Counter)     # (truth char, read char) -> count
    by_key: dict = field(default_factory=dict)              # "tile_style=wooden" -> [tiles, right]
    error_causes: Counter = field(default_factory=Counter)
    read_ms: list = field(default_factory=list)
    verdicts: Counter = field(default_factory=Counter)      # "verdict (hand drawn: yes/no)" -> frames
    by_face: dict = field(default_factory=dict)             # font name -> FaceTally

    def add(self, fr: FrameResult) -> None:
        """Add one frame's result."""
        self.frames += 1
        self.read_ms.append(fr.read_ms)
        verdict = re.sub(r"\d+", "N", fr.verdict)[:90]  # group "shapes (42,388)" and "(93,388)" together
        self.verdicts[f"{verdict} (hand drawn: {'yes' if fr.meta.get('hand') else 'no'})"] += 1
        if fr.verdict != "ok":
            self.not_ok_frames += 1
        exact = True
        turned = {int(k) for k in fr.meta.get("turned_tiles", {})}
        keys = [f"{k}={fr.meta.get(k)}" for k in ("tile_style", "font", "board_style")]
        face = self.by_face.setdefault(str(fr.meta.get("font")), FaceTally())
        face.frames += 1
        for sq in range(SIZE * SIZE):
            t, r = fr.truth[sq // SIZE][sq % SIZE], fr.read[sq // SIZE][sq % SIZE]
            covered = sq in fr.occluded
            if t != r and not (covered and r == UNSURE):
                exact = False
            if covered:
                continue
            self.confusion[(t, r)] += 1
            self.squares += 1
            self.occupancy_right += (t == ".") == (r == ".")
            self.occupancy_sure_right += (t == ".") == (r == ".") and r != UNSURE
            if t == "." and r == UNSURE:
                self.empty_read_unsure += 1
            if t == ".":
                continue
            if t == "?":
                self.blanks += 1
                self.blanks_right += r == "?"
            else:
                self.letters += 1
                self.letters_right += r == t
                face.letters += 1
                face.letters_right += r == t
            face.tiles += 1
            face.silent += r != t and r != UNSURE
            for k in keys:
                tot = self.by_key.setdefault(k, [0, 0])
                tot[0] += 1
                tot[1] += r == t
            if r != t:
                self.tile_errors += 1
                self.tile_errors_unsure += r == UNSURE
                causes = []
                if sq in turned:
                    causes.append("turned tile")
                if _under_glare(sq, fr.meta.get("glare", [])):
                    causes.append("glare on the square")
                if fr.meta.get("motion_blur"):
                    causes.append("motion blur")
                if fr.meta.get("hand"):
                    causes.append("hand in frame")
                if fr.meta.get("shadow"):
                    causes.append("body shadow")
                self.error_causes[", ".join(causes) or "no special effect"] += 1
        self.exact += exact

    def figures(self) -> dict[str, float]:
        """The issue's figures in percent (NaN where there is nothing to count)."""
        def pct(a: int, b: int) -> float:
            return 100.0 * a / b if b else float("nan")
        return {
            "occupancy": pct(self.occupancy_right, self.squares),
            "occupancy_sure": pct(self.occupancy_sure_right, self.squares),
            "letters": pct(self.letters_right, self.letters),
            "blanks": pct(self.blanks_right, self.blanks),
            "exact_boards": pct(self.exact, self.frames),
            "unsure_share_of_errors": pct(self.tile_errors_unsure, self.tile_errors),
            "silent_tile_errors": pct(self.tile_errors - self.tile_errors_unsure, self.letters + self.blanks),
        }


def _under_glare(sq: int, spots: list[dict], cell_mm: float = 19.05) -> bool:
    """True when square ``sq`` lies within 2 s.d. of a glare spot (see the frame's ``meta["glare"]``)."""
    cx, cy = (sq % SIZE + 0.5) * cell_mm, (sq // SIZE + 0.5) * cell_mm
    return any(math.hypot(cx - g["centre_mm"][0], cy - g["centre_mm"][1]) < 2 * g.get("radius_mm", 10.0) + cell_mm / 2
               for g in spots)


BARS = {"typical": {"occupancy": 100.0, "letters": 99.9, "blanks": 99.5, "exact_boards": 98.0},
        "hard": {"unsure_share_of_errors": 90.0}}
"""Floors (percent) of the first vision issue, on the level's own (trained) fonts."""

FONT_BARS = {"typical": {"letters": 99.5}, "hard": {"unsure_share_of_errors": 95.0}}
"""Floors (percent) on fonts held out of training (vision issue 22)."""

FONT_CEILINGS = {"typical": {"silent_tile_errors": 0.1}}
"""Ceilings (percent) on fonts held out of training (vision issue 22)."""

FONT_CHOICES = ("level", *font_table.ROLES)
"""``fonts`` for :func:`level_params`: ``level`` (the level's own fonts) or a role of :mod:`kiosk.vision.synth.fonts`."""


def level_params(level: str, fonts: str = "level") -> str | RealismParams:
    """The realism level to render with: ``level`` itself for ``fonts="level"`` (its built-in fonts), else
    the level with its fonts replaced by the installed system faces of that role (``"training"``,
    ``"validation"``, ``"held-out"`` or ``"held-out-2"``, :mod:`kiosk.vision.synth.fonts`).

    Raises:
        ValueError: unknown ``fonts`` choice or level, or no face of that role is installed (the message
            names the Debian packages to install).
    """
    from kiosk.vision.synth.levels import get_level

    if fonts == "level":
        return level
    if fonts not in font_table.ROLES:
        raise ValueError(f"unknown font choice {fonts!r} (known: {', '.join(FONT_CHOICES)})")
    names = font_table.present(fonts)
    if not names:
        hint = font_table.install_hint([f for f in font_table.SYSTEM_FONTS if f.role == fonts])
        raise ValueError(f"no {fonts} font is installed ({hint})")
    return get_level(level).with_(fonts=names)


def check_faces(fonts: str) -> None:
    """Draw every letter and digit of the tile sets (:data:`kiosk.vision.synth.glyph_art.ATLAS_CHARS`) in each
    installed system face of role ``fonts`` (nothing for ``"level"``): a face file that is installed but broken
    or lacks a glyph fails here, before any frame, not in a frame worker. The glyphs stay cached.

    Raises:
        ValueError: a face that cannot be drawn (the message names the face, its file, its package and why).
    """
    from kiosk.vision.synth.glyph_art import ATLAS_CHARS, reference_glyph

    if fonts == "level":
        return
    for name in font_table.present(fonts):
        face = font_table.BY_NAME[name]
        try:
            for ch in ATLAS_CHARS:
                reference_glyph(ch, name)
        except Exception as exc:  # noqa: BLE001 - pygame's own errors too: named, never a traceback
            raise ValueError(f"the {fonts} face {name} ({face.path}, package {face.package}) cannot be drawn: "
                             f"{exc}; reinstall the package") from None


def confusion_png(tally: Tally, path: str | Path, title: str) -> None:
    """Write the confusion matrix (rows: truth, columns: reading; log-scaled colour, counts printed) as PNG."""
    truths = sorted({t for t, _ in tally.confusion}, key=_order)
    reads = sorted({r for _, r in tally.confusion} | set(truths), key=_order)
    cell, left, top = 26, 40, 70
    h, w = top + cell * len(truths) + 10, left + cell * len(reads) + 10
    img = np.full((h, w, 3), 255, np.uint8)
    cv2.putText(img, title, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(img, "rows: truth   columns: read   (# = unsure, ? = blank, . = empty)", (8, 42),
                cv2.FONT_HERSHEY_SIMPLEX, 0.4, (60, 60, 60), 1, cv2.LINE_AA)
    peak = max(tally.confusion.values(), default=1)
    for j, r in enumerate(reads):
        cv2.putText(img, r, (left + j * cell + 8, top - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    for i, t in enumerate(truths):
        y = top + i * cell
        cv2.putText(img, t, (12, y + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        for j, r in enumerate(reads):
            n = tally.confusion.get((t, r), 0)
            x = left + j * cell
            if n:
                level = np.log1p(n) / np.log1p(peak)
                colour = (255 - 150 * level, 255 - 60 * level, 255 - 150 * level) if t == r else \
                    ((90, 160, 255) if r == UNSURE else (60, 60, 230))
                cv2.rectangle(img, (x, y), (x + cell - 1, y + cell - 1), colour, -1)
                txt = str(n) if n < 1000 else f"{n // 1000}k"
                cv2.putText(img, txt, (x + 2, y + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.3, (0, 0, 0), 1, cv2.LINE_AA)
            cv2.rectangle(img, (x, y), (x + cell - 1, y + cell - 1), (220, 220, 220), 1)
    write_image(path, img, "confusion matrix")


def _order(ch: str) -> tuple[int, str]:
    return (0 if ch == "." else 2 if ch == "?" else 3 if ch == UNSURE else 1, ch)


def annotated_png(image: np.ndarray, grid_corners_px: np.ndarray, fr: FrameResult, path: str | Path,
                  cell_px: int = 64) -> None:
    """Write a top-down view of a frame (warped with the true grid corners) with wrong squares boxed: red =
    wrong reading, orange = unsure; each box labelled ``truth>read``. Left: the frame, small."""
    m = 12
    size = SIZE * cell_px + 2 * m
    dst = np.array([[m, m], [size - m, m], [size - m, size - m], [m, size - m]], np.float32)
    H = cv2.getPerspectiveTransform(np.asarray(grid_corners_px, np.float32), dst)
    top = cv2.warpPerspective(image, H, (size, size), flags=cv2.INTER_AREA)
    for sq in fr.wrong_squares():
        r, c = divmod(sq, SIZE)
        t, g = fr.truth[r][c], fr.read[r][c]
        colour = (0, 140, 255) if g == UNSURE else (0, 0, 255)
        x0, y0 = m + c * cell_px, m + r * cell_px
        cv2.rectangle(top, (x0 + 1, y0 + 1), (x0 + cell_px - 2, y0 + cell_px - 2), colour, 2)
        cv2.putText(top, f"{t}>{g}", (x0 + 3, y0 + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 3,
                    cv2.LINE_AA)
        cv2.putText(top, f"{t}>{g}", (x0 + 3, y0 + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    for sq in fr.occluded:
        r, c = divmod(sq, SIZE)
        x0, y0 = m + c * cell_px, m + r * cell_px
        cv2.line(top, (x0 + 4, y0 + cell_px - 4), (x0 + cell_px - 4, y0 + 4), (200, 200, 0), 1)
    small = cv2.resize(image, (int(image.shape[1] * size / image.shape[0]), size), interpolation=cv2.INTER_AREA)
    write_image(path, np.hstack([small, top]), "annotated frame")


# ---------------------------------------------------------------- running a reader over rendered frames

_READERS: dict[str, BoardReader] = {}  # one BoardReader per tile set, per process


def max_workers() -> int:
    """The most worker processes a benchmark or trainer starts: 4 per core, at least 4. More only crowd the
    machine (a tester's ``--workers 999999`` started that many processes for one frame)."""
    import os

    return max(4, 4 * (os.cpu_count() or 1))


def frame_seed(level: str, index: int, seed: int) -> int:
    """The render seed (also the scene seed) of frame ``index`` of a benchmark run. Always >= 2**30: models
    trained on synthetic frames must use seeds below 2**30 so the benchmark measures unseen scenes."""
    return ((seed * 1_000_003 + index * 7919 + {"easy": 1, "typical": 2, "hard": 3}.get(level, 4)) % HELD_OUT_BIT) \
        | HELD_OUT_BIT


def read_one(task: tuple) -> FrameResult:
    """Render one sample and read it with the project's ``BoardReader`` (one reader per process).

    ``task`` = (index, board cells, tile-set name, level, (w, h), seed[, fonts]); ``fonts`` (default
    ``"level"``) as in :func:`level_params`. A reader exception is recorded as an all-unsure reading with the
    verdict ``"reader raised ..."``, never propagated.
    """
    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision.synth.render import render_board

    index, cells, ts_name, level, size, seed = task[:6]
    fonts = task[6] if len(task) > 6 else "level"
    ts = load_tile_set(ts_name)
    if ts_name not in _READERS:
        from kiosk.vision.reader import BoardReader
        _READERS[ts_name] = BoardReader(ts)
    reader = _READERS[ts_name]
    reader.forget_board_pose()      # every sample is its own scene: its reading must not depend on the last one
    frame = render_board(Board(cells), seed=frame_seed(level, index, seed), level=level_params(level, fonts),
                         tile_set=ts, size=size)
    return read_frame(reader, frame, index)


def read_frame(reader: BoardReader, frame: SyntheticFrame, index: int, meta: dict | None = None) -> FrameResult:
    """Read rendered ``frame`` (benchmark frame ``index``) with ``reader``, timed: its :class:`FrameResult`, whose
    ``meta`` is the frame's (its camera left out) updated with ``meta``. A reader exception is recorded as an
    all-unsure reading with the verdict ``"reader raised ..."``, never propagated."""
    import time

    t0 = time.perf_counter()
    try:
        reading = reader.read(frame.image)
        grid, verdict = reading.grid(), reading.quality.verdict
    except Exception as exc:  # noqa: BLE001 - the benchmark reports reader crashes, it does not stop on them
        grid, verdict = [UNSURE * SIZE] * SIZE, f"reader raised {type(exc).__name__}: {exc}"
    ms = 1000 * (time.perf_counter() - t0)
    return unread_frame(frame, index, verdict, meta, list(grid), ms)


def unread_frame(frame: SyntheticFrame, index: int, verdict: str, meta: dict | None = None,
                 grid: list[str] | None = None, ms: float = 0.0) -> FrameResult:
    """The :class:`FrameResult` of rendered ``frame`` (benchmark frame ``index``) with ``verdict``: read as
    ``grid`` in ``ms``, by default not read at all (every square ``#``); its ``meta`` the frame's (its camera left
    out) updated with ``meta``."""
    info = {k: v for k, v in frame.meta.items() if k != "camera"} | (meta or {})
    return FrameResult(index, frame.truth, grid or [UNSURE * SIZE] * SIZE, set(frame.occluded), info, verdict, ms)


def contact_sheet(samples: list[Sample], level: str, seed: int, path: str | Path, size: tuple[int, int] = (2028, 1520),
                  columns: int = 3, thumb_w: int = 640, fonts: str = "level") -> None:
    """Write a PNG of the benchmark's first frames at ``level`` (thumbnails, each captioned with its styles;
    ``fonts`` as in :func:`level_params`)."""
    from kiosk.vision.synth.render import render_board

    thumbs = []
    params = level_params(level, fonts)
    for i, s in enumerate(samples):
        fr = render_board(s.board, seed=frame_seed(level, i, seed), level=params, tile_set=s.tile_set, size=size)
        t = cv2.resize(fr.image, (thumb_w, int(thumb_w * size[1] / size[0])), interpolation=cv2.INTER_AREA)
        m = fr.meta
        cap = f"{i}: {m['tile_style']}/{m['font']}/{m['board_style']}" + (" hand" if m.get("hand") else "") + \
            (" glare" if m.get("glare") else "") + (" motion" if m.get("motion_blur") else "")
        cv2.putText(t, cap, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 3, cv2.LINE_AA)
        cv2.putText(t, cap, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        thumbs.append(t)
    while len(thumbs) % columns:
        thumbs.append(np.zeros_like(thumbs[0]))
    rows = [np.hstack(thumbs[r:r + columns]) for r in range(0, len(thumbs), columns)]
    write_image(path, np.vstack(rows), "contact sheet")
