"""Build the reader's models: the shipped defaults, or a calibration profile from an installation's samples.

    python -m kiosk.vision.train collect SAMPLES.npz [--synthetic 80] [--shared ../shared]
    python -m kiosk.vision.train defaults SAMPLES.npz [--out kiosk/vision/models] [--folds 3]
    python -m kiosk.vision.train profile OUT.json --templates DIR [--frames IMG TRUTH CORNERS ...]
                                         [--tiles german] [--synthetic 30]

``collect`` renders synthetic boards with :mod:`kiosk.vision.synth` (every tile style and font of the
renderer, English and German sets) and, when ``--shared`` is given, adds the calibration material the
acceptance rules allow: the letter templates of ``photos/scrabscrap/letter-templates``, the first 5 frames
of each ``scrabscrap/game0N`` and the ``scrabscrap-lighting/board-*`` frames (never the ``err-*`` frames or
any later game frame); ``defaults`` trains the shipped models from them. ``profile`` trains a glyph model for one installation and writes a profile embedding it.
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import base64
import configparser
import json
import re
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from kiosk.rules.tiles import load_tile_set
from kiosk.vision import locate
from kiosk.vision.cells import cell_crop, cell_stats, warp_canvas
from kiosk.vision.glyphs import build_glyph_classifier, normalise_glyph
from kiosk.vision.occupancy import OccupancyModel, features
from kiosk.vision.profile import CalibrationProfile, ModelRef
from kiosk.vision.reader import GLYPH_GROW_PX

Sample = tuple[np.ndarray, str]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def frame_samples(image: np.ndarray, truth: list[str], corners: np.ndarray | None, skip: set[int] = frozenset()
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


def _truth(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split()


def template_samples(folder: Path) -> list[Sample]:
    """Glyphs from letter-template images (``A.png`` ...: light ink on dark, tightly cropped)."""
    out = []
    for f in sorted(folder.glob("*.png")):
        img = cv2.imdecode(np.fromfile(str(f), np.uint8), cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise ValueError(f"{f}: not an image")
        letter = f.stem.upper()
        padded = cv2.copyMakeBorder(img, 8, 8, 8, 8, cv2.BORDER_CONSTANT, value=0)
        g = normalise_glyph(padded)
        if g is not None and len(letter) == 1:
            out.append((g, letter))
    return out


def shared_samples(shared: Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[Sample], list[Sample]]:
    """Calibration material from ../shared: (occupancy rows, German frame glyphs, template glyphs)."""
    occ, glyphs = [], []
    photos = shared / "photos"
    for game in sorted((photos / "scrabscrap").glob("game0*")):
        ini = configparser.ConfigParser()
        ini.read(game / "game.ini")
        corners = np.float32(json.loads(ini["default"]["warp-coord"]))
        for t in sorted((game / "truth").glob("image-*.txt")):
            n = int(re.search(r"(\d+)\.txt$", t.name).group(1))
            if n > 5:
                continue
            img = cv2.imread(str(game / (t.stem + ".jpg")))
            res = frame_samples(img, _truth(t), corners)
            if res:
                occ.append(res[:2])
                glyphs += res[2]
    light = photos / "scrabscrap-lighting"
    for f in sorted(light.glob("board-*.jpg")):
        truth = light / ("truth-board-04.txt" if f.stem.endswith("04") else "truth-board-00-03.txt")
        res = frame_samples(cv2.imread(str(f)), _truth(truth), None)
        if res:
            occ.append(res[:2])
            glyphs += res[2]
    templates = template_samples(photos / "scrabscrap" / "letter-templates" / "default")
    log(f"  shared: {len(occ)} frames, {len(glyphs)} tile glyphs, {len(templates)} templates")
    return occ, glyphs, templates


def collect(cache: Path, n_synth: int, shared: Path | None) -> None:
    """Render / read every training sample once and store them in ``cache`` (a .npz)."""
    data: dict[str, list] = {"ox_synth": [], "oy_synth": [], "ox_real": [], "oy_real": []}
    glyphs: dict[str, list[Sample]] = {"english": [], "german": [], "german_real": [], "templates": []}
    for tiles, n, seed0 in (("english", n_synth, 1000), ("german", max(n_synth // 2, 1), 5000)):
        for x, y, g in synthetic(n, tiles, seed0):
            data["ox_synth"].append(x)
            data["oy_synth"].append(y)
            glyphs[tiles] += g
    if shared is not None:
        occ, frame_glyphs, templates = shared_samples(shared)
        for x, y in occ:
            data["ox_real"].append(x)
            data["oy_real"].append(y)
        glyphs["german_real"] = frame_glyphs
        glyphs["templates"] = templates
    arrays = {k: (np.concatenate(v) if v else np.zeros((0,))) for k, v in data.items()}
    for k, v in glyphs.items():
        arrays[f"g_{k}"] = np.stack([g for g, _ in v]) if v else np.zeros((0, 32, 32), np.float32)
        arrays[f"l_{k}"] = np.array([lab for _, lab in v])
    np.savez_compressed(cache, **arrays)
    log(f"samples cached in {cache}")


def fit_defaults(cache: Path, out: Path, real_weight: int = 8, epochs: int = 30, folds: int = 0) -> None:
    """Train occupancy.npz, glyphs_english.npz, glyphs_german.npz into ``out`` from a :func:`collect` cache.

    Real calibration squares are repeated ``real_weight`` times (they are few but they are the real thing).
    """
    out.mkdir(parents=True, exist_ok=True)
    z = np.load(cache)
    xs, ys = [z["ox_synth"]], [z["oy_synth"]]
    if len(z["ox_real"]):
        xs += [z["ox_real"]] * real_weight
        ys += [z["oy_real"]] * real_weight
    x, y = np.concatenate(xs), np.concatenate(ys)
    log(f"occupancy: {len(x)} squares ({int(y.sum())} tiles)")
    (out / "occupancy.npz").write_bytes(OccupancyModel.train(x, y).net.to_bytes())

    def samples(key: str) -> list[Sample]:
        return list(zip(list(z[f"g_{key}"]), [str(v) for v in z[f"l_{key}"]]))

    sets = {"english": samples("english"),
            "german": samples("german") + samples("german_real") * 3 + samples("templates") * 6}
    for name, smp in sets.items():
        t = time.time()
        clf, acc = build_glyph_classifier(smp, folds=folds, tile_set_name=name, epochs=epochs)
        (out / f"glyphs_{name}.npz").write_bytes(clf.net.to_bytes())
        log(f"glyphs {name}: {len(smp)} samples, cross-validated letter accuracy {acc:.4f} ({time.time() - t:.0f} s)")


def build_profile(out: Path, templates: Path | None, tiles: str, n_synth: int, notes: str) -> float:
    """Write a profile whose embedded glyph model is trained on the templates (+ synthetic glyphs)."""
    samples: list[Sample] = []
    if templates is not None:
        samples += template_samples(templates) * 8
    for _, _, g in synthetic(n_synth, tiles, 9000):
        samples += g
    clf, acc = build_glyph_classifier(samples, folds=3, tile_set_name=tiles)
    prof = CalibrationProfile(tile_set=tiles, board_mode="search",
                              glyph_model=ModelRef(data=base64.b64encode(clf.net.to_bytes()).decode("ascii")),
                              notes=notes)
    prof.save(out)
    return acc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kiosk.vision.train", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="render/read the training samples into a cache file")
    c.add_argument("cache", type=Path)
    c.add_argument("--synthetic", type=int, default=80, help="synthetic English frames (German: half)")
    c.add_argument("--shared", type=Path, default=None, help="the shared data folder (../shared)")
    d = sub.add_parser("defaults", help="train the shipped default models from a sample cache")
    d.add_argument("cache", type=Path)
    d.add_argument("--out", type=Path, default=Path(__file__).parent / "models")
    d.add_argument("--folds", type=int, default=0, help="also cross-validate the glyph models (slow)")
    p = sub.add_parser("profile", help="write a calibration profile with a glyph model trained on templates")
    p.add_argument("out", type=Path)
    p.add_argument("--templates", type=Path, default=None, help="folder of letter images A.png, B.png ...")
    p.add_argument("--tiles", default="english")
    p.add_argument("--synthetic", type=int, default=20)
    args = ap.parse_args(argv)
    if args.cmd == "collect":
        collect(args.cache, args.synthetic, args.shared)
    elif args.cmd == "defaults":
        fit_defaults(args.cache, args.out, folds=args.folds)
    else:
        acc = build_profile(args.out, args.templates, args.tiles, args.synthetic,
                            notes=f"glyph model from templates {args.templates} + {args.synthetic} synthetic frames")
        log(f"wrote {args.out}; cross-validated letter accuracy {acc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
