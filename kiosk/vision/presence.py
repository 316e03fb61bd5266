"""Is a board where given corners say? The check for corners the printed grid lines do not confirm.

:func:`kiosk.vision.locate.fit_corners` says whether the printed lines confirmed given grid corners; when they do
not (a frame of noise, a covered camera, a board turned or taken away under a fixed camera's corners), the
corners alone would read whatever lies there as a board: noise read as an empty board with verdict "ok".
:func:`no_board` then decides from the frame whether a board lies there at all, on these measures of the grid
the corners give (:class:`BoardEvidence`):

* ``aligned``: the edges there (tile sides, grid lines, premium squares) must run along the grid's axes; a
  board turned under the corners has its edges run ``turn_deg`` degrees off;
* ``colour``: the premium layout's colour fit (:func:`kiosk.vision.locate.layout_fit`, Lab units);
* ``period``: how strongly the edges repeat at the grid's pitch along both axes (the 15 squares), and
  ``offset``: where those repeating edges lie from the given lines (a fraction of a square).

A board must be aligned (ALIGNED_MIN), its clearly repeating edges (PERIOD_MIN) on the given lines (within
MAX_OFFSET: a board shifted half a square is not at the corners), and show its premium colours (COLOUR_MIN) or
its pitch (PERIOD_MIN).
The thresholds and the data they were chosen on: ``scripts/board_presence_data.py`` (figures in
kiosk/vision/README.md). About 20-40 ms a frame, never on the steady path (only where the lines did not confirm).
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from kiosk.vision import locate
from kiosk.vision.geometry import SIZE, warp_grid_corners
from kiosk.vision.reading import GIVEN_CORNERS, GridSource

CANVAS_PX = 600          # the grid is warped to this square (40 px a square) to be measured
ALIGN_WINDOW_DEG = 5     # edges within this of an axis count as running along it
ALIGNED_MIN = 0.85       # edge energy along the grid's axes / along the best-turned axes
COLOUR_MIN = 8.0         # premium layout colour fit (Lab units) that shows a board ...
PERIOD_MIN = 100.0       # ... or edges repeating at the grid's pitch this strongly (power over the median)
MAX_OFFSET = 0.25        # edges repeating that strongly this far (squares) between the given lines: a shifted grid
_CLAHE = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))


class BoardEvidence(NamedTuple):
    """What the frame shows where given corners put the grid (see the module docstring)."""

    aligned: float      # 0..1: edge energy within ALIGN_WINDOW_DEG of the grid's axes / of the best-turned axes
    turn_deg: int       # the turn (degrees, -44..45, counter-clockwise in the image) the edges run along best
    colour: float       # locate.layout_fit (Lab units; -1e9: not measurable)
    period: float       # min over both axes of the power at the grid's pitch over the median power
    offset: float       # where the edges repeating at the pitch lie from the given lines, squares (-0.5..0.5; the
    #                     axis further off; meaningful only for a clear period)


def _canvas(image: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the grid of ``h`` warped to CANVAS_PX square, grey uint8; bool mask of the canvas inside the frame)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    grid = locate.grid_corners_in_image(h)
    side = float(np.linalg.norm(grid[1] - grid[0]) + np.linalg.norm(grid[2] - grid[3])) / 2
    scale = min(1.0, 2 * CANVAS_PX / max(side, 1.0))    # reduced first (INTER_AREA): the warp then aliases little
    s = np.diag([scale, scale, 1.0])
    if scale < 1.0:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    dst = np.array([[0, 0], [CANVAS_PX, 0], [CANVAS_PX, CANVAS_PX], [0, CANVAS_PX]], np.float32)
    to_canvas = cv2.getPerspectiveTransform(warp_grid_corners(), dst) @ h @ np.linalg.inv(s)
    canvas = cv2.warpPerspective(grey, to_canvas, (CANVAS_PX, CANVAS_PX), flags=cv2.INTER_LINEAR)
    inside = cv2.warpPerspective(np.full(grey.shape[:2], 255, np.uint8), to_canvas, (CANVAS_PX, CANVAS_PX),
                                 flags=cv2.INTER_NEAREST) > 0
    return canvas, inside


def _gradients(canvas: np.ndarray, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d/dx, d/dy) of ``canvas`` (Sobel, float32), 0 outside the frame."""
    gx = cv2.Sobel(canvas, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(canvas, cv2.CV_32F, 0, 1, ksize=3)
    gx[~inside] = 0
    gy[~inside] = 0
    return gx, gy


def _edges(canvas: np.ndarray, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(edge strength, edge direction in degrees folded to one quarter turn: 0 = along an axis), both flat, of
    the canvas (smoothed first; 0 outside the frame)."""
    gx, gy = _gradients(cv2.GaussianBlur(canvas.astype(np.float32), (0, 0), 1.5), inside)
    return np.hypot(gx, gy).ravel(), (np.degrees(np.arctan2(gy, gx)) % 90.0).ravel()


def _along(mag: np.ndarray, ang: np.ndarray, per_deg: int, window_deg: int) -> np.ndarray:
    """Edge strength (``mag``) per direction (``ang``, :func:`_edges`) in ``per_deg`` bins a degree (90 x
    ``per_deg`` bins), each summed with its neighbours within ``window_deg`` degrees (wrapping round)."""
    bins = 90 * per_deg
    hist = np.bincount(np.round(ang * per_deg).astype(np.intp) % bins, weights=mag, minlength=bins)
    window = np.arange(-window_deg * per_deg, window_deg * per_deg + 1)
    return np.array([hist.take(k + window, mode="wrap").sum() for k in range(bins)])


def evidence(image: np.ndarray, h: np.ndarray) -> BoardEvidence:
    """The :class:`BoardEvidence` of ``image`` (BGR or grey uint8, H x W[ x 3]) where ``h`` (image -> canonical
    homography) puts the grid. Never raises for a frame of any content."""
    canvas, inside = _canvas(image, h)
    mag, ang = _edges(canvas, inside)
    along = _along(mag, ang, 1, ALIGN_WINDOW_DEG)     # one bin a degree
    best = int(np.argmax(along))
    aligned = float(along[0] / along[best]) if along[best] > 0 else 0.0
    powers, offsets = [], []
    # the pitch on the locally equalised canvas: a board's thin lines count as much as its tiles' edges
    gx, gy = _gradients(cv2.GaussianBlur(_CLAHE.apply(canvas).astype(np.float32), (0, 0), 1.5), inside)
    for profile in (np.abs(gx).mean(axis=0), np.abs(gy).mean(axis=1)):
        p = (profile - profile.mean()) * np.hanning(len(profile))
        spectrum = np.fft.rfft(p)
        power = np.abs(spectrum) ** 2
        base = float(np.median(power[4:100]))
        powers.append(float(power[SIZE - 1:SIZE + 2].max()) / base if base > 0 else 0.0)
        offsets.append(float((-np.angle(spectrum[SIZE]) / (2 * np.pi) + 0.5) % 1.0 - 0.5))  # lines at 0: phase 0
    small, h_small, _ = locate._reduced(image, h)     # as the fit measures colours: on the reduced frame
    return BoardEvidence(aligned, best if best <= 45 else best - 90, locate.layout_fit(small, h_small), min(powers),
                         max(offsets, key=abs))


TURN_WINDOW_DEG = 5.0    # turn(): the edges within this of the strongest direction are averaged


def turn(image: np.ndarray, h: np.ndarray) -> float:
    """How far (degrees, -45..45, as :func:`cv2.getRotationMatrix2D` turns: positive counter-clockwise on the
    screen) the edges where ``h`` (image -> canonical homography) puts the grid in ``image`` (BGR or grey uint8)
    run turned from its axes: the grid turned by this about its centre lies along them. The edge directions
    folded to a quarter turn, a quarter degree a bin; the strongest direction (within TURN_WINDOW_DEG) refined by
    the mean of the edges within TURN_WINDOW_DEG of it (weighted by their strength). A board knocked between two
    frames: about 0.3 degrees off on real frames (scrabscrap game01 turned 1-12 degrees). 0.0 for a frame
    without edges; never raises."""
    mag, ang = _edges(*_canvas(image, h))
    best = int(np.argmax(_along(mag, ang, 4, int(TURN_WINDOW_DEG)))) / 4.0
    near = np.abs((ang - best + 45.0) % 90.0 - 45.0) <= TURN_WINDOW_DEG
    z = np.sum(mag[near] * np.exp(4j * np.radians(ang[near])))
    return 0.0 if abs(z) == 0 else float(-np.degrees(np.angle(z)) / 4)


def no_board(image: np.ndarray, h: np.ndarray, source: GridSource = GIVEN_CORNERS, moved: bool = False
             ) -> str | None:
    """Why no board lies where ``h`` (image -> canonical) puts the grid in ``image`` (BGR uint8), as a sentence
    for the judge, or None when one may (:func:`evidence`; the rule in the module docstring). ``source`` is where
    that grid came from (:class:`kiosk.vision.reading.GridSource`): it names the grid ("no board WHERE (...)")
    and what to check. ``moved``: a board lay there in the frames before (a tracked grid): what runs turned or
    lies off the lines there is that board moved, and the sentence starts "the board moved: "."""
    e = evidence(image, h)
    where, check = source.where, source.check
    moved_ = "the board moved: " if moved else ""
    if e.aligned < ALIGNED_MIN:
        return (f"{moved_}no board {where} (no grid lines along them: what lies there runs about "
                f"{abs(e.turn_deg)} degrees turned; {check})")
    if e.period >= PERIOD_MIN and abs(e.offset) > MAX_OFFSET:
        return (f"{moved_}no board {where} (no grid lines along them: a grid's lines lie about "
                f"{abs(e.offset):.1f} of a square off them; {check})")
    if e.colour < COLOUR_MIN and e.period < PERIOD_MIN:
        return f"no board {where} (no grid lines, colours unlike the board's)"
    return None


class NoBoardError(ValueError):
    """No board lies at corners the printed lines do not confirm (:func:`no_board` says why, naming the corners)."""
