"""Occupancy: which squares hold a tile.

Each square is compared with what an empty square of its premium class looks like *in the same frame*: the
board's own squares are the colour reference, so premium colours, printed labels (their texture is shared by
the whole class) and colour casts cancel out. Light that varies over the board is removed first by a robust
smooth fit of the plain squares' colour (von Kries per channel). A small network (:mod:`kiosk.vision.mlp`)
turns the resulting per-square features into P(tile).
"""

from __future__ import annotations

import numpy as np

from kiosk.vision.cells import PREMIUM_CLASSES, CellStats
from kiosk.vision.geometry import SIZE
from kiosk.vision.mlp import Classifier, ModelError

N_FEATURES = 16
HUE_CHANGE = slice(4, 7)   # feature columns: the chromatic part of a square's colour change against its class
HUE = slice(7, 10)         # feature columns: a square's chroma relative to the plain squares (class-independent)
MIN_TILE_SEPARATION = 0.6  # log-colour distance between tiles and plain squares for the colour vote
_EPS_FRACTION = 0.35
FIT_MIN_SQUARES = 12       # plain squares needed to fit the light (6 coefficients per channel, with outliers)


def _design(xy: np.ndarray) -> np.ndarray:
    x, y = xy[:, 0], xy[:, 1]
    return np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=1)


_RC = np.stack(np.divmod(np.arange(SIZE * SIZE), SIZE), axis=1)[:, ::-1].astype(np.float64) / (SIZE - 1) - 0.5
_DESIGN = _design(_RC)


def illumination(log_colour: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """Smooth per-channel log-colour field (225x3) fitted robustly to the plain squares (tiles are outliers)."""
    # start from the plain squares near their median colour (tiles are far away), then fit and re-select
    med = np.median(log_colour[plain], axis=0)
    res = np.linalg.norm(log_colour - med, axis=1)
    use = plain & (res < 2.5 * np.median(res[plain]) + 0.1)
    field = np.tile(med, (len(log_colour), 1))
    for _ in range(3):
        if use.sum() < FIT_MIN_SQUARES:
            break
        coef, *_ = np.linalg.lstsq(_DESIGN[use], log_colour[use], rcond=None)
        field = _DESIGN @ coef
        res = np.linalg.norm(log_colour - field, axis=1)
        new = plain & (res < 3.0 * np.median(res[use]) + 0.05)
        if np.array_equal(new, use):
            break
        use = new
    return field


def normalised_colour(stats: CellStats, known_tiles: np.ndarray | None = None,
                      hidden: np.ndarray | None = None) -> np.ndarray:
    """Each square's light-corrected log colour (225 x 3 float64): 0 = looks like a plain empty square under
    this frame's light at that place (see :func:`illumination`). ``known_tiles`` (225 bool): squares known to
    hold a tile; ``hidden`` (225 bool): squares a hand hides; both are left out of the fit."""
    plain = PREMIUM_CLASSES == "."
    for out in (_left_out(known_tiles, hidden), _left_out(known_tiles, None), _left_out(None, hidden)):
        if out.any() and (plain & ~out).sum() >= FIT_MIN_SQUARES:     # too few left: leave out less
            plain = plain & ~out
            break
    colour = stats.colour.astype(np.float64)
    # the offset keeps dark channels from dominating; it scales with the light so a dim frame looks the same
    eps = max(2.0, _EPS_FRACTION * float(np.median(colour[plain].mean(axis=1))))
    logc = np.log(colour + eps)
    return logc - illumination(logc, plain)


def _left_out(known_tiles: np.ndarray | None, hidden: np.ndarray | None) -> np.ndarray:
    """225 bool: the squares no empty-square reference may come from (known tiles, squares a hand hides)."""
    out = np.zeros(len(PREMIUM_CLASSES), bool)
    for mask in (known_tiles, hidden):
        if mask is not None:
            out |= np.asarray(mask, bool)
    return out


def features(stats: CellStats, norm: np.ndarray | None = None, known_tiles: np.ndarray | None = None,
             hidden: np.ndarray | None = None) -> np.ndarray:
    """Per-square feature matrix (225 x N_FEATURES float32) for the occupancy model. ``norm``: the
    :func:`normalised_colour` of ``stats`` (with the same ``known_tiles`` and ``hidden``) when already
    computed; ``known_tiles`` (225 bool): squares known to hold a tile (letters read surely), left out of the
    empty squares' references (a class keeps even a single square that is neither known nor hidden as its
    reference) and taken as tiles for this frame's tile colour; ``hidden`` (225 bool): squares a
    hand hides, left out of both (a hand over half of a premium class would set that class's colour)."""
    plain = PREMIUM_CLASSES == "."
    known = _left_out(known_tiles, None)
    hide = _left_out(None, hidden)
    out = known | hide
    if norm is None:
        norm = normalised_colour(stats, known_tiles, hidden)
    grey = norm.mean(axis=1, keepdims=True)
    ref = np.zeros_like(norm)
    tex = np.log(stats.texture.astype(np.float64) + 1.0)
    tex_ref = np.zeros_like(tex)
    edge_ref = np.zeros_like(tex)
    # tiles on plain squares (the plain class is never half covered) give the tiles' colour in this frame;
    # a premium class's reference then leaves out its cells that look like that (a class may be mostly covered)
    d_plain = np.linalg.norm(norm, axis=1)
    plain_seen = plain & ~hide if (plain & ~hide).sum() >= FIT_MIN_SQUARES else plain
    tile_like = plain_seen & ((d_plain > max(0.25, 3.0 * float(np.median(d_plain[plain_seen])))) | known)
    tile_colour = np.median(norm[tile_like], axis=0) if tile_like.sum() >= 3 else None
    for c in np.unique(PREMIUM_CLASSES):
        m = c == PREMIUM_CLASSES
        # the class's squares neither known tiles nor hidden; of a class all but covered by known tiles (7 of the
        # 8 triple-word squares late in a game) the one or two left, rather than the known tiles' colour
        bare = m & ~out
        keep = next((k for k, n in ((bare, 3), (bare, 1), (m & ~hide, 3)) if k.sum() >= n), m)
        if c != "." and tile_colour is not None:
            far = keep & (np.linalg.norm(norm - tile_colour, axis=1) > 0.2)
            if far.sum() >= 3:
                keep = far
        ref[m] = np.median(norm[keep], axis=0)
        tex_ref[m] = np.median(tex[keep])
        edge_ref[m] = np.median(stats.edges[keep])
    diff = norm - ref                                # difference from an empty square of the same class
    if tile_colour is not None:
        to_tile = np.linalg.norm(norm - tile_colour, axis=1)
        dc = (norm - norm.mean(axis=1, keepdims=True)) - (tile_colour - tile_colour.mean())
        to_tile_chroma = np.linalg.norm(dc, axis=1)
    else:                                            # no tile on a plain square yet: no estimate
        to_tile = np.full(len(norm), 2.0)
        to_tile_chroma = np.full(len(norm), 2.0)
    f = np.column_stack([
        diff,                                        # 3: colour change vs class (log ratio per channel)
        np.linalg.norm(diff, axis=1),                # 1
        diff - diff.mean(axis=1, keepdims=True),     # 3: chromatic part of the change
        norm - grey,                                 # 3: chroma relative to the plain squares
        tex - tex_ref,                               # 1: texture change vs class
        tex,                                         # 1
        stats.edges - edge_ref,                      # 1
        stats.seen,                                  # 1
        to_tile,                                     # 1: colour distance to this frame's tiles
        to_tile_chroma,                              # 1: same, brightness left out
    ])
    return f.astype(np.float32)


class OccupancyModel:
    """P(tile) per square from :func:`features` (a :class:`kiosk.vision.mlp.Classifier` with labels "0"/"1")."""

    def __init__(self, net: Classifier) -> None:
        if net.labels != ["0", "1"] or net.n_features != N_FEATURES:
            raise ModelError(f"occupancy model: expected labels 0/1 and {N_FEATURES} features")
        self.net = net

    @classmethod
    def train(cls, x: np.ndarray, y: np.ndarray, seed: int = 0) -> OccupancyModel:
        """Train on features ``x`` (N x N_FEATURES) and labels ``y`` (N, 1 = tile, 0 = empty)."""
        labels = np.where(np.asarray(y).astype(int) > 0, "1", "0")
        return cls(Classifier.fit(x, labels, hidden=32, epochs=40, seed=seed))

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """P(tile) for each row of ``x`` (N floats in 0..1)."""
        return self.net.predict_proba(x)[:, 1]


def nearest_colour_says_tile(f: np.ndarray) -> np.ndarray:
    """Per square (225 int8): +1 when its colour is clearly nearer this frame's tiles than an empty square of
    its class, -1 when clearly nearer the empty square, 0 when it cannot tell (or no tile colour is known).

    ``f``: the :func:`features` matrix. Used to settle squares the model is unsure about: within one frame all
    tiles share a colour, so a darkened (shadowed) empty square is nearer its class than the tiles.
    """
    d_empty = f[:, 3]
    d_tile = f[:, 14]
    out = np.zeros(len(f), np.int8)
    known = ~np.isclose(d_tile, 2.0)
    # only when the tiles stand out from the board (cream on green: yes; tan wood on a tan board: no)
    if not known.any() or float(np.median(d_tile[PREMIUM_CLASSES == "."])) < MIN_TILE_SEPARATION:
        return out
    out[known & (d_tile * 2.0 < d_empty)] = 1
    out[known & (d_empty * 2.0 < d_tile)] = -1
    return out


def tile_colour_known(f: np.ndarray) -> bool:
    """True when the frame's tile colour could be estimated (some tile lies on a plain square)."""
    return not bool(np.all(np.isclose(f[:, 14], 2.0)))
