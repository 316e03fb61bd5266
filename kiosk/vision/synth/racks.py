"""Tile racks on the table beside the board: tiles standing in them lean back towards their player, so the
camera above sees their faces strongly foreshortened. They put letters in view outside the grid."""

from __future__ import annotations

import math

import cv2
import numpy as np

from kiosk.rules.tiles import TileSet
from kiosk.vision.geometry import BoardGeometry
from kiosk.vision.synth.board_art import BoardTexture
from kiosk.vision.synth.tile_art import TileLook, tile_face

RACK_MM = (190.0, 42.0)   # length, depth
LEAN = 0.35               # a leaning tile's face seen from above: its height shrinks to this fraction
_RACK_COLOURS = ((40, 60, 95), (30, 30, 30), (70, 110, 160), (120, 120, 120))


def draw_racks(tex: np.ndarray, bt: BoardTexture, rng: np.random.Generator, look: TileLook, tile_set: TileSet,
               geometry: BoardGeometry, paste) -> list[dict]:
    """Draw two racks on opposite sides of the board (in place, texture ``tex``) with up to 7 random tiles each;
    ``paste`` is the face compositor (:func:`kiosk.vision.synth.render.paste_face`). Returns what was drawn."""
    g = geometry.grid_mm
    b = geometry.border_mm
    axis = int(rng.integers(2))            # 0: players above and below the board, 1: left and right
    colour = _RACK_COLOURS[int(rng.integers(len(_RACK_COLOURS)))]
    letters = [t for t, n in tile_set.counts.items() for _ in range(n)]
    size = int(round(geometry.tile_mm * bt.ppm))
    drawn = []
    for side in (0, 1):
        gap = rng.uniform(5, 30)  # stays clear of the texture's mirrored outer band (board_art.FOLD_MM)
        along = g / 2 + rng.uniform(-60, 60)
        depth_pos = -b - gap - RACK_MM[1] / 2 if side == 0 else g + b + gap + RACK_MM[1] / 2
        centre = np.array([along, depth_pos]) if axis == 0 else np.array([depth_pos, along])
        # the player faces the board: tiles upright for them, i.e. turned 180 deg for the far player
        facing = (math.pi if side == 0 else 0.0) + (0.0 if axis == 0 else -math.pi / 2)
        facing += math.radians(rng.normal(0, 3))
        c, s = math.cos(facing), math.sin(facing)
        R = np.array([[c, -s], [s, c]])
        body = np.array([[-RACK_MM[0] / 2, -RACK_MM[1] / 2], [RACK_MM[0] / 2, -RACK_MM[1] / 2],
                         [RACK_MM[0] / 2, RACK_MM[1] / 2], [-RACK_MM[0] / 2, RACK_MM[1] / 2]]) @ R.T + centre
        cv2.fillConvexPoly(tex, np.round(bt.to_px(body) * 16).astype(np.int32), colour, cv2.LINE_AA, 4)
        n = int(rng.integers(0, 8))
        rack = [str(letters[int(i)]) for i in rng.choice(len(letters), n, replace=False)]
        for k, ch in enumerate(rack):
            x = (k - 3) * (geometry.tile_mm + 1.5) + rng.normal(0, 0.6)
            pos = centre + R @ np.array([x, -RACK_MM[1] * 0.12])
            face = tile_face(ch, tile_set.values.get(ch), look, size, int(rng.integers(0, 6)))
            paste(tex, face, bt.to_px(pos[None])[0], facing, 1.0, LEAN)
        drawn.append({"tiles": "".join(rack), "centre_mm": [round(float(v), 1) for v in centre]})
    return drawn
