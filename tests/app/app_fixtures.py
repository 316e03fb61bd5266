"""Shared set-up for the app tests: a kiosk whose vision worker reads a settable board grid.

The camera and reader here are test doubles for the kiosk's orchestration tests only (the reader itself is
tested in tests/vision, the whole pipeline by the demo tests): the "frame" is the grid the test sets.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from common_fixtures import PIN, ManualClock
from common_fixtures import make_kiosk as _make_kiosk

from kiosk.app.kiosk import Kiosk
from kiosk.app.vision_worker import VisionWorker
from kiosk.vision.reading import BoardReading

__all__ = ["PIN", "Clock", "GridTable", "make_kiosk", "read_grid", "settle"]

Clock = ManualClock                 # the app tests' name for the shared test clock
EMPTY = ["." * 15] * 15


class GridTable:
    """Camera double: ``grid`` is what the camera sees now; frames are stamped with the test clock."""

    def __init__(self, clock) -> None:  # type: ignore[no-untyped-def]
        self.grid = list(EMPTY)
        self.clock = clock
        self.fail = ""

    def put(self, coord_squares: dict[int, str]) -> None:
        chars = list("".join(self.grid))
        for sq, ch in coord_squares.items():
            chars[sq] = ch
        self.grid = ["".join(chars[r * 15:(r + 1) * 15]) for r in range(15)]

    def capture(self):  # type: ignore[no-untyped-def]
        from kiosk.devices.camera import CameraError

        if self.fail:
            raise CameraError(self.fail)
        return self.clock(), np.array([list(r) for r in self.grid])

    def health(self):  # type: ignore[no-untyped-def]
        return None

    def close(self) -> None:
        pass


def read_grid(frame: np.ndarray) -> BoardReading:
    return BoardReading.from_grid(["".join(row) for row in frame])


def make_kiosk(tmp: Path, preset: str = "nsf", stable_frames: int = 2
               ) -> tuple[Kiosk, GridTable, ManualClock, VisionWorker]:
    """A kiosk whose vision worker reads the :class:`GridTable`'s grid, its game between Ann and Bob started."""
    clock = ManualClock()
    table = GridTable(clock)
    worker = VisionWorker(table, read_grid, stable_frames=stable_frames, timeout_ms=1_000, clock=clock)
    kiosk, _ = _make_kiosk(tmp, preset, players=("Ann", "Bob"), worker=worker, clock=clock)
    return kiosk, table, clock, worker


def settle(kiosk: Kiosk, worker: VisionWorker, steps: int = 6) -> list[str]:
    """Run the worker (in this thread) and the kiosk's poll until the press is answered."""
    out: list[str] = []
    for _ in range(steps):
        worker.step()
        out += kiosk.poll()
        if kiosk.pending is None and not worker.waiting():
            break
        time.sleep(0)
    return out


def answer(kiosk: Kiosk, worker: VisionWorker) -> list[str]:
    """Run the worker (in this thread) until it has answered the press, then the kiosk's poll (its log lines)."""
    for _ in range(10):
        worker.step()
        if not worker.waiting():
            break
    assert not worker.waiting()
    return kiosk.poll()
