"""Physical board geometry shared by the reader and the synthetic camera.

Units: millimetres on the physical board, pixels in images. The board's coordinate frame has its origin at
the outer corner of square A1 (the grid's top-left seen from above, row 1 at the top), x to the right (towards column O), y down (towards row 15).

Fiducials: four ArUco markers from ``cv2.aruco.DICT_4X4_50`` printed by ``kiosk calibrate markers``, one per
grid corner, outside the grid, so that tiles never cover them:

* id 0 beside A1 (top-left), id 1 beside O1 (top-right), id 2 beside O15 (bottom-right), id 3 beside A15
  (bottom-left). Each marker's centre lies on the grid diagonal extended outwards, ``MARKER_OFFSET_MM``
  from the grid corner along both axes.

The canonical top-down image ("warp") of the grid is ``WARP_CELL_PX`` pixels per square with a margin of
``WARP_MARGIN_PX`` on every side, so square (row, col) occupies
``[M + col*C, M + (col+1)*C) x [M + row*C, M + (row+1)*C)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SIZE = 15


@dataclass(frozen=True)
class BoardGeometry:
    """Dimensions of a physical board (mm). Defaults: a tournament board with 19.05 mm (3/4 in) squares."""

    cell_mm: float = 19.05
    tile_mm: float = 18.3           # a tile is a little smaller than its square
    border_mm: float = 40.0         # board edge beyond the grid on each side
    marker_mm: float = 24.0         # printed ArUco marker side
    marker_offset_mm: float = 20.0  # marker centre distance from the grid corner along x and along y
    aruco_dictionary: str = "DICT_4X4_50"
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)  # A1, O1, O15, A15 corners

    @property
    def grid_mm(self) -> float:
        return self.cell_mm * SIZE

    def grid_corners_mm(self) -> np.ndarray:
        """Outer corners of the grid (4x2 float32, mm): A1, O1, O15, A15 order (clockwise from top-left)."""
        g = self.grid_mm
        return np.array([[0, 0], [g, 0], [g, g], [0, g]], np.float32)

    def marker_centres_mm(self) -> np.ndarray:
        """Centres of markers ids 0..3 (4x2 float32, mm), same order as :meth:`grid_corners_mm`."""
        g, o = self.grid_mm, self.marker_offset_mm
        return np.array([[-o, -o], [g + o, -o], [g + o, g + o], [-o, g + o]], np.float32)

    def marker_corners_mm(self, index: int) -> np.ndarray:
        """The 4 corners (4x2 float32, mm) of marker ``index`` (0..3) in ArUco order (TL, TR, BR, BL)."""
        cx, cy = self.marker_centres_mm()[index]
        h = self.marker_mm / 2
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32)


DEFAULT_GEOMETRY = BoardGeometry()

WARP_CELL_PX = 40
WARP_MARGIN_PX = 10
WARP_SIZE_PX = 2 * WARP_MARGIN_PX + SIZE * WARP_CELL_PX


def warp_grid_corners() -> np.ndarray:
    """Grid outer corners in the canonical warp image (4x2 float32 px): A1, O1, O15, A15."""
    a, b = WARP_MARGIN_PX, WARP_MARGIN_PX + SIZE * WARP_CELL_PX
    return np.array([[a, a], [b, a], [b, b], [a, b]], np.float32)


def cell_rect(row: int, col: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of square (row, col) in the canonical warp image, px, end-exclusive."""
    x0 = WARP_MARGIN_PX + col * WARP_CELL_PX
    y0 = WARP_MARGIN_PX + row * WARP_CELL_PX
    return x0, y0, x0 + WARP_CELL_PX, y0 + WARP_CELL_PX
