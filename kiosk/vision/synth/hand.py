"""A hand and forearm reaching over the board, drawn in image space (it is above the board, out of its plane)."""

from __future__ import annotations

import math

import cv2
import numpy as np

SKIN_BGR = ((150, 180, 225), (120, 160, 210), (95, 135, 190), (70, 100, 150), (50, 70, 105))
SLEEVE_BGR = ((40, 40, 40), (140, 60, 30), (200, 200, 200), (40, 40, 150), (60, 110, 60), (90, 90, 120))


def draw_hand(img: np.ndarray, rng: np.random.Generator, tip_px: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """Draw a hand whose fingertips reach ``tip_px``, its forearm entering from the nearest-looking frame edge.

    ``px_per_mm`` is the image scale at the hand's height. Modifies ``img`` (uint8 BGR) in place and returns
    the hand's coverage (float32 HxW, 0..1).
    """
    h, w = img.shape[:2]
    tip = np.array(tip_px, np.float64)
    # entry point on a random frame edge
    side = int(rng.integers(4))
    along = rng.uniform(0.2, 0.8)
    entry = np.array({0: (along * w, h + 50.0), 1: (along * w, -50.0), 2: (-50.0, along * h),
                      3: (w + 50.0, along * h)}[side])
    d = tip - entry
    d /= max(1e-6, np.linalg.norm(d))
    n = np.array([-d[1], d[0]])
    s = px_per_mm * rng.uniform(0.9, 1.15)
    hand_len, palm_w, arm_w, finger_w = 185 * s, 88 * s, 70 * s, 17 * s
    wrist = tip - d * hand_len
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, tuple(int(v) for v in entry), tuple(int(v) for v in wrist), 255, int(arm_w), cv2.LINE_AA)
    palm_c = wrist + d * 0.32 * hand_len
    ang = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(mask, (int(palm_c[0]), int(palm_c[1])), (int(0.3 * hand_len), int(palm_w / 2)), ang, 0, 360, 255, -1,
                cv2.LINE_AA)
    curl = rng.uniform(0.55, 1.0)  # fingers stretched or half curled
    for i, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
        base = wrist + d * 0.55 * hand_len + n * off * finger_w * 1.15
        length = (0.45 - 0.06 * abs(off) + (0.03 if i == 2 else 0)) * hand_len * curl
        splay = math.radians(off * rng.uniform(2, 6))
        dd = d * math.cos(splay) + n * math.sin(splay)
        end = base + dd * length
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in end), 255, int(finger_w), cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    tb = wrist + d * 0.2 * hand_len + n * thumb_side * palm_w * 0.4
    te = tb + (d * 0.6 + n * thumb_side * 0.5) * 0.35 * hand_len
    cv2.line(mask, tuple(int(v) for v in tb), tuple(int(v) for v in te), 255, int(finger_w * 1.2), cv2.LINE_AA)
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return np.zeros((h, w), np.float32)
    pad = int(4 * s) + 8
    x0, y0 = max(0, xs.min() - pad), max(0, ys.min() - pad)
    x1, y1 = min(w, xs.max() + pad + 1), min(h, ys.max() + pad + 1)
    m: np.ndarray = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
    m = cv2.GaussianBlur(m, (0, 0), max(0.8, 1.5 * s))  # nearer the lens than the board: a little out of focus
    roundness = cv2.GaussianBlur(m, (0, 0), max(2.0, 12 * s))
    skin = np.array(SKIN_BGR[int(rng.integers(len(SKIN_BGR)))], np.float32) * rng.uniform(0.9, 1.1)
    sleeve = np.array(SLEEVE_BGR[int(rng.integers(len(SLEEVE_BGR)))], np.float32)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    t = ((xx - entry[0]) * d[0] + (yy - entry[1]) * d[1]) / max(1.0, float(np.dot(wrist - entry, d)))
    sleeve_w = np.clip((rng.uniform(0.35, 0.8) - t) * 20, 0, 1)[:, :, None]
    colour = skin[None, None, :] * (1 - sleeve_w) + sleeve[None, None, :] * sleeve_w
    colour = colour * (0.55 + 0.6 * roundness[:, :, None])
    roi = img[y0:y1, x0:x1].astype(np.float32)
    a = m[:, :, None]
    img[y0:y1, x0:x1] = np.clip(roi * (1 - a) + colour * a, 0, 255).astype(np.uint8)
    out = np.zeros((h, w), np.float32)
    out[y0:y1, x0:x1] = m
    return out
