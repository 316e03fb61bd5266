"""The time ``kiosk run`` stamps its events with: wall-clock ms, paced by the monotonic clock.

Two clocks meet at a real table. The devices stamp presses and frames on the monotonic clock
(:func:`kiosk.devices.health.monotonic_ms`: ms since boot; it never jumps, and starts again at every boot). The
journal, the referee, the stream and the PIN waits keep event times on the wall clock's scale (ms since the Unix
epoch), so that a restart can compare them with the last heartbeat and charge the downtime to nobody.

The wall clock itself cannot pace the game: a Raspberry Pi has no real-time clock, so it boots with a stale
time (the last one saved, or 1970) and NTP later sets it, forward by minutes or years. Taken as it is, that
step would be charged to the player on move (his flag falls at once), and a clock set back would stand every
clock still until it caught up. So :class:`EventClock` reads the wall clock once and then counts by the
monotonic clock: elapsed game time is monotonic time. When the wall clock is found set forward
(:meth:`EventClock.step`), the event times follow it (the journal's times are real times once NTP has them),
and ``kiosk run`` records the step as a ``kiosk_resumed`` event, its time charged to nobody. A wall clock set
back is not followed: event times never go back (they keep counting from the earlier setting).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kiosk.devices.health import monotonic_ms

STEP_MS = 2_000
"""How far ahead of the event clock the wall clock must be to count as set (ms); NTP slews smaller offsets,
which pace the monotonic clock alike."""


def wall_ms() -> int:
    """The wall clock: ms since the Unix epoch (stale on a Pi without a real-time clock until NTP sets it)."""
    return int(time.time() * 1000)


class EventClock:
    """Event time in ms since the Unix epoch, counted by the monotonic clock from one reading of the wall clock.

    Args:
        wall: the wall clock (ms since the epoch).
        mono: the monotonic clock the devices stamp with (ms since boot).
        step_ms: a wall clock ahead by more than this is a step (:meth:`step`).
    """

    def __init__(self, wall: Callable[[], int] = wall_ms, mono: Callable[[], int] = monotonic_ms,
                 step_ms: int = STEP_MS) -> None:
        self.wall = wall
        self.mono = mono
        self.step_ms = step_ms
        self._mono0 = mono()
        self._base = wall()

    def __call__(self) -> int:
        """Now, as an event time (ms since the epoch)."""
        return self._base + self.mono() - self._mono0

    def from_mono(self, mono_ms: int) -> int:
        """The event time of a moment stamped on the monotonic clock (a press, a frame): now less its age (a
        stamp from the future counts as now)."""
        mono_now = self.mono()
        return self._base + mono_now - self._mono0 - max(0, mono_now - mono_ms)

    def not_before(self, t_ms: int) -> None:
        """Count on from ``t_ms`` if the clock is behind it (the journal's last event or heartbeat, when the wall
        clock booted stale): event times never go back, and the game's clocks run from there."""
        behind = t_ms - self()
        if behind > 0:
            self._base += behind

    def step(self) -> tuple[int, int] | None:
        """``(before, after)`` event times when the wall clock has been set forward by more than ``step_ms``
        since the last reading (NTP at boot); the clock then follows it. None: no step (a wall clock set back
        is not followed: event times never go back)."""
        now = self()
        ahead = self.wall() - now
        if ahead <= self.step_ms:
            return None
        self._base += ahead
        return now, now + ahead


__all__ = ["STEP_MS", "EventClock", "wall_ms"]
