"""The clock-button press and the bounded, thread-safe queue every button backend hands presses over in.

This module imports nothing from the kiosk, so the clock link (:mod:`firmware_bridge.host`), the GPIO
backend and :mod:`kiosk.devices.buttons` can all use it without an import cycle.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

PRESS_QUEUE_MAX = 256  # presses not yet polled; the kiosk polls ~30 times a second


@dataclass(frozen=True)
class ButtonPress:
    """One press: ``side`` in SIDES, ``timestamp_ms`` on the kiosk's monotonic ms clock (the first edge of the
    press, not the moment it was confirmed); ``source_ms`` the clock microcontroller's own ms when it came
    over the serial link (None otherwise)."""

    side: str
    timestamp_ms: int
    source_ms: int | None = None


class PressQueue:
    """Presses waiting for the kiosk's ``poll()``, oldest first, at most ``maxlen`` of them.

    :meth:`put` refuses a press when the queue is full (returns False and counts it in ``refused``); a
    producer that can hold presses back (the serial link leaves them unacknowledged on the clock, which sends
    them again) checks :meth:`full` first and never loses one.
    """

    def __init__(self, maxlen: int = PRESS_QUEUE_MAX) -> None:
        if maxlen < 1:
            raise ValueError(f"press queue maxlen must be >= 1, got {maxlen}")
        self.maxlen = maxlen
        self.refused = 0
        self._q: deque[ButtonPress] = deque()
        self._lock = threading.Lock()

    def put(self, press: ButtonPress) -> bool:
        """Queue ``press``; False (and counted) when the queue is full."""
        with self._lock:
            if len(self._q) >= self.maxlen:
                self.refused += 1
                return False
            self._q.append(press)
            return True

    def full(self) -> bool:
        with self._lock:
            return len(self._q) >= self.maxlen

    def __len__(self) -> int:
        with self._lock:
            return len(self._q)

    def drain(self) -> list[ButtonPress]:
        """Every queued press, oldest first; the queue is empty afterwards."""
        with self._lock:
            out = list(self._q)
            self._q.clear()
        return out
