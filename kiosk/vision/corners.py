"""Grid corners given by a person or a file: the one check of whether four points can be a board's grid.

Corners come from ``kiosk read-board --corners``, ``kiosk calibrate pose --corners`` / ``--tap``, a ScrabScrap
``game.ini`` ``[default] warp-coord``, a calibration profile's ``board.grid_corners_px`` / ``board.homography``
and the developer scripts' ``.corners.txt`` files. Each is checked here, and a refusal is a sentence naming what
is wrong and where (:class:`CornersError`: ``"--corners: points 1 (A1) and 3 (O15) are the same point"``).

Four points (x, y image px, in the order A1, O1, O15, A15: clockwise as seen in the image) are refused when they
are not finite numbers or lie far outside any image (beyond FAR_PX); when two are the same point; when three
lie on one line; when the sides cross (the corners go across the board, not round it); when the quad is not
convex; when they go anticlockwise (the board's mirror image); when they make grid squares narrower than
MIN_SQUARE_PX. Given a frame's shape, also when the grid would cover less than MIN_GRID_SHARE of the frame or
put more than half of itself outside it (a board may be partly out of view).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

FAR_PX = 1e6              # an image coordinate further out than this lies outside any image (float32 would overflow)
NAMES = ("A1", "O1", "O15", "A15")   # the grid's outer corners, in the order they are given
SAME_POINT_PX = 1.0       # two corners closer than this are one point
LINE_PX = 1.0             # a corner closer than this to the line through its two neighbours lies on that line
MIN_SQUARE_PX = 4.0       # grid squares narrower than this (px) hold no readable tile
MIN_GRID_SHARE = 0.02     # with a frame: the grid must cover at least this share of it
MIN_INSIDE_SHARE = 0.5    # ... and at least this share of the grid must lie inside it
_LATTICE = np.array([[x, y] for y in range(16) for x in range(16)], np.float64)   # the grid lines' crossings, in squares


class CornersError(ValueError):
    """Corners that cannot be a board's grid: ``where`` they came from (the option, the file and key), the
    ``problem`` (a sentence); the message is ``"{where}: {problem}"``."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


def _point(i: int, a: np.ndarray) -> str:
    return f"point {i + 1} ({NAMES[i]}, at {a[i, 0]:g},{a[i, 1]:g})"


def _cross(o: np.ndarray, p: np.ndarray, q: np.ndarray) -> float:
    """z of (p - o) x (q - o): > 0 when o, p, q turn clockwise as seen in an image (y down)."""
    return float((p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0]))


def _shape_problem(a: np.ndarray) -> str | None:
    """Why 4 finite points cannot be a grid whatever the frame (see the module docstring), or None."""
    for i, j in itertools.combinations(range(4), 2):
        if np.hypot(*(a[i] - a[j])) < SAME_POINT_PX:
            return f"{_point(i, a)} and {_point(j, a)} are the same point: give the grid's four corners"
    for i in range(4):
        before, after = a[i - 1], a[(i + 1) % 4]
        if abs(_cross(before, a[i], after)) / np.hypot(*(after - before)) < LINE_PX:
            three = sorted({(i - 1) % 4, i, (i + 1) % 4})
            return (f"{', '.join(_point(k, a) for k in three[:2])} and {_point(three[2], a)} lie on one line: "
                    "give the grid's four corners")
    for (i, j), (k, m) in (((0, 1), (2, 3)), ((1, 2), (3, 0))):
        if _cross(a[i], a[j], a[k]) * _cross(a[i], a[j], a[m]) < 0 and \
                _cross(a[k], a[m], a[i]) * _cross(a[k], a[m], a[j]) < 0:
            return (f"the sides {NAMES[i]}-{NAMES[j]} and {NAMES[k]}-{NAMES[m]} cross: give the corners in the "
                    f"order {', '.join(NAMES)} round the board (clockwise as seen in the image)")
    turns = [_cross(a[i - 1], a[i], a[(i + 1) % 4]) for i in range(4)]
    if min(turns) < 0 < max(turns):
        odd = next(i for i, t in enumerate(turns) if (t > 0) != (sum(t > 0 for t in turns) > 2))
        return f"the quad is not convex at {_point(odd, a)}: the grid's four corners make a convex quad"
    if max(turns) < 0:
        return (f"the corners go anticlockwise as seen in the image: give them {', '.join(NAMES)} clockwise (as "
                "seen in the image); the other way round is the board's mirror image")
    return None


def square_px(corners: np.ndarray) -> float:
    """The narrowest grid square's side (px) of a convex quad of grid corners (4x2, A1, O1, O15, A15)."""
    import cv2

    unit = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float32)
    h = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32))
    pts = cv2.perspectiveTransform(_LATTICE.reshape(-1, 1, 2), h.astype(np.float64)).reshape(16, 16, 2)
    return float(min(np.hypot(*np.moveaxis(np.diff(pts, axis=ax), -1, 0)).min() for ax in (0, 1)))


def _frame_problem(a: np.ndarray, shape: tuple[int, ...]) -> str | None:
    """Why a convex clockwise quad cannot be the grid in a frame of ``shape`` (H, W[, ...]), or None."""
    import cv2

    h, w = shape[:2]
    area = float(np.sum(a[:, 0] * np.roll(a[:, 1], -1) - np.roll(a[:, 0], -1) * a[:, 1])) / 2
    if area < MIN_GRID_SHARE * w * h:
        return f"the grid covers only {100 * area / (w * h):.1f} % of the {w}x{h} frame " \
               f"(at least {100 * MIN_GRID_SHARE:.0f} %): move the camera closer or check the corners"
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inside, _ = cv2.intersectConvexConvex(a.astype(np.float32), frame)
    if inside < MIN_INSIDE_SHARE * area:
        return f"the corners put {100 * (1 - inside / area):.0f} % of the grid outside the {w}x{h} frame"
    return None


def corners_problem(corners: Any, shape: tuple[int, ...] | None = None) -> str | None:
    """What makes ``corners`` (4 points x, y image px, A1, O1, O15, A15) unable to be a board's grid, as a
    sentence (see the module docstring), or None when they can be; with ``shape`` (the frame's H, W[, ...]) in
    that frame too. Never raises."""
    try:
        a = np.asarray(corners, np.float64)
    except (TypeError, ValueError):
        return f"expected 4 points x,y ({', '.join(NAMES)}), got {corners!r}"
    if a.shape != (4, 2):
        return f"expected 4 points x,y ({', '.join(NAMES)}), got an array of shape {a.shape}"
    for i in range(4):
        if not np.all(np.isfinite(a[i])):
            return f"point {i + 1} ({NAMES[i]}) is not a finite number"
        if np.abs(a[i]).max() > FAR_PX:   # finite, but a float32 cast would overflow
            return f"{_point(i, a)} lies far outside any image"
    problem = _shape_problem(a)
    if problem is None and shape is not None:
        problem = _frame_problem(a, shape)
    if problem is None and (side := square_px(a)) < MIN_SQUARE_PX:
        problem = f"the corners make the grid's squares only {side:.1f} px across (at least {MIN_SQUARE_PX:g} px " \
                  "to read a tile): check the corners"
    return problem


def check_corners(corners: Any, where: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """``corners`` as 4x2 float32 when they can be a board's grid (:func:`corners_problem`, in a frame of
    ``shape`` when given). Raises CornersError ``"{where}: what is wrong"``; ``where`` names the source (the
    option, the file and key)."""
    problem = corners_problem(corners, shape)
    if problem is not None:
        raise CornersError(where, problem)
    return np.asarray(corners, np.float64).astype(np.float32)


def parse_corners(text: str, where: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Corners written ``"x,y x,y x,y x,y"`` (``;`` may separate the points), checked (:func:`check_corners`):
    4x2 float32. Raises CornersError ``"{where}: what is wrong"`` (a point that is not ``x,y`` is named)."""
    parts = text.replace(";", " ").split()
    if len(parts) != 4:
        raise CornersError(where, f"expected 4 points 'x,y x,y x,y x,y', got {len(parts)} (the grid's "
                                  f"corners {', '.join(NAMES)})")
    pts = []
    for i, p in enumerate(parts, 1):
        xy = p.split(",")
        try:
            if len(xy) != 2:
                raise ValueError
            pts.append((float(xy[0]), float(xy[1])))
        except ValueError:
            raise CornersError(where, f"point {i} {p!r} is not 'x,y'") from None
    return check_corners(pts, where, shape)


def read_corners_file(path: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Corners from a text file of 4 lines ``x y`` (``#`` lines are comments; the ``.corners.txt`` beside the
    photos of ../shared/photos), read by :func:`kiosk.files.read_text` (UTF-8, a byte-order mark read past) and
    checked (:func:`check_corners`). Raises CornersError naming the file (and the line where a line is not two
    numbers, or is not UTF-8)."""
    from pathlib import Path

    from kiosk.files import InputError, read_text

    p = Path(path)
    try:
        text = read_text(p, "corners file")
    except InputError as exc:   # 'PATH: why' or 'PATH:LINE: why'
        line, _, why = str(exc).removeprefix(str(p)).partition(": ")
        raise CornersError(f"{p}{line}", why) from None
    lines = [(n, ln.split()) for n, ln in enumerate(text.splitlines(), 1)
             if ln.strip() and not ln.lstrip().startswith("#")]
    pts = []
    for n, parts in lines:
        try:
            if len(parts) != 2:
                raise ValueError
            pts.append((float(parts[0]), float(parts[1])))
        except ValueError:
            raise CornersError(f"{p}:{n}", f"expected 'x y' (a corner in px), got {' '.join(parts)!r}") from None
    return check_corners(pts, str(p), shape)
