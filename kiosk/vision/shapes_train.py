"""Training of the stroke-direction letter reader (:mod:`kiosk.vision.letter_shapes`) on the lettered tiles of
square caches (``python -m kiosk.vision.train shapes CACHE...``; needs the ``train`` extra: torch).

The tiles are read as the reader reads them (the square's crop, prepared as the network's input), upright: the
reader turns a tile by the letter network's read quarter turns before asking. By default each tile is seen as
rendered (the renderer already varies light, blur, camera and tile); ``augment`` draws tiles afresh each epoch and
changes them as the letter network's training does (:func:`kiosk.vision.squarenet_train.augment_batch`: shift,
rotation, scale, blur, noise, contrast, thicker or thinner strokes, wider or narrower letters). Augmented, the
reader disagreed with more right letters of the validation faces for fewer wrong ones caught
(``kiosk/vision/models/README.md``). The model is a
:class:`kiosk.vision.mlp.Classifier` (standardised features, one hidden ReLU layer, softmax over the letters of
both tile sets), written as its ``.npz`` blob.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from kiosk.files import write_atomic
from kiosk.rules.tiles import load_tile_set
from kiosk.vision.letter_shapes import shape_features
from kiosk.vision.mlp import Classifier
from kiosk.vision.squarenet_train import TURNS, augment_batch, load_caches, log

HIDDEN = 512
"""Units of the hidden layer."""


def _features(crops: np.ndarray, rng: np.random.Generator, strength: float) -> np.ndarray:
    """Shape features of upright cached crops (N x C x C uint8), augmented (``strength`` 0: plain), in parts."""
    parts = []
    for s in range(0, len(crops), 20000):
        x, turns = augment_batch(crops[s:s + 20000], rng, strength=strength, stroke=0.3 if strength else 0.0,
                                 widen=0.25 if strength else 0.0)
        parts.append(shape_features(np.stack([np.rot90(x[i, 0], -int(turns[i])) for i in range(len(x))])))
    return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)


def train_shapes(caches: list[Path], out: Path, epochs: int = 12, per_epoch: int = 100000, threads: int = 2,
                 seed: int = 0, lr: float = 2e-3, limit: int = 300000, augment: bool = False) -> float:
    """Train the shape reader on the lettered tiles of ``caches`` (at most ``limit``, drawn at random) and write
    its model to ``out`` (``.npz``); returns the share of held-out plain tiles (2%, at most 5,000) read right.
    Each epoch reads every training tile once, or with ``augment`` ``per_epoch`` tiles drawn and changed afresh.

    Raises:
        ValueError: an argument out of range, a file that is not a squares cache, or a letter of either tile set
            with no tile in the caches. ModuleNotFoundError: torch (the ``train`` extra) is not installed.
    """
    if epochs < 1 or per_epoch < 512 or threads < 1 or limit < 1000:
        raise ValueError(f"shapes: epochs {epochs}, per-epoch {per_epoch}, threads {threads}, limit {limit}: "
                         "at least 1, 512, 1 and 1000")
    rng = np.random.default_rng(seed)
    d = load_caches(caches)
    use = np.flatnonzero(~d["occluded"] & (d["labels"] != ".") & (d["labels"] != "?"))
    use = np.sort(rng.choice(use, min(limit, len(use)), replace=False))
    # each crop turned upright (the cache's ``turned``: degrees clockwise the tile lies turned)
    crops = np.stack([np.rot90(d["crops"][i], -((360 - int(d["turned"][i])) // 90 % TURNS)) for i in use])
    labels = d["labels"][use].astype(str)
    del d
    letters = sorted(set(load_tile_set("english").letters) | set(load_tile_set("german").letters))
    missing = sorted(set(letters) - set(labels.tolist()))
    if missing:
        raise ValueError(f"{', '.join(map(str, caches))}: no tile of {', '.join(missing)} (render German frames "
                         "too: `train squares --german N --letter-share ÄÖÜ=0.04`)")
    y = np.searchsorted(letters, labels)
    order = rng.permutation(len(y))
    val, train = order[:min(5000, len(y) // 50)], order[min(5000, len(y) // 50):]
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    plain = None if augment else _features(crops[train], rng, 0.0)
    sample = plain if plain is not None else _features(crops[rng.choice(train, min(20000, len(train)), False)],
                                                       rng, 0.0)
    mean, scale = sample.mean(axis=0), sample.std(axis=0) + 1e-6
    if plain is not None:
        plain = (plain - mean) / scale
    first, last = torch.nn.Linear(len(mean), HIDDEN), torch.nn.Linear(HIDDEN, len(letters))
    net = torch.nn.Sequential(first, torch.nn.ReLU(), torch.nn.Dropout(0.2), last)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    batch = 512
    per_epoch = per_epoch if augment else len(train)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * (-(-per_epoch // batch)),
                                                pct_start=0.15)
    x_val = torch.tensor((_features(crops[val], rng, 0.0) - mean) / scale)
    y_t = torch.tensor(y)
    t0, acc = time.time(), 0.0
    for ep in range(epochs):
        if plain is None:
            pick = rng.choice(train, per_epoch, replace=len(train) < per_epoch)
            x = torch.tensor((_features(crops[pick], rng, 1.0) - mean) / scale)
        else:
            order = rng.permutation(len(train))
            pick, x = train[order], torch.tensor(plain[order])
        net.train()
        for s in range(0, len(pick), batch):
            loss = torch.nn.functional.cross_entropy(net(x[s:s + batch]), y_t[pick[s:s + batch]])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = float((net(x_val).argmax(1) == y_t[val]).float().mean())
        log(f"  epoch {ep + 1}/{epochs}: loss {loss.item():.4f}, held out letters {acc:.4f} ({time.time() - t0:.0f} s)")
        w1, b1, w2, b2 = (p.detach().numpy().astype(np.float32) for p in (first.weight, first.bias, last.weight,
                                                                        last.bias))
        model = Classifier(letters, mean.astype(np.float32), scale.astype(np.float32), w1.T.copy(), b1, w2.T.copy(), b2)
        write_atomic(out, model.to_bytes())
    return acc
