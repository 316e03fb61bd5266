"""The ClockDisplay interface and its display-less backends (null, simulated)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kiosk.devices.health import DeviceHealth, HealthTracker
from kiosk.devices.sevenseg import ClockFace, clock_face


@runtime_checkable
class ClockDisplay(Protocol):
    """Shows both sides' clocks. ``show`` never raises because of hardware trouble (see ``health``)."""

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        """Show remaining ms per side (negative or flagged = overtime, shown with a minus and flagged)."""
        ...

    def health(self) -> DeviceHealth: ...

    def close(self) -> None: ...


def faces(left_ms: int, right_ms: int, left_overtime: bool, right_overtime: bool) -> tuple[ClockFace, ClockFace]:
    """Both sides' faces; raises ValueError naming the side for a non-int time."""
    out = []
    for name, ms, ot in (("left", left_ms, left_overtime), ("right", right_ms, right_overtime)):
        try:
            out.append(clock_face(ms, ot))
        except ValueError as exc:
            raise ValueError(f"display.show {name}_ms: {exc}") from None
    return out[0], out[1]


class NullDisplay:
    """No display fitted: accepts everything, health "absent"."""

    def __init__(self) -> None:
        self._health = HealthTracker("display", "null", "absent", "no clock display configured")

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        faces(left_ms, right_ms, left_overtime, right_overtime)

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        pass


class SimulatedDisplay:
    """Keeps the faces it was asked to show (``faces``, ``text``) for the demo's screen and tests."""

    def __init__(self) -> None:
        self.faces: tuple[ClockFace, ClockFace] | None = None
        self.updates = 0
        self._health = HealthTracker("display", "simulated")

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        self.faces = faces(left_ms, right_ms, left_overtime, right_overtime)
        self.updates += 1

    @property
    def text(self) -> tuple[str, str]:
        """The two faces as strings, e.g. ("24:59", "-0:12.")."""
        if self.faces is None:
            return ("", "")
        return str(self.faces[0]), str(self.faces[1])

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        pass


_WORST = {"down": 0, "degraded": 1, "ok": 2, "absent": 3}


class FanOutDisplay:
    """Several clock displays showing the same clocks (e.g. the Pi's HT16K33 backpacks and the serial clock's
    own faces): ``show`` goes to each in turn; ``health`` is the worst of theirs (down, degraded, ok), its
    detail naming the backend."""

    def __init__(self, displays: list[ClockDisplay]) -> None:
        if not displays:
            raise ValueError("display.backend: a list of backends must name at least one")
        self.displays = list(displays)

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        for d in self.displays:
            d.show(left_ms, right_ms, left_overtime, right_overtime)

    def health(self) -> DeviceHealth:
        worst = min((d.health() for d in self.displays), key=lambda h: _WORST[h.state])
        backends = "+".join(d.health().backend for d in self.displays)
        return DeviceHealth("display", backends, worst.state, f"{worst.backend}: {worst.detail}", worst.since_ms,
                            dict(worst.counters))

    def close(self) -> None:
        for d in self.displays:
            d.close()
