"""Camera-side effects on a rendered frame: uneven light and colour cast, shadows, glare, blur, sensor noise and
JPEG. Every function takes the frame's random generator so frames stay deterministic by seed.
"""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np

from kiosk.vision.synth.textures import smooth_noise

FIELD_STEP = 8  # the light field is computed every FIELD_STEP px and interpolated


def kelvin_to_bgr(kelvin: float) -> np.ndarray:
    """Relative BGR colour (3,) of a black-body-like light source at ``kelvin`` K, normalised to 1 at ~6500 K.

    Tanner Helland's fit of the black-body colours (good to a few percent between 1000 K and 40000 K).
    """
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    rgb = np.clip([r, g, b], 1, 255) / 255.0
    return np.array([rgb[2], rgb[1], rgb[0]], np.float32)


def light_field(rng: np.random.Generator, size: tuple[int, int], *, brightness: float, gradient: float,
                vignetting: float, kelvin: float, white_balance: float, flicker: float = 0.0) -> np.ndarray:
    """Low-resolution gain field (float32 h x w x 3, one sample per ``FIELD_STEP`` px): exposure, uneven
    light (``gradient`` peak-to-peak), vignetting, rolling-shutter flicker bands (relative depth) and the
    colour cast left after white balance (``white_balance`` = the fraction removed)."""
    w, h = size
    fw, fh = -(-w // FIELD_STEP), -(-h // FIELD_STEP)
    ys, xs = np.mgrid[0:fh, 0:fw].astype(np.float32)
    xn, yn = xs / fw - 0.5, ys / fh - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    lin = xn * math.cos(ang) + yn * math.sin(ang)
    blob = smooth_noise(rng, (fh, fw), (3, 4))
    uneven = 0.6 * lin / max(1e-6, np.ptp(lin)) + 0.4 * blob / 2
    gain = brightness * (1 + gradient * (uneven - uneven.mean()))
    gain *= 1 - vignetting * (xn ** 2 + yn ** 2) * 2
    if flicker > 0:  # rolling shutter under 100/120 Hz light: horizontal bands down the frame
        period = rng.uniform(0.15, 0.5) * fh
        gain *= 1 + flicker * np.sin(2 * math.pi * ys / period + rng.uniform(0, 2 * math.pi))
    cast = kelvin_to_bgr(kelvin) / kelvin_to_bgr(5500.0)
    cast = cast ** (1 - white_balance)
    cast = cast / cast.mean()
    return gain[:, :, None] * cast[None, None, :]


def add_shadow(field: np.ndarray, rng: np.random.Generator, strength: float) -> None:
    """Darken part of the light field in place with a soft-edged shadow (a person leaning over the board)
    entering from one side of the frame."""
    fh, fw = field.shape[:2]
    mask: np.ndarray = np.zeros((fh, fw), np.float32)
    side = int(rng.integers(4))
    depth = rng.uniform(0.2, 0.5)
    a, b = sorted(rng.uniform(0, 1, 2))
    b = max(b, a + 0.3)
    if side in (0, 1):  # left / right edge
        x_edge = 0 if side == 0 else fw
        x_in = fw * depth if side == 0 else fw * (1 - depth)
        pts = [(x_edge, fh * a), (x_in, fh * (a + 0.1)), (x_in, fh * (b - 0.1)), (x_edge, fh * b)]
    else:  # top / bottom edge
        y_edge = 0 if side == 2 else fh
        y_in = fh * depth if side == 2 else fh * (1 - depth)
        pts = [(fw * a, y_edge), (fw * (a + 0.1), y_in), (fw * (b - 0.1), y_in), (fw * b, y_edge)]
    cv2.fillPoly(mask, [np.array(pts, np.int32)], 1.0)
    soft = max(3, int(0.06 * max(fw, fh))) | 1
    mask = cv2.GaussianBlur(mask, (soft, soft), 0)
    field *= (1 - strength * mask)[:, :, None]


def apply_field(img: np.ndarray, field: np.ndarray) -> np.ndarray:
    """Multiply a uint8 BGR frame by the interpolated gain field (result uint8, saturating)."""
    h, w = img.shape[:2]
    fh, fw = field.shape[:2]
    # gains as uint8 with 1.0 = 128 (steps of 1/128: below the noise), interpolated and applied in uint8
    small = cv2.convertScaleAbs(field, alpha=128.0)
    full = cv2.resize(small, (fw * FIELD_STEP, fh * FIELD_STEP), interpolation=cv2.INTER_LINEAR)[:h, :w]
    return cv2.multiply(img, full, scale=1.0 / 128.0)


def add_glare(img: np.ndarray, centre_px: tuple[float, float], radius_px: float, strength: float,
              aspect: float = 1.0, angle_deg: float = 0.0) -> None:
    """Add a specular glare spot in place: a bright, whitish elliptical blob (``strength`` of full scale at
    its centre, Gaussian fall-off with s.d. ``radius_px`` along its long axis) that saturates its core."""
    h, w = img.shape[:2]
    r = int(3 * radius_px)
    x0, y0 = max(0, int(centre_px[0]) - r), max(0, int(centre_px[1]) - r)
    x1, y1 = min(w, int(centre_px[0]) + r + 1), min(h, int(centre_px[1]) + r + 1)
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dx, dy = xs - centre_px[0], ys - centre_px[1]
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    u, v = dx * c + dy * s, (-dx * s + dy * c) / aspect
    g = np.exp(-0.5 * (u * u + v * v) / radius_px ** 2)
    core = np.clip((g - 0.6) / 0.4, 0, 1) ** 2  # a hard core that washes out what lies under it
    add = 255.0 * strength * (0.75 * g + 0.6 * core)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    roi = roi + add[:, :, None] * np.array([1.0, 1.0, 0.98], np.float32)
    img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def defocus(img: np.ndarray, sigma_px: float) -> np.ndarray:
    """Gaussian defocus blur (s.d. px); ``sigma_px`` <= 0.05 returns the frame unchanged."""
    if sigma_px <= 0.05:
        return img
    return cv2.GaussianBlur(img, (0, 0), sigma_px)


def motion_blur(img: np.ndarray, length_px: float, angle_deg: float) -> np.ndarray:
    """Linear motion blur over ``length_px`` px along ``angle_deg``."""
    n = int(math.ceil(length_px)) | 1
    if n < 2:
        return img
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    cv2.line(k, (int(round(c - dx * length_px / 2)), int(round(c - dy * length_px / 2))),
             (int(round(c + dx * length_px / 2)), int(round(c + dy * length_px / 2))), 1.0, 1, cv2.LINE_AA)
    k /= k.sum()
    return cv2.filter2D(img, -1, k)


def chroma_subsample(img: np.ndarray) -> np.ndarray:
    """YUV 4:2:0 round trip: the colour (Cr, Cb) at half resolution, the brightness untouched."""
    ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
    h, w = img.shape[:2]
    for ch in (1, 2):
        half = cv2.resize(ycc[:, :, ch], (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
        ycc[:, :, ch] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)


def sharpen(img: np.ndarray, amount: float) -> np.ndarray:
    """The camera's unsharp masking: ``img + amount * (img - box3x3(img))`` (overshoot halos, louder noise)."""
    if amount <= 0.01:
        return img
    return cv2.addWeighted(img, 1 + amount, cv2.blur(img, (3, 3)), -amount, 0)


@cache
def _noise_pool(h: int, w: int) -> np.ndarray:
    pool = np.random.default_rng(12345).standard_normal((h + 64, w + 64, 3), np.float32)
    pool.setflags(write=False)
    return pool


def sensor_noise(img: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Add Gaussian sensor noise (s.d. ``sigma`` grey levels), cut from a cached pool at a random offset."""
    if sigma <= 0:
        return img
    h, w = img.shape[:2]
    pool = _noise_pool(h, w)
    y, x = rng.integers(0, 64, 2)
    noise = pool[y:y + h, x:x + w]
    if rng.random() < 0.5:
        noise = noise[::-1]
    return cv2.addWeighted(img, 1.0, noise, float(sigma), 0.0, dtype=cv2.CV_8U)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """Round-trip through JPEG at ``quality`` (1..100)."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if out is None:
        raise RuntimeError("JPEG decoding failed")
    return out
