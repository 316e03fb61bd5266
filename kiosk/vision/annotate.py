"""A picture of a reading: the board warped top-down with what was read, doubtful squares marked in red.

For people (judges, installers): ``kiosk read-board --annotate DIR`` writes one PNG per image.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kiosk.vision.cells import CELL_PX, cell_origin, warp_canvas
from kiosk.vision.reading import N_SQUARES, BoardReading, SquareState


def annotated_image(frame: np.ndarray, reading: BoardReading) -> np.ndarray:
    """BGR image: left the top-down board, right the grid as read (letters green, blanks blue, doubts red)."""
    if reading.homography is None:
        img = np.full((300, 600, 3), 40, np.uint8)
        cv2.putText(img, reading.quality.verdict[:40], (10, 150), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2)
        return img
    canvas, _ = warp_canvas(frame, reading.homography)
    read = np.full_like(canvas, 235)
    for sq in range(N_SQUARES):
        x0, y0 = cell_origin(sq)
        s = reading.squares[sq]
        box = (x0 + 2, y0 + 2), (x0 + CELL_PX - 2, y0 + CELL_PX - 2)
        cv2.rectangle(read, *box, (200, 200, 200), 1)
        if s.state is SquareState.UNSURE:
            cv2.rectangle(read, *box, (0, 0, 255), 2)
            cv2.rectangle(canvas, *box, (0, 0, 255), 2)
            cv2.putText(read, "?", (x0 + 15, y0 + 33), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 255), 2)
        elif s.state is SquareState.BLANK:
            cv2.rectangle(read, *box, (200, 120, 0), 2)
        elif s.state is SquareState.TILE and s.letter:
            colour = (0, 140, 0) if s.confidence >= 0.8 else (0, 140, 220)
            text = s.letter if s.letter.isascii() else {"Ä": "AE", "Ö": "OE", "Ü": "UE"}.get(s.letter, "*")
            cv2.putText(read, text, (x0 + 8 if len(text) > 1 else x0 + 13, y0 + 34), cv2.FONT_HERSHEY_SIMPLEX,
                        0.8 if len(text) == 1 else 0.55, colour, 2)
    out = np.hstack([canvas, read])
    cv2.putText(out, f"{reading.quality.verdict}  {reading.timings_ms.get('total', 0):.0f} ms", (8, out.shape[0] - 4),
                cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 255), 1)
    return out


def write_annotated_png(frame: np.ndarray, reading: BoardReading, path: str | Path) -> None:
    """Write :func:`annotated_image` as a picture (PNG, or the path's suffix), atomically
    (:func:`kiosk.vision.images.write_image`). Raises kiosk.files.InputError (naming the path) when it cannot be
    encoded or written."""
    from kiosk.vision.images import write_image

    write_image(path, annotated_image(frame, reading), "annotated picture")
