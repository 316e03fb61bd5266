"""Temporal gating: accept a reading only from a stable view, the first one after a clock press.

Pure logic, fed with ``(timestamp_ms, BoardReading)`` pairs; no clock, no camera. A view is *stable* when the
frames are usable (board found, sharp, no hand -- ``FrameQuality.ok``) and read the same grid for at least
``stable_ms``. After :meth:`ReadingGate.press`, the first stable reading at or after the press is accepted:
:meth:`ReadingGate.feed` returns an :class:`Accepted` with the diff against the previous accepted board
(new tiles + anomalies for the judge, see :mod:`kiosk.vision.diff`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kiosk.vision.diff import BoardDiff, diff_boards
from kiosk.vision.reading import EMPTY_CHAR, SIZE, BoardReading

EMPTY_GRID = tuple(EMPTY_CHAR * SIZE for _ in range(SIZE))


@dataclass(frozen=True)
class Accepted:
    """An accepted reading: when (ms), the press it answers (ms), the reading and its diff."""

    timestamp_ms: int
    press_ms: int
    reading: BoardReading
    diff: BoardDiff


class ReadingGate:
    """Stable-view gate (see module docstring).

    Args:
        stable_ms: how long the grid must stay the same, with usable frames, to count as stable (ms).
        start: the board before the first move (15 grid strings; default empty).
    """

    def __init__(self, stable_ms: int = 600, start: list[str] | tuple[str, ...] | None = None) -> None:
        if stable_ms < 0:
            raise ValueError("stable_ms must be >= 0")
        self.stable_ms = stable_ms
        self.board: tuple[str, ...] = tuple(start) if start is not None else EMPTY_GRID
        self._grid: tuple[str, ...] | None = None
        self._since: int | None = None
        self._last_t: int | None = None
        self._press: int | None = None

    @property
    def waiting(self) -> bool:
        """True while a press waits for its stable reading."""
        return self._press is not None

    def press(self, timestamp_ms: int) -> None:
        """A clock press at ``timestamp_ms``: the next stable reading at or after it will be accepted."""
        self._press = int(timestamp_ms)

    def reset(self, board: list[str] | tuple[str, ...] | None = None) -> None:
        """Forget the view history and set the accepted board (after the judge settled an anomaly)."""
        self.board = tuple(board) if board is not None else EMPTY_GRID
        self._grid = self._since = self._press = None

    def stable_for(self, timestamp_ms: int) -> int:
        """How long (ms) the current view has been stable at ``timestamp_ms`` (0 if not stable)."""
        return 0 if self._since is None else max(0, int(timestamp_ms) - self._since)

    def feed(self, timestamp_ms: int, reading: BoardReading) -> Accepted | None:
        """Feed one reading; returns an :class:`Accepted` when it answers a pending press, else None.

        Timestamps must not go backwards (a reading older than the last one is ignored).
        """
        t = int(timestamp_ms)
        if self._last_t is not None and t < self._last_t:
            return None
        self._last_t = t
        if not reading.quality.ok:
            self._grid = self._since = None     # hand, blur, no board: motion, start again
            return None
        grid = tuple(reading.grid())
        if grid != self._grid or self._since is None:
            self._grid, self._since = grid, t
        if self._press is None or t < self._press or t - self._since < self.stable_ms:
            return None
        press = self._press
        self._press = None
        diff = diff_boards(self.board, reading)
        self.board = diff.board
        return Accepted(t, press, reading, diff)
