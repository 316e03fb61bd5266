"""The renderer's board textures are kept within a byte budget and drawn the same every time."""

from __future__ import annotations

import numpy as np
import pytest

from kiosk.vision.synth import board_art


@pytest.fixture
def fresh_cache(monkeypatch):
    monkeypatch.setattr(board_art, "_TEXTURES", type(board_art._TEXTURES)())
    return board_art._TEXTURES


def test_a_texture_is_drawn_once_and_kept(fresh_cache):
    a = board_art.board_texture("green", "grey-cloth", 2.0)
    assert board_art.board_texture("green", "grey-cloth", 2.0) is a
    assert board_art.board_texture("green", "grey-cloth", 2) is a        # 2 and 2.0 are one texture
    assert not a.image.flags.writeable
    assert board_art.board_texture("classic", "grey-cloth", 2.0) is not a
    assert len(fresh_cache) == 2


def test_the_cache_keeps_its_byte_budget_and_redraws_the_same_texture(fresh_cache, monkeypatch):
    first = board_art.board_texture("classic", "wood", 2.0)
    size = first.image.nbytes
    monkeypatch.setattr(board_art, "TEXTURE_CACHE_BYTES", 2 * size + 1)
    board_art.board_texture("classic", "blue-cloth", 2.0)
    board_art.board_texture("green", "wood", 2.0)             # a third: the least recently used one goes
    assert len(fresh_cache) == 2 and sum(t.image.nbytes for t in fresh_cache.values()) <= 2 * size + 1
    again = board_art.board_texture("classic", "wood", 2.0)
    assert again is not first and np.array_equal(again.image, first.image)   # drawn anew, pixel for pixel
    monkeypatch.setattr(board_art, "TEXTURE_CACHE_BYTES", 1)
    board_art.board_texture("green", "blue-cloth", 2.0)
    assert len(fresh_cache) == 1                              # over the budget alone: the newest is kept


def test_the_texture_used_last_is_kept_longest(fresh_cache, monkeypatch):
    first = board_art.board_texture("classic", "wood", 2.0)
    second = board_art.board_texture("classic", "blue-cloth", 2.0)
    monkeypatch.setattr(board_art, "TEXTURE_CACHE_BYTES", first.image.nbytes + second.image.nbytes)
    assert board_art.board_texture("classic", "wood", 2.0) is first     # used again: now the newest
    board_art.board_texture("green", "wood", 2.0)                        # a third: the second goes, not the first
    assert board_art.board_texture("classic", "wood", 2.0) is first
    assert ("classic", "blue-cloth", 2.0, board_art.DEFAULT_GEOMETRY) not in fresh_cache


def test_the_print_shade_varies_the_board_by_three_percent_at_most(fresh_cache, monkeypatch):
    shaded = board_art.board_texture("green", "grey-cloth", 2.0).image.astype(np.float64)
    fresh_cache.clear()
    monkeypatch.setattr(board_art, "smooth_noise", lambda rng, shape, cells: np.zeros(shape, np.float32))
    plain = board_art.board_texture("green", "grey-cloth", 2.0).image.astype(np.float64)
    lit = plain > 60                                   # away from the dark ink, where rounding dominates
    ratio = shaded[lit] / plain[lit]
    assert ratio.min() >= 0.96 and ratio.max() <= 1.04       # 1 + 0.03 * noise in [-1, 1], +-0.5 rounded
    assert ratio.max() - ratio.min() > 0.03                  # and the shade is there


def test_unknown_styles_are_named():
    with pytest.raises(ValueError, match="unknown board style 'pink'"):
        board_art.board_texture("pink", "wood", 2.0)
    with pytest.raises(ValueError, match="unknown table style 'marble'"):
        board_art.board_texture("classic", "marble", 2.0)
