"""Build the reader's models: the shipped defaults (synthetic only), or a calibration profile for one installation.

    python -m kiosk.vision.train collect SAMPLES.npz [--synthetic 180]
    python -m kiosk.vision.train defaults SAMPLES.npz [--out kiosk/vision/models]
    python -m kiosk.vision.train squares SQUARES.npz [--english 600] [--german 400] [--workers 2]
    python -m kiosk.vision.train cnn SQUARES.npz [MORE.npz ...] [--epochs 8] [--out kiosk/vision/models]
    python -m kiosk.vision.train profile OUT.json --templates DIR [--game DIR ...] [--first 5]
                                         [--tiles german] [--synthetic 20]

``collect`` renders synthetic boards with :mod:`kiosk.vision.synth` (every board and tile style and font of
the renderer, English and German sets, seeds below 2**30: the benchmark's seeds are not used) and caches their
samples; ``defaults`` trains the shipped occupancy model (``occupancy.npz``) from such a cache and refuses a
cache holding anything but synthetic samples: the shipped models must not embed any photo material. (The reader
ships no glyph model: a calibration profile embeds its own, trained by ``profile``.)

``squares`` renders training boards (every style, font, English and German, "typical" and "hard", about 10%
of the tiles blanks, seeds below 2**30) and caches square crops with their labels and flags (hand over the
square, tile turned by the renderer); ``cnn`` trains the square network on such caches (needs the ``train``
extra: torch, onnx) and writes ``squares_english.onnx`` / ``squares_german.onnx`` with their label files
(:mod:`kiosk.vision.squarenet_train`); ``letters`` trains the letter network beside it on the caches' lettered
tiles and writes ``letters_english.onnx`` / ``letters_german.onnx`` (:mod:`kiosk.vision.letternet_train`).

``profile`` is how an installation calibrates from its own material: letter images (``A.png`` ... light ink on
dark, tightly cropped, e.g. ScrabScrap's ``letter-templates/default``) and optionally the first frames of
recorded games (ScrabScrap folder layout: ``game.ini`` with ``[default] warp-coord``, ``image-N.jpg``,
``truth/image-N.txt``; only frames 1..``--first`` are used). It writes a profile (see
:mod:`kiosk.vision.profile`) embedding a glyph model trained on that material plus synthetic glyphs of the
tile set, and, when game frames are given, an occupancy model trained on them plus synthetic squares. Use it
with ``kiosk read-board --calibration OUT.json`` or the kiosk's config. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
import unicodedata
from collections.abc import Iterator, Set
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from kiosk.files import read_text, replacing, write_atomic
from kiosk.rules.tiles import load_tile_set
from kiosk.vision import locate
from kiosk.vision.cells import cell_crop, cell_stats, warp_canvas
from kiosk.vision.glyph_model import build_glyph_classifier, letter_image_problem, normalise_glyph
from kiosk.vision.images import read_image
from kiosk.vision.occupancy import OccupancyModel, features
from kiosk.vision.profile import CalibrationProfile, ModelRef
from kiosk.vision.reader import GLYPH_GROW_PX, BoardReader
from kiosk.vision.scrabscrap import read_warp_coord

Sample = tuple[np.ndarray, str]


def save_npz(path: str | Path, arrays: dict[str, Any], *, compressed: bool = True) -> None:
    """Write ``arrays`` as the .npz file ``path`` (exactly that name: numpy adds no suffix), atomically
    (:func:`kiosk.files.replacing`): an interrupted run leaves no half-written cache. Raises OSError naming
    the path."""
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        (np.savez_compressed if compressed else np.savez)(fh, **arrays)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def frame_samples(image: np.ndarray, truth: list[str], corners: np.ndarray | None, skip: Set[int] = frozenset()
                  ) -> tuple[np.ndarray, np.ndarray, list[Sample]] | None:
    """(occupancy features 225xF, labels 225, glyph samples) of one labelled frame; None if no board found.

    ``truth``: 15 strings ('.', letter, '?'); ``corners``: grid corners if known (else markers / grid search);
    ``skip``: squares to leave out (occluded, turned tiles).
    """
    h = None
    if corners is not None:
        h = locate.from_corners(image, corners)
    else:
        h = locate.find_markers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        if h is None:
            h = locate.find_grid(image)
    if h is None:
        return None
    canvas, inside = warp_canvas(image, h)
    x = features(cell_stats(canvas, inside))
    flat = "".join(truth)
    y = np.array([ch != "." for ch in flat], np.int32)
    keep = np.array([i not in skip for i in range(len(flat))])
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    glyphs: list[Sample] = []
    for sq, ch in enumerate(flat):
        if ch in ".?#" or sq in skip:
            continue
        g = normalise_glyph(cell_crop(grey, sq, GLYPH_GROW_PX))
        if g is not None:
            glyphs.append((g, ch.upper()))
    return x[keep], y[keep], glyphs


def _render_one(args: tuple[int, str, str]) -> tuple[np.ndarray, np.ndarray, list[Sample]] | None:
    seed, level, tiles = args
    from kiosk.vision.synth import render_board
    from kiosk.vision.synth.boards import random_board
    ts = load_tile_set(tiles)
    rng = np.random.default_rng(seed)
    board = random_board(seed, int(rng.integers(10, 95)), ts)
    fr = render_board(board, seed=seed, level=level, tile_set=ts)
    skip = set(fr.occluded)
    for k in (fr.meta.get("turned_tiles") or {}):
        try:
            skip.add(int(k))
        except (TypeError, ValueError):
            pass
    return frame_samples(fr.image, fr.truth, None, skip)


def synthetic(n: int, tiles: str, seed0: int, workers: int = 2) -> Iterator[tuple[np.ndarray, np.ndarray, list[Sample]]]:
    """Render ``n`` boards (2/3 "typical", 1/3 "hard") and yield their samples, with progress on stderr."""
    jobs = [(seed0 + i, "hard" if i % 3 == 2 else "typical", tiles) for i in range(n)]
    t0 = time.time()
    with ProcessPoolExecutor(workers) as pool:
        for i, res in enumerate(pool.map(_render_one, jobs)):
            if (i + 1) % 10 == 0 or i + 1 == n:
                log(f"  synthetic {tiles}: {i + 1}/{n} frames ({time.time() - t0:.0f} s)")
            if res is not None:
                yield res


def read_truth(path: Path) -> list[str]:
    """The rows of a frame's truth file (:func:`kiosk.files.read_text`: UTF-8, a byte-order mark read past).

    Raises:
        ValueError: naming the file (an :class:`kiosk.files.InputError`): missing, empty, binary, not UTF-8.
    """
    return read_text(path, "truth file").split()


def template_samples(folder: Path) -> list[Sample]:
    """Glyphs from letter-template images (``A.png`` ...: light ink on dark, tightly cropped), one per image.

    Raises ValueError naming the file (nothing is left out without a word): an image that cannot be read
    (:class:`~kiosk.vision.images.ImageError`), one not named after one letter, too small to hold a tile's letter or
    of one flat colour (:func:`~kiosk.vision.glyph_model.letter_image_problem`), or one without a letter found on it.
    """
    out = []
    for f in sorted(folder.glob("*.png")):
        img = read_image(f, cv2.IMREAD_GRAYSCALE)       # ImageError is a ValueError naming the file
        letter = f.stem.upper()
        if len(letter) != 1 or not letter.isalpha():
            raise ValueError(f"{f}: a letter image is named after its letter (A.png, Ä.png ...), not {f.name!r}")
        problem = letter_image_problem(img)
        if problem is not None:
            raise ValueError(f"{f}: not a letter image: {problem}")
        g = normalise_glyph(cv2.copyMakeBorder(img, 8, 8, 8, 8, cv2.BORDER_CONSTANT, value=0))
        if g is None:
            raise ValueError(f"{f}: not a letter image: no letter found on it (too little contrast, or too little "
                             "ink: a letter image is the letter light on dark, tightly cropped)")
        out.append((g, letter))
    return out


def game_samples(game: Path, first: int) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[Sample]]:
    """(occupancy rows per frame, tile glyphs) of frames 1..``first`` of a recorded game folder.

    ``game``: ScrabScrap layout (``game.ini`` ``[default] warp-coord`` = the grid corners in px,
    ``image-N.jpg``, ``truth/image-N.txt`` with 15 rows). Raises ValueError naming the file that is missing
    or malformed (the corners: :func:`kiosk.vision.scrabscrap.read_warp_coord`, needed here).
    """
    corners = read_warp_coord(game / "game.ini")
    occ: list[tuple[np.ndarray, np.ndarray]] = []
    glyphs: list[Sample] = []
    for n in range(1, first + 1):
        t = game / "truth" / f"image-{n}.txt"
        f = game / f"image-{n}.jpg"
        if not t.is_file() or not f.is_file():
            continue
        truth = read_truth(t)
        if len(truth) != 15 or any(len(r) != 15 for r in truth):
            raise ValueError(f"{t}: expected 15 rows of 15 characters")
        img = read_image(f)
        res = frame_samples(img, truth, corners)
        if res:
            occ.append(res[:2])
            glyphs += res[2]
    return occ, glyphs


SQUARE_GROW_CACHE = 8   # cached square crops are grown this much (room for shifts and turns when augmenting)


def _render_squares(args: tuple[int, str, str, float, tuple]) -> dict[str, np.ndarray] | None:
    """Square crops of one rendered training board: every tile, every empty square next to a tile, and a
    third of the other empty squares; None when the board is not found.

    ``args`` = (seed < 2**30, level, tile-set name, blank share, letter shares as (letter, share) pairs[,
    fonts: ``"level"`` (the level's own built-in fonts, the default), ``"training"`` (the installed system
    faces of the training role) or ``"display-training"`` (the display lettering trained on); held-out and
    validation faces are never drawn here]).
    Returns ``crops`` (N x C x C uint8 grey,
    C = CELL_PX + 2 * SQUARE_GROW_CACHE), ``labels`` (N: '.', '?' or the letter), ``turned`` (N int: the
    tile's turn in degrees, 0 upright), ``occluded`` (N bool: a hand covers the square), ``tiles`` (N: the
    tile set's name).
    """
    seed, level, tiles, blank_share, letter_share = args[:5]
    fonts = args[5] if len(args) > 5 else "level"
    from kiosk.vision.synth import HELD_OUT_BIT, render_board
    from kiosk.vision.synth.boards import random_board
    from kiosk.vision.train.bench import level_params
    if seed >= HELD_OUT_BIT:
        raise ValueError(f"training seed {seed} is in the benchmark's range (>= 2**30)")
    if fonts not in ("level", "training", *_FACES_OF_MIX.values()):
        raise ValueError(f"training frames are drawn in the level's or the training fonts, not {fonts!r}")
    ts = load_tile_set(tiles)
    rng = np.random.default_rng([seed, 77])
    board = random_board(seed, int(rng.integers(8, 100)), ts, blank_share=blank_share,
                         letter_share=dict(letter_share) if tiles == "german" else None)
    fr = render_board(board, seed=seed, level=level_params(level, fonts), tile_set=ts)
    h = locate.find_markers(cv2.cvtColor(fr.image, cv2.COLOR_BGR2GRAY))
    if h is None:
        h = locate.find_grid(fr.image)
    if h is None:
        return None
    canvas, inside = warp_canvas(fr.image, h)
    seen = cell_stats(canvas, inside).seen
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    grey = cv2.copyMakeBorder(grey, 8, 8, 8, 8, cv2.BORDER_REPLICATE)   # room for the grown crop at the edge
    flat = "".join(fr.truth)
    occupied = np.array([ch != "." for ch in flat]).reshape(15, 15)
    near = cv2.dilate(occupied.astype(np.uint8), np.ones((3, 3), np.uint8)).ravel() > 0
    turned = {int(k): int(v) for k, v in (fr.meta.get("turned_tiles") or {}).items()}
    keep = [sq for sq in range(225) if seen[sq] >= 0.7 and (flat[sq] != "." or near[sq] or rng.random() < 0.33)]
    from kiosk.vision.cells import cell_origin
    g = SQUARE_GROW_CACHE
    crops = []
    for sq in keep:
        x0, y0 = cell_origin(sq)
        crops.append(grey[y0 + 8 - g:y0 + 8 + 48 + g, x0 + 8 - g:x0 + 8 + 48 + g])
    return {"crops": np.stack(crops), "labels": np.array([flat[sq] for sq in keep]),
            "turned": np.array([turned.get(sq, 0) for sq in keep], np.int16),
            "occluded": np.array([sq in fr.occluded for sq in keep]), "tiles": np.array([tiles] * len(keep))}


FONT_MIXES = ("level", "training", "mixed", "display")


def _font_mix(text: str) -> str:
    """``--fonts`` of ``train squares``: one of :data:`FONT_MIXES`.

    Raises:
        argparse.ArgumentTypeError: another value; for a role never trained on (held-out, validation,
            held-out-2: :data:`kiosk.vision.synth.fonts.NEVER_TRAINED`), saying why.
    """
    from kiosk.vision.synth.fonts import NEVER_TRAINED, VALIDATION

    if text in FONT_MIXES:
        return text
    if text in NEVER_TRAINED:
        raise argparse.ArgumentTypeError(
            f"the {text} faces are never trained on: they measure fonts the reader has not learnt"
            f"{' and are where its confidence rules are chosen' if text == VALIDATION else ''} "
            f"(kiosk bench-vision --fonts {text}); use one of {', '.join(FONT_MIXES)}")
    raise argparse.ArgumentTypeError(f"{text!r}: one of {', '.join(FONT_MIXES)}")


def _training_jobs(english_seed: int, german_seed: int, n_english: int, n_german: int, blank_share: float,
                   letter_share: tuple[tuple[str, float], ...] = (), fonts: str = "level"
                   ) -> list[tuple[int, str, str, float, tuple]] | list[tuple[int, str, str, float, tuple, str]]:
    """(seed, level, tile-set name, blank share, letter shares[, fonts]) of each training frame: ``n_english``
    English frames from seed ``english_seed``, ``n_german`` German ones from ``german_seed``; every third
    "hard", the others "typical". ``letter_share``: (letter, share) pairs for the German boards (see
    ``random_board``). ``fonts``: ``"level"`` the level's own fonts (the tuples have no sixth field, as
    before), ``"training"`` the training system faces, ``"mixed"`` every fourth frame the level's fonts and the
    others the training system faces, ``"display"`` the display lettering trained on (``display-training``).

    Raises:
        ValueError: unknown ``fonts``.
    """
    if fonts not in FONT_MIXES:
        raise ValueError(f"--fonts {fonts}: one of {', '.join(FONT_MIXES)}")

    def level(i: int) -> str:
        return "hard" if i % 3 == 2 else "typical"
    jobs = [(english_seed + i, level(i), "english", blank_share, ()) for i in range(n_english)] + \
        [(german_seed + i, level(i), "german", blank_share, letter_share) for i in range(n_german)]
    if fonts == "level":
        return jobs
    faces = _FACES_OF_MIX.get(fonts, "training")
    return [(*job, "level" if fonts == "mixed" and i % 4 == 0 else faces) for i, job in enumerate(jobs)]


_FACES_OF_MIX = {"display": "display-training"}
"""The font role a ``--fonts`` mix draws where it does not draw the level's fonts (else ``"training"``)."""


def _render_all(render, jobs: list, workers: int, what: str, unit: str) -> dict[str, np.ndarray]:  # noqa: ANN001
    """Run ``render`` (one job -> dict of arrays, or None) over ``jobs`` in ``workers`` processes and concatenate
    its arrays by key; progress on stderr (``what``: the stage, ``unit``: what the rows are)."""
    parts: dict[str, list[np.ndarray]] = {}
    t0 = time.time()
    rows = 0
    with ProcessPoolExecutor(workers) as pool:
        for i, res in enumerate(pool.map(render, jobs, chunksize=4)):
            if res is not None:
                for k, v in res.items():
                    parts.setdefault(k, []).append(v)
                rows += len(next(iter(res.values())))
            if (i + 1) % 25 == 0 or i + 1 == len(jobs):
                log(f"  {what}: {i + 1}/{len(jobs)} frames, {rows} {unit} ({time.time() - t0:.0f} s)")
    if not parts:
        raise ValueError(f"{what}: no board was found in any of the {len(jobs)} training frames")
    return {k: np.concatenate(v) for k, v in parts.items()}


def collect_squares(cache: Path, n_english: int, n_german: int, workers: int = 2, blank_share: float = 0.1,
                    seed0: int = 0, letter_share: tuple[tuple[str, float], ...] = (), fonts: str = "level") -> None:
    """Render training boards (English seeds from 20000 + ``seed0``, German from 60000 + ``seed0``; 2/3
    "typical", 1/3 "hard"; about ``blank_share`` of the tiles blanks) and cache their square crops in ``cache``
    (.npz, see :func:`_render_squares`; plus ``tiles``: the set of each crop). ``letter_share``: (letter,
    share) pairs making letters rare in the German bag common on its boards. ``fonts``: see
    :func:`_training_jobs` (never the held-out or validation faces). Progress on stderr.

    Raises:
        ValueError: unknown ``fonts``, or no training face installed for ``"training"`` / ``"mixed"`` (no
            display face for ``"display"``), or one installed that cannot be drawn.
    """
    jobs: list = _training_jobs(20000 + seed0, 60000 + seed0, n_english, n_german, blank_share, letter_share, fonts)
    if fonts != "level":
        from kiosk.vision.train.bench import check_faces, level_params
        faces = _FACES_OF_MIX.get(fonts, "training")
        level_params("typical", faces)          # fails early, naming the packages, when no face is installed
        check_faces(faces)                      # ... or when an installed face cannot be drawn
    arrays: dict[str, Any] = _render_all(_render_squares, jobs, workers, "squares", "crops")
    save_npz(cache, arrays, compressed=False)
    log(f"square crops cached in {cache}")


def _settle_rows(args: tuple[int, str, str, float, tuple]) -> dict[str, np.ndarray] | None:
    """The settle model's input rows of one rendered training board (:mod:`kiosk.vision.settle`): every square
    the square network reads, hands left out. ``args`` = (seed < 2**30, level, tile-set name, blank share,
    letter shares: not used here).
    Returns ``x`` (N x F float32), ``y`` (N int: 1 tile, 0 empty), ``blank`` (N bool), ``frame`` (N int: the
    seed); None when the board is not found."""
    seed, level, tiles, blank_share, _ = args
    from kiosk.vision.synth import HELD_OUT_BIT, render_board
    from kiosk.vision.synth.boards import random_board
    if seed >= HELD_OUT_BIT:
        raise ValueError(f"training seed {seed} is in the benchmark's range (>= 2**30)")
    ts = load_tile_set(tiles)
    reader = _SETTLE_READERS.get(tiles)
    if reader is None:
        reader = _SETTLE_READERS[tiles] = BoardReader(ts, settle=False)
        reader.record_settle_rows = True
    rng = np.random.default_rng([seed, 91])
    board = random_board(seed, int(rng.integers(4, 100)), ts, blank_share=blank_share)
    fr = render_board(board, seed=seed, level=level, tile_set=ts)
    reader.last_settle_rows = None
    reading = reader.read(fr.image)
    if not reading.quality.board_found or reader.last_settle_rows is None:
        return None
    rows, x = reader.last_settle_rows
    flat = "".join(fr.truth)
    keep = [i for i, sq in enumerate(rows) if sq not in fr.occluded]
    return {"x": x[keep], "y": np.array([flat[rows[i]] != "." for i in keep], np.int8),
            "blank": np.array([flat[rows[i]] == "?" for i in keep], bool), "frame": np.full(len(keep), seed)}


_SETTLE_READERS: dict[str, BoardReader] = {}


def train_settle(out: Path, n_english: int, n_german: int, workers: int = 2, blank_share: float = 0.1,
                 cache: Path | None = None) -> None:
    """Render training boards (English seeds from 100000, German from 140000; 2/3 "typical", 1/3 "hard"),
    collect the settle model's rows (cached in ``cache`` when given, reused when it exists), train the model
    and write it to ``out`` (``settle.npz``). Progress and held-out figures on stderr."""
    from kiosk.vision.settle import SettleModel
    if cache is not None and cache.exists():
        z = np.load(cache)
        data: dict[str, Any] = {k: z[k] for k in z.files}
        log(f"settle rows from {cache}: {len(data['y'])}")
    else:
        jobs = _training_jobs(100000, 140000, n_english, n_german, blank_share)
        data = _render_all(_settle_rows, jobs, workers, "settle", "squares")
        if cache is not None:
            rows: dict[str, Any] = data
            save_npz(cache, rows)
    x, y = data["x"], data["y"].astype(int)
    held = np.isin(data["frame"], np.unique(data["frame"])[::10])     # every 10th frame held out
    model = SettleModel.train(x[~held], y[~held])
    p = model.predict_proba(x[held])
    yh = y[held] > 0
    from kiosk.vision.reader import SETTLE_EMPTY, SETTLE_TILE
    wrong = ((p >= SETTLE_TILE) & ~yh) | ((p <= SETTLE_EMPTY) & yh)
    unsure = (p > SETTLE_EMPTY) & (p < SETTLE_TILE)
    bl = data["blank"][held].astype(bool)
    log(f"settle model: {int((~held).sum())} rows trained, {int(held.sum())} held out: "
        f"{int(wrong.sum())} settled wrong, {int(unsure.sum())} unsure; blanks: {int(bl.sum())}, "
        f"{int((bl & wrong).sum())} wrong, {int((bl & unsure).sum())} unsure")
    model = SettleModel.train(x, y)
    write_atomic(out, model.net.to_bytes())
    log(f"wrote {out}")


SYNTHETIC_KEYS = ("ox_synth", "oy_synth", "g_english", "l_english", "g_german", "l_german")  # (older caches: glyphs)


def collect(cache: Path, n_synth: int) -> None:
    """Render ``n_synth`` English and ``n_synth // 2`` German synthetic boards and cache their occupancy samples
    (.npz)."""
    data: dict[str, list] = {"ox_synth": [], "oy_synth": []}
    for tiles, n, seed0 in (("english", n_synth, 1000), ("german", max(n_synth // 2, 1), 5000)):
        for x, y, _ in synthetic(n, tiles, seed0):
            data["ox_synth"].append(x)
            data["oy_synth"].append(y)
    arrays: dict[str, Any] = {k: (np.concatenate(v) if v else np.zeros((0,))) for k, v in data.items()}
    save_npz(cache, arrays)
    log(f"samples cached in {cache}")


def fit_defaults(cache: Path, out: Path) -> None:
    """Train occupancy.npz into ``out`` from a :func:`collect` cache.

    Raises ValueError when the cache holds anything but synthetic samples (an older cache with photo
    material): the shipped defaults are trained on rendered frames only.
    """
    z = np.load(cache)
    foreign = sorted(k for k in z.files if k not in SYNTHETIC_KEYS and z[k].size)
    if foreign:
        raise ValueError(f"{cache}: holds non-synthetic samples ({', '.join(foreign)}); the shipped models are "
                         f"trained on synthetic frames only: re-run `collect`; calibrate real material with "
                         f"`profile`")
    out.mkdir(parents=True, exist_ok=True)
    x, y = z["ox_synth"], z["oy_synth"]
    log(f"occupancy: {len(x)} squares ({int(y.sum())} tiles)")
    write_atomic(out / "occupancy.npz", OccupancyModel.train(x, y).net.to_bytes())


def build_profile(out: Path, templates: Path | None, tiles: str, n_synth: int, notes: str,
                  games: list[Path] | None = None, first: int = 5, real_weight: int = 8,
                  folds: int = 3) -> float:
    """Write a calibration profile to ``out`` and return the glyph model's cross-validated letter accuracy.

    The embedded glyph model is trained on the letter images in ``templates`` (x8), the tile glyphs of frames
    1..``first`` of each game folder in ``games`` (x3) and the glyphs of ``n_synth`` synthetic frames of the
    tile set ``tiles``. With game frames, an occupancy model (their squares x ``real_weight`` plus the
    synthetic squares) is embedded too. Raises ValueError for missing or malformed material (naming it).
    """
    if templates is None and not games:
        raise ValueError("give letter images (--templates DIR) and/or game folders (--game DIR)")
    samples: list[Sample] = []
    if templates is not None:
        if not templates.is_dir():
            raise ValueError(f"{templates}: not a folder of letter images")
        tpl = template_samples(templates)
        if not tpl:
            raise ValueError(f"{templates}: no letter images (A.png, B.png ...)")
        log(f"  templates: {len(tpl)} letters")
        samples += tpl * 8
    occ_x: list[np.ndarray] = []
    occ_y: list[np.ndarray] = []
    for game in games or []:
        occ, g = game_samples(game, first)
        log(f"  {game}: {len(occ)} frames, {len(g)} tile glyphs")
        samples += g * 3
        for x, y in occ:
            occ_x += [x] * real_weight
            occ_y += [y] * real_weight
    for x, y, g in synthetic(n_synth, tiles, 9000):
        samples += g
        if occ_x:
            occ_x.append(x)
            occ_y.append(y)
    clf, acc = build_glyph_classifier(samples, folds=folds, tile_set_name=tiles)
    occ_ref = ModelRef()
    if occ_x:
        model = OccupancyModel.train(np.concatenate(occ_x), np.concatenate(occ_y))
        occ_ref = ModelRef(data=base64.b64encode(model.net.to_bytes()).decode("ascii"))
    prof = CalibrationProfile(tile_set=tiles, board_mode="search",
                              glyph_model=ModelRef(data=base64.b64encode(clf.net.to_bytes()).decode("ascii")),
                              occupancy_model=occ_ref, notes=notes)
    prof.save(out)
    return acc


MAX_REPEAT = 100   # --repeat N at most (each repeat copies the letter's crops into every epoch's pool)


def _spec_letters(option: str, spec: str, letters: str, allowed: set[str]) -> list[str]:
    """The letters of a LETTERS=... spec (Unicode NFC, upper-cased, each in ``allowed``); ValueError otherwise."""
    out = []
    for ch in unicodedata.normalize("NFC", letters):
        up = ch.upper()
        if up not in allowed:
            raise ValueError(f"{option} {spec!r}: {ch!r} is not a letter of the "
                             f"{'German' if option == '--letter-share' else 'English or German'} set"
                             + (" (blanks: --blank-repeat / --blank-share)" if ch == "?" else ""))
        out.append(up)
    return out


def _letter_shares(specs: list[str]) -> tuple[tuple[str, float], ...]:
    """``["ÄÖÜ=0.04"]`` -> ``(("Ä", 0.04), ("Ö", 0.04), ("Ü", 0.04))`` (letters of the German set; a letter
    given twice keeps its last share). Raises ValueError naming a malformed spec or shares adding up to more
    than 1."""
    shares: dict[str, float] = {}
    german = set(load_tile_set("german").letters)
    for spec in specs:
        letters, _, share = spec.partition("=")
        try:
            value = float(share)
        except ValueError:
            value = -1.0
        if not letters or not 0 < value <= 1:
            raise ValueError(f"--letter-share {spec!r}: expected LETTERS=SHARE with 0 < SHARE <= 1, e.g. ÄÖÜ=0.04")
        shares.update({letter: value for letter in _spec_letters("--letter-share", spec, letters, german)})
    from kiosk.vision.synth.boards import check_letter_share
    check_letter_share(shares, "--letter-share")     # random_board's own rule: the shares add up to at most 1
    return tuple(shares.items())


def _letter_repeats(specs: list[str]) -> dict[str, int]:
    """``["ÄÖÜ=6"]`` -> ``{"Ä": 6, "Ö": 6, "Ü": 6}`` (letters of the English or German set; blanks have
    --blank-repeat). Raises ValueError naming a malformed spec."""
    out: dict[str, int] = {}
    allowed = set(load_tile_set("english").letters) | set(load_tile_set("german").letters)
    for spec in specs:
        letters, _, n = spec.partition("=")
        if not letters or not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= MAX_REPEAT:
            raise ValueError(f"--repeat {spec!r}: expected LETTERS=N with 1 <= N <= {MAX_REPEAT}, e.g. ÄÖÜ=6")
        out.update({letter: int(n) for letter in _spec_letters("--repeat", spec, letters, allowed)})
    return out


def _cache_path(path: Path) -> Path:
    """``path`` checked before any rendering: it must end in .npz (numpy would add it) and its folder exist."""
    if path.suffix != ".npz":
        raise ValueError(f"{path}: a cache file must end in .npz")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: folder {path.parent} does not exist")
    if path.is_dir():
        raise ValueError(f"{path}: is a folder")
    return path


MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
"""The shipped models' folder (kiosk/vision/models): where the training commands write by default."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kiosk.vision.train", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="render synthetic boards and cache their training samples")
    c.add_argument("cache", type=Path)
    c.add_argument("--synthetic", type=int, default=180, help="synthetic English frames (German: half)")
    q = sub.add_parser("squares", help="render synthetic boards and cache square crops for the square network")
    q.add_argument("cache", type=Path)
    q.add_argument("--english", type=int, default=480, help="English frames")
    q.add_argument("--german", type=int, default=240, help="German frames")
    q.add_argument("--workers", type=int, default=2)
    q.add_argument("--blank-share", type=float, default=0.1, help="share of training tiles made blanks")
    q.add_argument("--seed0", type=int, default=0, help="offset of the frames' seeds (another set of scenes)")
    q.add_argument("--letter-share", action="append", default=[], metavar="LETTERS=SHARE",
                   help="on German boards turn about SHARE of the tiles into each of LETTERS (rare letters: "
                        "--letter-share ÄÖÜ=0.04)")
    q.add_argument("--fonts", type=_font_mix, default="level", metavar="{" + ",".join(FONT_MIXES) + "}",
                   help="tile fonts: the level's own built-in fonts (default), the installed training system "
                        "faces, or mixed (a quarter of the frames the level's fonts); held-out, validation and "
                        "held-out-2 faces never")
    n = sub.add_parser("cnn", help="train the square network (needs the `train` extra: torch, onnx) and write "
                                   "squares_english/german.onnx + .json")
    n.add_argument("caches", type=Path, nargs="+", help="caches written by `squares`")
    n.add_argument("--out", type=Path, default=MODELS_DIR)
    n.add_argument("--epochs", type=int, default=12)
    n.add_argument("--per-epoch", type=int, default=80000, help="crops drawn (and augmented) per epoch")
    n.add_argument("--threads", type=int, default=2)
    n.add_argument("--init", type=Path, default=None, help="fine-tune this exported squares_german.onnx")
    n.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle)")
    n.add_argument("--blank-repeat", type=int, default=1, help="draw each blank tile this many times")
    n.add_argument("--repeat", action="append", default=[], metavar="LETTERS=N",
                   help="draw each tile of these letters N times (letters rare in the bag: --repeat ÄÖÜ=6)")
    n.add_argument("--stroke", type=float, default=0.0,
                   help="share of crops given thicker or thinner ink strokes (eroded / dilated; default 0)")
    n.add_argument("--widen", type=float, default=0.0,
                   help="half the crops' letters made up to this much wider or narrower (0.15: +-15%%; default 0)")
    lt = sub.add_parser("letters", help="train the letter network (needs the `train` extra: torch, onnx) and write "
                                        "letters_english/german.onnx + .json")
    lt.add_argument("caches", type=Path, nargs="+", help="caches written by `squares`")
    lt.add_argument("--out", type=Path, default=MODELS_DIR)
    lt.add_argument("--epochs", type=int, default=16)
    lt.add_argument("--per-epoch", type=int, default=96000, help="lettered tiles drawn (and augmented) per epoch")
    lt.add_argument("--threads", type=int, default=2)
    lt.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle)")
    lt.add_argument("--stroke", type=float, default=0.3,
                    help="share of crops given thicker or thinner ink strokes (default 0.3)")
    lt.add_argument("--widen", type=float, default=0.25,
                    help="half the crops' letters made up to this much wider or narrower (default 0.25)")
    lt.add_argument("--elements", type=float, default=0.0,
                    help="share of crops whose lettering is redrawn as dots, pixels or scan lines, from 0 to 1 "
                         "(default 0)")
    lt.add_argument("--outlines", type=float, default=0.0,
                    help="share of the crops not redrawn as elements whose lettering is redrawn hollow (outline "
                         "or inline lettering), from 0 to 1 (default 0)")
    sh = sub.add_parser("shapes", help="train the stroke-direction letter reader (needs the `train` extra: torch) "
                                       "and write shapes.npz")
    sh.add_argument("caches", type=Path, nargs="+", help="caches written by `squares`")
    sh.add_argument("--out", type=Path, default=MODELS_DIR / "shapes.npz")
    sh.add_argument("--epochs", type=int, default=12)
    sh.add_argument("--augment", action="store_true",
                    help="draw and change the tiles afresh each epoch (not the shipped reader's way)")
    sh.add_argument("--per-epoch", type=int, default=100000, help="with --augment: tiles drawn per epoch")
    sh.add_argument("--limit", type=int, default=300000, help="lettered tiles of the caches used at most")
    sh.add_argument("--threads", type=int, default=2)
    v = sub.add_parser("values", help="train the value network (needs the `train` extra: torch, onnx) and write "
                                      "values.onnx")
    v.add_argument("caches", type=Path, nargs="+", help="caches written by `squares`")
    v.add_argument("--out", type=Path, default=MODELS_DIR / "values.onnx")
    v.add_argument("--epochs", type=int, default=6)
    v.add_argument("--per-epoch", type=int, default=60000, help="crops drawn (and augmented) per epoch")
    v.add_argument("--threads", type=int, default=2)
    v.add_argument("--marks", type=float, default=0.0,
                   help="share of value corners marked across (an underline, a stroke, dots) before the other "
                        "changes, from 0 to 1; default 0, as the shipped network (0.3 was tried: "
                        "kiosk/vision/models/README.md)")
    st = sub.add_parser("settle", help="render synthetic boards and train the tile-or-empty settle model")
    st.add_argument("--out", type=Path, default=MODELS_DIR / "settle.npz")
    st.add_argument("--english", type=int, default=1800, help="English frames (the shipped model: 1800)")
    st.add_argument("--german", type=int, default=600, help="German frames (the shipped model: 600)")
    st.add_argument("--workers", type=int, default=2)
    st.add_argument("--blank-share", type=float, default=0.1, help="share of training tiles made blanks")
    st.add_argument("--cache", type=Path, default=None, help="keep (or reuse) the collected rows here (.npz)")
    d = sub.add_parser("defaults", help="train the shipped occupancy model from a synthetic sample cache")
    d.add_argument("cache", type=Path)
    d.add_argument("--out", type=Path, default=MODELS_DIR)
    p = sub.add_parser("profile", help="write a calibration profile from an installation's own material")
    p.add_argument("out", type=Path)
    p.add_argument("--templates", type=Path, default=None, help="folder of letter images A.png, B.png ...")
    p.add_argument("--game", type=Path, action="append", default=[],
                   help="recorded game folder (game.ini, image-N.jpg, truth/image-N.txt); repeatable")
    p.add_argument("--first", type=int, default=5, help="use frames 1..N of each game (default 5)")
    p.add_argument("--tiles", choices=("english", "german"), default="english")
    p.add_argument("--synthetic", type=int, default=20, help="synthetic frames of the tile set to add")
    p.add_argument("--folds", type=int, default=3, help="cross-validation folds for the reported accuracy")
    p.add_argument("--real-weight", type=int, default=8, help="repeats of each game frame's squares (occupancy)")
    args = ap.parse_args(argv)
    try:
        if getattr(args, "workers", 1) < 1:
            raise ValueError(f"--workers {args.workers}: at least 1")
        from kiosk.vision.train.bench import max_workers

        if getattr(args, "workers", 1) > max_workers():
            raise ValueError(f"--workers {args.workers}: at most {max_workers()} on this machine")
        if args.cmd == "collect":
            collect(args.cache, args.synthetic)
        elif args.cmd == "cnn":
            if args.out.exists() and not args.out.is_dir():
                raise ValueError(f"--out {args.out}: exists and is not a folder")
            from kiosk.vision.squarenet_train import train as train_cnn
            t = time.time()
            figs = train_cnn(args.caches, args.out, epochs=args.epochs, per_epoch=args.per_epoch,
                             threads=args.threads, init=args.init, lr=args.lr,
                             blank_repeat=args.blank_repeat, repeat=_letter_repeats(args.repeat),
                             stroke=args.stroke, widen=args.widen)
            log(f"square network trained in {time.time() - t:.0f} s; held out: {figs}")
        elif args.cmd == "letters":
            if args.out.exists() and not args.out.is_dir():
                raise ValueError(f"--out {args.out}: exists and is not a folder")
            from kiosk.vision.letternet_train import train_letters
            t = time.time()
            figs = train_letters(args.caches, args.out, epochs=args.epochs, per_epoch=args.per_epoch,
                                 threads=args.threads, lr=args.lr, stroke=args.stroke, widen=args.widen,
                                 elements=args.elements, outlines=args.outlines)
            log(f"letter network trained in {time.time() - t:.0f} s; held out: {figs}")
        elif args.cmd == "shapes":
            from kiosk.vision.shapes_train import train_shapes
            acc = train_shapes(args.caches, args.out, epochs=args.epochs, per_epoch=args.per_epoch,
                               threads=args.threads, limit=args.limit, augment=args.augment)
            log(f"wrote {args.out}; letters read right on kept-out plain tiles: {acc:.4f}")
        elif args.cmd == "values":
            from kiosk.vision.value_train import train as train_values
            acc = train_values(args.caches, args.out, args.epochs, args.per_epoch, args.threads, marks=args.marks)
            log(f"wrote {args.out}; values read right on kept-out crops: {acc:.4f}")
        elif args.cmd == "settle":
            train_settle(args.out, args.english, args.german, args.workers, args.blank_share, args.cache)
        elif args.cmd == "squares":
            if min(args.english, args.german) < 0 or args.english + args.german < 1:
                raise ValueError(f"--english {args.english} --german {args.german}: at least one frame, none negative")
            if not 0.0 <= args.blank_share < 1.0:
                raise ValueError(f"--blank-share {args.blank_share}: a share from 0 up to (not including) 1")
            shares = _letter_shares(args.letter_share)
            if shares and args.german < 1:
                raise ValueError("--letter-share applies to German boards: give --german N")
            collect_squares(_cache_path(args.cache), args.english, args.german, args.workers, args.blank_share,
                            args.seed0, shares, args.fonts)
        elif args.cmd == "defaults":
            fit_defaults(args.cache, args.out)
        else:
            if args.first < 1:
                raise ValueError("--first must be at least 1")
            notes = (f"glyph model from templates {args.templates}, first {args.first} frames of "
                     f"{[str(g) for g in args.game]}, {args.synthetic} synthetic frames")
            acc = build_profile(args.out, args.templates, args.tiles, args.synthetic, notes,
                                games=args.game, first=args.first, folds=args.folds,
                                real_weight=args.real_weight)
            log(f"wrote {args.out}; cross-validated letter accuracy {acc:.4f}")
    except ModuleNotFoundError as exc:   # torch / onnx: the `train` extra
        log(f"error: `{args.cmd}` needs the `train` extra ({exc}): pip install -e '.[train]'")
        return 2
    except (ValueError, OSError) as exc:
        log(f"error: {exc}")
        return 2
    return 0

