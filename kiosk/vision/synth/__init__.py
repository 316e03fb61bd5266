"""The synthetic camera: realistic frames of any board state, deterministic by seed, with ground truth.

Public API::

    from kiosk.vision.synth import LEVELS, RealismParams, SyntheticFrame, render_board
    frame = render_board(board, seed=7, level="typical")   # frame.image: BGR uint8 2028x1520

See :mod:`kiosk.vision.synth.levels` for the realism levels and :mod:`kiosk.vision.synth.render` for the pipeline.
"""

from kiosk.vision.synth.levels import LEVELS, RealismParams, get_level
from kiosk.vision.synth.render import RenderError, SyntheticFrame, render_board, truth_grid

__all__ = ["LEVELS", "RealismParams", "RenderError", "SyntheticFrame", "get_level", "render_board", "truth_grid"]
