"""Train the value network (:mod:`kiosk.vision.tile_value`) from square crop caches (``python -m
kiosk.vision.train values``). Needs the ``train`` extra (torch, onnx); the kiosk never imports this module.

The caches are those of ``python -m kiosk.vision.train squares`` (crops grown by 8 px, their labels, quarter turns,
occlusion and tile set). Every lettered tile not occluded is used, turned upright, its value from its tile set; each
crop drawn is shifted up to 3 px, with ``--marks`` sometimes marked across its corner first (:func:`mark`: a
horizontal line like an underline running through the corner, a short diagonal stroke or a few dots, in the corner's
own ink level or its tile's grey; the label stays the printed value: Montserrat Underline's F read E passed silently
while its underline hid the value), sometimes blurred, given a contrast change, noise and thicker or thinner
strokes, then prepared exactly as the reader prepares its value corners.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import cv2
import numpy as np

from kiosk.files import NotReplaceable, replace_target, replacing
from kiosk.rules.tiles import load_tile_set
from kiosk.vision.cells import CELL_PX
from kiosk.vision.squarenet_train import load_caches, log
from kiosk.vision.tile_value import REGION_PX, REGION_SIZE_PX, VALUE_CLASSES, VALUE_PX, prepare_regions, value_region

CACHE_GROW_PX = 8   # the squares caches' crops are grown by this many px
SHIFT_PX = 3        # augmentation: the corner shifted up to this far
BATCH = 128         # crops a training step
MIN_TILES = 1000    # lettered tiles the caches must hold (a tenth of them, at most 3,000, kept out to measure)


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """(upright crops N x C x C uint8, value class indices N) of the lettered, unoccluded tiles of the caches.

    Raises ValueError naming a cache that is not a squares cache (:func:`kiosk.vision.squarenet_train.load_caches`)
    or caches holding no lettered tile."""
    z = load_caches(paths)
    named = ", ".join(map(str, paths))
    try:
        values = {name: load_tile_set(name).values for name in sorted(set(z["tiles"].tolist()))}
        worth = np.array([values[t].get(lab, 0) for t, lab in zip(z["tiles"].tolist(), z["labels"].tolist())])
        keep = np.flatnonzero(np.char.isupper(z["labels"]) & ~z["occluded"] & np.isin(worth, VALUE_CLASSES))
        crops = [np.ascontiguousarray(np.rot90(z["crops"][i], -int(z["turned"][i]))) for i in keep.tolist()]
        if crops and min(crops[0].shape) < CELL_PX + 2 * CACHE_GROW_PX:
            raise ValueError(f"crops of {crops[0].shape[1]}x{crops[0].shape[0]} px, a squares cache's are "
                             f"{CELL_PX + 2 * CACHE_GROW_PX} px")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"{named}: not a usable squares cache ({exc})") from None
    if len(crops) < MIN_TILES:
        raise ValueError(f"{named}: {len(crops)} lettered tiles, at least {MIN_TILES} are needed (render more "
                         "frames with `train squares`)")
    return np.stack(crops), np.array([VALUE_CLASSES.index(int(worth[i])) for i in keep.tolist()], np.int64)


def mark(r: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The corner ``r`` (float32, REGION_SIZE_PX square) with a mark drawn across it: a horizontal line 1-4 px thick
    at a random height (most often), a short diagonal stroke, or 2-5 dots. Its grey is the corner's ink: the
    extreme (2nd or 98th percentile) farther from the median, so dark on light tiles and light on dark ones,
    give or take a fifth of the contrast; one mark in four is in the tile's own grey (the median), a gap cut
    through the digit."""
    lo, med, hi = np.percentile(r, (2, 50, 98))
    ink = float((med if rng.random() < 0.25 else lo if med - lo >= hi - med else hi)
                + rng.uniform(-0.2, 0.2) * (hi - lo))
    r, n, kind = r.copy(), REGION_SIZE_PX, rng.random()
    if kind < 0.6:
        y = int(rng.integers(2, n - 2))
        cv2.line(r, (int(rng.integers(0, n // 3)), y), (int(rng.integers(2 * n // 3, n)), y), ink,
                 int(rng.integers(1, 5)))
    elif kind < 0.85:
        x, y = rng.integers(0, n, 2)
        dx, dy = rng.integers(6, 14, 2) * rng.choice([-1, 1], 2)
        cv2.line(r, (int(x), int(y)), (int(x + dx), int(y + dy)), ink, int(rng.integers(1, 4)), cv2.LINE_AA)
    else:
        for x, y in rng.integers(0, n, (int(rng.integers(2, 6)), 2)):
            cv2.circle(r, (int(x), int(y)), int(rng.integers(1, 3)), ink, -1, cv2.LINE_AA)
    return r


def augment(crops: np.ndarray, rng: np.random.Generator, marks: float = 0.0) -> np.ndarray:
    """Network inputs (N x 1 x VALUE_PX^2) of upright cached crops, each corner shifted, marked (a share ``marks``
    of them; with 0 no random number is drawn for it, as when the shipped network was trained), blurred, lit and
    stroked at random (see the module docstring)."""
    regions = []
    for crop in crops:
        dx, dy = rng.integers(-SHIFT_PX, SHIFT_PX + 1, 2)
        a = CACHE_GROW_PX + REGION_PX
        r = crop[a + dy:a + dy + REGION_SIZE_PX, a + dx:a + dx + REGION_SIZE_PX].astype(np.float32)
        if marks > 0 and rng.random() < marks:
            r = mark(r, rng)
        if rng.random() < 0.2:
            r = (cv2.erode if rng.random() < 0.5 else cv2.dilate)(r, np.ones((2, 2), np.uint8))
        if rng.random() < 0.35:
            r = cv2.GaussianBlur(r, (0, 0), rng.uniform(0.4, 1.6))
        r = r * rng.uniform(0.6, 1.2) + rng.uniform(-20, 20)
        if rng.random() < 0.6:
            r = r + rng.normal(0, rng.uniform(1, 7), r.shape).astype(np.float32)
        regions.append(r)
    return prepare_regions(regions)


def build_net():  # noqa: ANN201 - torch is imported lazily
    from torch import nn

    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * (VALUE_PX // 8) ** 2, len(VALUE_CLASSES)))


def train(caches: list[Path], out: Path, epochs: int = 6, per_epoch: int = 60000, threads: int = 2,
          seed: int = 0, marks: float = 0.0) -> float:
    """Train on ``caches`` and write the ONNX network to ``out`` (written whole or not at all); returns the share of
    the crops kept out of training (a tenth, at most 3,000) whose value it reads right (their corners unshifted).
    Raises ValueError for bad arguments or caches, before any training (and before torch is imported)."""
    for name, value, least in (("--epochs", epochs, 1), ("--per-epoch", per_epoch, BATCH), ("--threads", threads, 1)):
        if value < least:
            raise ValueError(f"{name} {value}: at least {least}")
    if not 0.0 <= marks <= 1.0:     # (nan too)
        raise ValueError(f"--marks {marks:g}: a share of the corners, from 0 to 1")
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"--out {out}: a folder; give the network's file (values.onnx)")
    try:
        replace_target(out)    # a device, FIFO or dangling link there: refused before the training, not after
    except NotReplaceable as exc:
        raise ValueError(f"--out {exc}") from None
    out.parent.mkdir(parents=True, exist_ok=True)    # OSError (named by the caller) when it cannot be
    if not os.access(out.parent, os.W_OK):
        raise ValueError(f"--out {out}: its folder cannot be written")
    crops, classes = load(caches)     # bad caches are named before torch is needed
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    log(f"values: {len(crops)} lettered tiles, per value {dict(zip(VALUE_CLASSES, np.bincount(classes, minlength=len(VALUE_CLASSES)).tolist()))}")
    kept = rng.choice(len(crops), min(3000, len(crops) // 10), replace=False)
    train_idx = np.setdiff1d(np.arange(len(crops)), kept)
    g = CACHE_GROW_PX
    x_kept = torch.from_numpy(prepare_regions([value_region(c, g) for c in crops[kept]]))
    net = build_net()
    batch = BATCH
    steps = max(1, min(per_epoch, len(train_idx)) // batch)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=epochs * steps)
    t0, acc = time.time(), 0.0
    for ep in range(epochs):
        pick = rng.choice(train_idx, steps * batch, replace=len(train_idx) < steps * batch)
        net.train()
        for b in range(steps):
            idx = pick[b * batch:(b + 1) * batch]
            loss = torch.nn.functional.cross_entropy(net(torch.from_numpy(augment(crops[idx], rng, marks))),
                                                     torch.from_numpy(classes[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = float((net(x_kept).argmax(1).numpy() == classes[kept]).mean())
        log(f"values: epoch {ep + 1}/{epochs}, loss {loss.item():.3f}, kept-out crops {acc:.4f} ({time.time() - t0:.0f} s)")
    with replacing(out) as part:
        torch.onnx.export(net.eval(), (torch.randn(1, 1, VALUE_PX, VALUE_PX),), part, dynamo=False,
                          opset_version=13, input_names=["x"], output_names=["logits"],
                          dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}})
    return acc
