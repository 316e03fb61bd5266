"""Is the grid where it was? A cheap check, between the frames of a camera, that the board has not moved.

A :class:`GridAnchor` keeps, from the frame a grid was fitted in, grey patches of that frame straddling the
grid's outer lines: five per side (PATCH_ALONG_SQUARES along the line, PATCH_ACROSS_SQUARES across it, half
outside the grid, where tiles seldom lie). In a later frame :meth:`GridAnchor.still` looks for each patch within
SEARCH_PX of where it was (normalised cross-correlation, so light and exposure changes matter little; sub-pixel
peak). The board is still when, on every side, at least MIN_PER_SIDE patches are found (correlation MIN_CORR or
more) and none found has moved more than STILL_SQUARES of a square (at least STILL_MIN_PX): then the grid fitted
in the anchor's frame is the grid of this frame, and the reader need not fit it again
(:meth:`kiosk.vision.reader.BoardReader.read` with given corners). A patch changed by a tile laid on an edge
square or a hand is not found (then the grid is fitted again; never the other way round: a camera moved by a
pixel moves every patch found). :class:`GridTracker` uses it to keep a reader's grid from frame to frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from kiosk.vision import locate, presence
from kiosk.vision.geometry import WARP_CELL_PX, warp_grid_corners
from kiosk.vision.reading import GIVEN_CORNERS, GridSource

ALONG_SQUARES = (1.5, 4.5, 7.5, 10.5, 13.5)  # patch centres along each side, squares from its first corner
PATCH_ALONG_SQUARES = 2.0     # patch length along the side's line, squares
PATCH_ACROSS_SQUARES = 0.8    # patch width across it (half inside the grid, half outside), squares
PATCH_SQUARE_PX = 30          # patches are compared at a whole fraction of the frame's scale, about this many px
SEARCH_PX = 3                 # a square; each patch is looked for this far (px at that scale) from where it was
MIN_CORR = 0.8                # normalised cross-correlation at or above which a patch is found
MIN_PER_SIDE = 2              # patches found on every side needed to call the board still
STILL_SQUARES = 0.01          # a found patch moved more than this (squares) ...
STILL_MIN_PX = 0.5            # ... and more than this (image px): the board moved
MIN_PATCH_STD = 3.0           # a patch with less grey-level spread than this is too plain to place


class _Patch:
    """One anchor patch: its side (0 top, 1 right, 2 bottom, 3 left), the template (grey float32, the frame
    reduced ``step`` times), where it lay (x0, y0 frame px) and the square's size there (frame px)."""

    __slots__ = ("side", "template", "x0", "y0", "step", "square_px")

    def __init__(self, side: int, template: np.ndarray, x0: int, y0: int, step: int, square_px: float) -> None:
        self.side, self.template, self.x0, self.y0, self.step, self.square_px = side, template, x0, y0, step, square_px


def _patch_boxes(h: np.ndarray, shape: tuple[int, ...]) -> list[tuple[int, int, int, int, int, int, float]]:
    """(side, x0, y0, width, height, step, square px) of each anchor patch of the grid ``h`` (image -> canonical)
    in a frame of ``shape`` (frame px; ``step``: the whole reduction to about PATCH_SQUARE_PX a square; width and
    height are multiples of it), each with SEARCH_PX steps to spare inside the frame (the others are left out)."""
    inv = np.linalg.inv(h)
    (ax, ay), _, (cx, cy), _ = warp_grid_corners()
    hgt, wid = shape[:2]
    out = []
    for side in range(4):
        for a in ALONG_SQUARES:
            pts = []
            for da in (-0.5, 0.0, 0.5):
                t = (a + da) * WARP_CELL_PX
                pts.append(((ax + t, ay), (cx, ay + t), (cx - t, cy), (ax, cy - t))[side])
            img = cv2.perspectiveTransform(np.array(pts, np.float64).reshape(-1, 1, 2), inv).reshape(-1, 2)
            if not np.all(np.isfinite(img)):
                continue
            square = float(np.linalg.norm(img[2] - img[0]))
            step = max(1, int(round(square / PATCH_SQUARE_PX)))
            along = max(4, int(round(PATCH_ALONG_SQUARES * square / step))) * step
            across = max(4, int(round(PATCH_ACROSS_SQUARES * square / step))) * step
            w, hh = (along, across) if side in (0, 2) else (across, along)
            x0, y0 = int(round(img[1][0] - w / 2)), int(round(img[1][1] - hh / 2))
            m = SEARCH_PX * step
            if x0 - m < 0 or y0 - m < 0 or x0 + w + m > wid or y0 + hh + m > hgt:
                continue
            out.append((side, x0, y0, w, hh, step, square))
    return out


def _grey(image: np.ndarray, x0: int, y0: int, w: int, h: int, step: int) -> np.ndarray:
    """The frame's box (x0, y0, w, h px) in grey float32, reduced ``step`` times (block means)."""
    crop = image[y0:y0 + h, x0:x0 + w]
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    if step > 1:
        grey = cv2.resize(grey, (w // step, h // step), interpolation=cv2.INTER_AREA)
    return grey.astype(np.float32)


def _peak_offset(res: np.ndarray) -> tuple[float, float, float] | None:
    """(dx, dy, score) of the correlation map's peak from its centre (sub-pixel), None when the peak lies on the
    map's border (the patch moved SEARCH_PX or more)."""
    _, score, _, (ix, iy) = cv2.minMaxLoc(res)
    hgt, wid = res.shape
    if not (0 < ix < wid - 1 and 0 < iy < hgt - 1):
        return None

    def vertex(lo: float, mid: float, hi: float) -> float:
        den = lo - 2 * mid + hi
        return 0.0 if den >= 0 else float(np.clip((lo - hi) / (2 * den), -0.5, 0.5))

    dx = ix + vertex(res[iy, ix - 1], res[iy, ix], res[iy, ix + 1]) - (wid - 1) / 2
    dy = iy + vertex(res[iy - 1, ix], res[iy, ix], res[iy + 1, ix]) - (hgt - 1) / 2
    return dx, dy, float(score)


class GridAnchor:
    """Patches of the frame a grid was fitted in, to tell whether a later frame's board is where it was (see the
    module docstring). ``image``: the frame (BGR or grey uint8, H x W[ x 3]); ``h``: the grid fitted in it (image
    -> canonical homography, 3x3)."""

    def __init__(self, image: np.ndarray, h: np.ndarray) -> None:
        self.shape = image.shape
        self.patches: list[_Patch] = []
        for side, x0, y0, w, hh, step, square in _patch_boxes(h, image.shape):
            template = _grey(image, x0, y0, w, hh, step)
            if float(template.std()) >= MIN_PATCH_STD:
                self.patches.append(_Patch(side, template, x0, y0, step, square))

    def shifts(self, image: np.ndarray) -> list[tuple[int, float, float] | None]:
        """Per patch: (side, its correlation with ``image``, how far it moved there in frame px), None when not
        seen within SEARCH_PX steps. ``image``: a frame of the anchor's shape."""
        out: list[tuple[int, float, float] | None] = []
        for p in self.patches:
            th, tw = p.template.shape
            m = SEARCH_PX * p.step
            win = _grey(image, p.x0 - m, p.y0 - m, (tw + 2 * SEARCH_PX) * p.step, (th + 2 * SEARCH_PX) * p.step,
                        p.step)
            peak = _peak_offset(cv2.matchTemplate(win, p.template, cv2.TM_CCOEFF_NORMED))
            out.append(None if peak is None else (p.side, peak[2], float(np.hypot(peak[0], peak[1])) * p.step))
        return out

    def still(self, image: np.ndarray) -> bool:
        """Whether ``image`` (a frame of the same camera, same shape) shows the board where the anchor's frame did:
        on every side at least MIN_PER_SIDE patches found, none of them moved (see the module docstring)."""
        if image.shape != self.shape:
            return False
        found = [0, 0, 0, 0]
        for p, got in zip(self.patches, self.shifts(image)):
            if got is None or got[1] < MIN_CORR:
                continue
            if got[2] > max(STILL_MIN_PX, STILL_SQUARES * p.square_px):
                return False
            found[got[0]] += 1
        return min(found) >= MIN_PER_SIDE


SETTLE_REFITS = 3   # refits tried on a still board after it was found from the corners, before its grid is kept
SETTLE_AFTER_MOVE = 1  # ... after it moved (its pool starts with the refit that found it moved)
MOVED_SQUARES = 6      # a board moved: its fit checked on the premium colours for whole squares off, this far
MOVED_TURN_DEG = 2.0   # a tracked board's lines this far turned (degrees), not found again: the board moved


def found_again(frame: np.ndarray, last: np.ndarray) -> tuple[np.ndarray | None, float]:
    """(the grid of a board knocked since ``last`` was its grid, or None; the turn measured) in ``frame`` (BGR
    uint8; ``last``: image -> canonical homography, full-frame px).

    A board knocked between two moves turns and shifts under the camera: turned a few degrees its lines cross
    the old grid's, and neither a local refit (:func:`kiosk.vision.locate.track_grid`) nor a search from the old
    corners (:func:`kiosk.vision.locate.fit_corners`: it searches the place and the size, never the turn) finds
    it. The edges' turn where the old grid lies (:func:`kiosk.vision.presence.turn`) turns the old corners about
    their centre; the search from there finds the shift. The grid is the fit the printed lines confirm, None
    when they do not (or the turned corners cannot be the grid in this frame). About 90 ms (992 x 976 px), only
    when a tracked board was lost."""
    turned = presence.turn(frame, last)
    corners = locate.grid_corners_in_image(last).astype(np.float64)
    c = corners.mean(axis=0)
    m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), turned, 1.0)
    quad = cv2.transform(corners.reshape(-1, 1, 2), m).reshape(4, 2).astype(np.float32)
    try:
        h, confirmed = locate.fit_corners(frame, quad)
    except ValueError:    # the turned corners leave too much of the grid outside the frame
        return None, turned
    return (h if confirmed else None), turned


class GridTracker:
    """The grid of a camera with given corners, kept from frame to frame (one per reader; not thread-safe).

    :meth:`grid` fits the grid from the corners (:func:`kiosk.vision.locate.from_corners`) in the first frame;
    later frames with the same corners (or the corners of the grid it gave: a caller keeping the reader's grid)
    are tracked:

    * the board still (:class:`GridAnchor`) and the grid settled: the grid is kept, nothing is fitted;
    * the board still, not yet settled: refitted locally (:func:`kiosk.vision.locate.track_grid`), SETTLE_REFITS
      times after it was found. A refit that confirms the grid (within locate.TRACK_STILL_SQUARES)
      joins the refits pooled since then, and the grid is the median of their corners (a fit from the corners
      alone only until the first refit confirms it). One fit's corners wander by 0.01-0.05 squares with the
      tiles and the light even on a still board, and a calibration's glyphs read a tile or doubt it on a pixel;
      their median wanders less. A refit further away is the lines disagreeing (a crowded board hides them), not
      a better fit: the grid stays;
    * the board not found still (a tile laid on an edge square, a hand, or the camera moved): refitted locally;
      within locate.TRACK_STILL_SQUARES of the grid it is a refit of the still board as above (the anchor taken
      again from this frame), further it is a moved board: that refit starts a new pool, settled by
      SETTLE_AFTER_MOVE more refits. A refit of a board not found still is checked on the premium colours
      (:func:`kiosk.vision.locate.whole_squares_fixed`): a board moved by a whole square has its lines where the
      old ones lay, and is a moved board at its new place. No refit found (the lines gone, or moved
      locate.TRACK_SLIP_SQUARES or more): fitted from the corners again (:meth:`_fit` with the grid of the frame
      before: a board knocked between two moves is found again turned and shifted, :func:`found_again`, or
      refused as moved, never read through the corners where it lay).
    """

    def __init__(self) -> None:
        locate.prepare()      # the one-time costs of a fit, paid now (the reader's start), not in its first frame
        self._corners: np.ndarray | None = None       # the corners given for the grid (4x2 px)
        self._shape: tuple[int, ...] | None = None
        self._grid: np.ndarray | None = None          # image -> canonical homography now used
        self._pool: list[np.ndarray] = []             # corners (4x2 px) of the refits pooled since it moved
        self._tries = 0                               # refits tried on the still board since then
        self._anchor: GridAnchor | None = None
        # the grid, pool and tries before the last refit, and the refit's frame (see keep_before_refit)
        self._before: tuple[np.ndarray, list[np.ndarray], int, np.ndarray] | None = None
        self.kept = False                             # whether the last grid() kept the grid without a fit

    def grid(self, frame: np.ndarray, corners: np.ndarray, source: GridSource = GIVEN_CORNERS) -> np.ndarray:
        """The grid (image -> canonical homography, 3x3 float64) in ``frame`` (BGR uint8) for ``corners`` (4x2
        px, A1, O1, O15, A15; ``source``: where they came from, as a no-board sentence names them). Raises
        ValueError for corners that cannot be the grid (:func:`kiosk.vision.locate.fit_corners`),
        :class:`kiosk.vision.presence.NoBoardError` (a ValueError) when the printed lines do not confirm them and
        no board lies there (:func:`kiosk.vision.presence.no_board`; the grid is then forgotten)."""
        given = locate.order_corners(corners)
        self.kept = False
        self._before = None
        if self._grid is not None and self._corners is not None and self._shape == frame.shape and (
                np.array_equal(given, self._corners) or self._gave(given)):
            return self._track(frame, self._corners, source)
        # other corners (given anew, or a game's last usable grid after a frame it could not use): fitted from
        # them, the grid of the frame before (same size) kept to look for the board again from
        return self._fit(frame, given, source, self._grid if self._shape == frame.shape else None)

    def refit(self, frame: np.ndarray, source: GridSource = GIVEN_CORNERS) -> np.ndarray | None:
        """Fit the grid kept for the last frame afresh from its corners (``source``: where they came from) in
        ``frame`` (the same frame) and start tracking from that fit; None when no grid is kept. For a reading with
        doubts on a kept grid: a grid a fraction of a pixel off can leave a tile unsure that a fresh fit reads."""
        if self._corners is None:
            return None
        self.kept = False
        self._before = (self._grid, self._pool, self._tries, frame) if self._grid is not None else None
        return self._fit(frame, self._corners, source, self._grid)   # a board moved since: found again from it

    def keep_before_refit(self) -> bool:
        """After :meth:`refit` (for a reading's doubts) whose reading cleared none of them: go back to the grid
        kept before it, settled as it was, when the fresh fit lies within locate.TRACK_STILL_SQUARES of it (the
        same still board: a fresh fit that read no doubt better is no better grid, and settling it again cost
        SETTLE_REFITS local refits in the next frames). The board is anchored in the refit's frame (its patches
        the next frames are compared with: an older frame's match the board's edges less and less as tiles are
        laid there). True when it went back; False (the fresh fit kept) when no refit came before, or the fit lies
        further (the board moved)."""
        before, self._before = self._before, None
        if before is None or self._grid is None or \
                locate.grid_shift_squares(before[0], self._grid) >= locate.TRACK_STILL_SQUARES:
            return False
        self._grid, self._pool, self._tries, frame = before
        self._anchor = GridAnchor(frame, self._grid)
        self.kept = True
        return True

    @property
    def current(self) -> np.ndarray | None:
        """The grid now kept (image -> canonical homography, 3x3), None before the first frame or after
        :meth:`forget`. The same object while it is kept (a caller may tell a kept grid by identity)."""
        return self._grid

    def forget(self) -> None:
        """Forget the grid: the next frame is fitted from its corners."""
        self._corners = self._grid = self._anchor = self._before = None
        self._pool, self._tries = [], 0

    def _gave(self, given: np.ndarray) -> bool:
        """Whether ``given`` corners are those of the grid last given (to within 0.01 px)."""
        assert self._grid is not None
        return bool(np.abs(given - locate.grid_corners_in_image(self._grid)).max() <= 0.01)

    def _fit(self, frame: np.ndarray, corners: np.ndarray, source: GridSource,
             last: np.ndarray | None = None) -> np.ndarray:
        """The grid fitted from ``corners`` in ``frame`` (see :meth:`grid`). ``last``: the grid of the frame
        before, when one was tracked (a board may have been knocked since): corners the lines do not confirm are
        looked for again from it, turned and shifted (:func:`found_again`); a fit the lines confirm
        TRACK_SLIP_SQUARES or more from it (the board moved) is refitted locally once more. A board not found
        again is refused as moved when what lies there runs turned or off the lines (or, a board there, its
        lines MOVED_TURN_DEG or more turned), never read through the corners of where it lay."""
        fitted, confirmed = locate.fit_corners(frame, corners)
        self._corners, self._shape = corners, frame.shape
        if confirmed:
            if last is not None and locate.grid_shift_squares(last, fitted) >= locate.TRACK_SLIP_SQUARES:
                # moved: a search's fit of a turned board is off at the corners (0.2 squares at 2 degrees), and a
                # refit that far from it on the still board after would be taken for the lines disagreeing
                polished = locate.track_grid(frame, fitted)
                fitted = locate.whole_squares_fixed(frame, fitted if polished is None else polished, MOVED_SQUARES)
            self._start(frame, fitted, [])
            return fitted
        turned = 0.0
        if last is not None:
            found, turned = found_again(frame, last)
            if found is not None:    # knocked: found again where it went; its refits settle it as after a move
                self._start(frame, found, [locate.grid_corners_in_image(found)], SETTLE_REFITS - SETTLE_AFTER_MOVE)
                return found
        # the lines confirm no grid: whether a board lies there at all
        why = presence.no_board(frame, fitted, source, moved=last is not None)
        if why is None and abs(turned) >= MOVED_TURN_DEG:
            why = (f"the board moved: its lines run about {abs(turned):.0f} degrees turned from where the frame "
                   f"before had them, and it was not found again; {source.check}")
        if why is not None:
            self.forget()
            raise presence.NoBoardError(why)
        self._start(frame, fitted, [])
        return fitted

    def _start(self, frame: np.ndarray, h: np.ndarray, pool: list[np.ndarray], tries: int = 0) -> None:
        self._grid, self._pool, self._tries = h, pool, tries
        self._anchor = GridAnchor(frame, h)

    def _track(self, frame: np.ndarray, corners: np.ndarray, source: GridSource) -> np.ndarray:
        assert self._grid is not None and self._anchor is not None
        still = self._anchor.still(frame)
        if still and self._tries >= SETTLE_REFITS:
            self.kept = True
            return self._grid
        refit = locate.track_grid(frame, self._grid)
        if still:
            self._tries += 1
        if refit is None:
            self.kept = still
            return self._grid if still else self._fit(frame, corners, source, self._grid)
        if not still:
            whole = locate.whole_squares_fixed(frame, refit)
            if whole is not refit:   # moved by whole squares: its lines lie where the old ones lay
                self._start(frame, whole, [locate.grid_corners_in_image(whole)], SETTLE_REFITS - SETTLE_AFTER_MOVE)
                return whole
        if locate.grid_shift_squares(self._grid, refit) < locate.TRACK_STILL_SQUARES:
            if self._tries <= SETTLE_REFITS:
                self._pool.append(locate.grid_corners_in_image(refit))
                self._grid = locate.homography_from_grid_corners(np.median(np.stack(self._pool), axis=0))
            if not still:
                self._anchor = GridAnchor(frame, self._grid)
            return self._grid
        if still:
            self.kept = True
            return self._grid     # the lines disagree on a still board: the grid stays
        # moved: the refit (two passes already) starts the new pool, one more refit settles it
        self._start(frame, refit, [locate.grid_corners_in_image(refit)], SETTLE_REFITS - SETTLE_AFTER_MOVE)
        return refit
