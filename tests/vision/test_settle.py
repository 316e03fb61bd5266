"""Tile or empty on a crowded board: the colour references leave out the tiles the square network is sure of,
and the shipped settle model (kiosk.vision.settle) decides the squares the summed opinions leave open."""

from __future__ import annotations

import numpy as np
import pytest

from kiosk.vision.cells import PREMIUM_CLASSES, CellStats
from kiosk.vision.mlp import Classifier, ModelError
from kiosk.vision.occupancy import features, normalised_colour
from kiosk.vision.reader import BoardReader, default_settle_model
from kiosk.vision.settle import CHROMA_SPREAD_MIN, N_FEATURES, SettleModel, chroma_contrast
from shared_data import benchmark_frame, needs_shared

BOARD_BGR = (150.0, 185.0, 205.0)    # a beige board
TILE_BGR = (120.0, 170.0, 215.0)     # wooden tiles, not far from it


def _crowded_stats(share: float = 0.6) -> tuple[CellStats, np.ndarray]:
    """Stats of a board whose plain squares are ``share`` covered by wooden tiles (more than half: their
    colour is the plain squares' median), with light falling off to one side. Returns (stats, tiles)."""
    rng = np.random.default_rng(3)
    plain = np.flatnonzero(PREMIUM_CLASSES == ".")
    tiles = np.zeros(225, bool)
    tiles[rng.choice(plain, int(share * len(plain)), replace=False)] = True
    col = np.where(tiles[:, None], TILE_BGR, BOARD_BGR)
    light = 1.0 - 0.25 * (np.arange(225) % 15) / 14.0
    colour = (col * light[:, None]).astype(np.float32)
    return CellStats(colour, np.full(225, 4.0, np.float32), np.full(225, 0.02, np.float32),
                     np.ones(225, np.float32)), tiles


def test_known_tiles_are_left_out_of_the_empty_squares_colour():
    stats, tiles = _crowded_stats()
    plain = PREMIUM_CLASSES == "."
    # measured with the tiles in the fit, the wooden tiles pass for the board and the bare squares stand out
    blind = np.linalg.norm(normalised_colour(stats), axis=1)
    assert np.median(blind[tiles]) < np.median(blind[plain & ~tiles])
    # told which squares surely hold tiles (the network's sure letters), the bare board is the reference
    seeing = np.linalg.norm(normalised_colour(stats, tiles), axis=1)
    assert np.all(seeing[plain & ~tiles] < 0.02)
    assert np.all(seeing[tiles] > 0.1)
    f = features(stats, known_tiles=tiles)
    assert f.shape == (225, 16)
    assert np.all(f[plain & ~tiles, 3] < 0.02)           # colour change vs its class: none for bare squares
    assert np.all(f[tiles, 14] < 0.02)                   # the tiles' own colour is this frame's tile colour


def test_a_class_all_but_covered_keeps_its_last_empty_square_as_reference():
    """Late in a game 7 of the 8 triple-word squares hold tiles the network is sure of: the class's empty
    colour is its one square left, not the median of its 8 (the tiles' colour, against which a tile there
    looked like an empty triple-word square). Benchmark frame 123 ("typical"): a T at A15 read '#'."""
    tws = np.flatnonzero(PREMIUM_CLASSES == "T")
    stats, _ = _crowded_stats(0.0)
    colour = stats.colour.copy()
    colour[tws] = (60.0, 60.0, 200.0)                   # red triple-word squares
    tiles = np.zeros(225, bool)
    tiles[tws[1:]] = True                               # all but the first covered by black tournament tiles
    colour[tiles] = (40.0, 40.0, 40.0)
    stats = CellStats(colour, stats.texture, stats.edges, stats.seen)
    f = features(stats, known_tiles=tiles)
    assert f[tws[0], 3] < 0.02                          # the bare one is its class's empty colour
    assert np.all(f[tws[1:], 3] > 0.5)                  # the tiles differ from it


@needs_shared
def test_a_late_game_tile_on_a_covered_premium_class_is_read():
    """Benchmark frame 123 ("typical"): 7 of the 8 triple-word squares hold tiles; the T at A15 read '#' (the
    class's empty colour was the tiles' colour: occupancy P(tile) 0.01). The whole board now reads exactly."""
    fr, tile_set = benchmark_frame("typical", 123)
    reading = BoardReader(tile_set).read(fr.image)
    assert fr.truth[14][0] == "T"
    assert reading.grid() == fr.truth


def test_shipped_settle_model_loads_and_rejects_a_wrong_one():
    model = default_settle_model()
    assert model.net.n_features == N_FEATURES
    x = np.zeros((2, N_FEATURES), np.float32)
    p = model.predict_proba(x)
    assert p.shape == (2,) and np.all((p >= 0) & (p <= 1))
    wrong = Classifier.fit(np.random.default_rng(0).normal(size=(40, 5)), ["0", "1"] * 20, hidden=4, epochs=1)
    with pytest.raises(ModelError, match="settle model"):
        SettleModel(wrong)


def test_reader_keeps_the_settle_rows_it_decided_on():
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.synth import render_board
    from kiosk.vision.synth.boards import random_board

    board = random_board(2**30 + 4321, 40, ENGLISH)
    frame = render_board(board, seed=2**30 + 4321, level="easy", tile_set=ENGLISH)
    reader = BoardReader(ENGLISH)
    reading = reader.read(frame.image)
    assert reading.quality.board_found
    squares, rows = reader.last_settle_rows
    assert rows.shape == (len(squares), N_FEATURES)
    occupied = {sq for sq in range(225) if "".join(frame.truth)[sq] != "."}
    assert occupied <= set(squares)                      # every tile was looked at by the network
    assert reading.grid() == frame.truth


def _shaded_frame(tile_bgr: tuple[float, float, float] = TILE_BGR) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Occupancy features of a board 30% covered by tiles of colour ``tile_bgr`` (sensor noise 0.3%), with a
    blank in shade (the board's brightness, the tiles' hue), an empty square in the same shade, and a tile on a
    red triple-word square. Returns (features 225 x 16, the lettered tiles 225 bool, named squares)."""
    rng = np.random.default_rng(5)
    stats, tiles = _crowded_stats(0.3)
    light = 1.0 - 0.25 * (np.arange(225) % 15) / 14.0          # as _crowded_stats: falling off to one side
    colour = np.where(tiles[:, None], tile_bgr, BOARD_BGR) * light[:, None] * rng.normal(1.0, 0.003, (225, 3))
    bare = np.flatnonzero((PREMIUM_CLASSES == ".") & ~tiles)
    tws = np.flatnonzero(PREMIUM_CLASSES == "T")
    at = {"shaded_blank": int(bare[10]), "shaded_empty": int(bare[20]), "tile_on_tws": int(tws[0]),
          "empty_tws": int(tws[1])}
    colour[tws] = (60.0, 60.0, 200.0)
    colour[at["shaded_blank"]] = np.array(tile_bgr) * 0.8
    colour[at["shaded_empty"]] *= 0.8
    colour[at["tile_on_tws"]] = tile_bgr
    tiles = tiles.copy()
    tiles[at["tile_on_tws"]] = True
    stats = CellStats(colour.astype(np.float32), stats.texture, stats.edges, stats.seen)
    return features(stats, known_tiles=tiles), tiles, at


def test_chroma_contrast_places_a_shaded_blank_at_the_tiles_hue():
    """A wooden blank in shade is as dark as the board but keeps the tiles' hue; an empty square in the same
    shade keeps (nearly) the board's. A tile on a red triple-word square is at the tiles' chroma too (the line
    is measured on chroma against the plain squares, not against the square's own class)."""
    f, tiles, at = _shaded_frame()
    sure = np.flatnonzero(tiles).tolist()
    z_empty, along, spread = chroma_contrast(f, sure, tiles)
    assert CHROMA_SPREAD_MIN <= spread < 0.02
    assert z_empty[at["shaded_blank"]] > 2 * z_empty[at["shaded_empty"]] > 0   # both moved, the blank twice as far
    assert abs(along[at["shaded_blank"]] - 1.0) < 0.1 and along[at["shaded_empty"]] < 0.5
    assert abs(along[at["tile_on_tws"]] - 1.0) < 0.1 and abs(along[at["empty_tws"]] - 1.0) > 0.5
    # without MIN_REFERENCES sure tiles there is no line: z_empty alone (its reference keeps leaving the tiles out)
    z_alone, along0, _ = chroma_contrast(f, sure[:2], tiles)
    assert np.allclose(z_alone, z_empty) and not along0.any()


def test_chroma_contrast_without_a_hue_between_board_and_tiles():
    """Tiles of the board's own colour: no line to place a square on (``along`` 0, not noise stretched to
    +-3). With every square called tile-like the reference leaves out less instead of failing."""
    f, tiles, _ = _shaded_frame(tile_bgr=BOARD_BGR)
    _, along, _ = chroma_contrast(f, np.flatnonzero(tiles).tolist(), tiles)
    assert not along.any()
    z_empty, _, spread = chroma_contrast(f, [], np.ones(225, bool))
    assert np.isfinite(z_empty).all() and spread >= CHROMA_SPREAD_MIN


@needs_shared
def test_a_wooden_blank_in_shade_on_the_beige_board_reads_blank():
    """Benchmark frame 49 ("typical"): a wooden blank at D3 under body shadow is as bright as the beige board; the
    grey crop leaves the square network unsure (P(tile) 0.55) and the occupancy model calls it empty (0.33).
    Its hue, measured in the spread of the frame's empty squares, is the tiles' (chroma_contrast): the settle
    model reads it blank (it was '#', 'tile or empty?'), and the whole board reads exactly."""
    fr, tile_set = benchmark_frame("typical", 49)
    reading = BoardReader(tile_set).read(fr.image)
    assert fr.truth[2][3] == "?"
    assert reading.grid() == fr.truth
