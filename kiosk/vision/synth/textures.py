"""Procedural surface textures (wood grain, cloth, speckle), deterministic by seed. No image assets."""

from __future__ import annotations

import cv2
import numpy as np


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth random field in [-1, 1] (float32, ``shape`` = (h, w)) with about ``cells`` = (ny, nx) bumps."""
    low = rng.uniform(-1, 1, (max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    field = cv2.resize(low, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return np.clip(field, -1, 1, out=field)  # in place: no second full-size copy


def wood(rng: np.random.Generator, shape: tuple[int, int], colour_bgr: tuple[float, float, float],
         grain_px: float, contrast: float = 0.12) -> np.ndarray:
    """A wood-grain texture (float32 HxWx3, 0..255): grain runs along x, rings ``grain_px`` apart."""
    h, w = shape
    y = np.arange(h, dtype=np.float32)[:, None]
    warp = smooth_noise(rng, shape, (4, 3)) * grain_px * 3 + smooth_noise(rng, shape, (h // 6 + 2, 3)) * grain_px * 0.6
    rings = np.sin((y + warp) * (2 * np.pi / grain_px))
    fibres = smooth_noise(rng, shape, (h // 2 + 2, max(3, w // 60)))
    shade = 1.0 + contrast * (0.6 * rings ** 3 + 0.4 * fibres) + 0.05 * smooth_noise(rng, shape, (3, 3))
    return np.asarray(colour_bgr, np.float32)[None, None, :] * shade[:, :, None]


def cloth(rng: np.random.Generator, shape: tuple[int, int], colour_bgr: tuple[float, float, float]) -> np.ndarray:
    """A table-cloth texture (float32 HxWx3, 0..255): a fine weave with soft folds."""
    h, w = shape
    weave = rng.normal(0, 0.03, shape).astype(np.float32)
    folds = 0.06 * smooth_noise(rng, shape, (3, 4))
    shade = 1.0 + weave + folds
    return np.asarray(colour_bgr, np.float32)[None, None, :] * shade[:, :, None]
