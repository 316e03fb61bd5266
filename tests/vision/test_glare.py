"""Glare: a blown-out spot makes its square unsure, but white ink on dark tiles (tournament tiles) is no glare.

Before this was checked, a W's white strokes covered 12% of its square, the reader took them for glare and
left the square unsure (a frame of the benchmark without any glare)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.vision.cells import CELL_PX, PAD_PX
from kiosk.vision.geometry import SIZE
from kiosk.vision.quality import GLARE_SQUARE_FRACTION, glare_squares
from kiosk.vision.reader import BoardReader
from shared_data import benchmark_frame, needs_shared

NAVY = (90, 40, 20)   # BGR


def _canvas() -> np.ndarray:
    n = SIZE * CELL_PX + 2 * PAD_PX
    return np.full((n, n, 3), NAVY, np.uint8)


def _square_origin(sq: int) -> tuple[int, int]:
    row, col = divmod(sq, SIZE)
    return PAD_PX + col * CELL_PX, PAD_PX + row * CELL_PX


def test_white_strokes_are_ink_and_a_spot_is_glare() -> None:
    canvas = _canvas()
    x, y = _square_origin(20)            # an E's white strokes, 4 px wide (as on the tiles): 18% of the square
    cv2.rectangle(canvas, (x + 12, y + 6), (x + 15, y + 41), (255, 255, 255), -1)
    for top in (6, 21, 38):
        cv2.rectangle(canvas, (x + 12, y + top), (x + 37, y + top + 3), (255, 255, 255), -1)
    x, y = _square_origin(112)           # a glare spot 36 px across
    cv2.circle(canvas, (x + CELL_PX // 2, y + CELL_PX // 2), 18, (255, 255, 255), -1)
    share = glare_squares(canvas)
    white = canvas[PAD_PX:-PAD_PX, PAD_PX:-PAD_PX].min(axis=2) >= 245
    assert white.reshape(SIZE, CELL_PX, SIZE, CELL_PX).mean(axis=(1, 3)).reshape(-1)[20] > 1.4 * GLARE_SQUARE_FRACTION
    assert share[20] < GLARE_SQUARE_FRACTION
    assert share[112] > 2 * GLARE_SQUARE_FRACTION
    assert np.count_nonzero(share) == 1


@needs_shared
@pytest.mark.parametrize("index", [105, 487])
def test_white_letters_of_benchmark_frames_are_no_glare(index: int) -> None:
    """Two typical benchmark frames without glare, tournament tiles with white letters (H and W in one, W and
    B in the other) that were read as glare: no square is called glare and every tile reads."""
    fr, tile_set = benchmark_frame("typical", index)
    assert fr.meta["tile_style"] == "tournament" and not fr.meta["glare"] and not fr.meta["hand"]
    r = BoardReader(tile_set).read(fr.image)
    assert not r.quality.glare
    assert "glare" not in r.doubts.values()
    assert r.grid() == fr.truth
