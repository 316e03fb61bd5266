"""A small softmax classifier (one hidden layer) in numpy, for the occupancy and glyph models.

It gives calibrated class probabilities, which the reader needs to report doubt instead of guessing (why not
OpenCV's ml module, and what it costs: ``kiosk/vision/models/README.md``).

Serialisation: :meth:`Classifier.to_bytes` / :meth:`Classifier.from_bytes` (a compressed ``.npz``).
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np


class ModelError(ValueError):
    """A model file or blob is missing, corrupt or of the wrong shape (the message says which)."""


def data_problem(exc: BaseException) -> str:
    """What is wrong with model data that did not load, as a sentence's clause for a :class:`ModelError`, from
    the exception base64, zip, zlib or numpy raised (numpy's own text would advise loading pickled data, and
    base64's and zlib's name internals)."""
    text = str(exc)
    if isinstance(exc, KeyError):   # numpy: KeyError("labels is not a file in the archive")
        name = str(exc.args[0] if exc.args else "").split(" is not a file")[0]
        return f"the archive has no array {name!r}"
    if "base64" in text.lower() or "padding" in text.lower():
        return "the text is not base64 data"
    if any(w in text for w in ("pickle", "magic string", "EOF")) or isinstance(
            exc, (zipfile.BadZipFile, EOFError, OSError)):
        return "the data is not a NumPy .npz archive of arrays"
    if isinstance(exc, zlib.error):
        return "the archive is damaged (its compressed data does not unpack)"
    return text or type(exc).__name__


@dataclass
class Classifier:
    """Standardise -> dense(hidden, ReLU) -> dense(classes) -> softmax.

    Attributes:
        labels: class names (strings), in output order.
        mean, scale: feature standardisation (F floats each).
        w1 (F x H), b1 (H), w2 (H x C), b2 (C): weights, float32.
    """

    labels: list[str]
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @property
    def n_features(self) -> int:
        return int(self.mean.shape[0])

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Raw scores (N x C) for features ``x`` (N x F)."""
        z = (np.asarray(x, np.float32) - self.mean) / self.scale
        hdn = np.maximum(z @ self.w1 + self.b1, 0.0)
        return hdn @ self.w2 + self.b2

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities (N x C, rows sum to 1)."""
        s = self.logits(x)
        s = s - s.max(axis=1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=1, keepdims=True)

    @classmethod
    def fit(cls, x: np.ndarray, y: list[str] | np.ndarray, hidden: int = 64, epochs: int = 60, lr: float = 3e-3,
            weight_decay: float = 1e-4, batch: int = 256, seed: int = 0,
            class_weight: dict[str, float] | None = None) -> Classifier:
        """Train on features ``x`` (N x F) and string labels ``y`` (N) with Adam on cross-entropy.

        Raises ModelError when there are fewer than 2 classes or no samples.
        """
        x = np.asarray(x, np.float32)
        y = np.asarray(y)
        if len(x) == 0 or len(x) != len(y):
            raise ModelError(f"training data: {len(x)} feature rows for {len(y)} labels")
        labels = sorted({str(v) for v in y})
        if len(labels) < 2:
            raise ModelError(f"training data: need at least 2 classes, got {labels}")
        index = {lab: i for i, lab in enumerate(labels)}
        t = np.array([index[str(v)] for v in y])
        mean = x.mean(axis=0)
        scale = x.std(axis=0) + 1e-6
        z = (x - mean) / scale
        rng = np.random.default_rng(seed)
        f, c = z.shape[1], len(labels)
        params = [
            (rng.standard_normal((f, hidden)) * np.sqrt(2.0 / f)).astype(np.float32),
            np.zeros(hidden, np.float32),
            (rng.standard_normal((hidden, c)) * np.sqrt(1.0 / hidden)).astype(np.float32),
            np.zeros(c, np.float32),
        ]
        m1 = [np.zeros_like(p) for p in params]
        m2 = [np.zeros_like(p) for p in params]
        sw = np.ones(len(z), np.float32)
        if class_weight:
            sw = np.array([class_weight.get(labels[k], 1.0) for k in t], np.float32)
        step = 0
        for _ in range(epochs):
            order = rng.permutation(len(z))
            for s in range(0, len(z), batch):
                idx = order[s:s + batch]
                xb, tb, wb = z[idx], t[idx], sw[idx]
                h_pre = xb @ params[0] + params[1]
                hdn = np.maximum(h_pre, 0)
                out = hdn @ params[2] + params[3]
                out -= out.max(axis=1, keepdims=True)
                p = np.exp(out)
                p /= p.sum(axis=1, keepdims=True)
                g = p
                g[np.arange(len(tb)), tb] -= 1
                g *= (wb / wb.sum())[:, None]
                grads = [None, None, hdn.T @ g, g.sum(axis=0)]
                gh = (g @ params[2].T) * (h_pre > 0)
                grads[0] = xb.T @ gh
                grads[1] = gh.sum(axis=0)
                step += 1
                for k in range(4):
                    gk = grads[k] + (weight_decay * params[k] if k in (0, 2) else 0)
                    m1[k] = 0.9 * m1[k] + 0.1 * gk
                    m2[k] = 0.999 * m2[k] + 0.001 * gk * gk
                    mh = m1[k] / (1 - 0.9 ** step)
                    vh = m2[k] / (1 - 0.999 ** step)
                    params[k] = (params[k] - lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        return cls(labels, mean.astype(np.float32), scale.astype(np.float32), *params)

    def to_bytes(self) -> bytes:
        """The model as a compressed ``.npz`` blob."""
        buf = io.BytesIO()
        np.savez_compressed(buf, labels=np.array(self.labels), mean=self.mean, scale=self.scale,
                            w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, origin: str = "model") -> Classifier:
        """Load a blob written by :meth:`to_bytes`; raises ModelError naming ``origin`` when it is not one."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                model = cls([str(s) for s in z["labels"]], z["mean"], z["scale"], z["w1"], z["b1"], z["w2"], z["b2"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:   # EOFError: no bytes at all
            raise ModelError(f"{origin}: not a classifier model ({data_problem(exc)})") from None
        f, h = model.w1.shape
        if model.mean.shape != (f,) or model.w2.shape != (h, len(model.labels)):
            raise ModelError(f"{origin}: inconsistent weight shapes")
        return model
