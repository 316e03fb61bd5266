"""Training of the letter network (:class:`kiosk.vision.squarenet.SquareNet`'s ``letters``) from cached synthetic
square crops.

The square network (``squares_<set>.onnx``) says whether a square is empty, a blank or a lettered tile, and
which letter. The letter network answers only the last question, for lettered tiles: it is wider (32/64/128
channels against 16/32/64) and trained on lettered tiles alone, drawn in many more faces (the training Google
Fonts faces beside Debian's and the built-in ones), so that a face the kiosk has never seen is read more
surely. Labels: letter + quarter turns (``"A0"`` ... ``"Z3"``, ``Ä`` ``Ö`` ``Ü``), in the square network's
order. Needs the optional ``train`` extra (torch, onnx). Entry point: ``python -m kiosk.vision.train letters
CACHE.npz [...]`` (caches written by ``python -m kiosk.vision.train squares``); writes
``letters_{english,german}.onnx`` + ``.json``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from kiosk.rules.tiles import load_tile_set
from kiosk.vision.squarenet import INPUT_PX
from kiosk.vision.squarenet_train import (
    TURNS,
    augment_batch,
    check_options,
    export_sets,
    load_caches,
    log,
    train_epoch,
)

CHANNELS = (32, 64, 128)
"""Channels of the letter network's three conv blocks (the square network: 16/32/64)."""
KIND = "letters"
"""The ``kind`` of a letter network's label file (a square network's has none)."""


def build_letter_net(n_cls: int, channels: tuple[int, ...] = CHANNELS):  # noqa: ANN201 - torch is lazy
    """The letter network: conv blocks of ``channels`` (3x3, batch norm, ReLU, 2x2 max pool) on the INPUT_PX^2
    crop, then one dense layer to ``n_cls`` logits."""
    from torch import nn
    layers: list = []
    c_in = 1
    for c_out in channels:
        layers += [nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU(), nn.MaxPool2d(2)]
        c_in = c_out
    side = INPUT_PX // 2 ** len(channels)
    return nn.Sequential(*layers, nn.Flatten(), nn.Dropout(0.3), nn.Linear(c_in * side * side, n_cls))


def train_letters(caches: list[Path], out: Path, epochs: int = 16, per_epoch: int = 96000, threads: int = 2,
                  seed: int = 0, lr: float = 3e-3, stroke: float = 0.3, widen: float = 0.25,
                  channels: tuple[int, ...] = CHANNELS, elements: float = 0.0, outlines: float = 0.0
                  ) -> dict[str, float]:
    """Train the letter network on the lettered tiles of ``caches`` and write ``letters_{english,german}.onnx``
    (+ ``.json``) into ``out``. Each epoch draws ``per_epoch`` tiles, augmented afresh (:func:`augment_batch`:
    quarter turns, shift, rotation, scale, blur, noise, contrast; ``stroke``, ``widen``, ``elements``: the share
    redrawn as dots, pixels or scan lines, and ``outlines``: the share redrawn hollow, as there). 4% of the
    tiles are held out (by crop) for the reported letter accuracy.

    Raises:
        ValueError: an argument out of range, a file that is not a squares cache, or caches too small for one
            batch. ModuleNotFoundError: the ``train`` extra (torch, onnx) is not installed.
    """
    batch = 256
    check_options(batch, epochs=epochs, threads=threads, per_epoch=per_epoch, stroke=stroke, widen=widen,
                  elements=elements, outlines=outlines)
    rng = np.random.default_rng(seed)
    d = load_caches(caches)
    use = ~d["occluded"] & (d["labels"] != ".") & (d["labels"] != "?")
    crops, labels, turned, tiles = d["crops"][use], d["labels"][use], d["turned"][use], d["tiles"][use]
    del d
    # every letter of both tile sets, in the square networks' order (the reader refuses other labels)
    letters = sorted(set(load_tile_set("english").letters) | set(load_tile_set("german").letters))
    held = rng.random(len(labels)) < 0.04
    train_idx, val_idx = np.flatnonzero(~held), np.flatnonzero(held)
    named = ", ".join(map(str, caches))
    if len(train_idx) < batch:
        raise ValueError(f"{named}: {len(train_idx)} lettered training tiles, too few for one batch of {batch} "
                         f"(render more frames with `train squares`)")
    missing = sorted(set(letters) - {str(x) for x in labels})
    if missing:
        raise ValueError(f"{named}: no tile of {', '.join(missing)}: the letter network must know every letter of "
                         f"both tile sets (render German frames too: `train squares --german N --letter-share "
                         f"ÄÖÜ=0.04`)")
    names = [f"{c}{k}" for c in letters for k in range(TURNS)]
    index = {lab: i for i, lab in enumerate(names)}
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    log(f"letter crops: {len(labels)} ({int((turned != 0).sum())} turned), {len(names)} classes; "
        f"{len(val_idx)} held out")
    net = build_letter_net(len(names), channels)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (per_epoch // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    figs: dict[str, float] = {}
    for ep in range(epochs):
        pick = rng.choice(train_idx, (per_epoch // batch) * batch, replace=len(train_idx) < per_epoch)
        loss = train_epoch(net, opt, sched, pick, batch, crops, labels, turned, index, rng, stroke, widen,
                           elements, outlines)
        figs = {"letters": _accuracy(net, crops[val_idx], labels[val_idx], letters)}
        log(f"  epoch {ep + 1}/{epochs}: loss {loss:.4f}, held out letters "
            f"{figs['letters']:.4f} ({time.time() - t0:.0f} s)")
        export_letters(net, names, out, tiles, figs, quiet=ep + 1 < epochs)
    return figs


def _accuracy(net, crops: np.ndarray, labels: np.ndarray, letters: list[str]) -> float:  # noqa: ANN001
    """Share of plain (unaugmented, upright) crops whose most likely letter (turns summed) is their label."""
    import torch
    net.eval()
    right = 0
    with torch.no_grad():
        for b in range(0, len(crops), 1024):
            x, _ = augment_batch(crops[b:b + 1024], np.random.default_rng(0), strength=0.0)
            p = torch.softmax(net(torch.from_numpy(x)), 1).numpy().reshape(len(x), len(letters), TURNS).sum(2)
            right += int((np.array(letters)[p.argmax(1)] == labels[b:b + 1024]).sum())
    net.train()
    return right / max(len(crops), 1)


def export_letters(net, names: list[str], out: Path, tiles: np.ndarray, figs: dict[str, float],  # noqa: ANN001
                   quiet: bool = False) -> None:
    """Write ``letters_german.onnx`` and ``letters_english.onnx`` (the output layer cut to each set's letters)
    with their JSON label files (``kind``: :data:`KIND`) into ``out``; checks OpenCV's dnn reads them as torch
    does (raises ValueError otherwise)."""
    export_sets(net, names, out, "letters", tiles, figs, kind=KIND,
                trained_on="lettered tiles, {english} English and {german} German crops", quiet=quiet)
