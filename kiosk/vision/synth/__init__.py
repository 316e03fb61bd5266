"""The synthetic camera: realistic frames of any board state, deterministic by seed, with ground truth.

Public API::

    from kiosk.vision.synth import LEVELS, RealismParams, SyntheticFrame, render_board
    frame = render_board(board, seed=7, level="typical")        # frame.image: BGR uint8 1520 x 2028 x 3
    frame.truth             # 15 strings: '.', letter, '?' (blank tile)
    frame.grid_corners_px   # 4x2: grid outer corners A1, O1, O15, A15 in the image (lens distortion included)
    frame.occluded          # squares a hand covers
    frame.meta              # what was drawn: styles, camera, light, glare spots, turned tiles, timings (ms)

    # a fixed camera watching a game (the demo): one scene_seed, a new seed per frame
    frame = render_board(board, seed=frame_no, scene_seed=42)

    # a level with one knob changed
    render_board(board, seed=1, level=LEVELS["typical"].with_(hand_prob=1.0))

Seeds: ``kiosk bench-vision`` renders its frames with seeds >= 2**30 (:data:`levels.HELD_OUT_BIT`); anything
trained on synthetic frames should use seeds below 2**30.

Modules: :mod:`levels` (every realism knob), :mod:`render` (the pipeline), :mod:`camera` (pinhole + distortion),
:mod:`board_art` (board texture, premium squares, markers), :mod:`tile_art` / :mod:`glyph_art` (tile faces),
:mod:`racks`, :mod:`hand`, :mod:`effects` (light, glare, blur, noise, JPEG), :mod:`boards` (random boards).
The reader's accuracy on synthetic frames (``kiosk bench-vision``) is :mod:`kiosk.vision.train.bench`: the synthetic
camera depends on the board's geometry only, never on the reader it is used to measure.
"""

from kiosk.vision.synth.levels import HELD_OUT_BIT, LEVELS, RealismParams, get_level
from kiosk.vision.synth.render import RenderError, SyntheticFrame, render_board, truth_grid

__all__ = ["HELD_OUT_BIT", "LEVELS", "RealismParams", "RenderError", "SyntheticFrame", "get_level", "render_board", "truth_grid"]
