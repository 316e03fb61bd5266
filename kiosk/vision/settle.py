"""Tile or empty, settled: one learned verdict per square from everything the reader knows about it.

The reader has three opinions on whether a square holds a tile: the occupancy model (colour and texture
against the empty squares of the same premium class in this frame), the frame's colour vote, and the square
network (the crop's shapes: glyph, tile edges, printed labels). Each fails somewhere the others do not: a
plain blank on a beige board looks empty in grey, a cream tile on a green board may be called board-coloured
under a colour cast, a red triple-word square looks like a tile to the colour model but not to the network.
This module's small network (:class:`kiosk.vision.mlp.Classifier`, labels ``"0"`` empty / ``"1"`` tile) weighs
them, with clues the occupancy model lacks: the colour of the tiles whose letters the square network is sure of
(a blank is tile-coloured, an empty square is not), and how far a square's hue stands from the frame's empty
squares measured in their own spread (:func:`chroma_contrast`: a shadow darkens a square but keeps its hue).

It is trained on synthetic frames only (``python -m kiosk.vision.train settle``; seeds below 2**30, so the
benchmark's frames are never seen). The shipped model is ``kiosk/vision/models/settle.npz``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from kiosk.vision.cells import PREMIUM_CLASSES
from kiosk.vision.mlp import Classifier, ModelError
from kiosk.vision.occupancy import FIT_MIN_SQUARES, HUE, HUE_CHANGE
from kiosk.vision.squarenet import SquarePrediction

SURE_LETTER_P = 0.95      # the network's P(letter) at or above which a tile's colour is a reference
MIN_REFERENCES = 3        # sure letters needed for a tile colour
CHROMA_SPREAD_MIN = 0.003  # floor of the empty squares' hue spread (log-colour units) in chroma_contrast
HUE_WAY_MIN = 3.0          # spreads between the board's and the tiles' chroma for a square's place between them
_CLASSES = (".", "d", "t", "D", "T")   # plain, DLS, TLS, DWS, TWS (see kiosk/data layout)
N_FEATURES = 36


def _logit(p: np.ndarray | float, lim: float = 9.0) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.clip(np.log(p / (1 - p)), -lim, lim)


def chroma_contrast(feats: np.ndarray, sure: list[int], tile_like: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, float]:
    """How each square's hue stands against this frame's empty squares: (z_empty 225 floats, along 225 floats,
    spread float).

    ``feats``: the occupancy features (225 x 16, :func:`kiosk.vision.occupancy.features`); ``sure``: square
    indices (0..224) holding a letter the network is sure of; ``tile_like`` (225 bool): squares any opinion calls
    more likely a tile. The reference is the plain squares that are neither (the frame's empty squares; with
    fewer than FIT_MIN_SQUARES of them, leaving out less: only the sure letters, then nothing).

    ``spread``: the reference squares' median distance from their median hue change (columns HUE_CHANGE: the
    chromatic part of a square's change against an empty square of its own class, so an empty premium square
    is near 0 too), at least CHROMA_SPREAD_MIN log-colour units. ``z_empty``: each square's distance from that
    median in spreads. ``along``: where the square's chroma (columns HUE, class-independent, so a tile on any
    square is at the tiles' chroma) lies on the line from the reference squares' chroma (0) to the sure
    tiles' (1), clipped to -3..3; 0 for all without MIN_REFERENCES sure tiles or when the tiles' chroma is
    within HUE_WAY_MIN spreads of the board's (no line to lie on). Within one frame empty squares agree on hue
    to a few thousandths even in shade, so a tile as bright as the board (a wooden blank on a beige board in
    shade) still stands tens of spreads away.
    """
    change = feats[:, HUE_CHANGE].astype(np.float64)
    plain = PREMIUM_CLASSES == "."
    not_sure = plain.copy()
    not_sure[sure] = False
    ref = next((r for r in (not_sure & ~tile_like, not_sure) if r.sum() >= FIT_MIN_SQUARES), plain)
    centre = np.median(change[ref], axis=0)
    z = np.linalg.norm(change - centre, axis=1)
    spread = max(float(np.median(z[ref])), CHROMA_SPREAD_MIN)
    along = np.zeros(len(feats))
    if len(sure) >= MIN_REFERENCES:
        hue = feats[:, HUE].astype(np.float64)
        board = np.median(hue[ref], axis=0)
        way = np.median(hue[sure], axis=0) - board
        if float(np.linalg.norm(way)) >= HUE_WAY_MIN * spread:
            along = np.clip((hue - board) @ way / float(way @ way), -3.0, 3.0)
    return z / spread, along, spread


def settle_features(feats: np.ndarray, norm: np.ndarray, p_model: np.ndarray, p_tile: np.ndarray,
                    vote: np.ndarray, glare: np.ndarray, preds: Mapping[int, SquarePrediction],
                    squares: list[int], sharpness: float) -> np.ndarray:
    """Feature rows (len(squares) x N_FEATURES float32) for the squares ``squares`` (each with a prediction in
    ``preds``).

    ``feats``: the occupancy features (225 x 16, :func:`kiosk.vision.occupancy.features`); ``norm``: the
    squares' light-corrected log colour (225 x 3, :func:`kiosk.vision.occupancy.normalised_colour`);
    ``p_model`` / ``p_tile``: the occupancy model's P(tile) before / after the colour vote and premium rule;
    ``vote``: the colour vote (225 int, -1/0/+1); ``glare``: glare share per square (225 floats 0..1);
    ``sharpness``: the frame's (:func:`kiosk.vision.quality.sharpness`). With the share of the frame's lettered
    tiles whose letter the network doubts, it tells the model how far to trust this frame's clues. The last three
    columns place the square's hue between the frame's empty squares and its tiles (:func:`chroma_contrast`):
    log(1 + its distance from the empty squares' hue change, in their spread), log(1 + its chroma's distance
    from the sure tiles', in the same spread; 0 without them) and its place on the line between the two.
    The predictions weighed are the square network's own (:attr:`SquarePrediction.square`), never a letter
    network's.
    """
    preds = {k: v.square for k, v in preds.items()}    # the square network's own: the model was trained on it
    sure = [sq for sq, q in preds.items() if q.p_letter >= SURE_LETTER_P and p_model[sq] > 0.5]
    if len(sure) >= MIN_REFERENCES:
        ref = np.median(norm[sure], axis=0)
        to_ref = np.linalg.norm(norm - ref, axis=1)
        chroma = (norm - norm.mean(axis=1, keepdims=True)) - (ref - ref.mean())
        to_ref_chroma = np.linalg.norm(chroma, axis=1)
        spread = float(np.median(to_ref[sure])) + 0.02      # how alike the sure tiles are to each other
        known = 1.0
    else:
        to_ref = to_ref_chroma = np.full(len(norm), 2.0)
        spread, known = 1.0, 0.0
    lettered = [q.letter_given_tile for q in preds.values() if q.p_tile > 0.5 and q.p_blank < q.p_tile / 2]
    doubtful = sum(v < 0.7 for v in lettered) / len(lettered) if lettered else 0.0
    frame = [math.log1p(max(sharpness, 0.0)), doubtful]
    tile_like = np.maximum(p_model, p_tile) >= 0.5
    tile_like[[k for k, v in preds.items() if v.p_tile >= 0.5]] = True
    z_empty, along, hue_spread = chroma_contrast(feats, sure, tile_like)
    z_tile = to_ref_chroma / hue_spread if known else np.zeros(len(norm))   # from the sure tiles' chroma
    sq = np.asarray(squares, np.intp)
    q = [preds[int(k)] for k in sq]
    p_tile_net = np.array([v.p_tile for v in q], np.float64)
    p_blank = np.array([v.p_blank for v in q], np.float64) / np.maximum(p_tile_net, 1e-9)
    premium = PREMIUM_CLASSES[sq]
    x = np.column_stack([
        _logit(p_model[sq]), _logit(p_tile[sq]), vote[sq].astype(np.float64),
        _logit(p_tile_net), _logit(p_blank), _logit(np.array([v.p_letter for v in q], np.float64)),
        to_ref[sq], to_ref_chroma[sq], to_ref[sq] / spread, np.full(len(sq), known), glare[sq].astype(np.float64),
        *[(premium == c).astype(np.float64) for c in _CLASSES[1:]],
        feats[sq].astype(np.float64), np.tile(frame, (len(sq), 1)),
        np.log1p(z_empty[sq]), np.log1p(z_tile[sq]), along[sq],
    ]).astype(np.float32) if len(sq) else np.zeros((0, N_FEATURES), np.float32)
    if x.shape[1] != N_FEATURES:
        raise AssertionError(f"settle features: {x.shape[1]} columns, expected {N_FEATURES}")
    return x


class SettleModel:
    """P(tile) per square from :func:`settle_features` (a :class:`Classifier` with labels "0"/"1")."""

    def __init__(self, net: Classifier) -> None:
        if net.labels != ["0", "1"] or net.n_features != N_FEATURES:
            raise ModelError(f"settle model: expected labels 0/1 and {N_FEATURES} features "
                             f"(got {net.labels}, {net.n_features}); rebuild it with "
                             f"`python -m kiosk.vision.train settle`")
        self.net = net

    @classmethod
    def train(cls, x: np.ndarray, y: np.ndarray, seed: int = 0, epochs: int = 40) -> SettleModel:
        """Train on rows ``x`` (N x N_FEATURES) and labels ``y`` (N, 1 = tile, 0 = empty)."""
        labels = np.where(np.asarray(y).astype(int) > 0, "1", "0")
        return cls(Classifier.fit(x, labels, hidden=48, epochs=epochs, seed=seed))

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """P(tile) for each row of ``x`` (N floats in 0..1)."""
        if not len(x):
            return np.zeros(0, np.float32)
        return self.net.predict_proba(x)[:, 1]

