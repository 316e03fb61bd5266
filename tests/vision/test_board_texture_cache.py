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


def test_unknown_styles_are_named():
    with pytest.raises(ValueError, match="unknown board style 'pink'"):
        board_art.board_texture("pink", "wood", 2.0)
    with pytest.raises(ValueError, match="unknown table style 'marble'"):
        board_art.board_texture("classic", "marble", 2.0)
