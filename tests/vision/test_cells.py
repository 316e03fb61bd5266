"""The canvas measurements made fast with OpenCV and histograms give exactly what their plain numpy definitions
give (the occupancy, settle and hand models were trained on those values)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.vision.cells import _CORE, CANVAS_PX, CELL_PX, PAD_PX, PREMIUM_CLASSES, _core_medians
from kiosk.vision.geometry import SIZE
from kiosk.vision.quality import GLARE_LEVEL, glare_squares, skin_squares

N = SIZE * CELL_PX


def _random_canvas(seed: int) -> np.ndarray:
    """Noise, then flat patches (ties for the median; blown-out and skin-coloured areas for the masks)."""
    rng = np.random.default_rng(seed)
    canvas = rng.integers(0, 256, (CANVAS_PX, CANVAS_PX, 3), dtype=np.uint8)
    for _ in range(60):
        y, x = rng.integers(0, CANVAS_PX - 60, 2)
        colour = rng.choice([(255, 255, 255), (GLARE_LEVEL,) * 3, (120, 150, 200), (0, 0, 0)])
        canvas[y:y + rng.integers(4, 60), x:x + rng.integers(4, 60)] = colour
    return canvas


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_core_medians_are_numpy_medians(seed: int) -> None:
    body = _random_canvas(seed)[PAD_PX:PAD_PX + N, PAD_PX:PAD_PX + N]
    grid = body.reshape(SIZE, CELL_PX, SIZE, CELL_PX, 3)[:, _CORE, :, _CORE].transpose(0, 2, 1, 3, 4)
    expected = np.median(grid.reshape(SIZE * SIZE, -1, 3), axis=1)
    assert np.array_equal(_core_medians(body), expected.astype(np.float32))


@pytest.mark.parametrize("seed", [0, 1])
def test_glare_and_skin_masks_follow_their_definitions(seed: int) -> None:
    canvas = _random_canvas(seed)
    area = canvas[PAD_PX:PAD_PX + N:2, PAD_PX:PAD_PX + N:2]

    def per_square(mask: np.ndarray) -> np.ndarray:
        return mask.reshape(SIZE, CELL_PX // 2, SIZE, CELL_PX // 2).mean(axis=(1, 3)).reshape(-1)

    blown = (area.min(axis=2) >= GLARE_LEVEL).astype(np.uint8)
    spots = cv2.morphologyEx(blown, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    assert np.allclose(glare_squares(canvas), per_square(spots.astype(np.float32)))
    ycc = cv2.cvtColor(np.ascontiguousarray(area), cv2.COLOR_BGR2YCrCb).astype(int)
    y, cr, cb = ycc[..., 0], ycc[..., 1], ycc[..., 2]
    skin = (cr >= 138) & (cr <= 178) & (cb >= 80) & (cb <= 128) & (y >= 40)
    raw = per_square(skin.astype(np.float32))
    assert raw.max() > 0    # the patches include skin colour: the comparison means something
    expected = raw.copy()
    for c in np.unique(PREMIUM_CLASSES):
        m = c == PREMIUM_CLASSES
        expected[m] = np.clip(raw[m] - np.median(raw[m]), 0, 1)
    assert np.allclose(skin_squares(canvas), expected)


@pytest.mark.parametrize("cut", [0, 1, 30, 200])
def test_seen_is_each_squares_share_inside_the_frame(cut: int) -> None:
    # the whole grid in view is taken without counting (cell_stats's shortcut): the same as the count gives
    from kiosk.vision.cells import cell_stats
    canvas = _random_canvas(3)
    inside = np.full((CANVAS_PX, CANVAS_PX), 255, np.uint8)
    inside[:, CANVAS_PX - PAD_PX - cut:] = 0     # the frame ends ``cut`` px inside the grid's right edge
    grid = inside[PAD_PX:PAD_PX + N, PAD_PX:PAD_PX + N] > 0
    expected = grid.reshape(SIZE, CELL_PX, SIZE, CELL_PX).mean(axis=(1, 3)).reshape(-1)
    seen = cell_stats(canvas, inside).seen
    assert np.array_equal(seen, expected.astype(np.float32))
    assert (seen < 1).sum() == SIZE * -(-cut // CELL_PX)   # the columns the cut reaches
