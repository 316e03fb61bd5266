"""Clock buttons: the ButtonPress event, the ButtonSource interface and the simulated backends.

Sides: "left" and "right" (the chess clock's two sides), "pause" and "judge" (optional buttons); at a table of 3-4
players or teams (seeds 003/004), "seat 3" and "seat 4" are the further players' own buttons, where wired
(:class:`kiosk.control.side.Side` names; seats without a button end their turn with the screen's "done").
Timestamps are monotonic ms (:func:`kiosk.devices.health.monotonic_ms`); each press is delivered once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms
from kiosk.devices.presses import ButtonPress, PressQueue

__all__ = ["SEAT_SIDES", "SIDES", "ButtonPress", "ButtonSource", "KeyboardButtons", "PressQueue", "ScriptedButtons", "check_side"]

SIDES: tuple[str, ...] = ("left", "right", "pause", "judge")
SEAT_SIDES: tuple[str, ...] = ("seat 3", "seat 4")
"""Buttons of the third and fourth players (or teams) at a table of 3-4."""


@runtime_checkable
class ButtonSource(Protocol):
    """Where presses come from. ``poll()`` never blocks and never raises because of hardware trouble."""

    def poll(self) -> list[ButtonPress]:
        """Presses confirmed since the last call, oldest first, each exactly once."""
        ...

    def health(self) -> DeviceHealth: ...

    def close(self) -> None: ...


def check_side(side: str, where: str = "side") -> str:
    """``side`` itself when a button may have it (SIDES or SEAT_SIDES).

    Raises:
        ValueError: any other name (the message names ``where`` and the names allowed).
    """
    if side not in SIDES and side not in SEAT_SIDES:
        raise ValueError(f"{where}: unknown button side {side!r}; expected one of {', '.join(SIDES + SEAT_SIDES)}")
    return side


class ScriptedButtons:
    """Presses from a script, for tests and unattended demos.

    ``script``: iterable of ``(at_ms, side)``, ``at_ms`` relative to the source's creation (or ``start_ms``);
    a press is delivered by the first ``poll()`` at or after its time, stamped with its scripted time.
    ``press(side)`` adds one now.
    """

    def __init__(self, script: Iterable[tuple[int, str]] = (), start_ms: int | None = None) -> None:
        self.start_ms = monotonic_ms() if start_ms is None else start_ms
        items = []
        for i, item in enumerate(script):
            try:
                at, side = item
                at = int(at)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"buttons.script[{i}]: expected [at_ms, side], got {item!r}") from exc
            if at < 0:
                raise ValueError(f"buttons.script[{i}]: at_ms must be >= 0, got {at}")
            items.append((at, check_side(side, f"buttons.script[{i}]")))
        self._script = deque(sorted(items, key=lambda x: x[0]))
        self._queue = PressQueue()
        self._health = HealthTracker("buttons", "scripted")

    def press(self, side: str, timestamp_ms: int | None = None) -> None:
        check_side(side)
        self._queue.put(ButtonPress(side, monotonic_ms() if timestamp_ms is None else timestamp_ms))

    def pending(self) -> int:
        """Scripted presses not yet delivered."""
        return len(self._script)

    def poll(self, now_ms: int | None = None) -> list[ButtonPress]:
        now = monotonic_ms() if now_ms is None else now_ms
        while self._script and self.start_ms + self._script[0][0] <= now:
            at, side = self._script.popleft()
            self._queue.put(ButtonPress(side, self.start_ms + at))
        return self._queue.drain()

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        self._script.clear()


DEFAULT_KEYS: dict[str, str] = {"left shift": "left", "right shift": "right", "z": "left", "m": "right",
                                "space": "pause", "j": "judge"}


class KeyboardButtons:
    """The demo's clock: keyboard keys as buttons. Key names are pygame's (``pygame.key.name``).

    Feed it pygame events with :meth:`handle_event` (or names with :meth:`key_down` / :meth:`key_up`);
    a key held down (auto-repeat) is one press until it is released.
    """

    def __init__(self, keys: Mapping[str, str] | None = None) -> None:
        keys = dict(DEFAULT_KEYS if keys is None else keys)
        for name, side in keys.items():
            check_side(side, f"buttons.keys[{name!r}]")
        self.keys = {k.lower(): v for k, v in keys.items()}
        self._down: set[str] = set()
        self._queue = PressQueue()
        self._health = HealthTracker("buttons", "keyboard")

    def key_down(self, name: str, timestamp_ms: int | None = None) -> bool:
        """A key went down; returns True when it made a press."""
        name = name.lower()
        side = self.keys.get(name)
        if side is None or name in self._down:
            return False
        self._down.add(name)
        self._queue.put(ButtonPress(side, monotonic_ms() if timestamp_ms is None else timestamp_ms))
        return True

    def key_up(self, name: str) -> None:
        self._down.discard(name.lower())

    def handle_event(self, event: Any) -> bool:
        """Take a pygame event; returns True when it was one of our keys going down."""
        import pygame

        if event.type == pygame.KEYDOWN:
            return self.key_down(pygame.key.name(event.key))
        if event.type == pygame.KEYUP:
            self.key_up(pygame.key.name(event.key))
        return False

    def poll(self) -> list[ButtonPress]:
        return self._queue.drain()

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        self._down.clear()
