"""The demo's simulated table: the physical board the simulated hands change, the camera above it, the clock.

:class:`SimClock` is the demo's time (ms), advanced by the simulated players only: as fast as the machine
allows (a headless demo) or each wait taking ``1/speed`` of its game time on the wall clock (the windowed demo).
:class:`SimulatedTable` holds the physical board and is the kiosk's camera: ``capture()`` renders the board as
it is now with the synthetic camera (:func:`kiosk.vision.synth.render_board`). Like a camera streaming video,
a still board gives a steady supply of frames: the first ``pool`` captures of a board state each render a new
frame (new light, noise, perhaps a hand), later captures cycle through them at no cost, each stamped with the
time of the capture. Rendering is the simulation's cost, not the camera's, so it is kept off the hot path.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from kiosk.devices.camera import CameraError, check_frame
from kiosk.devices.health import DeviceHealth, HealthTracker
from kiosk.rules.board import Board
from kiosk.rules.tiles import TileSet


class SimClock:
    """The demo's clock in ms: game time, moved only by the simulated people (:meth:`advance`). ``speed`` 0: as
    fast as the machine allows; ``speed`` > 0: each :meth:`advance` takes ``1/speed`` of its game time on the
    wall clock (the clock moving smoothly meanwhile, :attr:`on_wait` called so a window stays live). Between
    the people's waits - while the kiosk reads a press - game time stands still at any speed: a reading takes
    the machine's time, not the game's, so the players' scripted acts (a challenge 3 s after a play, within
    the 20 s window) fall at the same game times at every speed."""

    def __init__(self, start_ms: int = 0, speed: float = 0.0) -> None:
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed}")
        self.speed = speed
        self.on_wait: Callable[[], object] | None = None  # called every ~30 ms while advance() waits (the UI)
        self._base = start_ms
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            return self._base

    def advance(self, ms: int) -> None:
        """Let ``ms`` of game time pass (taking ``ms / speed`` of wall time when ``speed`` > 0)."""
        if ms <= 0:
            return
        with self._lock:
            start = self._base
        if self.speed:
            wall0 = time.monotonic()
            end = wall0 + ms / 1000 / self.speed
            while (left := end - time.monotonic()) > 0:
                time.sleep(min(left, 0.03))
                with self._lock:
                    self._base = max(self._base, start + min(int(ms), int((time.monotonic() - wall0) * 1000 *
                                                                          self.speed)))
                if self.on_wait is not None:
                    self.on_wait()  # the window keeps drawing and taking taps while the simulated people wait
        with self._lock:
            self._base = max(self._base, start + int(ms))

    def set_at_least(self, t_ms: int) -> None:
        """Move the clock forward to ``t_ms`` if it is behind (after a resume from the journal)."""
        with self._lock:
            self._base = max(self._base, int(t_ms))


class SimulatedTable:
    """The physical board plus the synthetic camera looking at it (implements the Camera protocol).

    Args:
        tile_set: the tiles on the table. clock: the demo's clock (frame timestamps).
        scene_seed: the camera pose, board and tile styles of this table. level: realism level ("typical").
        size: frame size (w, h) px. render: injects the renderer (default ``render_board``).
    """

    def __init__(self, tile_set: TileSet, clock: Callable[[], int], *, scene_seed: int = 7, level: str = "typical",
                 size: tuple[int, int] = (2028, 1520), render: Callable[..., Any] | None = None,
                 pool: int = 4) -> None:
        self.tile_set = tile_set
        self.clock = clock
        self.scene_seed = scene_seed
        self.level = level
        self.size = size
        self._render = render
        self._board = Board()
        self._version = 0
        self._lock = threading.Lock()
        self.pool = max(1, pool)
        self._frames: list[np.ndarray] = []  # frames of the board version ``_frames_version``
        self._frames_version = -1
        self._next = 0
        self._seed = 0
        self.renders = 0
        self.render_ms = 0.0
        self._health = HealthTracker("camera", "simulated-table")

    # ------------------------------------------------------------------------------------------ the hands
    def board(self) -> Board:
        """A copy of the physical board now."""
        with self._lock:
            return self._board.copy()

    def place(self, tiles: Iterable[tuple[int, str]]) -> None:
        """Hands put tiles down: ((square, tile), ...); a blank is its lower-case letter (drawn without glyph)."""
        with self._lock:
            self._board.place(list(tiles))
            self._version += 1

    def remove(self, squares: Iterable[int]) -> None:
        """Hands take tiles off."""
        with self._lock:
            self._board.remove(list(squares))
            self._version += 1

    def set_board(self, cells: Iterable[str]) -> None:
        """The whole board at once (the table as found after a kiosk restart)."""
        with self._lock:
            self._board = Board(list(cells))
            self._version += 1

    # ------------------------------------------------------------------------------------------ camera
    def capture(self) -> tuple[int, np.ndarray]:
        """(ms, BGR frame) of the board now; raises CameraError when the renderer fails."""
        with self._lock:
            t = self.clock()
            board = self._board.copy()
            version = self._version
            if self._frames_version != version:
                self._frames, self._frames_version, self._next = [], version, 0
            if len(self._frames) >= self.pool:
                self._next = (self._next + 1) % len(self._frames)
                return t, self._frames[self._next]
            self._seed += 1
            seed = self.scene_seed * 100_003 + self._seed
        render = self._render
        if render is None:
            from kiosk.vision.synth import render_board

            render = render_board
        t0 = time.perf_counter()
        try:
            frame = render(board, seed=seed, scene_seed=self.scene_seed, level=self.level, tile_set=self.tile_set,
                           size=self.size)
        except Exception as exc:  # a renderer bug must not take the kiosk down
            self._health.set("down", f"render failed: {exc}")
            raise CameraError(f"synthetic camera: render failed: {exc}") from exc
        self.render_ms += (time.perf_counter() - t0) * 1000
        self.renders += 1
        image = check_frame(frame.image, "synthetic camera")
        with self._lock:
            if self._frames_version == version:
                self._frames.append(image)
        self._health.set("ok", f"level {self.level}")
        return t, image

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        pass
