"""A clock rig on a simulated clock: the real host thread (:class:`SerialClockLink`) talks to the real firmware
core (:class:`ClockFirmware`) over an in-memory serial port. Every host read advances the simulated time by
1 ms and runs one firmware loop pass, so seconds of link time take a fraction of that in real time and the
figures (recovery ms, presses lost) are exact, not at the mercy of a loaded machine."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable

from firmware_bridge.firmware.app import ClockFirmware
from firmware_bridge.firmware.link import LOSS_MS
from firmware_bridge.host import SerialClockLink, wait_until


class _Port:
    def __init__(self, rig: Rig) -> None:
        self.rig = rig

    @property
    def in_waiting(self) -> int:
        return len(self.rig.to_host)

    def read(self, n: int) -> bytes:
        return self.rig.advance(max(1, n))

    def write(self, data: bytes) -> int:
        with self.rig.lock:
            if self.rig.wire_up:
                self.rig.to_fw.extend(data)
        return len(data)

    def close(self) -> None:
        pass


class Rig:
    """``boot_id``: the first boot's id. ``events``: run ``at(ms, fn)`` at a simulated ms (fn(rig)). ``loss_ms``:
    the host's loss timeout. ``late``: True holds back what the clock sends (a USB stall, a busy host) until it
    is False again, when it all arrives at once."""

    def __init__(self, boot_id: int = 0x1234_5678, debounce_ms: int = 20, loss_ms: int = LOSS_MS) -> None:
        self.now = 0
        self.lock = threading.RLock()
        self.levels = [False] * 4
        self.debounce_ms = debounce_ms
        self.fw = ClockFirmware(self._read, self._write, boot_id, debounce_ms)
        self.mcu_base = 70_000          # MCU ms = now + mcu_base (a reset restarts the MCU clock)
        self.to_host = bytearray()
        self.to_fw = bytearray()
        self.wire_up = True
        self.late = False
        self._held = bytearray()
        self.shown: dict[int, bytes] = {}
        self._events: list[tuple[int, int, Callable[[Rig], None]]] = []
        self._order = itertools.count()
        self.pressed = 0                # presses made on the clock (debounced edges)
        self.connected_at: list[int] = []
        self.link = SerialClockLink("rig", loss_ms=loss_ms, reconnect_ms=50,
                                    serial_factory=lambda p, b: _Port(self), clock=lambda: self.now)

    def _read(self) -> list[bool]:
        return list(self.levels)

    def _write(self, side: int, seg: bytes, flags: int) -> bool:
        self.shown[side] = bytes(seg)
        return True

    def at(self, ms: int, fn: Callable[[Rig], None]) -> None:
        heapq.heappush(self._events, (ms, next(self._order), fn))

    def press(self, side: int, hold_ms: int = 60) -> None:
        """Hold button ``side`` (0 left .. 3 judge) from now for ``hold_ms``."""
        self.levels[side] = True
        self.pressed += 1
        self.at(self.now + hold_ms, lambda r: r.levels.__setitem__(side, False))

    def reset(self, boot_id: int) -> None:
        """A controller reset: the MCU loses its RAM (session, queue) and its clock restarts."""
        self.fw = ClockFirmware(self._read, self._write, boot_id, self.debounce_ms)
        self.mcu_base = -self.now
        self.to_fw.clear()

    def inject(self, frame: bytes) -> None:
        """Bytes on the line towards the host (a forged or stale frame)."""
        self.to_host.extend(frame)

    def advance(self, n: int) -> bytes:
        with self.lock:
            self.now += 1
            while self._events and self._events[0][0] <= self.now:
                _, _, fn = heapq.heappop(self._events)
                fn(self)
            out = self.fw.step(self.now + self.mcu_base, bytes(self.to_fw))
            self.to_fw.clear()
            if self.wire_up:
                self._held.extend(out)
            if not self.late:
                self.to_host.extend(self._held)
                self._held.clear()
            if self.link.connected and (not self.connected_at or self.connected_at[-1] < 0):
                self.connected_at.append(self.now)
            elif not self.link.connected and self.connected_at and self.connected_at[-1] >= 0:
                self.connected_at.append(-self.now)
            data = bytes(self.to_host[:n])
            del self.to_host[:n]
            return data

    def run_until(self, ms: int, timeout_s: float = 60) -> list:
        """Start the host (once), run the simulated time to ``ms``; returns the presses polled meanwhile."""
        self.link.start()
        presses: list = []
        assert wait_until(lambda: bool(presses.extend(self.link.poll())) or self.now >= ms, timeout_s, 0.005), \
            f"simulated time stuck at {self.now} ms"
        presses += self.link.poll()
        return presses

    def close(self) -> None:
        self.link.close()
