"""Can a recording's ``game.ini`` corners be the grid in its frames? Checked once, before the game is replayed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np


def corners_misfit(corners: np.ndarray, frames: Iterable[Path | None]) -> str | None:
    """Why ``corners`` (4x2 px, A1, O1, O15, A15) cannot be the grid in the recording's frames (mirrored, not a
    convex quad, tiny, mostly outside: :func:`kiosk.vision.corners.corners_problem`), checked on the first of
    ``frames`` (image paths in press order; None for a frame missing) that can be read, with that frame named;
    None when they can be, or when no frame can be read (each frame's reading then says what is wrong). Without
    this check every frame read "bad corners" and the game ran to its end with the judge entering every move."""
    from kiosk.vision.corners import corners_problem
    from kiosk.vision.images import ImageError, read_image

    for path in frames:
        if path is None:
            continue
        try:
            frame = read_image(path)
        except ImageError:
            continue
        why = corners_problem(corners, frame.shape)
        return None if why is None else f"{why} (checked on {path.name})"
    return None
