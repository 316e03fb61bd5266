"""The grid-line fit (locate._fit_lines) scores all its candidates at once; it must find what the simple loop over
pitches (one np.interp per kind and pitch, as it was) finds, to the bit, and find the lines drawn in a profile."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from kiosk.vision import locate
from kiosk.vision.geometry import SIZE


def _reference_fit(profile: np.ndarray, valid: np.ndarray, pitches: np.ndarray, near: float | None = None,
                   reach: float = 1.0) -> tuple[float, float, float, float]:
    """locate._fit_lines as a plain loop over the pitches (the code before it was vectorised)."""
    n = len(profile)
    prof = profile / np.maximum(valid, 0.25)
    prof = np.minimum(prof / (np.percentile(prof, 97) + 1e-6), 1.5)
    xs = np.arange(n, dtype=np.float32)
    best = (0.0, 0.0, -1.0, 0.0)
    k = np.arange(SIZE + 1, dtype=np.float32)
    for p in pitches:
        span = p * SIZE
        if near is None:
            offsets = np.arange(-p, n - span + p, 1.0, dtype=np.float32)
        else:
            offsets = np.arange(near - reach * p / 3, near + reach * p / 3, 0.5, dtype=np.float32)
        pos = offsets[:, None] + k[None, :] * p
        on = np.interp(pos, xs, prof, left=0, right=0)
        seen = np.interp(pos, xs, valid, left=0, right=0) > 0.5
        mid = np.interp(offsets[:, None] + (k[None, :SIZE] + 0.5) * p, xs, prof, left=0, right=0)
        outside = np.interp(offsets[:, None] + np.array([-1.0, SIZE + 1.0])[None, :] * p, xs, prof, left=0, right=0)
        n_seen = seen.sum(axis=1)
        on_seen = np.where(seen, on, np.nan)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean_on = np.nanmean(on_seen, axis=1)
            min_on = np.nanmin(np.where(seen, on, np.inf), axis=1)
        score = mean_on + min_on - np.median(mid, axis=1) - 0.5 * outside.max(axis=1)
        score = np.where(n_seen >= SIZE, score, -1.0)
        i = int(np.nanargmax(score))
        if score[i] > best[2]:
            best = (float(offsets[i]), float(p), float(score[i]), float(mean_on[i] / (np.median(mid[i]) + 0.02)))
    return best


def _profile(offset: float, pitch: float, seed: int, n: int = 660, cut: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A line-strength profile (float32) with 16 blurred lines from ``offset`` every ``pitch`` px on noise, and its
    share in view (float32 0..1; the first ``cut`` px out of the frame, a soft edge)."""
    rng = np.random.default_rng(seed)
    x = np.arange(n, dtype=np.float64)
    prof = rng.uniform(0, 40, n)
    for j in range(SIZE + 1):
        prof += rng.uniform(300, 600) * np.exp(-0.5 * ((x - offset - j * pitch) / 1.2) ** 2)
    prof += 900 * np.exp(-0.5 * ((x - offset + 8) / 2.0) ** 2)     # the board's edge just outside the grid
    valid = np.clip((x - cut) / 6.0, 0.0, 1.0) if cut else np.ones(n)
    return (prof * valid).astype(np.float32), valid.astype(np.float32)


@pytest.mark.parametrize("seed, offset, pitch, cut", [(1, 30.0, 40.0, 0), (2, 41.3, 37.6, 0), (3, 12.7, 43.1, 0),
                                                      (4, 30.0, 41.0, 26), (5, 55.5, 24.2, 0)])
def test_fit_lines_finds_the_lines_as_the_simple_loop_does(seed, offset, pitch, cut):
    prof, valid = _profile(offset, pitch, seed, cut=cut)
    pitch0 = locate.ROUGH_PX / SIZE
    coarse = np.arange(pitch0 * 0.45, pitch0 * 1.12, 0.6, dtype=np.float32)
    got = locate._fit_lines(prof, valid, coarse)
    assert got == _reference_fit(prof, valid, coarse)
    fine = np.arange(got[1] - 0.6, got[1] + 0.61, 0.15, dtype=np.float32)
    fit = locate._fit_lines(prof, valid, fine)
    assert fit == _reference_fit(prof, valid, fine)
    assert abs(fit[1] - pitch) < 0.2 and abs(fit[0] - offset) < 1.5      # the lines drawn, not the board's edge
    local = np.arange(pitch0 * 0.95, pitch0 * 1.05, 0.1, dtype=np.float32)
    for reach in (1.0, locate.TRACK_REACH):
        assert locate._fit_lines(prof, valid, local, offset + 3.0, reach) == \
            _reference_fit(prof, valid, local, offset + 3.0, reach)


def test_fit_lines_without_a_candidate_in_view_finds_nothing():
    prof, _ = _profile(30.0, 40.0, 6)
    valid = np.zeros_like(prof)
    valid[:200] = 1.0     # most of the profile out of the frame: no 15 lines fit in view
    pitches = np.arange(36.0, 44.0, 0.6, dtype=np.float32)
    assert locate._fit_lines(prof, valid, pitches) == _reference_fit(prof, valid, pitches) == (0.0, 0.0, -1.0, 0.0)


def test_interp_is_np_interp():
    rng = np.random.default_rng(7)
    for n in (2, 3, 17, 660):
        fp, fv = rng.uniform(0, 2, n).astype(np.float32), rng.uniform(0, 1, n).astype(np.float32)
        for dtype in (np.float32, np.float64):
            x = rng.uniform(-45, n + 45, (50, 16)).astype(dtype)
            x[0, :6] = [0, n - 1, np.nextafter(dtype(n - 1), dtype(n)), np.nextafter(dtype(0), dtype(-1)), n - 2, -1]
            got = locate._interp(x, fp, fv)
            xs = np.arange(n, dtype=np.float32)
            assert np.array_equal(got[0], np.interp(x, xs, fp, left=0, right=0))
            assert np.array_equal(got[1], np.interp(x, xs, fv, left=0, right=0))


def test_median_is_np_median():
    rng = np.random.default_rng(8)
    for n in (1, 2, 3, 20, 21, 224, 225):
        for dtype in (np.float32, np.float64):
            a = rng.uniform(0, 255, (n, 3)).astype(dtype)
            a[n // 2:, 1] = a[0, 1]          # ties
            assert np.array_equal(locate._median(a), np.median(a, axis=0))
            got, want = locate._median(a[:, 0]), np.median(a[:, 0])
            assert got == want and got.dtype == want.dtype


def test_fit_lines_on_a_profile_with_negative_values_scores_every_candidate_as_the_loop_does():
    prof, valid = _profile(33.0, 39.0, 9)
    prof = prof - np.float32(np.percentile(prof, 60))   # below zero between the lines: no candidate can be skipped
    pitches = np.arange(36.0, 44.0, 0.3, dtype=np.float32)
    got = locate._fit_lines(prof, valid, pitches)
    assert got == _reference_fit(prof, valid, pitches)
    assert abs(got[1] - 39.0) < 0.2
