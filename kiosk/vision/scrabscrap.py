"""A ScrabScrap recording's ``game.ini``: the grid's corners its camera system saved (``[default] warp-coord``).

ScrabScrap (the camera system the real games under ``../shared/photos/scrabscrap`` were recorded with) writes
``warp-coord = [[x, y], [x, y], [x, y], [x, y]]``: the grid's outer corners in the frame's px, A1, O1, O15, A15
(clockwise as seen in the image), the order :meth:`kiosk.vision.reader.BoardReader.read` takes. One parser for
every reader of such a folder: the recording demo, the calibration's game samples and the vision scripts.
"""

from __future__ import annotations

import configparser
import json
from pathlib import Path
from typing import Literal, overload

import numpy as np

from kiosk.vision.corners import CornersError, check_corners

SECTION, KEY = "default", "warp-coord"


class WarpCoordError(ValueError):
    """A ``game.ini`` whose corners cannot be used; the message names the file and the key and says why."""


@overload
def read_warp_coord(ini_path: str | Path, *, required: Literal[True] = ...) -> np.ndarray: ...


@overload
def read_warp_coord(ini_path: str | Path, *, required: bool) -> np.ndarray | None: ...


def read_warp_coord(ini_path: str | Path, *, required: bool = True) -> np.ndarray | None:
    """The grid's corners of a ScrabScrap ``game.ini``: shape (4, 2) float32, image px (x, y), in the order A1,
    O1, O15, A15.

    ``required``: whether the caller needs the corners. Without a ``[default] warp-coord`` (the recording system
    found the board itself) the result is None when not required (the reader then finds the board), else
    WarpCoordError.

    Raises:
        WarpCoordError (a ValueError), its message naming the file and the key: the file is missing or cannot
        be read; the key is absent while ``required``; its value is not JSON, not 4 points [x, y], not numbers,
        or cannot be a board's grid (:func:`kiosk.vision.corners.check_corners`: not finite, far outside any
        image, repeated, on one line, crossed, not convex, mirrored, squares of a few px).
    """
    path = Path(ini_path)
    where = f"{path}: [{SECTION}] {KEY}"
    if not path.is_file():
        raise WarpCoordError(f"{path}: missing (a ScrabScrap recording holds game.ini with the grid's corners in "
                             f"[{SECTION}] {KEY})")
    ini = configparser.ConfigParser()
    try:
        ini.read(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError, configparser.Error) as exc:
        raise WarpCoordError(f"{path}: cannot be read: {exc}") from None
    try:  # configparser interpolates on get: a '%' in the value raises here, not in read
        text = ini.get(SECTION, KEY, fallback="").strip()
    except configparser.Error as exc:
        raise WarpCoordError(f"{where}: cannot be read ({exc.message})") from None
    if not text:
        if required:
            raise WarpCoordError(f"{path}: no [{SECTION}] {KEY} (the grid's 4 corners in px, A1, O1, O15, A15, are "
                                 "needed here)")
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WarpCoordError(f"{where}: not a list of 4 points [x, y] ({exc.msg}): {text!r}") from None
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(p, list) and len(p) == 2
                                                                  for p in value):
        raise WarpCoordError(f"{where} needs 4 points [x, y], got {text!r}")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for p in value for v in p):
        raise WarpCoordError(f"{where}: the corners must be numbers (px), got {text!r}")
    try:
        return check_corners(value, where)   # a board's grid: finite, within an image, not crossed, convex, ...
    except CornersError as exc:
        raise WarpCoordError(f"{exc} (got {text!r})") from None
