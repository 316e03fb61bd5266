"""A ScrabScrap recording's ``game.ini``: the grid's corners its camera system saved (``[default] warp-coord``).

ScrabScrap (the camera system the real games under ``../shared/photos/scrabscrap`` were recorded with) writes
``warp-coord = [[x, y], [x, y], [x, y], [x, y]]``: the grid's outer corners in the frame's px, A1, O1, O15, A15
(clockwise as seen in the image), the order :meth:`kiosk.vision.reader.BoardReader.read` takes. One parser for
every reader of such a folder: the recording demo (which takes the players' names ``name1``, ``name2`` from the same
:func:`read_game_ini`), the calibration's game samples and the vision scripts.

``game.ini`` is read as written: no interpolation (``name1 = Ann 100%`` is the name 'Ann 100%'; none of ScrabScrap's
keys, ``warp``, ``warp-coord``, ``name1``, ``name2``, ``formatter``, ``layout``, refers to another), and a file that
is no INI file is refused naming the file, the line and, where there is one, the section and key.
"""

from __future__ import annotations

import configparser
import json
import re
from pathlib import Path
from typing import Literal, overload

import numpy as np

from kiosk.files import InputError, read_text
from kiosk.vision.corners import CornersError, check_corners

SECTION, KEY = "default", "warp-coord"


class GameIniError(ValueError):
    """A ``game.ini`` that cannot be read as an INI file; the message names the file, the line and, where there is
    one, the section and the key."""


class WarpCoordError(GameIniError):
    """A ``game.ini`` whose corners cannot be used; the message names the file and the key and says why."""


def _shown(line: str) -> str:
    line = line.strip()
    return repr(line) if len(line) <= 40 else f"{line[:30]!r}..."


def _section_at(text: str, lineno: int) -> str | None:
    """The section line ``lineno`` of ``text`` is in (the last ``[NAME]`` line above it), or None."""
    section = None
    for line in text.splitlines()[:lineno - 1]:
        if (m := re.match(r"\s*\[(.+)\]", line)) is not None:
            section = m.group(1)
    return section


def ini_problem(exc: configparser.Error, text: str) -> str:
    """A configparser error on ``text`` as a clause naming the line and, where there is one, the section and key,
    and what to write (configparser's own message names neither the key nor a fix)."""
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return f"line {exc.lineno}: the file must start with the [{SECTION}] section header"
    if isinstance(exc, configparser.DuplicateOptionError):
        return f"line {exc.lineno}: {exc.option} is given twice in [{exc.section}]: keep one of its lines"
    if isinstance(exc, configparser.DuplicateSectionError):
        return f"line {exc.lineno}: the section [{exc.section}] is given twice: keep one [{exc.section}] line"
    if isinstance(exc, configparser.ParsingError) and exc.errors:
        lines = text.splitlines()
        n = exc.errors[0][0]
        more = f" (and {len(exc.errors) - 1} more such line{'s' * (len(exc.errors) > 2)})" \
            if len(exc.errors) > 1 else ""
        where = f" in [{section}]" if (section := _section_at(text, n)) is not None else ""
        shown = f" {_shown(lines[n - 1])}" if 0 < n <= len(lines) else ""
        return f"line {n}{shown}{where}: not NAME = VALUE{more}; write one setting a line, e.g. name1 = NAME"
    lineno = getattr(exc, "lineno", None)   # no other error comes from reading (there is no interpolation)
    return f"{'' if lineno is None else f'line {lineno}: '}{exc.message}"


def read_game_ini(path: str | Path) -> configparser.ConfigParser:
    """``path`` read as a ``game.ini`` (:func:`kiosk.files.read_text`: UTF-8, a byte-order mark read past), without
    interpolation.

    Raises:
        GameIniError: naming the file and the line: it cannot be read (missing, a folder, empty, binary), is not
            UTF-8, or is no INI file (:func:`ini_problem`).
    """
    path = Path(path)
    try:
        text = read_text(path, "game.ini")
    except InputError as exc:
        raise GameIniError(str(exc)) from None
    ini = configparser.ConfigParser(interpolation=None)   # a '%' is a '%': in a name, in warp-coord
    try:
        ini.read_string(text, source=str(path))
    except configparser.Error as exc:
        raise GameIniError(f"{path}: {ini_problem(exc, text)}") from None
    return ini


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
    if not path.is_file():
        raise WarpCoordError(f"{path}: missing (a ScrabScrap recording holds game.ini with the grid's corners in "
                             f"[{SECTION}] {KEY})")
    try:
        ini = read_game_ini(path)
    except GameIniError as exc:
        raise WarpCoordError(str(exc)) from None
    return corners_in(ini, path, required=required)


def corners_in(ini: configparser.ConfigParser, path: Path, *, required: bool) -> np.ndarray | None:
    """The corners of the ``game.ini`` at ``path`` already read (:func:`read_game_ini`), as :func:`read_warp_coord`
    gives them (WarpCoordError as it raises it)."""
    where = f"{path}: [{SECTION}] {KEY}"
    text = ini.get(SECTION, KEY, fallback="").strip()
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
