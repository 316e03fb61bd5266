"""Training of the square network (:mod:`kiosk.vision.squarenet`) from cached synthetic square crops.

Needs the optional ``train`` extra (torch, onnx); the reader itself only loads the exported ONNX files with
OpenCV. Entry point: ``python -m kiosk.vision.train cnn CACHE.npz [CACHE2.npz ...]`` (caches written by
``python -m kiosk.vision.train squares``). One network is trained on the English and German crops together
(labels: empty, blank, letters A-Z Ä Ö Ü x 4 quarter turns); ``squares_german.onnx`` is that network and
``squares_english.onnx`` the same network with the output layer cut to the English labels (softmax over them).
"""

from __future__ import annotations

import json
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from kiosk.files import replacing, write_atomic
from kiosk.vision.cvcompat import read_onnx
from kiosk.vision.mlp import data_problem
from kiosk.vision.squarenet import BLANK, CROP_PX, EMPTY, GROW_PX, INPUT_PX, normalise

TURNS = 4


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load_caches(paths: list[Path]) -> dict[str, np.ndarray]:
    """Concatenate square caches (see ``kiosk.vision.train.collect_squares``); raises ValueError when a cache
    lacks a key or holds non-synthetic material."""
    keys = ("crops", "labels", "turned", "occluded", "tiles")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    for p in paths:
        try:
            z = np.load(p, allow_pickle=False)
            files = z.files
        except FileNotFoundError:
            raise ValueError(f"{p}: not a square cache written by `train squares` (no such file)") from None
        except AttributeError:    # a plain .npy array has no ``files``
            raise ValueError(f"{p}: not a square cache written by `train squares` (one NumPy array, not an .npz "
                             "archive of arrays)") from None
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            # numpy's own words would advise loading pickled data "unsafely"
            raise ValueError(f"{p}: not a square cache written by `train squares` ({data_problem(exc)})") from None
        missing = [k for k in keys if k not in files]
        extra = [k for k in files if k not in keys]
        if missing or extra:
            raise ValueError(f"{p}: not a synthetic square cache (missing {missing}, unexpected {extra})")
        try:
            for k in keys:
                parts[k].append(z[k])
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:    # a damaged member (bad CRC)
            raise ValueError(f"{p}: a damaged square cache ({type(exc).__name__}: {exc})") from None
    return {k: np.concatenate(v) for k, v in parts.items()}


def label_list(letters: list[str]) -> list[str]:
    """``["empty", "blank", "A0", "A1", ...]`` for the sorted ``letters``."""
    return [EMPTY, BLANK] + [f"{c}{k}" for c in sorted(letters) for k in range(TURNS)]


def _lettering(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray] | None:
    """The crop's lettering for the redrawing augmentations (:func:`element_lettering`, :func:`outline_lettering`):
    (the crop float32, its ink mask inside :data:`ELEMENT_MARGIN`, the ink's median grey level, the crop with the
    ink painted out float32), or None where no lettering stands out (a blank, a washed-out crop)."""
    g = np.ascontiguousarray(img).astype(np.float32)
    c = g.shape[0]
    mid = g[ELEMENT_MARGIN:c - ELEMENT_MARGIN, ELEMENT_MARGIN:c - ELEMENT_MARGIN]
    lo, face_level, hi = np.percentile(mid, (2, 50, 98))
    dark = face_level - lo >= hi - face_level           # ink darker than the face (else lighter)
    contrast = face_level - lo if dark else hi - face_level
    if contrast < 25:
        return None
    ink = (g < face_level - 0.5 * contrast) if dark else (g > face_level + 0.5 * contrast)
    ink[:ELEMENT_MARGIN], ink[c - ELEMENT_MARGIN:], ink[:, :ELEMENT_MARGIN], ink[:, c - ELEMENT_MARGIN:] = (
        False, False, False, False)
    if not ink.any():
        return None
    face = cv2.inpaint(np.ascontiguousarray(img), cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8)),
                       3, cv2.INPAINT_TELEA).astype(np.float32)
    return g, ink, float(np.median(g[ink])), face


def element_lettering(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop ``img`` (C x C uint8 grey, a tile's lettering darker or lighter than its face) with the ink of
    its middle (the tile: :data:`ELEMENT_MARGIN` px in from each side) redrawn as display lettering: the ink is
    sampled on a square grid of pitch 3-5.5 px (random phase), each grid cell holding enough ink becomes one
    element, a round dot (dot-matrix), a square (pixel face) or a short bar (scan lines), drawn at the ink's grey
    level over the face with the strokes painted out. A letter of any face becomes that letter as a dot-matrix or
    pixel face would draw it. Returns C x C float32 (``img`` itself where no lettering stands out)."""
    found = _lettering(img)
    if found is None:
        return np.ascontiguousarray(img).astype(np.float32)
    g, ink, level, face = found
    c = g.shape[0]
    pitch = rng.uniform(3.0, 5.5)
    n = int(np.ceil(c / pitch)) + 1
    off = rng.uniform(0, pitch, 2)
    # ink share around each element's centre (off + k * pitch)
    box = max(int(round(pitch)), 2)
    cover = cv2.warpAffine(cv2.blur(ink.astype(np.float32), (box, box)),
                           np.array([[pitch, 0, off[0]], [0, pitch, off[1]]], np.float32), (n, n),
                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    on = (cover > rng.uniform(0.25, 0.5)).astype(np.float32)
    # each element drawn on an 8 x 8 raster, the grid of them laid back over the crop
    k = 8
    yy, xx = (np.mgrid[0:k, 0:k] + 0.5) / k - 0.5
    shape = rng.choice(3, p=(0.45, 0.35, 0.2))
    size = rng.uniform(0.55, 0.95)
    if shape == 0:
        elem = np.hypot(xx, yy) <= size / 2
    elif shape == 1:
        elem = (np.abs(xx) <= size / 2) & (np.abs(yy) <= size / 2)
    else:
        elem = np.abs(yy) <= size / 2 - 0.1
    big = np.kron(on, elem.astype(np.float32))
    back = np.array([[k / pitch, 0, (0.5 - off[0] / pitch) * k], [0, k / pitch, (0.5 - off[1] / pitch) * k]],
                    np.float32)
    alpha = cv2.warpAffine(big, back, (c, c), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    alpha = cv2.GaussianBlur(alpha, (0, 0), 0.5)
    return face + (level - face) * np.clip(alpha, 0.0, 1.0)


def outline_lettering(img: np.ndarray, rng: np.random.Generator, kind: str | None = None) -> np.ndarray:
    """The crop ``img`` (as :func:`element_lettering`) with its lettering redrawn hollow. ``kind`` ``"outline"``:
    only the strokes' edges are kept, a wall 1-2 px wide (1 px where a 2 px wall would leave no inside), as outline
    faces draw; ``"inline"``: a line 1-2 px wide of the face's colour is cut along the middle of the strokes, as
    inline faces draw; None: one of them at random, the outline in two of three crops. A letter of any face becomes
    that letter as such a face would draw it. Returns C x C float32 (``img`` itself where no lettering stands
    out, or its strokes are too thin to hollow: nothing cut, or an inline cut leaving less than a quarter of the
    ink).

    Raises:
        ValueError: ``kind`` not one of those.
    """
    if kind not in (None, "outline", "inline"):
        raise ValueError(f"kind {kind!r}: 'outline', 'inline' or None")
    found = _lettering(img)
    if found is None:
        return np.ascontiguousarray(img).astype(np.float32)
    g, ink, level, face = found
    mask = ink.astype(np.uint8)
    wall = int(rng.integers(1, 3))
    if kind is None:
        kind = "outline" if rng.random() < 2 / 3 else "inline"
    if kind == "outline":
        inner = cv2.erode(mask, np.ones((2 * wall + 1,) * 2, np.uint8))
        if wall > 1 and not inner.any():        # strokes too thin for a 2 px wall: a 1 px one
            inner = cv2.erode(mask, np.ones((3, 3), np.uint8))
        keep = ink & (inner == 0)
    else:
        # the strokes' middle line: the pixels farthest from the face among their neighbours (the distance
        # transform's ridge), at least 1 px in, widened (centred) to the line's width
        half = cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        ridge = ((half >= cv2.dilate(half, np.ones((3, 3), np.uint8)) - 1e-3) & (half >= 1.0)).astype(np.uint8)
        cut = cv2.dilate(ridge, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))) if wall > 1 else ridge
        keep = ink & (cut == 0)
    if keep.sum() == ink.sum() or (kind == "inline" and keep.sum() < 0.25 * ink.sum()):
        return g
    alpha = cv2.GaussianBlur(keep.astype(np.float32), (0, 0), 0.5)
    return face + (level - face) * np.clip(alpha, 0.0, 1.0)


ELEMENT_MARGIN = 10
"""Pixels in from each side of a cached crop (64 px: the 48 px square grown by 8) outside which
:func:`element_lettering` leaves the ink alone (the board, the neighbours' edges)."""


def augment_batch(crops: np.ndarray, rng: np.random.Generator, strength: float = 1.0, stroke: float = 0.0,
                  widen: float = 0.0, elements: float = 0.0, outlines: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(network input N x 1 x INPUT_PX^2 float32, quarter turns N int) from cached crops (N x C x C uint8,
    C >= CROP_PX): each turned by a random number of quarter turns, shifted (up to 3 px), rotated (+-6 deg),
    scaled (+-6%), sometimes blurred, given noise and a contrast/gamma change, then prepared exactly as the
    reader prepares its crops (area resize, robust normalisation). ``stroke``: the share of crops whose grey
    levels are eroded or dilated (2 or 3 px square): ink strokes thicker or thinner than the font's, a
    weight the renderer does not draw. ``widen`` (0 <= W < 1): half the crops are scaled along the letter's
    own horizontal axis (before its quarter turns) by a factor drawn from [1 - W, 1 + W] about the crop's
    centre: letters wider or narrower than the font draws them. ``elements``: the share of crops whose
    lettering is redrawn as dots, pixels or scan lines (:func:`element_lettering`); ``outlines``: the share of the
    others redrawn hollow (:func:`outline_lettering`). ``strength`` 0 gives plain crops (no stroke, width, element
    or outline change either)."""
    n, c = len(crops), crops.shape[1]
    out = np.empty((n, 1, INPUT_PX, INPUT_PX), np.float32)
    turns = rng.integers(0, TURNS, n) if strength > 0 else np.zeros(n, np.int64)
    for i in range(n):
        img = np.rot90(crops[i], int(turns[i]))
        if strength > 0 and elements > 0 and rng.random() < elements:
            img = np.clip(element_lettering(img, rng), 0, 255).astype(np.uint8)
        elif strength > 0 and outlines > 0 and rng.random() < outlines:
            img = np.clip(outline_lettering(img, rng), 0, 255).astype(np.uint8)
        if strength > 0 and stroke > 0 and rng.random() < stroke:
            kernel = np.ones((int(rng.integers(2, 4)),) * 2, np.uint8)
            img = (cv2.erode if rng.random() < 0.5 else cv2.dilate)(np.ascontiguousarray(img), kernel)
        if strength > 0:
            ang = rng.uniform(-6, 6) * strength
            sc = 1.0 + rng.uniform(-0.06, 0.06) * strength
            m = cv2.getRotationMatrix2D((c / 2, c / 2), ang, sc)
            if widen > 0 and rng.random() < 0.5:
                # scale the letter's horizontal axis: the image's x axis after an even number of quarter
                # turns, its y axis after an odd one; about the centre, then rotated as above
                w = np.eye(3)
                ax = int(turns[i]) % 2
                f = rng.uniform(1.0 - widen, 1.0 + widen)
                w[ax, ax], w[ax, 2] = f, (1.0 - f) * c / 2
                m = m @ w
            m[:, 2] += rng.uniform(-3, 3, 2) * strength - (c - CROP_PX) / 2
            img = cv2.warpAffine(np.ascontiguousarray(img), m, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
            if rng.random() < 0.35:
                img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.6) * strength)
            if rng.random() < 0.5:
                g = np.exp(rng.uniform(-0.35, 0.35) * strength)
                img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** g
            img = img * rng.uniform(0.6, 1.2) + rng.uniform(-20, 20)
            if rng.random() < 0.6:
                img = img + rng.normal(0, rng.uniform(1, 7) * strength, img.shape).astype(np.float32)
        else:
            g = (c - CROP_PX) // 2
            img = np.ascontiguousarray(img[g:g + CROP_PX, g:g + CROP_PX]).astype(np.float32)
        out[i, 0] = cv2.resize(img.astype(np.float32), (INPUT_PX, INPUT_PX), interpolation=cv2.INTER_AREA)
    return normalise(out), turns


def _targets(labels: np.ndarray, turned: np.ndarray, turns: np.ndarray, index: dict[str, int], n_cls: int
             ) -> np.ndarray:
    """N x n_cls bool: the classes a crop may be. One class, except a tile the renderer turned (its turn in the
    crop is not tracked): any turn of its letter."""
    mask = np.zeros((len(labels), n_cls), bool)
    for i, (lab, tdeg, k) in enumerate(zip(labels, turned, turns)):
        if lab == ".":
            mask[i, 0] = True
        elif lab == "?":
            mask[i, 1] = True
        elif tdeg:
            for j in range(TURNS):
                mask[i, index[f"{lab}{j}"]] = True
        else:
            mask[i, index[f"{lab}{int(k)}"]] = True
    return mask


def build_net(n_cls: int, batch_norm: bool = True):  # noqa: ANN201 - torch is imported lazily
    """The network: 3 conv blocks (16/32/64 channels, 3x3, batch norm, ReLU, 2x2 max pool) on the
    INPUT_PX^2 crop, then one dense layer to ``n_cls`` logits. ``batch_norm=False``: the same with the batch
    norms folded into the convolutions (as exported; for fine-tuning an exported network)."""
    from torch import nn
    layers: list = []
    for c_in, c_out in ((1, 16), (16, 32), (32, 64)):
        layers += [nn.Conv2d(c_in, c_out, 3, padding=1)] + ([nn.BatchNorm2d(c_out)] if batch_norm else []) + \
            [nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*layers, nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * (INPUT_PX // 8) ** 2, n_cls))


def load_exported(path: Path, names: list[str]):  # noqa: ANN201
    """An exported network (``squares_german.onnx``, labels ``names``) as a trainable torch network without
    batch norm (:func:`build_net`); raises ValueError when its labels or shapes differ."""
    import onnx
    import torch
    from onnx import numpy_helper

    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    if meta["labels"] != names:
        raise ValueError(f"{path}: its labels differ from the caches' ({len(meta['labels'])} vs {len(names)})")
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}
    net = build_net(len(names), batch_norm=False)
    convs = [m for m in net if isinstance(m, torch.nn.Conv2d)]
    for node, conv in zip([n for n in onnx.load(str(path)).graph.node if n.op_type == "Conv"], convs):
        conv.weight.data = torch.from_numpy(inits[node.input[1]].copy())
        assert conv.bias is not None            # build_net's convolutions have biases
        conv.bias.data = torch.from_numpy(inits[node.input[2]].copy())
    gemm = next(n for n in onnx.load(str(path)).graph.node if n.op_type == "Gemm")
    net[-1].weight.data = torch.from_numpy(inits[gemm.input[1]].copy())
    net[-1].bias.data = torch.from_numpy(inits[gemm.input[2]].copy())
    return net


def train(caches: list[Path], out: Path, epochs: int = 12, per_epoch: int = 80000, threads: int = 2,
          seed: int = 0, init: Path | None = None, lr: float = 3e-3, blank_repeat: int = 1,
          repeat: dict[str, int] | None = None, stroke: float = 0.0, widen: float = 0.0) -> dict[str, float]:
    """Train the square network on ``caches`` and write ``squares_{english,german}.{onnx,json}`` into ``out``.

    Each epoch draws ``per_epoch`` crops (all lettered and blank tiles when they fit, blanks ``blank_repeat``
    times and the tiles of each label in ``repeat`` (``{"Ä": 6}``: a letter rare in the bag) that many times,
    then empties), augmented afresh. 4% of the crops are held out (by crop) for the reported accuracies.
    ``init``: fine-tune an exported ``squares_german.onnx`` instead of starting afresh (use a lower ``lr``).
    ``stroke``: share of crops given thicker or thinner strokes; ``widen``: the largest relative change of a
    letter's width (half the crops; :func:`augment_batch`).
    Returns the held-out figures.
    """
    batch = 256
    check_options(batch, epochs=epochs, threads=threads, per_epoch=per_epoch, stroke=stroke, widen=widen,
                  blank_repeat=blank_repeat)
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    d = load_caches(caches)
    use = ~d["occluded"]
    crops, labels, turned, tiles = d["crops"][use], d["labels"][use], d["turned"][use], d["tiles"][use]
    letters = sorted({str(x) for x in labels} - {".", "?"})
    names = label_list(letters)
    index = {lab: i for i, lab in enumerate(names)}
    held = rng.random(len(labels)) < 0.04
    train_idx, val_idx = np.flatnonzero(~held), np.flatnonzero(held)
    is_tile = labels != "."
    log(f"square crops: {len(labels)} ({int(is_tile.sum())} tiles, {int((labels == '?').sum())} blanks, "
        f"{int((turned != 0).sum())} turned), {len(names)} classes; {len(val_idx)} held out")
    net = build_net(len(names)) if init is None else load_exported(init, names)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (per_epoch // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    tiles_tr = train_idx[is_tile[train_idx]]
    absent = sorted(set(repeat or {}) - {str(x) for x in labels})
    if absent:
        raise ValueError(f"--repeat: no tile of {', '.join(absent)} in the caches")
    times = {"?": blank_repeat, **(repeat or {})}
    extra = [train_idx[labels[train_idx] == lab] for lab, n in times.items() for _ in range(n - 1)]
    tiles_tr = np.concatenate([tiles_tr, *extra])
    repeated = len(extra) > 0
    empty_tr = train_idx[~is_tile[train_idx]]
    for ep in range(epochs):
        n_t = min(len(tiles_tr), int(per_epoch * 0.7))
        pick = np.concatenate([rng.choice(tiles_tr, n_t, replace=repeated),
                               rng.choice(empty_tr, min(len(empty_tr), per_epoch - n_t), replace=False)])
        rng.shuffle(pick)
        pick = pick[:(len(pick) // batch) * batch]
        if not len(pick):
            raise ValueError(f"the caches hold {len(train_idx)} training crops: too few for one batch of {batch}")
        loss = train_epoch(net, opt, sched, pick, batch, crops, labels, turned, index, rng, stroke, widen)
        figs = evaluate(net, crops[val_idx], labels[val_idx], names)
        log(f"  epoch {ep + 1}/{epochs}: loss {loss:.4f}, held out: "
            + ", ".join(f"{k} {v:.4f}" for k, v in figs.items()) + f" ({time.time() - t0:.0f} s)")
        if ep + 1 < epochs:     # a usable model after every epoch (a long run can be tried while it trains)
            export(net, names, out, tiles, figs, quiet=True)
    net.eval()
    figs = evaluate(net, crops[val_idx], labels[val_idx], names)
    export(net, names, out, tiles, figs)
    return figs


def check_options(batch: int, *, epochs: int, threads: int, per_epoch: int, stroke: float, widen: float,
                  blank_repeat: int = 1, elements: float = 0.0, outlines: float = 0.0) -> None:
    """Raise ValueError naming the first training option out of range (``--epochs``, ``--threads``,
    ``--blank-repeat`` at least 1, ``--per-epoch`` at least one ``batch``, ``--stroke``, ``--elements`` and
    ``--outlines`` 0..1, ``--widen`` 0 to below 1)."""
    for name, value, least in (("epochs", epochs, 1), ("threads", threads, 1), ("per-epoch", per_epoch, batch),
                               ("blank-repeat", blank_repeat, 1)):
        if value < least:
            raise ValueError(f"--{name} {value}: at least {least}")
    for name, share in (("stroke", stroke), ("elements", elements), ("outlines", outlines)):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"--{name} {share}: a share from 0 to 1")
    if not 0.0 <= widen < 1.0:
        raise ValueError(f"--widen {widen}: from 0 to below 1")


def train_epoch(net, opt, sched, pick: np.ndarray, batch: int, crops: np.ndarray, labels: np.ndarray,  # noqa: ANN001
                turned: np.ndarray, index: dict[str, int], rng: np.random.Generator, stroke: float = 0.0,
                widen: float = 0.0, elements: float = 0.0, outlines: float = 0.0) -> float:
    """One epoch of ``net`` (optimiser ``opt``, scheduler ``sched`` stepped per batch) over the crops ``pick`` in
    batches of ``batch``, each augmented afresh (:func:`augment_batch`), the loss -log P(any class the crop may
    be) (:func:`_targets`; ``index``: label -> output). Returns the mean loss per crop."""
    import torch
    net.train()
    loss_sum = 0.0
    for b in range(0, len(pick), batch):
        idx = pick[b:b + batch]
        x, k = augment_batch(crops[idx], rng, stroke=stroke, widen=widen, elements=elements, outlines=outlines)
        mask = torch.from_numpy(_targets(labels[idx], turned[idx], k, index, len(index)))
        logits = net(torch.from_numpy(x))
        loss = (logits.logsumexp(1) - logits.masked_fill(~mask, float("-inf")).logsumexp(1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        loss_sum += loss.item() * len(idx)
    return loss_sum / max(len(pick), 1)


def cut_outputs(net, keep: list[int]):  # noqa: ANN001, ANN201 - torch is imported lazily
    """A copy of ``net`` (a torch Sequential ending in its dense layer) giving only the outputs ``keep``: one
    network's English outputs of the English and German classes."""
    import copy
    sub = copy.deepcopy(net)
    fc = sub[-1]
    fc.weight.data = fc.weight.data[keep].clone()
    fc.bias.data = fc.bias.data[keep].clone()
    fc.out_features = len(keep)
    return sub


def export_checked(net, path: Path) -> float:  # noqa: ANN001
    """Write ``net`` (eval mode) to the ONNX file ``path`` (input ``x``: N x 1 x INPUT_PX^2, output ``logits``)
    and return the largest difference of OpenCV's dnn output from torch's on random input; raises ValueError
    above 1e-3."""
    import torch
    probe = torch.randn(7, 1, INPUT_PX, INPUT_PX)
    with replacing(path) as tmp:     # a network OpenCV does not run as torch does never replaces the file
        torch.onnx.export(net, (probe[:1],), tmp, dynamo=False, opset_version=13, input_names=["x"],
                          output_names=["logits"], dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}})
        with torch.no_grad():
            ref = net(probe).numpy()
        cvnet = read_onnx(Path(tmp).read_bytes())   # as the kiosk loads it
        cvnet.setInput(probe.numpy())
        err = float(np.abs(cvnet.forward() - ref).max())
        if err > 1e-3:
            raise ValueError(f"{path}: OpenCV's output differs from torch's by {err}")
    return err


def evaluate(net, crops: np.ndarray, labels: np.ndarray, names: list[str]) -> dict[str, float]:  # noqa: ANN001
    """Held-out figures of ``net`` on plain (unaugmented, upright) crops: accuracy on letters (turns summed),
    blanks, empties."""
    import torch
    net.eval()
    with torch.no_grad():
        probs = []
        for b in range(0, len(crops), 1024):
            x, _ = augment_batch(crops[b:b + 1024], np.random.default_rng(0), strength=0.0)
            probs.append(torch.softmax(net(torch.from_numpy(x)), 1).numpy())
    p = np.concatenate(probs) if probs else np.zeros((0, len(names)))
    net.train()
    letters = sorted({n[:-1] for n in names[2:]})
    per = np.zeros((len(p), 2 + len(letters)), np.float32)
    per[:, :2] = p[:, :2]
    for j, n in enumerate(names[2:]):
        per[:, 2 + letters.index(n[:-1])] += p[:, 2 + j]
    cls = np.array([".", "?"] + letters)[per.argmax(1)] if len(p) else np.array([])
    out = {}
    for what, sel in (("letters", (labels != ".") & (labels != "?")), ("blanks", labels == "?"),
                      ("empty", labels == ".")):
        out[what] = float((cls[sel] == labels[sel]).mean()) if sel.any() else float("nan")
    return out


def export(net, names: list[str], out: Path, tiles: np.ndarray, figs: dict[str, float],  # noqa: ANN001
           quiet: bool = False) -> None:
    """Write ``squares_german.onnx`` (all labels) and ``squares_english.onnx`` (the output layer cut to the
    English labels) with their JSON label files into ``out``; checks OpenCV's dnn reads them as torch does, and
    that each loads as the reader loads it."""
    from kiosk.vision.squarenet import SquareNet

    export_sets(net, names, out, "squares", tiles, figs, keep_first=2,
                trained_on="{english} English and {german} German square crops",
                check=lambda path, labels: SquareNet(path.read_bytes(), labels, str(path)), quiet=quiet)


def export_sets(net, names: list[str], out: Path, prefix: str, tiles: np.ndarray,  # noqa: ANN001
                figs: dict[str, float], *, trained_on: str, keep_first: int = 0, kind: str | None = None,
                check: Callable[[Path, list[str]], object] | None = None, quiet: bool = False) -> None:
    """Write ``<prefix>_english.onnx`` and ``<prefix>_german.onnx`` into ``out`` (made if missing): ``net`` (a
    torch Sequential ending in its dense layer, output ``names``) with its outputs cut to each tile set's letters
    (labels "<letter><turns>") and the first ``keep_first`` outputs, each with its JSON label file (``kind`` when
    given, the labels, input and grow px, ``trained_on``: after "synthetic frames only (...): ", formatted with the
    ``{english}`` and ``{german}`` crop counts of ``tiles``, and the held-out ``figs``). Raises ValueError where
    OpenCV's dnn does not read a network as torch does (:func:`export_checked`); ``check(path, labels)`` is then
    called on each written network (it raises what it raises)."""
    from kiosk.rules.tiles import load_tile_set

    out.mkdir(parents=True, exist_ok=True)
    net = net.eval()
    counts = {"english": int((tiles == "english").sum()), "german": int((tiles == "german").sum())}
    for set_name in ("english", "german"):
        ts_letters = set(load_tile_set(set_name).letters)
        keep = [i for i, n in enumerate(names) if i < keep_first or n[:-1] in ts_letters]
        path = out / f"{prefix}_{set_name}.onnx"
        err = export_checked(cut_outputs(net, keep), path)
        labels = [names[i] for i in keep]
        meta = ({"kind": kind} if kind is not None else {}) | {
            "labels": labels, "input_px": INPUT_PX, "grow_px": GROW_PX,
            "trained_on": "synthetic frames only (kiosk.vision.synth, seeds < 2**30): " + trained_on.format(**counts),
            "held_out": {k: round(v, 5) for k, v in figs.items()}}
        write_atomic(out / f"{prefix}_{set_name}.json", json.dumps(meta, ensure_ascii=False, indent=1) + "\n")
        if check is not None:
            check(path, labels)
        if not quiet:
            log(f"wrote {path} ({path.stat().st_size // 1024} KiB, {len(labels)} labels; "
                f"dnn vs torch max diff {err:.1e})")
    net.train()
