"""Intrinsics from synthetic chessboard photos taken by a known camera."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import CalibrationError
from calibration.intrinsics import calibrate_intrinsics, report_image
from calibration.synthetic import random_views

K = np.array([[520.0, 0, 245], [0, 524, 176], [0, 0, 1]])
DIST = np.array([-0.12, 0.05, 0.001, -0.0005, 0.0])


@pytest.fixture(scope="module")
def views() -> list[np.ndarray]:
    return random_views(K, DIST, (480, 360), 7, seed=3)


def test_recovers_the_known_camera(views: list[np.ndarray]) -> None:
    r = calibrate_intrinsics([(f"v{i}", v) for i, v in enumerate(views)], (9, 6), 25.0)
    assert r.rms_px < 0.2
    assert np.allclose(r.K[[0, 1], [0, 1]], K[[0, 1], [0, 1]], rtol=0.01)
    assert abs(r.K[0, 2] - K[0, 2]) < 4 and abs(r.K[1, 2] - K[1, 2]) < 4
    assert abs(r.dist[0] - DIST[0]) < 0.03
    assert set(r.per_view_px) == {f"v{i}" for i in range(7)}
    img = report_image(r, views[0])
    assert img.shape[1] == 2 * 480 and img.shape[0] > 360


def test_refuses_above_the_threshold(views: list[np.ndarray]) -> None:
    with pytest.raises(CalibrationError, match="above the 0.001 px limit"):
        calibrate_intrinsics([(f"v{i}", v) for i, v in enumerate(views)], max_rms_px=0.001)


def test_too_few_usable_photos_and_wrong_pattern(views: list[np.ndarray]) -> None:
    blank = np.full((360, 480), 128, np.uint8)
    with pytest.raises(CalibrationError, match="only 2 photo"):
        calibrate_intrinsics([("a", views[0]), ("b", views[1]), ("blank", blank)])
    with pytest.raises(CalibrationError, match="only 0 photo.*7x7"):
        calibrate_intrinsics([("v0", views[0]), ("v1", views[1])], pattern=(7, 7), min_views=2)


def test_mixed_sizes_are_refused(views: list[np.ndarray]) -> None:
    with pytest.raises(CalibrationError, match="one camera mode"):
        calibrate_intrinsics([("a", views[0]), ("b", views[1][:300])])
