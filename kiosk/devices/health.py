"""Device health: what each device reports so the UI and the event stream can show it.

A device never raises out of its normal calls because its hardware is gone; it records the problem here and
the game carries on with what still works (e.g. the judge enters a move by hand when the camera is down).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

State = Literal["ok", "degraded", "down", "absent"]
STATES: tuple[str, ...] = ("ok", "degraded", "down", "absent")


def monotonic_ms() -> int:
    """The kiosk's clock for device events: monotonic milliseconds (int)."""
    return time.monotonic_ns() // 1_000_000


@dataclass(frozen=True)
class DeviceHealth:
    """A snapshot of one device's health.

    ``device``: "buttons" | "display" | "camera" | "clock-link"; ``backend``: e.g. "gpio", "ht16k33";
    ``state``: "ok" (working), "degraded" (working with errors being retried), "down" (not working now),
    "absent" (not fitted / null backend); ``detail``: a human sentence; ``since_ms``: monotonic ms of the last
    state change; ``counters``: error/retry counts (str -> int).
    """

    device: str
    backend: str
    state: State
    detail: str = ""
    since_ms: int = 0
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return self.state in ("ok", "degraded")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the event stream."""
        return {"device": self.device, "backend": self.backend, "state": self.state, "detail": self.detail,
                "since_ms": self.since_ms, "counters": dict(self.counters)}


class HealthTracker:
    """Thread-safe mutable health of one device; ``snapshot()`` gives a :class:`DeviceHealth`."""

    def __init__(self, device: str, backend: str, state: State = "ok", detail: str = "") -> None:
        if state not in STATES:
            raise ValueError(f"unknown health state {state!r}")
        self.device, self.backend = device, backend
        self._state: State = state
        self._detail = detail
        self._since = monotonic_ms()
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()

    def set(self, state: State, detail: str = "") -> None:
        """Record the current state; ``since_ms`` moves only when the state itself changes."""
        if state not in STATES:
            raise ValueError(f"unknown health state {state!r}")
        with self._lock:
            if state != self._state:
                self._since = monotonic_ms()
            self._state, self._detail = state, detail

    def count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counters[name] = self._counters.get(name, 0) + n

    def set_counters(self, counters: dict[str, int]) -> None:
        with self._lock:
            self._counters.update(counters)

    @property
    def state(self) -> State:
        return self._state

    def snapshot(self) -> DeviceHealth:
        with self._lock:
            return DeviceHealth(self.device, self.backend, self._state, self._detail, self._since,
                                dict(self._counters))
